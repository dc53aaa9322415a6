# top-20 explain candidates for every single-query case of dev incl. abstain (label 'ab')
import json,subprocess,concurrent.futures as cf
cases=[c for c in json.load(open('qrels/dev.json'))['cases'] if not c.get('workflow')]
def run(c):
    p=subprocess.run(['target/release/toolsearch','search','--query',c['query'],'--limit','20','--candidate-limit','20','--explain'],capture_output=True,text=True)
    if p.returncode!=0: return None
    r=json.loads(p.stdout)
    return {'id':c['id'],'query':c['query'],'lang':c.get('language'),'ab':c.get('expect')=='abstain','weak':r.get('weak_match'),
            'cands':[{'path':t['canonical_path'],'b':t['score_breakdown']} for t in r['candidates']]}
with cf.ThreadPoolExecutor(2) as ex: res=[x for x in ex.map(run,cases) if x]
json.dump(res,open('/tmp/s5/devab.json','w'),ensure_ascii=False); print(len(res),sum(r['ab'] for r in res))
