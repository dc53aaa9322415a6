"""Sums an engine build's figures over the foreign sets (and extra CATALOG:QRELS pairs) at one
product_weight, as pre-registration 103 read them. usage: sum.py WEIGHT [CATALOG:QRELS]..."""
import json,sys,subprocess
T='target/release/toolsearch'  # run from the repository root
sets=[('qrels/foreign/catalog','qrels/foreign/'+s+'.json') for s in ['dev','holdout','holdout-2','holdout-3','holdout-4','holdout-5']]
extra=sys.argv[2:]
for e in extra:
    c,q=e.split(':'); sets.append((c,q))
w=sys.argv[1]
tot={}
for c,q in sets:
    d=json.loads(subprocess.run([T,'eval','--catalog',c,'--qrels',q,'--json','--param','product_weight='+w],capture_output=True,text=True,cwd='.').stdout)
    qq={x['id']:x for x in json.load(open(q))['cases']}
    r1=r5=0;mrr=0;fb=0;wf=0;n=0
    for pc in d['per_case']:
        c0=qq[pc['id']]
        rel={x['canonical'] for x in c0.get('qrels',[]) if x['relevance']>=1}
        ret=pc['returned']
        if c0.get('forbidden') and set(c0['forbidden'])&set(ret[:5]): fb+=1
        if c0.get('workflow'):
            wf+=all(t in ret[:5] for t in c0['workflow']['required']); continue
        if c0.get('expect')=='abstain' or not rel: continue
        n+=1
        r=pc.get('rank_of_first_relevant')
        if r: r1+=r==1; r5+=r<=5; mrr+=1/r if r<=10 else 0
    key='foreign' if 'foreign' in c else q.split('/')[-1]+'@'+c.split('/')[-1]
    t=tot.setdefault(key,[0,0,0.0,0,0,0]); 
    for i,v in enumerate([r1,r5,mrr,fb,wf,n]): t[i]+=v
for k,t in tot.items(): print(w,k,'R1 %d R5 %d MRRsum %.2f forb %d wf %d singles %d'%tuple(t))
