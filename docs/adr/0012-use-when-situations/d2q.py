#!/usr/bin/env python3
"""Exploration only (ADR 0012): append the dev queries of the other origins to each gold tool's use_when and
evaluate the held-out origins. Run from the repository root after `cargo build --release`; writes scratch files
under $TMPDIR/d2q. The ADR's figures were measured on the catalog before ADR 0012 (commit 9ecf0c4), on dev-1890."""
import json,os,subprocess,sys
import tempfile
B='target/release/toolsearch'
W=os.path.join(tempfile.gettempdir(),'d2q'); os.makedirs(W,exist_ok=True)
cat={'version':None,'products':[]}
for f in sorted(os.listdir('catalog')):
    if not f.endswith('.json'): continue
    d=json.load(open('catalog/'+f)); cat['version']=d['version']; cat['products']+=d['products']
dev=json.load(open('qrels/dev.json'))['cases']
test=json.load(open('qrels/test.json'))['cases'] if '--test' in sys.argv else []
mode=sys.argv[1] if len(sys.argv)>1 else 'use_when'
folds=[set('ABCDE'),set('FGHI'),set('JKLM'),set('NOPQ'),set('RSTU'),set('VWXY')]
def origin(c): return c['id'].split('-')[0]
def build(src,path):
    tools={t['canonical_path']:t for p in cat['products'] for t in p['tools']}
    add={}
    for c in src:
        if c.get('expect')=='abstain' or 'workflow' in c: continue
        for q in c['qrels']:
            if q['relevance']==3: add.setdefault(q['canonical'],[]).append(c['query'])
    import copy; cc=copy.deepcopy(cat)
    for p in cc['products']:
        for t in p['tools']:
            if t['canonical_path'] in add:
                t['use_when']=t.get('use_when',[])+add[t['canonical_path']]
    json.dump(cc,open(path,'w'),ensure_ascii=False)
def ev(catpath,cases,tag):
    qp=f'{W}/q_{tag}.json'
    json.dump({'version':'tool-search-qrels.v1','cases':cases},open(qp,'w'),ensure_ascii=False)
    cmd=[B,'eval','--qrels',qp,'--json']+(['--catalog',catpath] if catpath else [])
    o=json.loads(subprocess.run(cmd,capture_output=True,check=True).stdout)['overall']
    return o
base=json.dumps
tot={}
for i,f in enumerate(folds):
    held=[c for c in dev if origin(c) in f]; src=[c for c in dev if origin(c) not in f]
    cp=f'{W}/cat_{i}.json'; build(src,cp)
    a=ev(None,held,f'h{i}'); b=ev(cp,held,f'h{i}')
    print(''.join(sorted(f)),len(held),' '.join(f"{k} {a[k]:.3f}->{b[k]:.3f}" for k in ['recall@1','recall@5','mrr@10','forbidden@5','workflow_complete@5']))
if test:
    cp=f'{W}/cat_all.json'; build(dev,cp)
    a=ev(None,test,'t'); b=ev(cp,test,'t')
    print('TEST',' '.join(f"{k} {a[k]:.3f}->{b[k]:.3f}" for k in ['recall@1','recall@5','mrr@10','forbidden@5','workflow_complete@5']))
