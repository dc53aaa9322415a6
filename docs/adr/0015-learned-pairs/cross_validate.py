#!/usr/bin/env python3
"""Cross-validates the learned word pairs by annotator set (docs/adr/0015).

The dev cases the shipped pairs were learned from (dev-4023: qrels/dev.json without the sets in
src/text/learn_pairs.py's JOINED_LATER) are split in two by the md5 of their id prefix; the
pairs are learned on one half and measured on the other, and the two measured halves are pooled.

usage (from the repository root, after `cargo build --release` and `pip install jieba==0.42.1`):
    python3 docs/adr/0015-learned-pairs/cross_validate.py WORK_DIR [--param KEY=VALUE ...]
(`--param learned_weight=0.15` measures another weight; the row without pairs still sets 0.)
Prints pooled R@1 / R@5 / MRR@10 / Forbidden@5 / workflow complete@5 (and R@1 per language) on the
full catalog and on the catalog_words copy, without the pairs (learned_weight=0) and with each
fold's pairs.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', '..', '..', 'src', 'text'))
import learn_pairs  # noqa: E402

BIN = os.environ.get('TOOLSEARCH', 'target/release/toolsearch')


def pooled(per_case, cases):
    answerable = [p for p in per_case if cases[p['id']].get('expect') != 'abstain']
    ranks = [p.get('rank_of_first_relevant') or 99 for p in answerable]
    with_forbidden = [p for p in per_case if cases[p['id']].get('forbidden')]
    workflows = [p for p in per_case if cases[p['id']].get('workflow')]
    return (sum(r == 1 for r in ranks) / len(ranks),
            sum(r <= 5 for r in ranks) / len(ranks),
            sum(1 / r for r in ranks if r <= 10) / len(ranks),
            sum(any(t in cases[p['id']]['forbidden'] for t in p['returned'][:5])
                for p in with_forbidden) / len(with_forbidden),
            sum(all(t in p['returned'][:5] for t in cases[p['id']]['workflow']['required'])
                for p in workflows) / len(workflows))


def r1_by_language(per_case, cases):
    """R@1 of each language slice's answerable cases, as `zh 0.818, mx 0.841, en 0.752`."""
    slices = []
    for language, short in (('chinese_only', 'zh'), ('mixed_chinese_ascii', 'mx'), ('english', 'en')):
        ranks = [p.get('rank_of_first_relevant') or 99 for p in per_case
                 if cases[p['id']].get('language') == language and cases[p['id']].get('expect') != 'abstain']
        slices.append(f'{short} {sum(r == 1 for r in ranks) / len(ranks):.3f}')
    return ', '.join(slices)


def write_folds(work):
    """Writes the catalog copies (qrels/catalog_variants.py) and the two halves of the cases the
    shipped pairs were learned from (`dev_fold0.json`, `dev_fold1.json`) into WORK_DIR, and
    returns those cases by id."""
    os.makedirs(work, exist_ok=True)
    subprocess.run(['python3', 'qrels/catalog_variants.py', work], check=True, stdout=subprocess.DEVNULL)
    dev = json.load(open('qrels/dev.json', encoding='utf-8'))
    learned_from = [c for c in dev['cases'] if c['id'].split('-')[0] not in learn_pairs.JOINED_LATER]
    for fold in (0, 1):
        half = [c for c in learned_from if learn_pairs.fold_of(c['id']) == fold]
        with open(os.path.join(work, f'dev_fold{fold}.json'), 'w', encoding='utf-8') as out:
            json.dump({'version': dev['version'], 'cases': half}, out, ensure_ascii=False)
    return {c['id']: c for c in learned_from}


def per_case_of(work, catalog, params, extra):
    """Both halves evaluated (on CATALOG, or the embedded one when None) with `extra` and then
    `params(fold)` (so the row's own parameters come last and win), their per-case results
    pooled."""
    per_case = []
    for fold in (0, 1):
        cmd = [BIN, 'eval', '--qrels', os.path.join(work, f'dev_fold{fold}.json'), '--json']
        cmd += ['--catalog', catalog] if catalog else []
        cmd += extra + params(fold)
        per_case += json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)['per_case']
    return per_case


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    work = sys.argv[1]
    extra = sys.argv[2:]
    cases = write_folds(work)
    for fold in (0, 1):
        subprocess.run(['python3', 'src/text/learn_pairs.py', os.path.join(work, 'catalog_words.json'),
                        'qrels/dev.json', str(fold), os.path.join(work, f'pairs_fold{fold}.txt')],
                       check=True, stdout=subprocess.DEVNULL)
    for name, catalog in (('full catalog', None), ('catalog_words', os.path.join(work, 'catalog_words.json'))):
        for label, params in (('without pairs', lambda f: ['--param', 'learned_weight=0']),
                              ('with the other fold\'s pairs',
                               lambda f: ['--param', f'learned_pairs={os.path.join(work, f"pairs_fold{1 - f}.txt")}'])):
            per_case = per_case_of(work, catalog, params, extra)
            figures = ' / '.join(f'{v:.4f}' for v in pooled(per_case, cases))
            print(f'{name:13} {label:28} {figures}  (R@1 {r1_by_language(per_case, cases)})')


if __name__ == '__main__':
    main()
