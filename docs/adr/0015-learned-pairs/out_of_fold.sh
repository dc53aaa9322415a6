#!/bin/sh
# The out-of-fold inputs of ADR 0017's and ADR 0006's learned models (run from the repository's
# root): dev split in two by annotator set, each half's learned pairs learned on the other half
# (this ADR's cross-validation), and the five spent blind sets pooled.
#     sh docs/adr/0015-learned-pairs/out_of_fold.sh OUT
# Writes OUT/var/ (qrels/catalog_variants.py), OUT/pairs_{0,1}.txt, OUT/dev_fold{0,1}.json and
# OUT/spent.json. Needs jieba 0.42.1 (the pairs learner).
set -e
O=$1
mkdir -p "$O"
python3 qrels/catalog_variants.py "$O/var"
for f in 0 1; do
  python3 src/text/learn_pairs.py "$O/var/catalog_words.json" qrels/dev.json $f "$O/pairs_$f.txt"
done
python3 - "$O" <<'PY'
import json, sys
sys.path.insert(0, 'src/text')
from learn_pairs import fold_of
out = sys.argv[1]
dev = json.load(open('qrels/dev.json', encoding='utf-8'))
for f in (0, 1):
    json.dump(dict(dev, cases=[c for c in dev['cases'] if fold_of(c['id']) == f]),
              open(f'{out}/dev_fold{f}.json', 'w', encoding='utf-8'), ensure_ascii=False)
spent = [json.load(open(p, encoding='utf-8')) for p in
         ('qrels/holdout.json', 'qrels/holdout-next.json', 'qrels/holdout-after.json')]
json.dump(dict(spent[0], cases=[c for d in spent for c in d['cases']]),
          open(f'{out}/spent.json', 'w', encoding='utf-8'), ensure_ascii=False)
PY
