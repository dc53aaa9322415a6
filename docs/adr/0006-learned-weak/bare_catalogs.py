#!/usr/bin/env python3
"""A second weak model, for catalogs without use_when (ADR 0006's addendum of session 24; a dev
exploration, not a candidate). Trained on dev's features over the `imported_like` copy of the
embedded catalog (learned pairs out of fold), measured cross-validated there, then applied to the
other catalogs without use_when.

    python3 docs/adr/0006-learned-weak/bare_catalogs.py WORK OUT [RATE]

WORK holds run.sh's files (dev_fold{0,1}.json, pairs_{0,1}.txt, var/imported_like.json); OUT the
features this needs, written with features.patch's binary (TOOLSEARCH) in a scratch worktree:
    FEATURES=1 $T why --catalog WORK/var/imported_like.json --qrels WORK/dev_fold0.json --case x \
        --param learned_pairs=WORK/pairs_1.txt > OUT/dev_oof.jsonl    (and fold 1 with pairs_0, >>)
    FEATURES=1 $T why --catalog WORK/var/imported_like.json --qrels qrels/holdout-abstain.json --case x > OUT/ha.jsonl
    FEATURES=1 $T why --catalog qrels/imported/catalog --qrels qrels/imported/dev.json --case x > OUT/fea.jsonl
    FEATURES=1 $T why --catalog SHARED/bfcl/pool_600.catalog.json \
        --qrels SHARED/bfcl/pool_600.name-lenient.qrels.json --case x > OUT/bfcl.jsonl
    (and ACEBench en and zh all to OUT/aceen.jsonl, OUT/acezh.jsonl)
Run from the repository root; SHARED names the shared evaluation data (default ../shared/evaldata).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import learned_weak as lw  # noqa: E402

W, O = sys.argv[1], sys.argv[2]
CAT = f'{W}/var/imported_like.json'


def flags(qrels, catalog, params=()):
    return lw.today_flags(qrels, catalog, params)


f = {}
for fold in (0, 1):
    f.update(flags(f'{W}/dev_fold{fold}.json', CAT, (f'learned_pairs={W}/pairs_{1-fold}.txt',)))
x, y, flag, ids, lexical, missing = lw.matrix(f'{O}/dev_oof.jsonl', 'qrels/dev.json', f)
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
cut, pred = lw.threshold(x, y, flag, ids, rate)
a, n = y == 1, y == 0
mine = np.where(lexical, pred > cut, flag)
print(f'dev over imported_like, cv, rate {rate}: today abstain {flag[a].sum()}/{a.sum()} answerable {flag[n].sum()}/{n.sum()}; model abstain {mine[a].sum()} answerable {mine[n].sum()} (threshold {cut:.4f})')
fitted = lw.model().fit(x, y)
S = os.environ.get('SHARED', '../shared/evaldata')
for name, feats, qrels, cat in [('holdout-abstain/imported_like', f'{O}/ha.jsonl', 'qrels/holdout-abstain.json', CAT),
                                ('FEA', f'{O}/fea.jsonl', 'qrels/imported/dev.json', 'qrels/imported/catalog'),
                                ('BFCL600', f'{O}/bfcl.jsonl', f'{S}/bfcl/pool_600.name-lenient.qrels.json', f'{S}/bfcl/pool_600.catalog.json'),
                                ('ACE en', f'{O}/aceen.jsonl', f'{S}/acebench/en/all.qrels.json', f'{S}/acebench/en/all.catalog.json'),
                                ('ACE zh', f'{O}/acezh.jsonl', f'{S}/acebench/zh/all.qrels.json', f'{S}/acebench/zh/all.catalog.json')]:
    ox, oy, oflag, oids, olex, omiss = lw.matrix(feats, qrels, flags(qrels, cat))
    m = np.where(olex, fitted.predict_proba(ox)[:, 1] > cut, oflag)
    a, n = oy == 1, oy == 0
    print(f'  {name}: today abstain {oflag[a].sum()}/{a.sum()} answerable {oflag[n].sum()}/{n.sum()}; model abstain {m[a].sum()} answerable {m[n].sum()}')
