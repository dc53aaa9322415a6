"""Which kind of term gives a wrong first tool its lead (ADR 0004, session 19's addendum).

For every answerable single request without filters that is answered wrong at rank 1, the wanted
tool is the best-ranked relevance-3 tool: `toolsearch why --query Q --limit 1 WANTED` explains
both, and the winner's lead (each term's contribution times the tool's multipliers) is summed by
the term's class: the request's English words, Han words, Han n-grams, word pairs, identifier
shapes, and each origin of a joined term (lexicon, learned, wordnet, stem, typo, value). The class
with the largest lead is counted as the one that decided. With a fourth argument, the same for
the requests answered right, as the right first tool's lead over the second.

It parses `why`'s readable report (not a public format): run it with the binary of the commit
that added it. From the repository root, after `cargo build --release`:

    python3 docs/adr/0004-why-decompose.py dev - qrels/dev.json [hits]
    python3 docs/adr/0004-why-decompose.py FRA qrels/foreign/catalog qrels/foreign/dev.json [hits]
"""
import json, subprocess, sys, re, collections
from concurrent.futures import ThreadPoolExecutor
T='target/release/toolsearch'
name, cat, qrels = sys.argv[1], sys.argv[2], sys.argv[3]
catargs = ['--catalog', cat] if cat != '-' else []
rep = json.loads(subprocess.run([T,'eval','--qrels',qrels,'--json']+catargs,capture_output=True,text=True,check=True).stdout)
cases = {c['id']:c for c in json.load(open(qrels))['cases']}
todo=[]
for p in rep['per_case']:
    c=cases[p['id']]
    if c.get('workflow') or c.get('expect')=='abstain' or c.get('filters'): continue
    hitmode = len(sys.argv)>4
    if (p['rank_of_first_relevant']==1) != hitmode: continue
    rel={q['canonical'] for q in c['qrels'] if q['relevance']>=1}
    r3=[q['canonical'] for q in c['qrels'] if q['relevance']==3]
    # the wanted tool: the best-ranked relevance-3 tool in the returned list, else the first relevance-3 tool
    ret=p['returned']
    wanted=next((t for t in ret if t in r3), r3[0] if r3 else None)
    if not wanted or not ret: continue
    q=c['query'][:256]
    if hitmode:
        if len(ret)<2: continue
        todo.append((p['id'],q,ret[0],ret[1],1))  # lead of the right first tool over the second
    else:
        todo.append((p['id'],q,ret[0],wanted,p['rank_of_first_relevant']))
def cls(term, origin):
    if origin!='request': return 'joined:'+origin
    if term.startswith('#id:'): return 'req:idshape'
    if term.startswith('#') and ' ' in term: return 'req:pair'
    if term.startswith('#'): return 'req:han-ngram'
    if re.search(r'[\u4e00-\u9fff]', term): return 'req:han-word'
    return 'req:word'
def parse(out):
    blocks={}; cur=None
    for line in out.split('\n'):
        m=re.match(r'^(rank \d+|unranked|not eligible \(unavailable\))  (\S+)$', line)
        if m: cur=m.group(2); blocks[cur]={'parts':{}, 'score':0.0, 'fields':0.0, 'intent':1.0,'coord':1.0}; continue
        if cur is None: continue
        m=re.match(r'^  score ([\d.]+) = fields ([\d.]+) × intents ([\d.]+) × coordination ([\d.]+)', line)
        if m: blocks[cur].update(score=float(m.group(1)), fields=float(m.group(2)), intent=float(m.group(3)), coord=float(m.group(4))); continue
        m=re.match(r'^  (.+?)\s{2,}(request|lexicon|learned|wordnet|stem|typo|value)\s+(.*)$', line)
        if m:
            nums=m.group(3).split()
            blocks[cur]['parts'][(m.group(1).strip(), m.group(2))]=float(nums[-1])
    return blocks
def run(item):
    cid,q,win,want,rk=item
    out=subprocess.run([T,'why','--query',q,'--limit','1',want]+catargs,capture_output=True,text=True).stdout
    return item, parse(out)
agg=collections.Counter(); decider=collections.Counter(); n=0; mult_decides=0
with ThreadPoolExecutor(4) as ex:
    for (cid,q,win,want,rk), b in ex.map(run, todo):
        if win not in b or want not in b: continue
        n+=1
        W,V=b[win],b[want]
        # lead in field sums by class, scaled by each tool's multiplier
        d=collections.Counter()
        for k,v in W['parts'].items(): d[cls(*k)]+=v*W['intent']*W['coord']
        for k,v in V['parts'].items(): d[cls(*k)]-=v*V['intent']*V['coord']
        for k,v in d.items(): agg[k]+=v
        lead=W['score']-V['score']
        # fields-only lead vs multiplier effect
        if W['fields']<V['fields']: mult_decides+=1
        top=max(d.items(), key=lambda kv: kv[1]) if d else ('none',0)
        decider[top[0]]+=1
print(f'{name}: {n} {"R@1 hits (lead of the right tool over rank 2)" if len(sys.argv)>4 else "R@1 misses"} analysed; winner has the smaller field sum (a multiplier decided) in {mult_decides}')
print('  class with the largest lead for the winner (count):', ', '.join(f'{k} {v}' for k,v in decider.most_common()))
print('  summed lead by class:', ', '.join(f'{k} {v:+.1f}' for k,v in sorted(agg.items(), key=lambda kv:-kv[1])))
