"""Session 21's dev stage (ADR 0015's addendum "pairs from workflow arms, for arms only"): would
pairs learned from single requests and workflow arms help if only a workflow's arms used them?
Single requests would then be unchanged by construction, so only dev-5056's 579 workflow cases
are measured. Each fold of them (learn_pairs.fold_of) is searched with pairs learned on the other
fold of dev-4023: the shipped learner against one that also learns from the arms (ARMS=1, with
arms_only.patch applied).

usage, from the repository root, with arms_only.patch applied and the release binary built:
    python3 docs/adr/0015-learned-pairs/arms_only_cv.py WORK_DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, 'src/text')
from learn_pairs import fold_of  # noqa: E402

BIN = os.environ.get('TOOLSEARCH', 'target/release/toolsearch')


def learn(work):
    subprocess.run([sys.executable, 'qrels/catalog_variants.py', f'{work}/var'], check=True,
                   stdout=subprocess.DEVNULL)
    for fold in (0, 1):
        for variant, env in (('singles', {}), ('arms', {'ARMS': '1'})):
            subprocess.run([sys.executable, 'src/text/learn_pairs.py', f'{work}/var/catalog_words.json',
                            'qrels/dev.json', str(fold), f'{work}/{variant}_{fold}.txt'],
                           check=True, env={**os.environ, **env})


def measure(work, catalog, variant):
    dev = json.load(open('qrels/dev.json', encoding='utf-8'))
    workflows = [c for c in dev['cases'] if c.get('workflow')]
    n = complete = with_forbidden = forbidden = 0
    recall = 0.0
    for fold in (0, 1):
        cases = [c for c in workflows if fold_of(c['id']) == fold]
        path = f'{work}/workflows_{fold}.json'
        json.dump(dict(dev, cases=cases), open(path, 'w', encoding='utf-8'), ensure_ascii=False)
        command = [BIN, 'eval', '--qrels', path, '--json',
                   '--param', f'learned_pairs={work}/{variant}_{1 - fold}.txt']
        if catalog:
            command[2:2] = ['--catalog', catalog]
        report = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
        by_id = {c['id']: c for c in cases}
        for answer in report['per_case']:
            case = by_id[answer['id']]
            required, top = case['workflow']['required'], answer['returned'][:5]
            n += 1
            complete += all(t in top for t in required)
            recall += sum(t in top for t in required) / len(required)
            if case.get('forbidden'):
                with_forbidden += 1
                forbidden += any(t in case['forbidden'] for t in top)
    return (f'{n} workflows: complete {complete} ({complete / n:.4f}), recall@5 {recall / n:.4f}, '
            f'Forbidden@5 {forbidden} of {with_forbidden} ({forbidden / with_forbidden:.4f})')


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    learn(work)
    for name, catalog in (('full catalog', None), ('catalog_words', f'{work}/var/catalog_words.json')):
        for variant in ('singles', 'arms'):
            print(f'{name:13s} pairs from {variant:8s}', measure(work, catalog, variant), flush=True)


if __name__ == '__main__':
    main()
