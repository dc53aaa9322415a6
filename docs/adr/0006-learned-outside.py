#!/usr/bin/env python3
"""Words learned as "outside the catalog" from dev's abstain requests (docs/adr/0006, session 20).

A request word q is an outside word when at least MIN_N single requests of the training half hold
it and at least SHARE of them are abstain requests (`expect: abstain`). The rule measured: an
answer whose request holds an outside word carries `weak_match` (rankings cannot move). With
`unknown`, only words the catalog's text never holds count (so a catalog with a travel product
never fires on 机票). Cross-validated like docs/adr/0015's pairs: each half of the annotator sets
(md5 of the id prefix, mod 2) is judged with words learned on the other half.

usage (from the repository root; needs `pip install jieba==0.42.1`):
    toolsearch eval --qrels qrels/dev.json --json > RUN.json
    python3 docs/adr/0006-learned-outside.py RUN.json qrels/dev.json catalog [unknown]
Prints abstain requests flagged and answerable single requests flagged, today -> with the rule.
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', 'src', 'text'))
import jieba  # noqa: E402
from learn_pairs import fold_of, tokens, tool_tokens  # noqa: E402

GRID = [(2, 1.0), (3, 0.67), (3, 0.8), (3, 1.0), (4, 0.75), (5, 0.8)]


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    run, qrels, catalog = sys.argv[1:4]
    unknown_only = sys.argv[4:] == ['unknown']
    jieba.setLogLevel(60)
    weak = {p['id']: bool(p.get('weak_match')) for p in json.load(open(run))['per_case']}
    cases = [c for c in json.load(open(qrels, encoding='utf-8'))['cases'] if not c.get('workflow')]
    words = {c['id']: tokens(c['query']) for c in cases}
    known = set().union(*tool_tokens(catalog).values()) if unknown_only else set()
    for min_n, share in GRID:
        counts = collections.Counter()
        for fold in (0, 1):
            seen, abstain = collections.Counter(), collections.Counter()
            for case in cases:
                if fold_of(case['id']) != fold:
                    for q in words[case['id']]:
                        seen[q] += 1
                        abstain[q] += case.get('expect') == 'abstain'
            outside = {q for q in seen if seen[q] >= min_n and abstain[q] / seen[q] >= share} - known
            for case in cases:
                if fold_of(case['id']) == fold:
                    kind = 'abstain' if case.get('expect') == 'abstain' else 'answerable'
                    counts[kind, 'total'] += 1
                    counts[kind, 'today'] += weak[case['id']]
                    counts[kind, 'rule'] += weak[case['id']] or bool(words[case['id']] & outside)
        print(f"at least {min_n} requests, {share:.2f} of them abstain: "
              f"abstain {counts['abstain', 'today']} -> {counts['abstain', 'rule']} of {counts['abstain', 'total']}; "
              f"answerable {counts['answerable', 'today']} -> {counts['answerable', 'rule']} of {counts['answerable', 'total']}")


if __name__ == '__main__':
    main()
