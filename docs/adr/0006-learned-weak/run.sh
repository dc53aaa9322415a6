#!/bin/sh
# Reproduces ADR 0006's learned weak_match figures (session-21 addendum). Run from the root of a
# scratch worktree of this repository (the patch is a measuring tool, not for main):
#     git worktree add /tmp/weak HEAD && cd /tmp/weak
#     git apply docs/adr/0006-learned-weak/features.patch && cargo build --release
#     OUT=/tmp/weak-out sh docs/adr/0006-learned-weak/run.sh
# Needs jieba 0.42.1 (the pairs learner), numpy and scikit-learn. The patch is ADR 0017's, changed to
# write the features of abstain requests too. Its last step retrains the shipped model and says
# whether src/retrieve/weak_model.txt is still current.
set -e
T=${T:-target/release/toolsearch}
D=docs/adr/0006-learned-weak
O=${OUT:-/tmp/weak-out}
mkdir -p "$O"
# Dev's features with learned pairs out of fold, as ADR 0017's run.sh.
sh docs/adr/0015-learned-pairs/out_of_fold.sh "$O"
FEATURES=1 $T why --qrels "$O/dev_fold0.json" --case x --param learned_pairs="$O/pairs_1.txt" > "$O/dev_oof.jsonl"
FEATURES=1 $T why --qrels "$O/dev_fold1.json" --case x --param learned_pairs="$O/pairs_0.txt" >> "$O/dev_oof.jsonl"
FEATURES=1 $T why --qrels "$O/spent.json" --case x > "$O/spent.jsonl"
FEATURES=1 $T why --qrels qrels/holdout-abstain.json --case x > "$O/holdout-abstain.jsonl"
FEATURES=1 $T why --catalog qrels/foreign/catalog --qrels qrels/foreign/dev.json --case x > "$O/fra.jsonl"
FEATURES=1 $T why --catalog qrels/imported/catalog --qrels qrels/imported/dev.json --case x > "$O/fea.jsonl"
L="python3 $D/learned_weak.py"
export TOOLSEARCH=$T
for rate in 0.05 0.0628; do
  echo "== dev, cross-validated, $rate of answerable flagged"; $L cv "$O" --rate $rate
  echo "== the spent blind sets (GGG-MMM), $rate"; $L apply "$O" spent "$O/spent.jsonl" "$O/spent.json" --rate $rate
done
echo "== pre-registration 91: holdout-abstain.json (VVV, WWW), 0.05"
$L apply "$O" holdout-abstain "$O/holdout-abstain.jsonl" qrels/holdout-abstain.json --rate 0.05
echo "== FRA and FEA (the model is trained on our catalog), 0.05"
$L apply "$O" FRA "$O/fra.jsonl" qrels/foreign/dev.json qrels/foreign/catalog --rate 0.05
$L apply "$O" FEA "$O/fea.jsonl" qrels/imported/dev.json qrels/imported/catalog --rate 0.05
echo "== the shipped model, retrained from these features (copy it to src/retrieve/weak_model.txt to retrain)"
HASH=$(sh docs/adr/shipped_model.sh hash "$T")
$L export "$O" "$O/weak_model.txt" "$HASH" --rate 0.05
sh docs/adr/shipped_model.sh compare "$O/weak_model.txt" weak_model.txt
