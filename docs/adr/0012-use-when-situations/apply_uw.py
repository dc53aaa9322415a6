#!/usr/bin/env python3
"""apply_uw.py SRC_DIR OUT_DIR KEYS OVERLAY... -- writes copies of the catalog files in SRC_DIR with the overlays'
sentences appended to each tool's use_when, editing the text in place so each file keeps its layout. KEYS names the
overlay lists to append, comma-separated and in that order (`zh,en`; `both` = `zh,en`; round 2 uses `en` and `mx`).
The adopted catalog is `apply_uw.py catalog catalog both g1.json ... g5.json` at commit 6b4d005 (first-round files;
their sentences are now in catalog/). audited.json is the audit pass's overlay (ADR 0012, rules 31
and 32); round 2 appended its en and mx lists with KEYS `en,mx`."""
import json,os,sys
src,out,mode=sys.argv[1],sys.argv[2],sys.argv[3]
keys=['zh','en'] if mode=='both' else mode.split(',')
ov={}
for f in sys.argv[4:]:
    ov.update(json.load(open(f)))
dec=json.JSONDecoder()
os.makedirs(out,exist_ok=True)
for f in sorted(os.listdir(src)):
    if not f.endswith('.json'): continue
    raw=open(f'{src}/{f}').read()
    # `want` is the parsed document with the sentences appended: the check on the edited text.
    want=json.loads(raw)
    text=raw
    for p in want['products']:
        for t in p['tools']:
            a=ov.get(t['canonical_path'])
            if not a: continue
            add=[x for k in keys for x in a[k]]
            t['use_when']=t.get('use_when',[])+add
            i=text.index(f'"canonical_path": "{t["canonical_path"]}"')
            j=text.index('"use_when": [',i)+len('"use_when": ')
            arr,end=dec.raw_decode(text,j)
            body=text[j:end]
            if '\n' in body:
                # multi-line: items on their own lines, closing bracket indented
                line_start=text.rindex('\n',0,j)+1
                ind=len(text[line_start:j])-len(text[line_start:j].lstrip())
                items=',\n'.join(' '*(ind+2)+json.dumps(s,ensure_ascii=False) for s in arr+add)
                new='[\n'+items+'\n'+' '*ind+']'
            else:
                new='['+', '.join(json.dumps(s,ensure_ascii=False) for s in arr+add)+']'
            text=text[:j]+new+text[end:]
    assert json.loads(text)==want, f
    open(f'{out}/{f}','w').write(text)
print('ok',len(ov),'tools')
