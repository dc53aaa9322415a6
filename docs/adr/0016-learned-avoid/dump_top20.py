"""Top 20 with scores (search --explain) of every single case of a qrels file (docs/adr/0016).
usage, from the repository root: python3 docs/adr/0016-learned-avoid/dump_top20.py QRELS OUT.json"""
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
qrels, out = sys.argv[1], sys.argv[2]
cases = [c for c in json.load(open(qrels))['cases'] if not c.get('workflow')]
def run(c):
    req = {"version": "tool-search.v1", "query": c['query'][:256], "limit": 20}
    if c.get('filters'):
        f = c['filters']
        for k in ('product_ids', 'effects', 'exclude_canonical'):
            if f.get(k): req[k] = f[k]
    p = subprocess.run(['target/release/toolsearch', 'search', '--explain', '--request-json', '-'],
                       input=json.dumps(req, ensure_ascii=False), capture_output=True, text=True)
    if p.returncode != 0:
        return c['id'], None
    d = json.loads(p.stdout)
    return c['id'], {'weak': d.get('weak_match', False),
                     'hits': [(h['canonical_path'], h['score_breakdown']['total']) for h in d['candidates']]}
with ThreadPoolExecutor(4) as ex:
    res = dict(ex.map(run, cases))
json.dump(res, open(out, 'w'), ensure_ascii=False)
print(len(res), sum(v is None for v in res.values()))
