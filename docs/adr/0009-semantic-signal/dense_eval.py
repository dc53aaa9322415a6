import pickle,numpy as np
res=pickle.load(open('/tmp/s3/dense_res.pkl','rb'))
def ev(cases,emb,lam):
    r1=r5=0
    for c in cases:
        cs=c['cands']
        if not cs: continue
        top=cs[0]['b']['total'] or 1
        sc=[]
        for i,k in enumerate(cs):
            cos=float(emb[k['path']]@c['qe'])
            s=(1-lam)*k['b']['total']/top+lam*cos
            sc.append((-s,i))
        order=[cs[i]['path'] for _,i in sorted(sc)]
        r1+=c['rel'].get(order[0],0)>=1; r5+=any(c['rel'].get(p,0)>=1 for p in order[:5])
    return f'{r1/len(cases):.3f}/{r5/len(cases):.3f}'
for lam in [0,0.2,0.3,0.4,0.5,0.6,0.7,0.8,1.0]:
    print(lam,{n:ev(c,e,lam) for n,(c,e) in res.items()}, {n:len(c) for n,(c,e) in res.items()} if lam==0 else '')
