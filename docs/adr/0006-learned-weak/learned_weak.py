#!/usr/bin/env python3
"""A learned weak_match flag, measured offline (docs/adr/0006, session-21 addendum).

A classifier reads the first candidate of a single request: ADR 0017's 51 features (BM25F's
parts per term class x field over the first score, the multipliers, coverage, intents, effect)
and seven of the request (ln(1 + first score), second / first and fifth / first score, number of
candidates, the idf of the user's words the catalog uses, the idf the first hit covers, the count
of the user's words the catalog never uses). It says whether the request is one of the abstain
cases. Its flag replaces ADR 0006's first-hit rule for single requests answered by the retriever.

    python3 learned_weak.py cv WORK [--rate R]
        dev-5056, 5 folds by annotator set (pairs out of fold): today's flags against the
        classifier's; prints the threshold;
    python3 learned_weak.py apply WORK NAME FEATURES.jsonl QRELS [CATALOG] [--rate R]
        trained on all of dev, threshold from cv, applied to another set: today's flags (eval
        --json) against the classifier's, per id prefix, and the ids whose flag changed.

    python3 learned_weak.py export WORK OUT.txt SOURCE_HASH [--rate R]
        trained on all of dev, threshold from cv: the model in the text form the engine compiles
        in (src/retrieve/weak_model.txt), bound to the catalog whose source_hash is SOURCE_HASH.

The threshold flags the share R of dev's answerable single requests (cross-validated); without
--rate, the share today's rule flags there (0.0628).

WORK holds run.sh's files (dev_oof.jsonl with abstain cases, dev_fold{0,1}.json, pairs_{0,1}.txt).
Needs numpy and scikit-learn (1.9.1 here). Set TOOLSEARCH to the binary (default
target/release/toolsearch).
"""
import collections
import hashlib
import json
import math
import os
import subprocess
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '0017-learned-rerank'))
import export_model  # noqa: E402
import learned_rerank  # noqa: E402

BIN = os.environ.get('TOOLSEARCH', 'target/release/toolsearch')


def model():
    return HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_depth=4, max_leaf_nodes=16,
                                          min_samples_leaf=40, random_state=0)


def today_flags(qrels, catalog=None, params=()):
    """Each case's weak_match (or abstained) and answer strategy, from `eval --json`, under ADR
    0006's first-hit rule (`learned_weak=false`: the engine before the learned flag)."""
    params = ('learned_weak=false',) + tuple(params)
    command = [BIN, 'eval', '--qrels', qrels, '--json'] + [x for p in params for x in ('--param', p)]
    if catalog:
        command[2:2] = ['--catalog', catalog]
    report = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    return {p['id']: (bool(p.get('weak_match') or p.get('abstained')), p.get('strategy')) for p in report['per_case']}


def request_features(rows):
    first = learned_rerank.features(rows)[0]
    scores = [r['score'] for r in rows]
    top = rows[0]
    ratio = lambda k: scores[k] / scores[0] if len(scores) > k and scores[0] else 0.0  # noqa: E731
    return list(first) + [math.log1p(scores[0]), ratio(1), len(rows), top['own_idf'], top['covered'],
                          top['unknown'], ratio(4)]


def matrix(features_path, qrels, flags):
    """One row per single request with candidates: features, abstain label, today's flag, id, and
    whether the retriever answered it (an exact-guard answer keeps today's flag)."""
    cases = {c['id']: c for c in json.load(open(qrels, encoding='utf-8'))['cases']}
    by = collections.OrderedDict()
    for line in open(features_path, encoding='utf-8'):
        row = json.loads(line)
        by.setdefault(row['id'], []).append(row)
    rows = []
    for cid, candidates in by.items():
        candidates[0]['has_forbidden'] = bool(cases[cid].get('forbidden'))
        flag, strategy = flags[cid]
        rows.append((request_features(candidates), int(cases[cid].get('expect') == 'abstain'), flag, cid,
                     not strategy.startswith(('exact', 'decomposed'))))
    singles = [cid for cid, c in cases.items() if not c.get('workflow')]
    missing = [cid for cid in singles if cid not in by]
    x = np.array([r[0] for r in rows])
    return x, np.array([r[1] for r in rows]), np.array([r[2] for r in rows]), [r[3] for r in rows], \
        np.array([r[4] for r in rows]), missing


