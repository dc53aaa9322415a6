# Reranks best_situation_dump.py's lists by the best single use_when situation (from the repo root):
#   python3 docs/adr/0012-use-when-situations/best_situation_sim.py OUT.json
import json,glob,re,math,sys
tools={}
for f in glob.glob('catalog/*.json'):
    for p in json.load(open(f)).get('products',[]):
        for t in p['tools']: tools[t['canonical_path']]=t
cases={c['id']:c for c in json.load(open('qrels/dev.json'))['cases']}
STOP=set("the a an to of in on for and or my me i is it be this that with at from by our we you your can please just all any so do don't not".split())
def toks(text):
    text=text.lower(); out=set()
    for w in re.findall(r"[a-z0-9]+",text):
        if w in STOP or len(w)<2: continue
        if len(w)>3 and w.endswith('s'): w=w[:-1]
        out.add(w)
    for run in re.findall(r"[\u4e00-\u9fff]+",text):
        if len(run)==1: out.add(run)
        for k in range(len(run)-1): out.add(run[k:k+2])
    return out
sits={p:[toks(s) for s in t.get('use_when',[])] for p,t in tools.items()}
df={}
for p,ss in sits.items():
    for w in set().union(*ss) if ss else set(): df[w]=df.get(w,0)+1
N=len(tools)
idf=lambda w: math.log(1+(N-df[w]+.5)/(df[w]+.5))
res=json.load(open(sys.argv[1]))
def evaluate(c_w, mode):
    n=r1=r5=0; rr=0
    for r in res:
        case=cases[r['id']]; rel={q['canonical'] for q in case['qrels'] if q['relevance']>=1}
        Q=[w for w in toks(case['query']) if w in df]; tot=sum(idf(w) for w in Q) or 1
        scored=[]
        for k,(p,s) in enumerate(r['cands']):
            ss=sits.get(p,[])
            best=max((sum(idf(w) for w in Q if w in st) for st in ss),default=0)/tot
            bag=sum(idf(w) for w in Q if any(w in st for st in ss))/tot
            if mode=='best': f=1-c_w+c_w*best
            else: f=1-c_w+c_w*((best/bag) if bag>0 else 1)
            scored.append((-s*f,k,p))
        scored.sort(); l=[p for _,_,p in scored]
        n+=1; rank=next((k+1 for k,t in enumerate(l) if t in rel),None)
        r1+=rank==1; r5+=bool(rank and rank<=5); rr+=1/rank if rank and rank<=10 else 0
    return f"R1 {r1/n:.4f} R5 {r5/n:.4f} MRR {rr/n:.4f}"
print('base', evaluate(0,'best'))
for mode in ('best','ratio'):
    for c in (0.1,0.2,0.3,0.5):
        print(mode,c,evaluate(c,mode))
