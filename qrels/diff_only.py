#!/usr/bin/env python3
"""Diff-only harm check for a small correction, on a blind set that should stay blind.

Compares two `toolsearch eval --json` reports of one qrels file (before, after) and prints only
counts: how many cases' answers differ, and among them how many first relevant ranks rose or fell,
how many gained or lost a forbidden tool in the first five, how many workflows were completed or
lost, and how the weak flag moved. No query, id or figure of the set itself is printed, so when no
answer differs nothing about the set has been read (pre-registration 95 introduced it).

    python3 qrels/diff_only.py QRELS BEFORE.json AFTER.json
"""
import json, sys
qrels, a_path, b_path = sys.argv[1:4]
cases = {c['id']: c for c in json.load(open(qrels))['cases']}
a = {p['id']: p for p in json.load(open(a_path))['per_case']}
b = {p['id']: p for p in json.load(open(b_path))['per_case']}
assert a.keys() == b.keys() == cases.keys()
def rank(p): return p['rank_of_first_relevant'] or 99
counts = dict(changed=0, rank_up=0, rank_down=0, forb_gained=0, forb_lost=0, wf_gained=0, wf_lost=0,
              flag_gained_on_abstain=0, flag_lost_on_abstain=0, flag_changed_on_answerable=0)
for cid, c in cases.items():
    x, y = a[cid], b[cid]
    if x['returned'] == y['returned'] and bool(x.get('weak_match')) == bool(y.get('weak_match')) and x.get('strategy') == y.get('strategy'):
        continue
    counts['changed'] += 1
    if c.get('expect') == 'abstain':
        fx, fy = bool(x.get('weak_match')) or not x['returned'], bool(y.get('weak_match')) or not y['returned']
        counts['flag_gained_on_abstain'] += fy and not fx
        counts['flag_lost_on_abstain'] += fx and not fy
        continue
    if bool(x.get('weak_match')) != bool(y.get('weak_match')):
        counts['flag_changed_on_answerable'] += 1
    if c.get('workflow'):
        req = c['workflow']['required']
        cx, cy = all(t in x['returned'][:5] for t in req), all(t in y['returned'][:5] for t in req)
        counts['wf_gained'] += cy and not cx
        counts['wf_lost'] += cx and not cy
    else:
        counts['rank_up'] += rank(y) < rank(x)
        counts['rank_down'] += rank(y) > rank(x)
    forb = set(c.get('forbidden') or [])
    if forb:
        fx, fy = bool(forb & set(x['returned'][:5])), bool(forb & set(y['returned'][:5]))
        counts['forb_gained'] += fy and not fx
        counts['forb_lost'] += fx and not fy
print(' '.join(f'{k}={v}' for k, v in counts.items()))
