# dump top-K explain candidates for each answerable single-query case: python3 dump.py QRELS CATALOG|- OUT
import json,sys,subprocess,concurrent.futures as cf
qf,cat,out=sys.argv[1],sys.argv[2],sys.argv[3]
K=int(sys.argv[4]) if len(sys.argv)>4 else 20
cases=[c for c in json.load(open(qf))['cases'] if c.get('expect')!='abstain' and c['qrels'] and not c.get('workflow')]
def run(c):
    cmd=['target/release/toolsearch','search','--query',c['query'],'--limit',str(K),'--candidate-limit',str(K),'--explain']
    if cat!='-': cmd[2:2]=['--catalog',cat]
    p=subprocess.run(cmd,capture_output=True,text=True)
    if p.returncode!=0: return None
    r=json.loads(p.stdout)
    rel={q['canonical']:q['relevance'] for q in c['qrels']}
    return {'id':c['id'],'query':c['query'],'lang':c.get('language'),'rel':rel,'forbidden':c.get('forbidden',[]),
            'cands':[{'path':t['canonical_path'],'effect':t.get('effect'),'title':t.get('title'),'b':t['score_breakdown']} for t in r['candidates']]}
with cf.ThreadPoolExecutor(4) as ex: res=[x for x in ex.map(run,cases) if x]
json.dump(res,open(out,'w'),ensure_ascii=False)
print(len(res),'cases')
