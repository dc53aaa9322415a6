#!/usr/bin/env python3
"""A sure-enough answer drops the tools that look like tempting wrong ones (docs/adr/0019,
pre-registration 94).

A second classifier reads a single request's hits at ranks 2..5: the features the weak and sure
models read of a first hit (`learned_weak.py`'s `request_features`), computed for that hit, then
whether it shares the first hit's product and its effect, and its rank (61 features). It says
whether the hit is one of the case's forbidden tools. When an answer is no weak match and ADR
0018's sure model gives its first hit a probability above FLOOR (0.8) but not above its own
threshold (0.98), the answer is its first five hits less each hit at ranks 2..5 above TAU (0.3).

    python3 learned_tail.py cv WORK
        dev-5056's answerable single requests, 5 folds by annotator set (pairs out of fold), after
        the sure cut (also cross-validated): what dropping would cost in recall@5 and buy in
        Forbidden@5, by sure floor and threshold; per language at the chosen pair; and the
        alternatives measured before the rule (a classifier of relevance; the first hit's parts
        as more features; other forest sizes);
    python3 learned_tail.py apply WORK FEATURES.jsonl QRELS [CATALOG]
        both models trained on all of dev, applied to another set by simulation: `eval --json` of
        the engine without the sure cut and this one (`learned_sure=false`); prints R@5, MRR@10
        and Forbidden@5 after the sure cut alone and after this one too, with its grid, per
        language, and the ids of the answers that lost a hit;
    python3 learned_tail.py export WORK OUT.txt SOURCE_HASH
        trained on all of dev: the model in the text form the engine compiles in
        (src/retrieve/tail_model.txt), bound to the catalog whose source_hash is SOURCE_HASH.

WORK holds ADR 0006's run.sh files (dev_oof.jsonl, ...). Needs numpy and scikit-learn (1.9.1
here). Set TOOLSEARCH to the binary (default target/release/toolsearch).
"""
import collections
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '0006-learned-weak'))
sys.path.insert(0, os.path.join(HERE, '..', '0017-learned-rerank'))
sys.path.insert(0, os.path.join(HERE, '..', '0018-sure-answer'))
import export_model  # noqa: E402
import learned_rerank as lr  # noqa: E402
import learned_sure as ls  # noqa: E402
import learned_weak as lw  # noqa: E402

FLOOR = 0.8
TAU = 0.3
SURE = ls.TAU
BIN = os.environ.get('TOOLSEARCH', 'target/release/toolsearch')


def candidate_features(rows, k, own, request, first_parts=False):
    """The 61 features of rows[k]: its own 51 (ADR 0017's), the request's 7, same product and
    same effect as the first hit, and its rank."""
    row, first = rows[k], rows[0]
    x = list(own[k]) + list(request[51:])
    x += [float(row['product'] == first['product']), float(row['effect'] == first['effect']), float(k + 1)]
    if first_parts:
        x += list(own[0][:35])
    return x


def fold(cid):
    return int(hashlib.md5(cid.split('-')[0].encode()).hexdigest(), 16) % 5


def dev(work, first_parts=False):
    """Dev's answerable single requests: request features, first-hit label, first five rows; and
    the candidates at ranks 2..5 with features, forbidden label, relevance label, request index."""
    cases = {c['id']: c for c in json.load(open('qrels/dev.json', encoding='utf-8'))['cases']}
    req_x, req_y, ids, tops = [], [], [], []
    cand_x, forb, rel, of = [], [], [], []
    for cid, rows in ls.rows_by(f'{work}/dev_oof.jsonl').items():
        case = cases[cid]
        if case.get('expect') == 'abstain' or not case['qrels'] or case.get('workflow'):
            continue
        rows[0]['has_forbidden'] = bool(case.get('forbidden'))
        request = lw.request_features(rows)
        own = lr.features(rows)
        req_x.append(request)
        req_y.append(int(rows[0]['rel'] > 0))
        ids.append(cid)
        tops.append(rows[:5])
        for k in range(1, min(5, len(rows))):
            cand_x.append(candidate_features(rows, k, own, request, first_parts))
            forb.append(int(rows[k]['forb']))
            rel.append(int(rows[k]['rel'] > 0))
            of.append(len(ids) - 1)
    return (np.array(req_x), np.array(req_y), ids, tops, np.array(cand_x), np.array(forb), np.array(rel),
            np.array(of))


def model():
    return lw.model()


def fitted(work):
    req_x, req_y, _, tops, cand_x, forb, _, of = dev(work)
    with_forbidden = np.array([tops[q][0]['has_forbidden'] for q in of])
    return lw.model().fit(req_x, req_y), model().fit(cand_x[with_forbidden], forb[with_forbidden])


