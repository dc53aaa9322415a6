#!/usr/bin/env python3
"""A learned reranker over the top 20 of today's ranking, measured offline (docs/adr/0017).

Reads the JSON lines that `features.patch` makes `toolsearch why` write (one line per request and
candidate: rank, judged relevance, forbidden or not, score, multipliers, coverage, the intents, the
tool's effect, and the score's parts per term class x field). Term classes: the request's own
words, its own Han n-grams and other `#` terms, lexicon expansions, learned pairs, other joined
terms. Fields: identity, summary, description, parameters, use_when.

    python3 learned_rerank.py cv TRAIN.jsonl QRELS [lr|gb|gb-large]
        5-fold cross-validation by annotator set (md5 of the id prefix, mod 5), overall and per
        language;
    python3 learned_rerank.py apply TRAIN.jsonl TRAIN_QRELS OTHER.jsonl OTHER_QRELS [lr|gb]
        trained on all of TRAIN, applied to OTHER (another set, or another catalog);
    python3 learned_rerank.py importance TRAIN.jsonl QRELS
        permutation importance of each feature for R@1, averaged over the five folds.

Every figure is over answerable single requests: R@1, R@5, MRR@10 within the top 20 (a request
whose relevant tool is not in the top 20 counts as a miss), and Forbidden@5 over those with
forbidden tools. Needs numpy and scikit-learn (1.9.1 here).
"""
import collections
import hashlib
import json
import math
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

EFFECTS = ['Read', 'Write', 'Destructive', 'none']
CLASSES = ['own word', 'own #term', 'lexicon', 'learned', 'other joined']
FIELDS = ['identity', 'summary', 'description', 'parameters', 'use_when']
NAMES = ([f'{c} / {f}' for c in CLASSES for f in FIELDS] + [f'{c} (all fields)' for c in CLASSES]
         + [f'{f} (all classes)' for f in FIELDS]
         + ['score / first score', 'ln(1 + score)', 'intent multiplier', 'coordination factor',
            'coverage', 'unknown words', '1 / rank', 'destructive penalised', 'read-only', 'change']
         + [f'effect {e}' for e in EFFECTS] + ['destructive tool, penalised', 'changing tool, read-only'])


def load(path, qrels):
    """The candidates of each request, in the file's order, each request's first row marked with
    whether the case has forbidden tools."""
    cases = {c['id']: c for c in json.load(open(qrels, encoding='utf-8'))['cases']}
    by = collections.OrderedDict()
    for line in open(path, encoding='utf-8'):
        row = json.loads(line)
        by.setdefault(row['id'], []).append(row)
    for cid, rows in by.items():
        rows[0]['has_forbidden'] = bool(cases[cid].get('forbidden'))
    return by


def features(rows):
    top = max(r['score'] for r in rows) or 1.0
    out = []
    for r in rows:
        parts = np.array(r['parts'])
        f = list((parts / top).ravel()) + list(parts.sum(axis=1) / top) + list(parts.sum(axis=0) / top)
        f += [r['score'] / top, math.log1p(r['score']), r['intent'], r['coord'],
              r['covered'] / (r['own_idf'] or 1), r['unknown'], 1.0 / r['rank'],
              float(r['pen_d']), float(r['ro']), float(r['chg'])]
        f += [float(r['effect'] == e) for e in EFFECTS]
        f += [float(r['effect'] == 'Destructive' and r['pen_d']), float(r['effect'] != 'Read' and r['ro'])]
        out.append(f)
    return np.array(out)


def matrix(by):
    xs, ys, ids = [], [], []
    for cid, rows in by.items():
        xs.append(features(rows))
        ys += [int(r['rel'] >= 1) for r in rows]
        ids += [cid] * len(rows)
    return np.vstack(xs), np.array(ys), ids


