#!/usr/bin/env python3
"""Cross-validates the learned pairs learned from another copy's text (session 17).

usage (from the repository root, after `cargo build --release` and `pip install jieba==0.42.1`):
    python3 docs/adr/0015-learned-pairs/cv_dws.py WORK_DIR
Learner text variants: the catalog_words copy (shipped) and the dws_like copy (catalog_words
without English), both written by qrels/catalog_variants.py through write_folds.
Each fold's pairs are measured on the other fold, on the full catalog, the catalog_words copy and
the dws_like copy. Prints pooled R@1 / R@5 / MRR@10 / Forbidden@5 / workflow complete@5 and R@1
per language.
"""
import os, subprocess, sys
sys.path.insert(0, 'docs/adr/0015-learned-pairs')
import cross_validate as cv  # noqa: E402

work = sys.argv[1]
cases = cv.write_folds(work)
for learner in ('catalog_words', 'dws_like'):
    for fold in (0, 1):
        out = os.path.join(work, f'pairs_{learner}_{fold}.txt')
        if not os.path.exists(out):
            subprocess.run(['python3', 'src/text/learn_pairs.py', os.path.join(work, f'{learner}.json'),
                            'qrels/dev.json', str(fold), out], check=True, stdout=subprocess.DEVNULL)
rows = [('none', lambda f: ['--param', 'learned_weight=0'])]
for learner in ('catalog_words', 'dws_like'):
    rows.append((learner, lambda f, l=learner: ['--param', f'learned_pairs={os.path.join(work, f"pairs_{l}_{1 - f}.txt")}']))
for name, catalog in (('full', None), ('catalog_words', os.path.join(work, 'catalog_words.json')),
                      ('dws_like', os.path.join(work, 'dws_like.json'))):
    for label, params in rows:
        per_case = cv.per_case_of(work, catalog, params, [])
        figures = ' / '.join(f'{v:.4f}' for v in cv.pooled(per_case, cases))
        print(f'{name:14} learner {label:14} {figures}  (R@1 {cv.r1_by_language(per_case, cases)})', flush=True)
