import numpy as np, json, pickle, re, glob, sys
from tokenizers import Tokenizer
tok=Tokenizer.from_file('/tmp/s3/pkgs/mini/all_minilm_l6_v2/model/tokenizer.json'); tok.no_padding(); tok.no_truncation()
V=np.load('/tmp/s3/tokvec.npy')
S='../shared/evaldata'
cats={'bfcl':[S+'/bfcl/pool_600.catalog.json'],'aceen':[S+'/acebench/en/all.catalog.json'],'dev':sorted(glob.glob('./catalog/*.json'))}
def english(t): return ' '.join(re.findall(r'[A-Za-z][A-Za-z0-9 ,.\'()/-]*',t))
def tool_texts(files,han):
    out={}
    for f in files:
        for p in json.load(open(f))['products']:
            for t in p['tools']:
                name=t['canonical_path'].split('.',1)[-1].replace('_',' ')
                txt='. '.join(x for x in [name,t.get('title',''),t.get('agent_summary',''),t.get('description','')] if x)
                out[t['canonical_path']]=english(txt) if han else txt
    return out
res=pickle.load(open('/tmp/s3/dense_res.pkl','rb'))
def make(V,weights):
    def emb(text):
        ids=[i for i in tok.encode(text).ids if i not in (101,102,100)]
        if not ids: return np.zeros(V.shape[1])
        v=(V[ids]*weights[ids][:,None]).sum(0); n=np.linalg.norm(v); return v/n if n else v
    return emb
def ev(cases,temb,qemb,lam):
    r1=r5=0;m=0
    for c in cases:
        cs=c['cands']
        if not cs: continue
        m+=1; top=cs[0]['b']['total'] or 1; q=qemb(c['query'])
        sc=sorted(((-( (1-lam)*k['b']['total']/top+lam*float(temb[k['path']]@q)),i) for i,k in enumerate(cs)))
        order=[cs[i]['path'] for _,i in sc]
        r1+=c['rel'].get(order[0],0)>=1; r5+=any(c['rel'].get(p,0)>=1 for p in order[:5])
    return f'{r1/m:.3f}/{r5/m:.3f}'
texts={n:tool_texts(cats[n],n=='dev') for n in res}
rank=np.arange(V.shape[0])
variants={}
Vc=V-V.mean(0)
# PCA
U,Sv,Wt=np.linalg.svd(Vc,full_matrices=False)
for d in (256,64):
    P=Vc@Wt[:d].T
    variants[f'pca{d}+zipf']=(P,np.log(2+rank))
variants['raw+ones']=(V,np.ones(len(rank)))
variants['centered+ones']=(Vc,np.ones(len(rank)))
variants['centered+zipf']=(Vc,np.log(2+rank))
for name,(M,w) in variants.items():
    emb=make(M,w)
    tembs={n:{p:emb(t[:2000]) for p,t in texts[n].items() if any(p==k['path'] for c in res[n][0] for k in c['cands'][:1]) or True} for n in res}
    for lam in (0.3,0.5,0.7):
        print(name,lam,{n:ev(res[n][0],tembs[n],emb,lam) for n in res})
print('--- idf weighted, per catalog')
import math
P256=Vc@Wt[:256].T
for n in res:
    docs={p:[i for i in tok.encode(t[:2000]).ids if i not in (101,102,100)] for p,t in texts[n].items()}
    df=np.zeros(V.shape[0])
    for ids in docs.values():
        for i in set(ids): df[i]+=1
    N=len(docs); idf=np.log((N+1)/(df+0.5))
    idf=np.maximum(idf,0.1)
    for name,M in (('centered',Vc),('pca256',P256)):
        emb=make(M,idf)
        temb={p:emb(t[:2000]) for p,t in texts[n].items()}
        print(n,name,{lam:ev(res[n][0],temb,emb,lam) for lam in (0.2,0.3,0.5,0.7)})
