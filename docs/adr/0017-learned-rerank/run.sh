#!/bin/sh
# Reproduces ADR 0017's figures. Run from the root of a scratch worktree of this repository
# (the patch is a measuring tool, not for main):
#     git worktree add /tmp/rerank HEAD && cd /tmp/rerank
#     git apply docs/adr/0017-learned-rerank/features.patch && cargo build --release
#     OUT=/tmp/rerank-out sh docs/adr/0017-learned-rerank/run.sh
# Needs jieba 0.42.1 (the pairs learner), numpy and scikit-learn (the reranker).
set -e
T=${T:-target/release/toolsearch}
D=docs/adr/0017-learned-rerank
O=${OUT:-/tmp/rerank-out}
mkdir -p "$O"

# Dev's features with learned pairs out of fold: each half of the annotator sets is searched with
# the pairs learned on the other half (docs/adr/0015's cross-validation), so the learned terms
# are no better on dev than on new requests.
sh docs/adr/0015-learned-pairs/out_of_fold.sh "$O"
# Dev's workflow arms, each searched alone.
python3 - "$O" <<'EOF'
import json, sys
out = sys.argv[1]
dev = json.load(open('qrels/dev.json', encoding='utf-8'))
arms = []
for c in dev['cases']:
    w = c.get('workflow')
    for i, (q, r) in enumerate(zip(w['subqueries'], w['required']) if w else []):
        arm = {'id': f"{c['id']}#{i}", 'language': c['language'], 'query': q,
               'qrels': [{'canonical': r, 'relevance': 3}]}
        if c.get('filters'):
            arm['filters'] = c['filters']
        arms.append(arm)
json.dump(dict(dev, cases=arms), open(f'{out}/arms.json', 'w', encoding='utf-8'), ensure_ascii=False)
EOF
FEATURES=1 $T why --qrels "$O/dev_fold0.json" --case x --param learned_pairs="$O/pairs_1.txt" > "$O/dev_oof.jsonl"
FEATURES=1 $T why --qrels "$O/dev_fold1.json" --case x --param learned_pairs="$O/pairs_0.txt" >> "$O/dev_oof.jsonl"
# Dev with the shipped pairs (in-sample for 4,023 of its cases), the five spent blind sets, dev's
# workflow arms searched alone, and the two catalogs nobody tuned on.
FEATURES=1 $T why --qrels qrels/dev.json --case x > "$O/dev.jsonl"
FEATURES=1 $T why --qrels "$O/spent.json" --case x > "$O/spent.jsonl"
FEATURES=1 $T why --qrels "$O/arms.json" --case x > "$O/arms.jsonl"
FEATURES=1 $T why --catalog qrels/foreign/catalog --qrels qrels/foreign/dev.json --case x > "$O/fra.jsonl"
FEATURES=1 $T why --catalog qrels/imported/catalog --qrels qrels/imported/dev.json --case x > "$O/fea.jsonl"

L="python3 $D/learned_rerank.py"
for kind in lr gb gb-large; do
  echo "== dev, out-of-fold pairs, cross-validated: $kind"; $L cv "$O/dev_oof.jsonl" qrels/dev.json $kind
done
echo "== dev, shipped pairs (in-sample), cross-validated: gb"; $L cv "$O/dev.jsonl" qrels/dev.json gb
for kind in lr gb; do
  echo "== trained on dev (out-of-fold pairs), applied to the spent blind sets: $kind"
  $L apply "$O/dev_oof.jsonl" qrels/dev.json "$O/spent.jsonl" "$O/spent.json" $kind
done
echo "== trained on dev (shipped pairs), applied to the spent blind sets: gb"
$L apply "$O/dev.jsonl" qrels/dev.json "$O/spent.jsonl" "$O/spent.json" gb
echo "== trained on dev (out-of-fold pairs), applied to dev's workflow arms: gb"
$L apply "$O/dev_oof.jsonl" qrels/dev.json "$O/arms.jsonl" "$O/arms.json" gb
echo "== trained on dev (out-of-fold pairs), applied to FRA and FEA: gb"
$L apply "$O/dev_oof.jsonl" qrels/dev.json "$O/fra.jsonl" qrels/foreign/dev.json gb
$L apply "$O/dev_oof.jsonl" qrels/dev.json "$O/fea.jsonl" qrels/imported/dev.json gb
echo "== permutation importance (dev, out-of-fold pairs)"; $L importance "$O/dev_oof.jsonl" qrels/dev.json
