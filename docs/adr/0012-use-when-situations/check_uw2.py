#!/usr/bin/env python3
"""check_uw2.py OUTPUT.json PRODUCT [PRODUCT...] -- validates a round-2 use_when file:
2 English ("en") and 2 code-switched Chinese ("mx") sentences per available tool of the products.
Set CATALOG to the catalog the helpers read (round 1 only, commit 7af32ff)."""
import json,os,re,sys
CATALOG=os.environ.get("CATALOG","catalog")  # run from the repository root
out,prods=sys.argv[1],sys.argv[2:]
han=re.compile(r'[\u4e00-\u9fff]'); latin=re.compile(r'[A-Za-z]')
tools={}
for f in os.listdir(CATALOG):
    if not f.endswith('.json'): continue
    for p in json.load(open(os.path.join(CATALOG,f)))['products']:
        if p['id'] in prods:
            for t in p['tools']:
                if t.get('availability','available')=='available': tools[t['canonical_path']]=t
err=[]
try: d=json.load(open(out))
except Exception as e: print('not valid JSON:',e); sys.exit(1)
for k in sorted(set(tools)-set(d)): err.append(f'missing tool {k}')
for k in sorted(set(d)-set(tools)): err.append(f'not an available tool of {prods}: {k}')
seen={}
for k,v in d.items():
    if k not in tools: continue
    if not isinstance(v,dict) or set(v)!={'en','mx'}: err.append(f'{k}: want {{"en":[...],"mx":[...]}}'); continue
    if len(v['en'])!=2: err.append(f'{k}: want 2 en sentences')
    if len(v['mx'])!=2: err.append(f'{k}: want 2 mx sentences')
    t=tools[k]; old=[t.get('title',''),t.get('agent_summary',''),t.get('description','')]+t.get('use_when',[])
    for s in v['en']:
        if han.search(s): err.append(f'{k}: en sentence with Chinese: {s}')
        if not 5<=len(s.split())<=20: err.append(f'{k}: en sentence word count outside 5..20: {s}')
    for s in v['mx']:
        if not (han.search(s) and latin.search(s)): err.append(f'{k}: mx sentence needs Chinese AND ASCII letters: {s}')
        if not 6<=len(s)<=40: err.append(f'{k}: mx sentence length {len(s)} outside 6..40: {s}')
    for s in v['en']+v['mx']:
        if any(s.strip().lower() in o.lower() for o in old): err.append(f'{k}: copies existing catalog text: {s}')
        if s in seen: err.append(f'{k}: duplicate of {seen[s]}: {s}')
        seen[s]=k
for e in err: print(e)
print(f'{len(err)} errors, {len(d)} tools')
