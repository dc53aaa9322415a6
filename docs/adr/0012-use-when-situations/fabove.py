#!/usr/bin/env python3
"""fabove.py QRELS EVAL_JSON... -- cases (with forbidden) where a forbidden tool ranks above the first relevant one (within top 5; gold absent counts if a forbidden is in top 5)."""
import json,sys
q={c['id']:c for c in json.load(open(sys.argv[1]))['cases']}
for f in sys.argv[2:]:
    pc={c['id']:c for c in json.load(open(f))['per_case']}
    n=0;k=0;f1=0
    for i,c in q.items():
        fb=set(c.get('forbidden',[]))
        if not fb: continue
        n+=1
        r=pc[i]['returned'][:5]; rel={x['canonical'] for x in c['qrels'] if x['relevance']>=1}
        first=next((j for j,t in enumerate(r) if t in rel),99)
        if any(t in fb for t in r[:first]): k+=1
        if r and r[0] in fb: f1+=1
    print(f"{f}: forbidden above first relevant {k}/{n} = {k/n:.3f}; forbidden at rank 1 {f1}")
