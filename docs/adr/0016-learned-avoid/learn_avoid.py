#!/usr/bin/env python3
"""Learns query word -> avoid word pairs from the forbidden tools of judged requests (docs/adr/0016).

The training requests are the answerable single requests that name forbidden tools. For every
query token q seen in at least MIN_Q of them, a catalog token t is an avoid word of q when
  share = (requests with q whose forbidden tools' text holds t and whose relevance-3 tools'
           text does not) / (requests with q)                                  >= MIN_NEG
and no request with q has t in its relevance-3 tools' text. A request containing q then
multiplies the score of every tool whose text holds t by `avoid_penalty`. Tokens as
learn_pairs.py; tool text: canonical path, title, agent summary, description and use_when.

usage (from the repository root; needs `pip install jieba==0.42.1`):
    python3 src/text/learn_avoid.py catalog qrels/dev.json all OUT.txt [MIN_Q]
CATALOG is a catalog.v1 file or a directory of them. FOLD 0 or 1 learns on one half of the
annotator sets (learn_pairs.fold_of), for cross-validation; `all` on every set.
"""
import collections
import json
import sys

import jieba

from learn_pairs import fold_of, tokens, tool_tokens

MIN_Q, MIN_NEG = 5, 0.5
HEADER = '''# Query word -> avoid word pairs learned from the forbidden tools of judged requests
# (docs/adr/0016). Generated:
#     python3 src/text/learn_avoid.py {catalog} {qrels} {fold} OUT{min_q}
# from {requests} answerable single requests with forbidden tools; do not edit by hand. One pair
# per line, "q | t", sorted: a request containing q (matched like a lexicon phrase) multiplies
# the score of every tool whose text holds t by `avoid_penalty`.
'''


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    catalog, qrels, fold, out_path = sys.argv[1:5]
    min_q = int(sys.argv[5]) if len(sys.argv) == 6 else MIN_Q
    jieba.setLogLevel(60)
    tools = tool_tokens(catalog)
    cases = [c for c in json.load(open(qrels, encoding='utf-8'))['cases']
             if c.get('expect') != 'abstain' and not c.get('workflow') and c.get('forbidden')]
    if fold != 'all':
        cases = [c for c in cases if fold_of(c['id']) == int(fold)]
    with_q = collections.Counter()
    wrong_only = collections.defaultdict(collections.Counter)
    in_gold = collections.defaultdict(collections.Counter)
    for case in cases:
        relevant = set()
        for judged in case['qrels']:
            if judged['relevance'] >= 3:
                relevant |= tools.get(judged['canonical'], set())
        wrong = set()
        for canonical in case['forbidden']:
            wrong |= tools.get(canonical, set())
        wrong -= relevant
        for q in tokens(case['query']):
            with_q[q] += 1
            for t in wrong:
                wrong_only[q][t] += 1
            for t in relevant:
                in_gold[q][t] += 1
    pairs = []
    for q, n_q in with_q.items():
        if n_q < min_q:
            continue
        pairs += [(q, t) for t, k in wrong_only[q].items() if k / n_q >= MIN_NEG and in_gold[q][t] == 0]
    with open(out_path, 'w', encoding='utf-8') as out:
        out.write(HEADER.format(catalog=catalog, qrels=qrels, fold=fold, requests=len(cases),
                                min_q='' if min_q == MIN_Q else f' {min_q}'))
        for q, t in sorted(pairs):
            out.write(f'{q} | {t}\n')
    print(f'{len(cases)} requests, {len(pairs)} pairs -> {out_path}')


if __name__ == '__main__':
    main()
