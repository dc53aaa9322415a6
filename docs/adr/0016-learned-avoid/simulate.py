"""Simulates the avoid pairs by reordering each case's top 20 (docs/adr/0016): learned on one half of
the annotator sets, applied to the other. usage, from the repository root:
    python3 docs/adr/0016-learned-avoid/simulate.py TOP20.json qrels/dev.json"""
import json, sys, collections, itertools
sys.path.insert(0, 'src/text')
import learn_pairs, jieba
jieba.setLogLevel(60)
from learn_pairs import tokens, fold_of
dump = json.load(open(sys.argv[1]))
cases = {c['id']: c for c in json.load(open(sys.argv[2]))['cases'] if c['id'] in dump}
tools = {}
import glob
for f in sorted(glob.glob('catalog/*.json')):
    for p in json.load(open(f))['products']:
        for t in p['tools']:
            parts = [t['canonical_path'].replace('.', ' ').replace('_', ' '), t.get('title', ''), t.get('agent_summary') or '', t.get('description') or '']
            parts += t.get('use_when') or []
            tools[t['canonical_path']] = tokens(' '.join(parts))
qtok = {i: tokens(c['query']) for i, c in cases.items()}

def learn(train, MIN_Q, MIN_NEG, MAX_GOLD):
    with_q = collections.Counter(); neg = collections.defaultdict(collections.Counter); gold = collections.defaultdict(collections.Counter)
    for i in train:
        c = cases[i]
        if c.get('expect') == 'abstain' or not c.get('forbidden'):
            continue
        rel = set().union(*[tools.get(j['canonical'], set()) for j in c['qrels'] if j['relevance'] >= 3])
        wrong = set().union(*[tools.get(f, set()) for f in c['forbidden']]) - rel
        for q in qtok[i]:
            with_q[q] += 1
            for t in wrong: neg[q][t] += 1
            for t in rel: gold[q][t] += 1
    pairs = collections.defaultdict(set)
    for q, n in with_q.items():
        if n < MIN_Q: continue
        for t, k in neg[q].items():
            if k / n >= MIN_NEG and gold[q][t] / n <= MAX_GOLD:
                pairs[q].add(t)
    return pairs

def metrics(ids, pairs, mult):
    r1 = r5 = mrr = 0; na = 0; fb = nf = 0
    for i in ids:
        c = cases[i]; hits = dump[i]['hits']
        bad = set().union(*[pairs.get(q, set()) for q in qtok[i]]) if pairs else set()
        if bad:
            hits = sorted(((p, s * (mult if tools.get(p, set()) & bad else 1)) for p, s in hits), key=lambda x: (-round(x[1], 9), x[0]))
        ret = [p for p, _ in hits]
        if c.get('expect') != 'abstain':
            na += 1
            rel = {j['canonical'] for j in c['qrels']}
            rank = next((k + 1 for k, p in enumerate(ret[:10]) if p in rel), 99)
            r1 += rank == 1; r5 += rank <= 5; mrr += 1 / rank if rank <= 10 else 0
        if c.get('forbidden'):
            nf += 1; fb += any(p in c['forbidden'] for p in ret[:5])
    return r1, r5, mrr, na, fb, nf

ids = sorted(cases)
folds = [[i for i in ids if fold_of(i) == f] for f in (0, 1)]
base = [sum(x) for x in zip(*[metrics(folds[f], None, 1) for f in (0, 1)])]
def show(label, m):
    r1, r5, mrr, na, fb, nf = m
    print(f'{label:30} R@1 {r1/na:.4f} ({r1}) R@5 {r5/na:.4f} ({r5}) MRR {mrr/na:.4f} F@5 {fb/nf:.4f} ({fb}/{nf})')
show('base', base)
for MIN_Q, MIN_NEG, MAX_GOLD, mult in itertools.product((3, 5), (0.3, 0.5), (0.0, 0.1), (0.5, 0.8, 0.9)):
    m = [sum(x) for x in zip(*[metrics(folds[f], learn(folds[1 - f], MIN_Q, MIN_NEG, MAX_GOLD), mult) for f in (0, 1)])]
    show(f'{MIN_Q} {MIN_NEG} {MAX_GOLD} x{mult}', m)
