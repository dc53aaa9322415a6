#!/bin/sh
# Reproduces ADR 0019's figures and retrains the shipped tail model. Run from the root of a scratch
# worktree, after ADR 0006's run.sh in the same worktree and OUT (it writes the features this
# reads, with features.patch applied):
#     OUT=/tmp/weak-out sh docs/adr/0006-learned-weak/run.sh
#     OUT=/tmp/weak-out TOOLSEARCH_MAIN=/path/to/main/target/release/toolsearch sh docs/adr/0019-tempting-tail/run.sh
# TOOLSEARCH_MAIN is a build without the patch (the simulation reads `eval --json` with
# `--param learned_sure=false`, which turns this cut off too; the patched binary serves too).
# Needs numpy and scikit-learn.
set -e
T=${T:-target/release/toolsearch}
O=${OUT:-/tmp/weak-out}
S="python3 docs/adr/0019-tempting-tail/learned_tail.py"
export TOOLSEARCH=${TOOLSEARCH_MAIN:-$T}
for set in holdout-fresh holdout-ranking holdout-ranking-2 holdout-ranking-3; do
  FEATURES=1 $T why --qrels qrels/$set.json --case x --param learned_sure=false > "$O/$set.jsonl"
done
echo "== dev, cross-validated"
$S cv "$O"
echo "== the spent sets (both models trained on all of dev)"
$S apply "$O" "$O/spent.jsonl" "$O/spent.json"
for set in holdout-abstain holdout-fresh holdout-ranking holdout-ranking-2; do
  $S apply "$O" "$O/$set.jsonl" qrels/$set.json
done
echo "== pre-registration 94: holdout-ranking-3.json"
$S apply "$O" "$O/holdout-ranking-3.jsonl" qrels/holdout-ranking-3.json
echo "== the shipped model, retrained (copy it to src/retrieve/tail_model.txt to retrain)"
HASH=$(sh docs/adr/shipped_model.sh hash "$TOOLSEARCH")
$S export "$O" "$O/tail_model.txt" "$HASH"
sh docs/adr/shipped_model.sh compare "$O/tail_model.txt" tail_model.txt
