#!/usr/bin/env python3
"""A sure answer offers only its first tool (docs/adr/0018, pre-registration 93).

A classifier reads the same 58 features of a single request's first candidate as ADR 0006's learned
weak flag (`learned_weak.py`'s `request_features`) and says whether that candidate is judged
relevant. When its probability exceeds TAU (0.98) and the answer is not a weak match, the answer
keeps only its first candidate.

    python3 learned_sure.py cv WORK
        dev-5056's answerable single requests, 5 folds by annotator set (pairs out of fold): what a
        cut at several thresholds would cost in recall@5 and buy in Forbidden@5 (keeping one, or two);
    python3 learned_sure.py apply WORK FEATURES.jsonl QRELS [CATALOG]
        trained on all of dev, applied to another set by simulation: `eval --json` of the engine with
        the cut switched off (`learned_sure=false`), a cut answer keeping its first candidate; prints
        R@1, R@5, MRR@10 and Forbidden@5 before and after, and writes nothing;
    python3 learned_sure.py export WORK OUT.txt SOURCE_HASH
        trained on all of dev: the model in the text form the engine compiles in
        (src/retrieve/sure_model.txt), bound to the catalog whose source_hash is SOURCE_HASH.

WORK holds ADR 0006's run.sh files (dev_oof.jsonl, dev_fold{0,1}.json, pairs_{0,1}.txt). Needs numpy and
scikit-learn (1.9.1 here). Set TOOLSEARCH to the binary (default target/release/toolsearch).
"""
import collections
import hashlib
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '0006-learned-weak'))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '0017-learned-rerank'))
import export_model  # noqa: E402
import learned_weak as lw  # noqa: E402

TAU = 0.98
BIN = os.environ.get('TOOLSEARCH', 'target/release/toolsearch')


def rows_by(path):
    by = collections.OrderedDict()
    for line in open(path, encoding='utf-8'):
        row = json.loads(line)
        by.setdefault(row['id'], []).append(row)
    return by


def dev(work):
    """Dev's answerable single requests with candidates: features, label (first candidate
    relevant), id, and what a cut would leave (relevant / forbidden within the first 1, 2, 5)."""
    cases = {c['id']: c for c in json.load(open('qrels/dev.json', encoding='utf-8'))['cases']}
    x, y, ids, outcome = [], [], [], []
    for cid, rows in rows_by(f'{work}/dev_oof.jsonl').items():
        case = cases[cid]
        if case.get('expect') == 'abstain' or not case['qrels']:
            continue
        rows[0]['has_forbidden'] = bool(case.get('forbidden'))
        x.append(lw.request_features(rows))
        y.append(int(rows[0]['rel'] > 0))
        ids.append(cid)
        rel = [r['rel'] > 0 for r in rows]
        forb = [r['forb'] for r in rows]
        outcome.append([any(rel[:1]), any(rel[:2]), any(rel[:5]), any(forb[:1]), any(forb[:2]), any(forb[:5]),
                        bool(case.get('forbidden'))])
    return np.array(x), np.array(y), ids, np.array(outcome)


def fitted(work):
    x, y, _, _ = dev(work)
    return lw.model().fit(x, y)


def cv(work):
    x, y, ids, outcome = dev(work)
    folds = np.array([int(hashlib.md5(i.split('-')[0].encode()).hexdigest(), 16) % 5 for i in ids])
    predicted = np.zeros(len(y))
    for f in range(5):
        train, held = folds != f, folds == f
        predicted[held] = lw.model().fit(x[train], y[train]).predict_proba(x[held])[:, 1]
    with_forbidden = outcome[:, 6].sum()
    print(f'dev: {len(y)} answerable single requests with candidates, {with_forbidden} with forbidden tools; '
          f'R@1 {y.mean():.4f}, R@5 {outcome[:, 2].mean():.4f}, Forbidden@5 {outcome[:, 5].sum()} ({outcome[:, 5].sum() / with_forbidden:.4f})')
    for keep in (1, 2):
        for tau in (0.9, 0.95, 0.97, 0.98, 0.99):
            cut = predicted > tau
            recall = np.where(cut, outcome[:, keep - 1], outcome[:, 2])
            forbidden = np.where(cut, outcome[:, 2 + keep], outcome[:, 5])
            print(f'  keep {keep}, above {tau}: {cut.sum()} cut ({(cut & (y == 0)).sum()} with a wrong first tool), '
                  f'R@5 {recall.sum() - outcome[:, 2].sum():+d}, Forbidden@5 {forbidden.sum() - outcome[:, 5].sum():+d}')


def apply(work, features, qrels, catalog=None):
    model = fitted(work)
    cases = {c['id']: c for c in json.load(open(qrels, encoding='utf-8'))['cases']}
    command = [BIN, 'eval', '--qrels', qrels, '--json', '--param', 'learned_sure=false']
    if catalog:
        command[2:2] = ['--catalog', catalog]
    per_case = {p['id']: p for p in json.loads(subprocess.run(command, capture_output=True, check=True).stdout)['per_case']}
    cut = set()
    for cid, rows in rows_by(features).items():
        answer = per_case[cid]
        if answer['strategy'].startswith(('exact', 'decomposed')) or answer.get('weak_match') or answer.get('abstained'):
            continue
        rows[0]['has_forbidden'] = bool(cases[cid].get('forbidden'))
        if model.predict_proba(np.array([lw.request_features(rows)]))[0, 1] > TAU:
            cut.add(cid)

    def figures(cutting):
        def returned(cid):
            return per_case[cid]['returned'][:1] if cutting and cid in cut else per_case[cid]['returned']

        def rank(case):
            relevant = {j['canonical'] for j in case['qrels'] if j['relevance'] >= 1}
            return next((k + 1 for k, tool in enumerate(returned(case['id'])[:10]) if tool in relevant), None)
        ranks = [rank(c) for c in cases.values() if c['qrels'] and c.get('expect') != 'abstain']
        with_forbidden = [c for c in cases.values() if c.get('forbidden')]
        shown = sum(any(f in returned(c['id'])[:5] for f in c['forbidden']) for c in with_forbidden)
        return (sum(r == 1 for r in ranks), sum(r is not None and r <= 5 for r in ranks), len(ranks),
                sum(1 / r for r in ranks if r) / len(ranks), shown, len(with_forbidden))
    before, after = figures(False), figures(True)
    print(f'{qrels}: {len(cut)} single answers cut to their first tool; R@1 {before[0]} -> {after[0]} of {before[2]}, '
          f'R@5 {before[1]} -> {after[1]}, MRR@10 {before[3]:.4f} -> {after[3]:.4f}, Forbidden@5 {before[4]} -> {after[4]} of {before[5]}')
    print('  cut: ' + ' '.join(sorted(cut)))


def export(work, out, source_hash):
    export_model.write_engine_model(out, fitted(work), source_hash, TAU, 58)


def run_cli(doc, cv_, apply_, export_):
    """The command line this script and ADR 0019's `learned_tail.py` share: `cv WORK`, `apply WORK
    FEATURES QRELS [CATALOG]`, `export WORK OUT SOURCE_HASH`; `doc` is the usage text."""
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(doc)
    command, work = args[0], args[1]
    if command == 'cv':
        cv_(work)
    elif command == 'apply' and len(args) >= 4:
        apply_(work, *args[2:5])
    elif command == 'export' and len(args) == 4:
        export_(work, args[2], args[3])
    else:
        sys.exit(doc)


def main():
    run_cli(__doc__, cv, apply, export)


if __name__ == '__main__':
    main()