def outcome(tops, sure, dropped):
    """Per request (R@5 hit, MRR over the five, forbidden shown, has forbidden, language) after the
    sure cut and the drops."""
    out = []
    for q, rows in enumerate(tops):
        if sure[q] > SURE:
            shown = rows[:1]
        else:
            shown = [rows[0]] + [rows[k] for k in range(1, len(rows)) if (q, k) not in dropped]
        out.append((any(r['rel'] > 0 for r in shown),
                    next((1 / (i + 1) for i, r in enumerate(shown) if r['rel'] > 0), 0.0),
                    any(r['forb'] for r in shown), rows[0]['has_forbidden'],
                    rows[0]['lang'].removeprefix('Some(').removesuffix(')')))
    return out


def cv(work):
    req_x, req_y, ids, tops, cand_x, forb, rel, of = dev(work)
    folds = np.array([fold(i) for i in ids])
    cand_folds = folds[of]
    has_forbidden = np.array([tops[q][0]['has_forbidden'] for q in of])
    rank = np.array([k for q in range(len(tops)) for k in range(1, len(tops[q]))])
    sure = np.zeros(len(req_y))
    for f in range(5):
        train, held = folds != f, folds == f
        sure[held] = lw.model().fit(req_x[train], req_y[train]).predict_proba(req_x[held])[:, 1]

    def out_of_fold(make, x, y, train_on):
        p = np.zeros(len(y))
        for f in range(5):
            train, held = (cand_folds != f) & train_on, cand_folds == f
            p[held] = make().fit(x[train], y[train]).predict_proba(x[held])[:, 1]
        return p

    def change(dropped, base):
        after = outcome(tops, sure, dropped)
        return (sum(a[0] for a in after) - sum(b[0] for b in base), sum(a[2] for a in after) - sum(b[2] for b in base))

    base = outcome(tops, sure, set())
    print(f'dev: {len(tops)} answerable single requests, {int((sure > SURE).sum())} cut by the sure model; '
          f'{len(forb)} hits at ranks 2..5, {forb.sum()} forbidden, {rel.sum()} relevant; after the sure cut '
          f'R@5 {sum(b[0] for b in base)}, Forbidden@5 {sum(b[2] for b in base)} of {sum(b[3] for b in base)}')
    p = out_of_fold(model, cand_x, forb, has_forbidden)

    def drops(p_forb, floor, tau):
        return {(of[i], rank[i]) for i in range(len(p_forb)) if p_forb[i] > tau and sure[of[i]] > floor}
    print('R@5 / Forbidden@5 change, by sure floor (rows) and threshold (columns):')
    for floor in (0.0, 0.5, 0.8, 0.9, 0.95):
        cells = [f'{tau}: {"%+d / %+d" % change(drops(p, floor, tau), base)}' for tau in (0.5, 0.4, 0.3, 0.2)]
        print(f'  sure > {floor}: ' + '   '.join(cells))
    after = outcome(tops, sure, drops(p, FLOOR, TAU))
    print(f'the rule (sure > {FLOOR}, P > {TAU}), per language:')
    for lang in sorted({b[4] for b in base}):
        pick = [i for i, b in enumerate(base) if b[4] == lang]
        print(f'  {lang}: R@5 {sum(after[i][0] for i in pick) - sum(base[i][0] for i in pick):+d}, '
              f'MRR@5 {(sum(after[i][1] for i in pick) - sum(base[i][1] for i in pick)) / len(pick):+.4f}, '
              f'Forbidden@5 {sum(after[i][2] for i in pick) - sum(base[i][2] for i in pick):+d} ({len(pick)} requests)')
    print('alternatives:')
    p_rel = out_of_fold(model, cand_x, rel, np.ones(len(rel), dtype=bool))
    for tau in (0.05, 0.1):
        dropped = {(of[i], rank[i]) for i in range(len(rel)) if p_rel[i] < tau}
        print(f'  a classifier of relevance, dropping below {tau} (no floor): {"%+d / %+d" % change(dropped, base)}')
    x_first = dev(work, first_parts=True)[4]
    p_first = out_of_fold(model, x_first, forb, has_forbidden)
    print('  the first hit\'s parts as more features, sure > 0.8: ' + '   '.join(
        f'{tau}: {"%+d / %+d" % change(drops(p_first, 0.8, tau), base)}' for tau in (0.5, 0.4, 0.3, 0.2)))
    for name, make in (('200 trees of 15 leaves, rate 0.05', lambda: HistGradientBoostingClassifier(
            max_iter=200, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=40, random_state=0)),
                       ('50 trees of depth 3, at least 80 a leaf', lambda: HistGradientBoostingClassifier(
                           max_iter=50, learning_rate=0.1, max_depth=3, min_samples_leaf=80, random_state=0))):
        q = out_of_fold(make, cand_x, forb, has_forbidden)
        print(f'  {name}, sure > 0.8: ' + '   '.join(
            f'{tau}: {"%+d / %+d" % change(drops(q, 0.8, tau), base)}' for tau in (0.5, 0.4, 0.3, 0.2)))


