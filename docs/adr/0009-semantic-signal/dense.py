import json,sys,re,glob,numpy as np,pickle,os
sys.path.insert(0,'/tmp/s3')
from minilm import encode_one
S='../shared/evaldata'
cats={'bfcl':[S+'/bfcl/pool_600.catalog.json'],'aceen':[S+'/acebench/en/all.catalog.json'],'dev':sorted(glob.glob('./catalog/*.json'))}
def english(t): # keep ASCII parts of mixed text
    return ' '.join(re.findall(r'[A-Za-z][A-Za-z0-9 ,.\'()/-]*',t))
def tool_texts(files,han):
    out={}
    for f in files:
        d=json.load(open(f))
        for p in d['products']:
            for t in p['tools']:
                name=t['canonical_path'].split('.',1)[-1].replace('_',' ')
                parts=[name,t.get('title',''),t.get('agent_summary',''),t.get('description','')]
                txt='. '.join(x for x in parts if x)
                out[t['canonical_path']]=english(txt) if han else txt
    return out
res={}
for n in ['bfcl','aceen','dev']:
    cases=json.load(open(f'/tmp/s3/{n}.json'))
    if n=='dev': cases=[c for c in cases if c['lang']=='english']
    texts=tool_texts(cats[n],n=='dev')
    cache=f'/tmp/s3/emb_{n}.pkl'
    emb=pickle.load(open(cache,'rb')) if os.path.exists(cache) else {}
    need={c2['path'] for c in cases for c2 in c['cands']}
    for pth in sorted(need-set(emb)): emb[pth]=encode_one(texts[pth][:1000])
    for c in cases: 
        if 'qe' not in c: c['qe']=encode_one(c['query'])
    pickle.dump(emb,open(cache,'wb'))
    res[n]=(cases,emb)
pickle.dump(res,open('/tmp/s3/dense_res.pkl','wb'))
