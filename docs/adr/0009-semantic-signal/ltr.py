import json,math,sys,numpy as np
from sklearn.linear_model import LogisticRegression
F=['description','identity','parameters','summary','use_when']
def feats(case):
    cs=case['cands']; 
    if not cs: return None
    top=cs[0]['b']['total'] or 1
    X=[]
    for i,c in enumerate(cs):
        b=c['b']; tot=b['total']
        fl=[b['fields'].get(f,0.0) for f in F]
        x=[tot/top, math.log1p(tot), b['coverage'], math.log(b['multiplier']) if b['multiplier']>0 else -5]
        x+= [v/top for v in fl]
        x+= [1.0 if v>0 else 0.0 for v in fl]
        x+= [1.0/(i+1)]
        X.append(x)
    return np.array(X)
def load(n): return [c for c in json.load(open(f'/tmp/s3/{n}.json')) if c['cands']]
sets={n:load(n) for n in ['dev','bfcl','acezh','aceen']}
def r1(cases,model=None):
    hit=0
    for c in cases:
        X=feats(c)
        order=range(len(c['cands'])) if model is None else np.argsort(-model.decision_function(X),kind='stable')
        first=[c['cands'][i]['path'] for i in order][0]
        hit+= c['rel'].get(first,0)>=1
    return hit/len(cases)
def train(names):
    Xs=[];ys=[]
    for n in names:
        for c in sets[n]:
            X=feats(c); y=[1 if c['rel'].get(k['path'],0)>=1 else 0 for k in c['cands']]
            if sum(y)==0: continue
            Xs.append(X); ys+=y
    m=LogisticRegression(C=1.0,max_iter=2000); m.fit(np.vstack(Xs),np.array(ys)); return m
print('baseline', {n:round(r1(s),3) for n,s in sets.items()})
for tr in [['bfcl','acezh','aceen'],['dev'],['dev','bfcl','acezh','aceen']]:
    m=train(tr)
    print('train',tr,{n:round(r1(s,m),3) for n,s in sets.items()})
# 5-fold CV on dev alone
import random
d=sets['dev'][:]; random.Random(1).shuffle(d); k=5; tot=0
for i in range(k):
    te=d[i::k]; trn=[c for j,c in enumerate(d) if j%k!=i]
    sets['_t']=trn; m=train(['_t']); tot+=r1(te,m)*len(te)
print('dev 5-fold CV', round(tot/len(d),3))
