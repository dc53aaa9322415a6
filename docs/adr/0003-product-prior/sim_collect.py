"""Collect, for each single answerable/abstain case, the tool ranking (top 30 with scores)
and the product catalog's scores. usage: sim_collect.py CATALOG QRELS OUT.json"""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
T = 'target/release/toolsearch'  # run from the repository root
cat_path, q_path, out = sys.argv[1:4]

def load(path):
    if os.path.isdir(path):
        prods = []
        for f in sorted(os.listdir(path)):
            if f.endswith('.json'):
                prods += json.load(open(os.path.join(path, f)))['products']
        return {'version': 'catalog.v1', 'products': prods}
    return json.load(open(path))

cat = load(cat_path)
tools = []
for p in cat['products']:
    t = {'canonical_path': 'prod.' + p['id'].replace('-', '_'), 'name': p['id'], 'cli_path': 'prod ' + p['id'],
         'title': p.get('name', p['id']), 'agent_summary': p.get('agent_summary') or p.get('description') or p.get('name'),
         'description': p.get('description') or '', 'parameters': {}, 'effect': 'read', 'risk': 'low',
         'confirmation': 'not_required', 'idempotency': 'idempotent', 'availability': 'available'}
    if p.get('use_when'): t['use_when'] = p['use_when']
    tools.append(t)
pcat = {'version': 'catalog.v1', 'products': [{'id': 'prod', 'name': 'products', 'tools': tools}]}
pc_path = out + '.products.json'
json.dump(pcat, open(pc_path, 'w'), ensure_ascii=False)
q = json.load(open(q_path))
cases = [c for c in q['cases'] if not c.get('workflow') and not c.get('filters')]

def run(catalog, query, limit):
    r = subprocess.run([T, 'search', '--catalog', catalog, '--query', query[:256], '--limit', str(limit), '--explain'],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None
    d = json.loads(r.stdout)
    return [(c['canonical_path'], c['score_breakdown']['total']) for c in d.get('candidates', []) if 'score_breakdown' in c], d.get('weak_match', False)

def one(c):
    return {'id': c['id'], 'lang': c.get('language'), 'expect': c.get('expect', 'answer'),
            'rel': {r['canonical']: r['relevance'] for r in c.get('qrels', [])},
            'tools': run(cat_path, c['query'], 20), 'prods': run(pc_path, c['query'], 20)}

with ThreadPoolExecutor(2) as ex:
    res = list(ex.map(one, cases))
json.dump(res, open(out, 'w'), ensure_ascii=False)
print(out, len(res))
