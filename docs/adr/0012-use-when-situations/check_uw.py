#!/usr/bin/env python3
"""check_uw.py OUTPUT.json PRODUCT [PRODUCT...] [--relaxed] [--round2] -- validates a helper's use_when
addition file for the available tools of the products.

Round 1: 3 Chinese ("zh") and 2 English ("en") sentences per tool (--relaxed: 1-3 and 1-2, for the audit pass).
Round 2 (--round2): 2 informal English ("en") and 2 code-switched Chinese ("mx") sentences per tool.
Round 3 (--round3, session 10): 1 English ("en") and 1 Chinese-only ("zh") problem-first sentence per tool.
Set CATALOG to the catalog the helpers read: the one before ADR 0012 (commit 9ecf0c4) for round 1 and the audit,
round 1's (commit 7af32ff) for round 2, round 2's (commit c625e9f) for round 3. Against a catalog that already holds the sentences, every one of them
"copies existing catalog text"."""
import json, os, re, sys

CATALOG = os.environ.get("CATALOG", "catalog")  # run from the repository root
relaxed = '--relaxed' in sys.argv
round2 = '--round2' in sys.argv
round3 = '--round3' in sys.argv
args = [a for a in sys.argv[1:] if a not in ('--relaxed', '--round2', '--round3')]
out, prods = args[0], args[1:]
han = re.compile(r'[\u4e00-\u9fff]')
latin = re.compile(r'[A-Za-z]')
# per key: (count range, predicate on the text, what it must be, length check)
if round3:
    spec = {
        'en': ((1, 1), lambda s: not han.search(s), 'no Chinese', lambda s: 6 <= len(s.split()) <= 25, 'word count 6..25'),
        'zh': ((1, 1), lambda s: bool(han.search(s)) and not latin.search(s), 'Chinese and no ASCII letters',
               lambda s: 8 <= len(s) <= 45, 'length 8..45'),
    }
elif round2:
    spec = {
        'en': ((2, 2), lambda s: not han.search(s), 'no Chinese', lambda s: 5 <= len(s.split()) <= 20, 'word count 5..20'),
        'mx': ((2, 2), lambda s: bool(han.search(s) and latin.search(s)), 'Chinese AND ASCII letters',
               lambda s: 6 <= len(s) <= 40, 'length 6..40'),
    }
else:
    spec = {
        'zh': ((1, 3) if relaxed else (3, 3), lambda s: bool(han.search(s)), 'Chinese', lambda s: 6 <= len(s) <= 45, 'length 6..45'),
        'en': ((1, 2) if relaxed else (2, 2), lambda s: not han.search(s), 'no Chinese',
               lambda s: 4 <= len(s.split()) <= 25, 'word count 4..25'),
    }
tools = {}
for f in os.listdir(CATALOG):
    if not f.endswith('.json'):
        continue
    for p in json.load(open(os.path.join(CATALOG, f)))['products']:
        if p['id'] in prods:
            for t in p['tools']:
                if t.get('availability', 'available') == 'available':
                    tools[t['canonical_path']] = t
err = []
try:
    d = json.load(open(out))
except Exception as e:
    print('not valid JSON:', e)
    sys.exit(1)
for k in sorted(set(tools) - set(d)):
    err.append(f'missing tool {k}')
for k in sorted(set(d) - set(tools)):
    err.append(f'not an available tool of {prods}: {k}')
seen = {}
for k, v in d.items():
    if k not in tools:
        continue
    if not isinstance(v, dict) or set(v) != set(spec):
        err.append(f'{k}: want keys {sorted(spec)}')
        continue
    t = tools[k]
    old = [t.get('title', ''), t.get('agent_summary', ''), t.get('description', '')] + t.get('use_when', [])
    for key, ((lo, hi), kind, kind_text, size, size_text) in spec.items():
        if not lo <= len(v[key]) <= hi:
            err.append(f'{k}: want {lo}-{hi} {key} sentences')
        for s in v[key]:
            if not kind(s):
                err.append(f'{k}: {key} sentence must have {kind_text}: {s}')
            if not size(s):
                err.append(f'{k}: {key} sentence outside {size_text}: {s}')
            if any(s.strip().lower() in o.lower() for o in old):
                err.append(f'{k}: copies existing catalog text: {s}')
            if s in seen:
                err.append(f'{k}: duplicate of {seen[s]}: {s}')
            seen[s] = k
for e in err:
    print(e)
print(f'{len(err)} errors, {len(d)} tools')