def apply(work, features, qrels, catalog=None):
    sure_model, tail_model = fitted(work)
    cases = {c['id']: c for c in json.load(open(qrels, encoding='utf-8'))['cases']}
    command = [BIN, 'eval', '--qrels', qrels, '--json', '--param', 'learned_sure=false']
    if catalog:
        command[2:2] = ['--catalog', catalog]
    per_case = {p['id']: p for p in json.loads(subprocess.run(command, capture_output=True, check=True).stdout)['per_case']}
    judged = {}
    for cid, rows in ls.rows_by(features).items():
        answer = per_case[cid]
        if answer['strategy'].startswith(('exact', 'decomposed')) or answer.get('weak_match') or answer.get('abstained'):
            continue
        rows[0]['has_forbidden'] = bool(cases[cid].get('forbidden'))
        request = lw.request_features(rows)
        own = lr.features(rows)
        sure = sure_model.predict_proba(np.array([request]))[0, 1]
        tail = [tail_model.predict_proba(np.array([candidate_features(rows, k, own, request)]))[0, 1]
                for k in range(1, min(5, len(rows)))]
        judged[cid] = (sure, tail)

    def returned(cid, floor, tau):
        full = per_case[cid]['returned']
        if cid not in judged:
            return full
        sure, tail = judged[cid]
        if sure > SURE:
            return full[:1]
        if floor is not None and sure > floor:
            return [full[0]] + [full[k] for k in range(1, min(5, len(full))) if tail[k - 1] <= tau]
        return full

    def figures(floor, tau, lang=None):
        ranks, shown, with_forbidden = [], 0, 0
        for c in cases.values():
            if lang and c['language'] != lang:
                continue
            answer = returned(c['id'], floor, tau)
            if c['qrels'] and c.get('expect') != 'abstain':
                relevant = {j['canonical'] for j in c['qrels'] if j['relevance'] >= 1}
                ranks.append(next((k + 1 for k, tool in enumerate(answer[:10]) if tool in relevant), None))
            if c.get('forbidden'):
                with_forbidden += 1
                shown += any(f in answer[:5] for f in c['forbidden'])
        return (sum(r is not None and r <= 5 for r in ranks), len(ranks),
                sum(1 / r for r in ranks if r) / max(len(ranks), 1), shown, with_forbidden)
    before = figures(None, None)
    print(f'{qrels}: after the sure cut, R@5 {before[0]} of {before[1]}, MRR@10 {before[2]:.4f}, '
          f'Forbidden@5 {before[3]} of {before[4]} (answerable requests with workflows, whose answers do not change)')
    for floor, tau in ((FLOOR, TAU), (0.8, 0.5), (0.8, 0.4), (0.8, 0.2), (0.9, 0.3), (0.9, 0.2)):
        after = figures(floor, tau)
        mark = '  <- the rule' if (floor, tau) == (FLOOR, TAU) else ''
        print(f'  sure > {floor}, P > {tau}: R@5 {after[0] - before[0]:+d}, MRR@10 {after[2] - before[2]:+.4f}, '
              f'Forbidden@5 {after[3] - before[3]:+d}{mark}')
    for lang in sorted({c['language'] for c in cases.values()}):
        b, a = figures(None, None, lang), figures(FLOOR, TAU, lang)
        print(f'  {lang}: R@5 {b[0]} -> {a[0]} of {b[1]}, Forbidden@5 {b[3]} -> {a[3]} of {b[4]}')
    lost = sorted(cid for cid in judged if len(returned(cid, FLOOR, TAU)) < min(5, len(returned(cid, None, None))))
    print(f'  {len(lost)} answers lost a hit at ranks 2..5: ' + ' '.join(lost))


def export(work, out, source_hash):
    export_model.write_engine_model(out, fitted(work)[1], source_hash, TAU, 61)


def main():
    ls.run_cli(__doc__, cv, apply, export)


if __name__ == '__main__':
    main()
