import json,re,sys,glob,os,copy
HAN=re.compile(r'[\u4e00-\u9fff]')
groups=[]
for line in open('/work/main/src/text/lexicon.txt'):
    line=line.strip()
    if not line or line.startswith('#') or line.startswith('!'): continue
    groups.append([p.strip() for p in line.split('|') if p.strip()])
def touched(text):
    low=text.lower()
    out=[]
    for g in groups:
        for p in g:
            if HAN.search(p):
                if len(p)>=2 and p in text: out.append((g,'han'));break
            else:
                if re.search(r'(?<![a-z0-9])'+re.escape(p)+r's?(?![a-z0-9])',low): out.append((g,'en'));break
    return out
def bridge(tool,fields,lang):
    text=' '.join(str(tool.get(f,'')) for f in fields)
    words=[]
    for g,by in touched(text):
        for p in g:
            want_en = (lang=='en') or (lang=='other' and by=='han')
            if lang=='other' and by=='en': want_en=False
            if want_en != bool(HAN.search(p)) and p not in words: words.append(p)
    return words
def process(src,dst,fields,lang,target):
    os.makedirs(dst,exist_ok=True)
    files=[src] if src.endswith('.json') else sorted(glob.glob(src+'/*.json'))
    for f in files:
        d=json.load(open(f))
        prods=d['products'] if 'products' in d else [d]
        for p in prods:
            for t in p['tools']:
                b=bridge(t,fields,lang)
                if b:
                    if target=='description':
                        t['description']=t.get('description','')+' ('+'; '.join(b)+')'
                    elif target=='use_when':
                        t.setdefault('use_when',[]).append('; '.join(b))
        json.dump(d,open(os.path.join(dst,os.path.basename(f)),'w'),ensure_ascii=False)
src,dst,target=sys.argv[1],sys.argv[2],sys.argv[3]
fields=sys.argv[4].split(',') if len(sys.argv)>4 else ['title','agent_summary']
process(src,dst,fields,os.environ.get('LANG_MODE','en'),target)
