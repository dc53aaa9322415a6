"""Pre-registration 80's dev stage (docs/adr/0016): dev-4741's halves (learn_pairs.fold_of), avoid pairs learned on
the other half. usage, from the repository root, with learn_avoid.py copied to src/text/ and engine.patch applied
(on 69a64fb) and built: python3 docs/adr/0016-learned-avoid/avoid_cv.py WORK_DIR"""
import json, os, subprocess, sys
sys.path.insert(0, 'src/text'); sys.path.insert(0, 'docs/adr/0015-learned-pairs')
import learn_pairs
from cross_validate import pooled
work = sys.argv[1]; extra = sys.argv[2:]
os.makedirs(work, exist_ok=True)
dev = json.load(open('qrels/dev.json', encoding='utf-8'))
cases = {c['id']: c for c in dev['cases']}
for fold in (0, 1):
    half = [c for c in dev['cases'] if learn_pairs.fold_of(c['id']) == fold]
    json.dump({'version': dev['version'], 'cases': half}, open(f'{work}/dev_fold{fold}.json', 'w'), ensure_ascii=False)
    for min_q in (5, 8):
        subprocess.run(['python3', 'src/text/learn_avoid.py', 'catalog', 'qrels/dev.json', str(fold), f'{work}/avoid_{min_q}_{fold}.txt', str(min_q)], check=True)
def run(label, params_of, catalog=None):
    per_case = []
    for fold in (0, 1):
        cmd = ['target/release/toolsearch', 'eval', '--qrels', f'{work}/dev_fold{fold}.json', '--json'] + extra + params_of(fold)
        cmd += ['--catalog', catalog] if catalog else []
        per_case += json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)['per_case']
    wf = [p for p in per_case if cases[p['id']].get('workflow')]
    done = sum(all(t in p['returned'][:5] for t in cases[p['id']]['workflow']['required']) for p in wf)
    fb = sum(any(t in cases[p['id']]['forbidden'] for t in p['returned'][:5]) for p in per_case if cases[p['id']].get('forbidden'))
    print(f'{label:28}', ' / '.join(f'{v:.4f}' for v in pooled(per_case, cases)), f'(WF {done}/{len(wf)}, F@5 {fb})', flush=True)
    return per_case
run('none', lambda f: [])
for min_q in (5, 8):
    for pen in (0.85, 0.9):
        run(f'MIN_Q {min_q} penalty {pen}', lambda f, m=min_q, p=pen: ['--param', f'learned_avoid={work}/avoid_{m}_{1-f}.txt', '--param', f'avoid_penalty={p}'])
