# Top-20 candidates with scores for every answerable single request (from the repo root):
#   python3 docs/adr/0012-use-when-situations/best_situation_dump.py qrels/dev.json OUT.json
import json,sys,subprocess,concurrent.futures as cf
qf,out=sys.argv[1],sys.argv[2]; K=20
cases=[c for c in json.load(open(qf))['cases'] if c.get('expect')!='abstain' and c['qrels'] and not c.get('workflow')]
def run(c):
    req=json.dumps({"version":"tool-search.v1","query":c['query'][:256],"limit":K,"candidate_limit":K, **(c.get("filters") or {})},ensure_ascii=False)
    p=subprocess.run(['target/release/toolsearch','search','--request-json','-','--explain'],input=req,capture_output=True,text=True)
    if p.returncode!=0: return {'id':c['id'],'err':p.stderr[:200]}
    r=json.loads(p.stdout)
    return {'id':c['id'],'cands':[(t['canonical_path'],t['score_breakdown']['total']) for t in r['candidates']]}
with cf.ThreadPoolExecutor(2) as ex: res=list(ex.map(run,cases))
json.dump(res,open(out,'w'),ensure_ascii=False)
print(len(res),'cases', sum(1 for r in res if 'err' in r),'errors')
