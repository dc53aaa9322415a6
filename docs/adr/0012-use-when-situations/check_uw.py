#!/usr/bin/env python3
"""check_uw.py OUTPUT.json PRODUCT [PRODUCT...] [--relaxed] -- validates a helper's use_when addition file
(3 zh + 2 en sentences per available tool of the products; --relaxed: 1-3 zh, 1-2 en, for the audit).
Set CATALOG to the catalog the helpers read (the one before ADR 0012, commit 9ecf0c4): against today's catalog,
which holds round 1, every kept sentence "copies existing catalog text"."""
import json,os,re,sys
CATALOG=os.environ.get("CATALOG","catalog")  # run from the repository root
relaxed='--relaxed' in sys.argv
args=[a for a in sys.argv[1:] if a!='--relaxed']
out,prods=args[0],args[1:]
han=re.compile(r'[\u4e00-\u9fff]')
tools={}
for f in os.listdir(CATALOG):
    if not f.endswith('.json'): continue
    for p in json.load(open(CATALOG+'/'+f))['products']:
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
    if not isinstance(v,dict) or set(v)!={'zh','en'}: err.append(f'{k}: want {{"zh":[...],"en":[...]}}'); continue
    if (not 1<=len(v['zh'])<=3) if relaxed else len(v['zh'])!=3: err.append(f'{k}: want 3 zh sentences')
    if (not 1<=len(v['en'])<=2) if relaxed else len(v['en'])!=2: err.append(f'{k}: want 2 en sentences')
    t=tools[k]; old=[t.get('title',''),t.get('agent_summary',''),t.get('description','')]+t.get('use_when',[])
    for s in v['zh']:
        if not han.search(s): err.append(f'{k}: zh sentence without Chinese: {s}')
        if not 6<=len(s)<=45: err.append(f'{k}: zh sentence length {len(s)} outside 6..45: {s}')
    for s in v['en']:
        if han.search(s): err.append(f'{k}: en sentence with Chinese: {s}')
        if not 4<=len(s.split())<=25: err.append(f'{k}: en sentence word count outside 4..25: {s}')
    for s in v['zh']+v['en']:
        if any(s.strip() in o for o in old): err.append(f'{k}: copies existing catalog text: {s}')
        if s in seen: err.append(f'{k}: duplicate of {seen[s]}: {s}')
        seen[s]=k
for e in err: print(e)
print(f'{len(err)} errors, {len(d)} tools')
