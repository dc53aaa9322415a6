"""Pre-registration 81's dev stage (ADR 0015's addendum on single characters): cross_validate.py's halves of dev-4023,
the shipped learner against one that also takes single Han characters cut alone as query words. usage, from the
repository root, with alone.patch applied (to the tree of this file's last commit) and built:
    python3 docs/adr/0015-learned-pairs/alone_cv.py WORK_DIR"""
import json, sys
sys.path.insert(0, 'src/text'); sys.path.insert(0, 'docs/adr/0015-learned-pairs')
import learn_pairs
from cross_validate import per_case_of, pooled, write_folds
work = sys.argv[1]; extra = sys.argv[2:]
cases = write_folds(work)
for fold in (0, 1):
    for variant, flag in (('shipped', False), ('alone', True)):
        learn_pairs.ALONE_CHARS = flag
        sys.argv = ['x', f'{work}/catalog_words.json', 'qrels/dev.json', str(fold), f'{work}/pairs_{variant}{fold}.txt']
        learn_pairs.main()
for name, cat in (('full', None), ('catalog_words', f'{work}/catalog_words.json')):
    for variant in ('shipped', 'alone'):
        per_case = per_case_of(work, cat, lambda f, v=variant: ['--param', f'learned_pairs={work}/pairs_{v}{1-f}.txt'], extra)
        wf = [p for p in per_case if cases[p['id']].get('workflow')]
        done = sum(all(t in p['returned'][:5] for t in cases[p['id']]['workflow']['required']) for p in wf)
        fb = sum(any(t in cases[p['id']]['forbidden'] for t in p['returned'][:5]) for p in per_case if cases[p['id']].get('forbidden'))
        r1 = sum(p.get('rank_of_first_relevant') == 1 for p in per_case if cases[p['id']].get('expect') != 'abstain')
        print(f'{name:13} {variant:8}', ' / '.join(f'{v:.4f}' for v in pooled(per_case, cases)), f'(R@1 {r1}, F@5 {fb}, WF {done}/{len(wf)})', flush=True)
