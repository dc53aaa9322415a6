# Logistic rerankers over the --explain features of dump.py's top-20 candidates.
# usage: python3 ltr.py          — today's features (total, fields, coverage, multiplier, rank)
#        python3 ltr.py verbs    — total, coverage, and action-verb agreement / conflict (act.py)
import json, math, random, sys
import numpy as np
from sklearn.linear_model import LogisticRegression
sys.path.insert(0, '/tmp/s3')
VERBS = len(sys.argv) > 1 and sys.argv[1] == 'verbs'
if VERBS:
    from act import query_actions, verb_of, ACTION_WORDS
F = ['description', 'identity', 'parameters', 'summary', 'use_when']

def feats(case):
    cs = case['cands']; top = cs[0]['b']['total'] or 1
    if VERBS:
        qa = case.setdefault('_qa', query_actions(case['query']))
    X = []
    for i, c in enumerate(cs):
        b = c['b']; tot = b['total']
        if VERBS:
            v = verb_of(c['path'])
            X.append([tot / top, math.log1p(tot), b['coverage'], 1.0 if v in qa else 0.0,
                      1.0 if (v in ACTION_WORDS and v not in qa) else 0.0])
        else:
            fl = [b['fields'].get(f, 0.0) for f in F]
            X.append([tot / top, math.log1p(tot), b['coverage'],
                      math.log(b['multiplier']) if b['multiplier'] > 0 else -5]
                     + [v / top for v in fl] + [1.0 if v > 0 else 0.0 for v in fl] + [1.0 / (i + 1)])
    return np.array(X)

def load(n): return [c for c in json.load(open(f'/tmp/s3/{n}.json')) if c['cands']]
sets = {n: load(n) for n in ['dev', 'bfcl', 'acezh', 'aceen']}

def r1(cases, model=None):
    hit = 0
    for c in cases:
        order = range(len(c['cands'])) if model is None else np.argsort(-model.decision_function(feats(c)), kind='stable')
        hit += c['rel'].get(c['cands'][list(order)[0]]['path'], 0) >= 1
    return hit / len(cases)

def train(names):
    Xs = []; ys = []
    for n in names:
        for c in sets[n]:
            y = [1 if c['rel'].get(k['path'], 0) >= 1 else 0 for k in c['cands']]
            if sum(y) == 0: continue
            Xs.append(feats(c)); ys += y
    m = LogisticRegression(C=1.0, max_iter=2000); m.fit(np.vstack(Xs), np.array(ys)); return m

print('baseline', {n: round(r1(s), 3) for n, s in sets.items()})
for tr in [['bfcl', 'acezh', 'aceen'], ['dev'], ['dev', 'bfcl', 'acezh', 'aceen']]:
    m = train(tr)
    print('train', tr, {n: round(r1(s, m), 3) for n, s in sets.items()}, np.round(m.coef_, 2))
d = sets['dev'][:]; random.Random(1).shuffle(d); k = 5; tot = 0
for i in range(k):
    te = d[i::k]; sets['_t'] = [c for j, c in enumerate(d) if j % k != i]; m = train(['_t']); tot += r1(te, m) * len(te)
print('dev 5-fold CV', round(tot / len(d), 3))
