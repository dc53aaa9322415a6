import re
LEX=[l for l in open('./src/text/lexicon.txt').read().split('\n') if l.strip() and not l.startswith('#') and not l.startswith('!')]
groups=[[p.strip() for p in l.split('|') if p.strip()] for l in LEX]
def lemma(w):
    for suf,rep in (('ied','y'),('ing',''),('ed','')):
        if w.endswith(suf) and len(w)-len(suf)>=2: w=w[:-len(suf)]+rep; break
    if len(w)>3 and w.endswith('s') and not w.endswith('ss'): w=w[:-1]
    return w
def words(t): return [lemma(w) for w in re.findall(r'[a-z0-9]+',t.lower())]
def has_han(t): return any('\u4e00'<=ch<='\u9fff' for ch in t)
def touched(q):
    ql=q.lower(); qw=words(q); out=[]
    for g in groups:
        for p in g:
            if has_han(p):
                if len(p)>=2 and p in ql: out.append(g); break
            else:
                pw=words(p)
                if pw and any(qw[i:i+len(pw)]==pw for i in range(len(qw))): out.append(g); break
    return out
ACTION_WORDS=set()
for g in groups:
    for p in g:
        if not has_han(p) and ' ' not in p: ACTION_WORDS.add(lemma(p))
def query_actions(q):
    s=set(words(q))
    for g in touched(q):
        for p in g:
            if not has_han(p) and ' ' not in p: s.add(lemma(p))
    return s
def verb_of(path):
    name=path.split('.',1)[-1]
    toks=re.split(r'[_\-.]',name.lower())
    return lemma(toks[0]) if toks else ''
