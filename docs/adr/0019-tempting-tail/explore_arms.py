#!/usr/bin/env python3
"""Dev exploration (ADR 0019's Limits, session 23): the sure and tail cuts applied to each arm of
dev's workflows, after ADR 0013's arm floor and before the depth-by-depth merge, simulated.

    python3 docs/adr/0019-tempting-tail/explore_arms.py WORK

WORK holds ADR 0006's run.sh files and `arms.jsonl`: `features.patch`'s `why` output for a qrels
file holding each dev workflow's subquery k as a single request with id `CASE#k` (session 22's
scratch, ADR 0018's Limits). Prints complete@5 and the workflows with a forbidden tool among the
merged five, per setting. Run from the repository root.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
for adr in ('0006-learned-weak', '0017-learned-rerank', '0018-sure-answer', '0019-tempting-tail'):
    sys.path.insert(0, os.path.join(HERE, '..', adr))
import learned_rerank as lr  # noqa: E402
import learned_sure as ls  # noqa: E402
import learned_tail as lt  # noqa: E402
import learned_weak as lw  # noqa: E402


def main():
    work = sys.argv[1]
    sure_model, tail_model = lt.fitted(work)
    workflows = {c['id']: c for c in json.load(open('qrels/dev.json', encoding='utf-8'))['cases'] if c.get('workflow')}
    arms = ls.rows_by(f'{work}/arms.jsonl')
    judged = {}
    for arm, rows in arms.items():
        rows[0]['has_forbidden'] = False
        request = lw.request_features(rows)
        own = lr.features(rows)
        sure = sure_model.predict_proba(np.array([request]))[0, 1]
        tail = [tail_model.predict_proba(np.array([lt.candidate_features(rows, k, own, request)]))[0, 1]
                for k in range(1, min(5, len(rows)))]
        judged[arm] = (sure, tail)

    def merged(cid, floor, sure_tau, tail_floor, tail_tau):
        lists = []
        for k in range(len(workflows[cid]['workflow']['subqueries'])):
            rows = arms.get(f'{cid}#{k}', [])
            if not rows:
                lists.append([])
                continue
            keep = [i for i, r in enumerate(rows) if r['score'] >= floor * rows[0]['score']]
            sure, tail = judged[f'{cid}#{k}']
            if sure_tau is not None and sure > sure_tau:
                keep = keep[:1]
            elif tail_floor is not None and sure > tail_floor:
                keep = [i for i in keep if i == 0 or (i < 5 and tail[i - 1] <= tail_tau)]
            lists.append([rows[i]['tool'] for i in keep])
        out = []
        for level in range(max(len(tools) for tools in lists)):
            for tools in lists:
                if len(out) < 5 and level < len(tools) and tools[level] not in out:
                    out.append(tools[level])
        return out

    for setting in ((0.6, None, None, None), (0.6, None, 0.8, 0.3), (0.6, None, 0.5, 0.3), (0.6, None, 0.8, 0.2),
                    (0.6, None, 0.0, 0.3), (0.6, 0.98, 0.8, 0.3)):
        complete = shown = with_forbidden = 0
        for cid, case in workflows.items():
            answer = merged(cid, *setting)
            complete += all(tool in answer for tool in case['workflow']['required'])
            if case.get('forbidden'):
                with_forbidden += 1
                shown += any(tool in answer for tool in case['forbidden'])
        print(f'arm floor, sure cut, tail floor, tail threshold {setting}: complete {complete} of {len(workflows)}, '
              f'a forbidden tool shown {shown} of {with_forbidden}')


if __name__ == '__main__':
    main()