def figures(by, scores):
    """R@1, R@5, MRR@10 and Forbidden@5 of `by`'s requests, each ordered by `scores` (ties by
    today's rank)."""
    n = r1 = r5 = mrr = with_forbidden = forbidden5 = 0
    at = 0
    for rows in by.values():
        s = scores[at:at + len(rows)]
        at += len(rows)
        order = sorted(range(len(rows)), key=lambda i: (-s[i], rows[i]['rank']))
        relevant = [rows[i]['rel'] >= 1 for i in order]
        n += 1
        r1 += relevant[0]
        r5 += any(relevant[:5])
        mrr += next((1 / (k + 1) for k, x in enumerate(relevant[:10]) if x), 0)
        if rows[0]['has_forbidden']:
            with_forbidden += 1
            forbidden5 += any(rows[i]['forb'] for i in order[:5])
    return n, r1 / n, r5 / n, mrr / n, forbidden5 / max(with_forbidden, 1)


def metrics(by, scores):
    n, r1, r5, mrr, forbidden5 = figures(by, scores)
    return f'{n} requests: R@1 {r1:.4f}  R@5 {r5:.4f}  MRR@10 {mrr:.4f}  Forbidden@5 {forbidden5:.4f}'


def today(by):
    return [-r['rank'] for rows in by.values() for r in rows]


def fold(case_id):
    return int(hashlib.md5(case_id.split('-')[0].encode()).hexdigest(), 16) % 5


def model(kind):
    if kind == 'lr':
        return LogisticRegression(C=1.0, max_iter=2000)
    if kind == 'gb-large':
        return HistGradientBoostingClassifier(max_iter=400, learning_rate=0.03, max_leaf_nodes=31,
                                              min_samples_leaf=20, random_state=0)
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                          min_samples_leaf=40, random_state=0)


def cross_validated(x, y, ids, kind):
    folds = np.array([fold(cid) for cid in ids])
    predicted = np.zeros(len(y))
    for f in range(5):
        train, held = folds != f, folds == f
        predicted[held] = model(kind).fit(x[train], y[train]).predict_proba(x[held])[:, 1]
    return predicted


def by_language(by, scores):
    groups = collections.defaultdict(lambda: (collections.OrderedDict(), []))
    at = 0
    for cid, rows in by.items():
        sub, s = groups[rows[0]['lang']]
        sub[cid] = rows
        s.extend(scores[at:at + len(rows)])
        at += len(rows)
    return groups


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    command = sys.argv[1]
    train = load(sys.argv[2], sys.argv[3])
    x, y, ids = matrix(train)
    if command == 'cv':
        kind = sys.argv[4] if len(sys.argv) > 4 else 'gb'
        predicted = cross_validated(x, y, ids, kind)
        print('today  ', metrics(train, today(train)))
        print(f'{kind:7s}', metrics(train, predicted))
        before, after = by_language(train, today(train)), by_language(train, list(predicted))
        for lang in sorted(before):
            print(f'  {lang}: today {metrics(*before[lang])}')
            print(f'  {" " * len(lang)}  {kind:5s} {metrics(*after[lang])}')
    elif command == 'apply':
        other = load(sys.argv[4], sys.argv[5])
        kind = sys.argv[6] if len(sys.argv) > 6 else 'gb'
        xo, _, _ = matrix(other)
        fitted = model(kind).fit(x, y)
        print('today  ', metrics(other, today(other)))
        print(f'{kind:7s}', metrics(other, list(fitted.predict_proba(xo)[:, 1])))
    elif command == 'importance':
        folds = np.array([fold(cid) for cid in ids])
        drop = collections.defaultdict(float)
        rng = np.random.default_rng(0)
        for f in range(5):
            train_rows, held = folds != f, folds == f
            fitted = model('gb').fit(x[train_rows], y[train_rows])
            sub = collections.OrderedDict((cid, rows) for cid, rows in train.items() if fold(cid) == f)
            base = figures(sub, fitted.predict_proba(x[held])[:, 1])[1]
            for j, name in enumerate(NAMES):
                shuffled = x[held].copy()
                shuffled[:, j] = rng.permutation(shuffled[:, j])
                drop[name] += base - figures(sub, fitted.predict_proba(shuffled)[:, 1])[1]
        for name, value in sorted(drop.items(), key=lambda kv: -kv[1])[:15]:
            print(f'{value / 5:+.4f}  {name}')
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