def dev(work):
    flags = {}
    for fold in (0, 1):
        flags.update(today_flags(f'{work}/dev_fold{fold}.json', params=(f'learned_pairs={work}/pairs_{1 - fold}.txt',)))
    return matrix(f'{work}/dev_oof.jsonl', 'qrels/dev.json', flags)


def threshold(x, y, flag, ids, rate=None):
    """Cross-validated predictions; the threshold that flags the share `rate` of answerable requests
    (by default today's share)."""
    folds = np.array([int(hashlib.md5(i.split('-')[0].encode()).hexdigest(), 16) % 5 for i in ids])
    predicted = np.zeros(len(y))
    for f in range(5):
        train, held = folds != f, folds == f
        predicted[held] = model().fit(x[train], y[train]).predict_proba(x[held])[:, 1]
    answerable = y == 0
    share = flag[answerable].mean() if rate is None else rate
    return float(np.quantile(predicted[answerable], 1 - share)), predicted


def main():
    args = sys.argv[1:]
    rate = None
    if '--rate' in args:
        at = args.index('--rate')
        rate = float(args[at + 1])
        del args[at:at + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    command, work = args[0], args[1]
    x, y, flag, ids, lexical, missing = dev(work)
    cut, predicted = threshold(x, y, flag, ids, rate)
    abstain, answerable = y == 1, y == 0
    if command == 'cv':
        print(f'dev: {abstain.sum()} abstain, {answerable.sum()} answerable single requests ({len(missing)} without candidates)')
        print(f'  today:      abstain flagged {flag[abstain].sum()} ({flag[abstain].mean():.3f}), '
              f'answerable flagged {flag[answerable].sum()} ({flag[answerable].mean():.4f})')
        mine = np.where(lexical, predicted > cut, flag)
        print(f'  classifier: abstain flagged {mine[abstain].sum()} ({mine[abstain].mean():.3f}), '
              f'answerable flagged {mine[answerable].sum()} ({mine[answerable].mean():.4f}); threshold {cut:.4f}')
        for label, keep in (('A- to D-', lambda p: p in ('A', 'B', 'C', 'D')), ('single-letter sets', lambda p: len(p) == 1),
                            ('the others', lambda p: len(p) > 1)):
            mask = np.array([keep(i.split('-')[0]) for i in ids])
            print(f'  {label}: abstain {flag[abstain & mask].sum()} -> {mine[abstain & mask].sum()} of {(abstain & mask).sum()}, '
                  f'answerable flagged {flag[answerable & mask].sum()} -> {mine[answerable & mask].sum()} of {(answerable & mask).sum()}')
    elif command == 'apply':
        name, features_path, qrels = args[2], args[3], args[4]
        catalog = args[5] if len(args) > 5 else None
        fitted = model().fit(x, y)
        ox, oy, oflag, oids, olexical, omissing = matrix(features_path, qrels, today_flags(qrels, catalog))
        mine = np.where(olexical, fitted.predict_proba(ox)[:, 1] > cut, oflag)
        a, n = oy == 1, oy == 0
        print(f'{name}: {a.sum()} abstain, {n.sum()} answerable single requests ({len(omissing)} without candidates, '
              f'{(~olexical).sum()} not answered by the retriever); threshold {cut:.4f}')
        print(f'  today:      abstain flagged {oflag[a].sum()}, answerable flagged {oflag[n].sum()}')
        print(f'  classifier: abstain flagged {mine[a].sum()}, answerable flagged {mine[n].sum()}')
        prefixes = np.array([i.split('-')[0] for i in oids])
        for p in sorted(set(prefixes)):
            m = prefixes == p
            print(f'    {p}: abstain {oflag[a & m].sum()} -> {mine[a & m].sum()} of {(a & m).sum()}, '
                  f'answerable flagged {oflag[n & m].sum()} -> {mine[n & m].sum()} of {(n & m).sum()}')
        changed = [(i, bool(t), bool(c), 'abstain' if yy else 'answerable')
                   for i, t, c, yy in zip(oids, oflag, mine, oy) if t != c]
        print('  changed flags (id, today -> classifier, kind):')
        for i, t, c, kind in changed:
            print(f'    {i}: {t} -> {c} ({kind})')
    elif command == 'export':
        out, source_hash = args[2], args[3]
        export_model.write_engine_model(out, model().fit(x, y), source_hash, cut, x.shape[1])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
