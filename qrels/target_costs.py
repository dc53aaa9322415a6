#!/usr/bin/env python3
"""What each unmet target of issue 3 would cost today's ranking (docs/EVALUATION.md, "What the unmet
targets would cost").

Runs `toolsearch eval --json` on the qrels files given (their cases pooled) and prints:

- **cut**: for the answerable single requests, recall and the share of those with forbidden tools
  that show one, if the answer stopped after its first k candidates (k = 1..5). No cut-off can
  meet Forbidden@5 <= 0.02 if even k = 1 shows more. The cut and the arms below read rankings:
  docs/adr/0018's learned cut of sure answers is off there (`learned_sure=false`);
- **arms**: each workflow's arms searched alone (subquery i judged with required tool i, with the
  case's filters), and the share of workflows whose every arm has its tool within its own first
  k. With k = 5 that bounds what any merge into five slots could complete;
- **weak**: abstain requests and answerable single requests flagged `weak_match`, today (on the
  embedded catalog: the learned flag for single requests, docs/adr/0006's session-21 addendum),
  then under the first-hit rule (`learned_weak=false`) with both its thresholds
  (`weak_first_idf`, `weak_first_idf_han`) scaled by 1 and by each factor given (docs/adr/0006).

usage (from the repository root):
    python3 qrels/target_costs.py BIN QRELS... [--catalog PATH] [--scale 1.25,1.5,...]
    python3 qrels/target_costs.py target/release/toolsearch qrels/dev.json --scale 1.25,1.5,1.75,2
"""
import json, os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_runs import evaluate  # noqa: E402  (one way to run `eval --json`, with its error message)

# Whole rankings, without docs/adr/0018's learned cut of sure single answers to their first tool.
RANKINGS = ('learned_sure=false',)

# The first-hit thresholds of the default retriever (src/retrieve/config.rs).
WEAK_FIRST_IDF, WEAK_FIRST_IDF_HAN = 1.25, 1.6


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def is_single_answerable(case):
    return not case.get('workflow') and case.get('expect') != 'abstain'


def cut(report, cases):
    returned = {row['id']: row['returned'] for row in report['per_case']}
    singles = [c for c in cases if is_single_answerable(c)]
    with_forbidden = [c for c in singles if c.get('forbidden')]
    print(f'cut: {len(singles)} answerable single requests, {len(with_forbidden)} with forbidden tools')
    for k in range(1, 6):
        found = sum(bool({q['canonical'] for q in c['qrels'] if q['relevance'] >= 1} & set(returned[c['id']][:k]))
                    for c in singles)
        shown = sum(bool(set(c['forbidden']) & set(returned[c['id']][:k])) for c in with_forbidden)
        print(f'  first {k}: recall {found / len(singles):.3f} ({found}), '
              f'forbidden shown {shown / max(len(with_forbidden), 1):.3f} ({shown})')


def arms(binary, document, catalog, report):
    arm_cases = []
    for case in document['cases']:
        workflow = case.get('workflow')
        if not workflow:
            continue
        for i, (subquery, required) in enumerate(zip(workflow['subqueries'], workflow['required'])):
            arm = {'id': f"{case['id']}#{i}", 'language': case['language'], 'query': subquery,
                   'qrels': [{'canonical': required, 'relevance': 3}]}
            if case.get('filters'):
                arm['filters'] = case['filters']
            arm_cases.append(arm)
    if not arm_cases:
        print('arms: no workflows')
        return
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False, encoding='utf-8') as out:
        json.dump(dict(document, cases=arm_cases), out, ensure_ascii=False)
    try:
        arm_report = evaluate(binary, out.name, catalog, RANKINGS)
    finally:
        os.unlink(out.name)
    ranks = {}
    for row in arm_report['per_case']:
        ranks.setdefault(row['id'].rsplit('#', 1)[0], []).append(row['rank_of_first_relevant'] or 99)
    n = len(ranks)
    print(f"arms: {n} workflows, {len(arm_cases)} arms; merged complete@5 today "
          f"{report['overall']['workflow_complete@5']:.3f}")
    for k in (1, 2, 3, 5, 10):
        every = sum(all(rank <= k for rank in arm_ranks) for arm_ranks in ranks.values())
        print(f'  every arm has its tool in its own first {k}: {every / n:.3f} ({every})')


def weak(binary, qrels, catalog, cases, scales):
    by_id = {c['id']: c for c in cases}
    for scale in [None, 1.0] + scales:
        params = () if scale is None else ('learned_weak=false',
                                           f'weak_first_idf={WEAK_FIRST_IDF * scale}',
                                           f'weak_first_idf_han={WEAK_FIRST_IDF_HAN * scale}')
        counts = {'abstain': [0, 0], 'answerable': [0, 0]}
        for row in evaluate(binary, qrels, catalog, params)['per_case']:
            case = by_id[row['id']]
            if case.get('workflow'):
                continue
            kind = 'abstain' if case.get('expect') == 'abstain' else 'answerable'
            counts[kind][0] += bool(row.get('weak_match'))
            counts[kind][1] += 1
        (a, a_n), (b, b_n) = counts['abstain'], counts['answerable']
        label = 'today' if scale is None else f'first-hit rule, thresholds x {scale}'
        print(f'weak, {label}: abstain {a} of {a_n} ({a / max(a_n, 1):.3f}), '
              f'answerable singles {b} of {b_n} ({b / max(b_n, 1):.3f})')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary = sys.argv[1]
    files = []
    for arg in sys.argv[2:]:
        if arg.startswith('--'):
            break
        files.append(arg)
    catalog = option('--catalog', None)
    scales = [float(s) for s in option('--scale', '').split(',') if s]
    documents = [json.load(open(path, encoding='utf-8')) for path in files]
    document = dict(documents[0], cases=[case for d in documents for case in d['cases']])
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False, encoding='utf-8') as out:
        json.dump(document, out, ensure_ascii=False)
    try:
        report = evaluate(binary, out.name, catalog, RANKINGS)
        cut(report, document['cases'])
        arms(binary, document, catalog, report)
        weak(binary, out.name, catalog, document['cases'], scales)
    finally:
        os.unlink(out.name)


if __name__ == '__main__':
    main()
