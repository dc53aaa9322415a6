# hybrid rerank of the top 20: (1 - lam) * total / top total + lam * cosine (NORM=1: cosine min-max
# normalised over the query's candidates). usage: [NORM=1] python3 e5eval.py [full|short] [SET ...]
# (sets: dev bfcl acezh aceen, and since session 18 fra fea; the first set's language slices are
# printed too)
import os, pickle, sys
V = sys.argv[1] if len(sys.argv) > 1 else 'full'
NORM = os.environ.get('NORM') == '1'
SETS = sys.argv[2:] or ['dev', 'bfcl', 'acezh', 'aceen']
data = {n: pickle.load(open(f'/tmp/s5/e5_{n}_{V}.pkl', 'rb')) for n in SETS if os.path.exists(f'/tmp/s5/e5_{n}_{V}.pkl')}


def ev(cases, emb, lam, lang=None):
    r1 = r5 = mrr = n = 0
    for c in cases:
        if lang and c['lang'] != lang:
            continue
        n += 1
        cs = c['cands']
        if not cs:
            continue
        top = cs[0]['b']['total'] or 1
        cos = [float(emb[k['path']] @ c['qe']) for k in cs]
        lo, hi = min(cos), max(cos)
        if NORM:
            cos = [(x - lo) / (hi - lo) if hi > lo else 0.0 for x in cos]
        order = sorted(range(len(cs)), key=lambda i: (-((1 - lam) * cs[i]['b']['total'] / top + lam * cos[i]), i))
        rel = [c['rel'].get(cs[i]['path'], 0) >= 1 for i in order]
        r1 += rel[0]
        r5 += any(rel[:5])
        mrr += next((1 / (i + 1) for i, r in enumerate(rel[:10]) if r), 0)
    return r1 / n, r5 / n, mrr / n


for lam in [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]:
    row = [f'{lam:.1f}'] + [f'{s} %.3f/%.3f/%.3f' % ev(*data[s], lam) for s in data]
    first = next(iter(data))
    row += [f'{l[:5]} %.3f/%.3f' % ev(*data[first], lam, l)[:2] for l in ['chinese_only', 'mixed_chinese_ascii', 'english']]
    print('  '.join(row))
