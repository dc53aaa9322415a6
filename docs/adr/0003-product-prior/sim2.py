"""The offline simulation of pre-registration 103: reranks sim_collect.py's top 20 by a product
prior of several forms (max, dist, top, margin, sq) and weights. usage: sim2.py COLLECTED.json..."""
import json, sys, math
def rank_case(c, f):
    tools = c['tools'][0]
    prods = dict(c['prods'][0]) if c['prods'] else {}
    return sorted(tools, key=lambda ts: (-round(f(ts[0], ts[1], prods, tools), 6), ts[0]))
def metrics(data, f):
    n = r1 = r5 = 0; mrr = 0.0
    for c in data:
        if c['expect'] == 'abstain' or not c['rel']: continue
        n += 1
        if not c['tools']: continue
        for i, (t, _) in enumerate(rank_case(c, f)[:10]):
            if c['rel'].get(t, 0) >= 1:
                r1 += i == 0; r5 += i < 5; mrr += 1 / (i + 1); break
    return r1, r5, mrr / max(n, 1)
def P(t): return 'prod.' + t.split('.')[0].replace('-', '_')
def mk(kind, lam):
    def f(t, s, prods, tools):
        if not prods: return s
        v = prods.get(P(t), 0); mx = max(prods.values()); tot = sum(prods.values())
        if kind == 'max': x = v / mx if mx else 0
        elif kind == 'dist': x = v / tot if tot else 0
        elif kind == 'top': x = 1.0 if v == mx and mx > 0 else 0
        elif kind == 'margin':
            srt = sorted(prods.values(), reverse=True)
            x = (1.0 if v == mx else 0) * ((srt[0] - srt[1]) / srt[0] if len(srt) > 1 and srt[0] else 0)
        elif kind == 'sq': x = (v / mx) ** 2 if mx else 0
        return s * (1 + lam * x)
    return f
files = sys.argv[1:]
base = None
for kind in ['max', 'dist', 'top', 'margin', 'sq']:
    for lam in [0.1, 0.2, 0.3, 0.5]:
        tot = [0, 0, 0.0]; row = []
        for fn in files:
            r1, r5, mrr = metrics(json.load(open(fn)), mk(kind, lam))
            row.append('%4d %4d %.3f' % (r1, r5, mrr))
            if 'dws' not in fn: tot[0] += r1; tot[1] += r5; tot[2] += mrr
        print('%-6s %4.2f | ' % (kind, lam) + ' | '.join(row) + ' || foreign %d %d %.3f' % tuple(tot))
