#!/usr/bin/env python3
"""Session 22's dev explorations of the learned weak flag (ADR 0006, session-22 addendum): none
became a candidate, and no unread set was read.

    python3 explore_s22.py features WORK VARIANT     # VARIANT: base, prod, cov, lang, second, prodcov
    python3 explore_s22.py general-idf WORK          # jieba's general idf of the Han words the catalog lacks
    python3 explore_s22.py rates WORK                # the cross-validated trade-off at 3-20 % flagged
    python3 explore_s22.py union WORK                # trained on dev plus the spent blind sets

WORK holds run.sh's files, plus holdout-fresh.jsonl and holdout-ranking.jsonl written the same way
(FEATURES=1 toolsearch why --qrels qrels/holdout-{fresh,ranking}.json --case x with features.patch).
Run from the repository root with TOOLSEARCH set, like learned_weak.py.
"""
import glob
import hashlib
import json
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '0017-learned-rerank'))
import learned_rerank  # noqa: E402
import learned_weak as lw  # noqa: E402

BASE = lw.request_features


def with_variant(variant):
    """Extra request features after learned_weak.py's 58."""
    def features(rows):
        top5 = rows[:5]
        products = [r['product'] for r in top5]
        cover = [r['covered'] / r['own_idf'] if r['own_idf'] else 0.0 for r in top5]
        extra = []
        if 'prod' in variant:
            extra += [len(set(products)), float(len(rows) > 1 and rows[0]['product'] == rows[1]['product']),
                      sum(p == products[0] for p in products)]
        if 'cov' in variant:
            extra += [max(cover) - cover[0], float(np.mean(cover)), cover[1] if len(cover) > 1 else 0.0]
        if 'lang' in variant:
            extra += [float('English' in rows[0]['lang']), float('Chinese' in rows[0]['lang'])]
        if 'second' in variant:
            first = learned_rerank.features(rows)
            extra += list(first[1]) if len(first) > 1 else [0.0] * len(first[0])
        return BASE(rows) + extra
    return features


def general_idf():
    """jieba's general-language idf of the request's Han words (two characters or more) that no
    catalog text holds: their count, max, sum and share."""
    import jieba
    jieba.setLogLevel(60)
    jieba.initialize()
    freq, total = jieba.dt.FREQ, jieba.dt.total
    vocabulary = set()
    for path in glob.glob('catalog/*.json'):
        for product in json.load(open(path, encoding='utf-8'))['products']:
            for tool in product['tools']:
                texts = [tool.get('title', ''), tool.get('agent_summary', ''), tool.get('description', '')]
                texts += (tool.get('use_when') or []) + (tool.get('examples') or [])
                texts += [p.get('description', '') for p in (tool.get('parameters') or {}).values()]
                for text in texts:
                    vocabulary.update(w.lower() for w in jieba.lcut(text))
    han = re.compile('[\u4e00-\u9fff]')
    queries = {c['id']: c['query'] for c in json.load(open('qrels/dev.json', encoding='utf-8'))['cases']}

    def features(rows):
        words = [w for w in jieba.lcut(queries[rows[0]['id']]) if han.search(w) and len(w) >= 2]
        unknown = [w for w in words if w not in vocabulary]
        idf = [math.log(total / freq[w]) for w in unknown if freq.get(w)]
        return BASE(rows) + [len(unknown), max(idf, default=0.0), sum(idf), len(unknown) / len(words) if words else 0.0]
    return features


def dev_flags(work, rates):
    x, y, flag, ids, lexical, _ = lw.dev(work)
    abcd = np.array([len(i.split('-')[0]) == 1 and i.split('-')[0] in 'ABCD' for i in ids])
    for rate in rates:
        cut, predicted = lw.threshold(x, y, flag, ids, rate)
        mine = np.where(lexical, predicted > cut, flag)
        print(f'  {rate}: abstain {mine[y == 1].sum()} of {(y == 1).sum()}, answerable {mine[y == 0].sum()} of '
              f'{(y == 0).sum()}, A- to D- abstain {mine[(y == 1) & abcd].sum()} of {((y == 1) & abcd).sum()}')


def union(work, rate=0.05):
    """Out-of-sample flags of today's model (dev only: cross-validated on dev, trained on all of
    dev for the spent sets) against a model trained on dev plus the spent sets (5 folds by annotator
    set over the union), at the threshold that flags `rate` of dev's answerable requests."""
    extra_sets = [('spent', f'{work}/spent.jsonl', f'{work}/spent.json'),
                  ('holdout-abstain', f'{work}/holdout-abstain.jsonl', 'qrels/holdout-abstain.json'),
                  ('holdout-fresh', f'{work}/holdout-fresh.jsonl', 'qrels/holdout-fresh.json'),
                  ('holdout-ranking', f'{work}/holdout-ranking.jsonl', 'qrels/holdout-ranking.json')]
    x, y, flag, ids, lexical, _ = lw.dev(work)
    parts = [(name,) + lw.matrix(path, qrels, lw.today_flags(qrels))[:5] for name, path, qrels in extra_sets]
    ex = np.vstack([p[1] for p in parts])
    ey, eflag, elexical = (np.concatenate([p[k] for p in parts]) for k in (2, 3, 5))
    eids = [i for p in parts for i in p[4]]
    source = np.array([p[0] for p in parts for _ in p[2]])
    fold = lambda i: int(hashlib.md5(i.split('-')[0].encode()).hexdigest(), 16) % 5  # noqa: E731
    cut_a, dev_a = lw.threshold(x, y, flag, ids, rate)
    extra_a = lw.model().fit(x, y).predict_proba(ex)[:, 1]
    ux, uy = np.vstack([x, ex]), np.concatenate([y, ey])
    folds = np.array([fold(i) for i in ids + eids])
    predicted = np.zeros(len(uy))
    for f in range(5):
        train, held = folds != f, folds == f
        predicted[held] = lw.model().fit(ux[train], uy[train]).predict_proba(ux[held])[:, 1]
    dev_b, extra_b = predicted[:len(y)], predicted[len(y):]
    cut_b = float(np.quantile(dev_b[y == 0], 1 - rate))
    for label, on_dev, on_extra, cut in (('dev only', dev_a, extra_a, cut_a), ('dev + spent', dev_b, extra_b, cut_b)):
        mine = np.where(lexical, on_dev > cut, flag)
        other = np.where(elexical, on_extra > cut, eflag)
        line = f'  {label}: dev abstain {mine[y == 1].sum()}, answerable {mine[y == 0].sum()}'
        for name, *_ in extra_sets:
            m = source == name
            line += f' | {name} {other[(ey == 1) & m].sum()} of {((ey == 1) & m).sum()}, {other[(ey == 0) & m].sum()} of {((ey == 0) & m).sum()}'
        print(line)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    command, work = sys.argv[1], sys.argv[2]
    if command == 'features':
        variant = sys.argv[3] if len(sys.argv) > 3 else 'base'
        lw.request_features = with_variant(variant)
        print(variant)
        dev_flags(work, (0.05, 0.0628))
    elif command == 'general-idf':
        lw.request_features = general_idf()
        dev_flags(work, (0.05, 0.0628))
    elif command == 'rates':
        dev_flags(work, (0.03, 0.05, 0.08, 0.10, 0.15, 0.20))
    elif command == 'union':
        union(work)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
