import json,math,sys
sys.path.insert(0,'/tmp/s3')
def load(n): return [c for c in json.load(open(f'/tmp/s3/{n}.json')) if c['cands']]
sets={n:load(n) for n in ['dev','bfcl','acezh','aceen']}
def metr(cases,fn):
    r1=r5=0
    for c in cases:
        top=c['cands'][0]['b']['total'] or 1
        sc=[(-fn(k['b'],top),i) for i,k in enumerate(c['cands'])]
        order=[c['cands'][i]['path'] for _,i in sorted(sc)]
        r1+=c['rel'].get(order[0],0)>=1; r5+=any(c['rel'].get(p,0)>=1 for p in order[:5])
    return f"{r1/len(cases):.3f}/{r5/len(cases):.3f}"
for a in [0,0.1,0.2,0.3,0.5,0.8,1.0,1.5]:
    print('total*(1+a*cov) a=',a, {n:metr(s,lambda b,t:b['total']*(1+a*b['coverage'])) for n,s in sets.items()})
for p in [0.5,1,2]:
    print('total*cov^p p=',p, {n:metr(s,lambda b,t:b['total']*(b['coverage']**p)) for n,s in sets.items()})
from act import *
for n,s in sets.items():
    for c in s:
        qa=query_actions(c['query'])
        for k in c['cands']:
            v=verb_of(k['path']); k['b']['agree']=1.0 if v in qa else 0.0; k['b']['conflict']=1.0 if (v in ACTION_WORDS and v not in qa) else 0.0
print('---')
for a in [0.1,0.2,0.3]:
    print('agree a=',a, {n:metr(s,lambda b,t:b['total']*(1+a*b['agree'])) for n,s in sets.items()})
for a in [0.1,0.2,0.3]:
    print('conflict a=',a, {n:metr(s,lambda b,t:b['total']*(1-a*b['conflict'])) for n,s in sets.items()})
