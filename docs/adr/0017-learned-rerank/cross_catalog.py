#!/usr/bin/env python3
"""ADR 0017, cross-catalog addendum: the reranker trained on every catalog family but one, applied
to the one left out (leave one family out). Families: our catalog (dev, pairs out of fold), FRA,
FEA, BFCL, ACEBench zh, ACEBench en. BFCL pool_600 is judged with a model that never saw BFCL
(its requests are a subset of BFCL all's).

    python3 cross_catalog.py OUT SHARED [gb|lr|gb-large]

OUT holds run.sh's and cross_catalog.sh's feature files; SHARED is ../shared/evaldata.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import learned_rerank as L  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, shared = sys.argv[1], sys.argv[2]
    kind = sys.argv[3] if len(sys.argv) > 3 else 'gb'
    sets = {  # name: (features, qrels, family)
        'dev': (f'{out}/dev_oof.jsonl', 'qrels/dev.json', 'ours'),
        'fra': (f'{out}/fra.jsonl', 'qrels/foreign/dev.json', 'fra'),
        'fea': (f'{out}/fea.jsonl', 'qrels/imported/dev.json', 'fea'),
        'bfcl_all': (f'{out}/bfcl_all.jsonl', f'{shared}/bfcl/all.name-lenient.qrels.json', 'bfcl'),
        'bfcl600': (f'{out}/bfcl600.jsonl', f'{shared}/bfcl/pool_600.name-lenient.qrels.json', 'bfcl'),
        'acezh': (f'{out}/acezh.jsonl', f'{shared}/acebench/zh/all.qrels.json', 'acezh'),
        'aceen': (f'{out}/aceen.jsonl', f'{shared}/acebench/en/all.qrels.json', 'aceen'),
    }
    trainable = ['dev', 'fra', 'fea', 'bfcl_all', 'acezh', 'aceen']
    shared_sets = ('bfcl_all', 'acezh', 'aceen')
    data = {}
    for name, (features, qrels, family) in sets.items():
        by = L.load(features, qrels)
        x, y, _ = L.matrix(by)
        data[name] = (by, x, y, family)

    def fit(names):
        x = np.vstack([data[n][1] for n in names])
        y = np.concatenate([data[n][2] for n in names])
        return L.model(kind).fit(x, y)

    def show(target, fitted, label):
        by, x = data[target][0], data[target][1]
        print(f'  {label:28s}', L.metrics(by, list(fitted.predict_proba(x)[:, 1])))

    for target in ['fra', 'fea', 'bfcl600', 'acezh', 'aceen', 'dev']:
        by, _, _, family = data[target]
        print(f'== {target}')
        print(f'  {"today":28s}', L.metrics(by, L.today(by)))
        others = [n for n in trainable if data[n][3] != family]
        if target != 'dev':
            show(target, fit(['dev']), 'trained on dev only')
        show(target, fit(others), 'all other families')
        show(target, fit([n for n in others if n in shared_sets]), 'other shared sets only')


if __name__ == '__main__':
    main()
