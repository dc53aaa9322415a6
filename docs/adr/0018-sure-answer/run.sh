#!/bin/sh
# Reproduces ADR 0018's figures and retrains the shipped sure model. Run from the root of a scratch
# worktree, after ADR 0006's run.sh in the same worktree and OUT (it writes the features this
# reads, with features.patch applied):
#     OUT=/tmp/weak-out sh docs/adr/0006-learned-weak/run.sh
#     OUT=/tmp/weak-out TOOLSEARCH_MAIN=/path/to/main/target/release/toolsearch sh docs/adr/0018-sure-answer/run.sh
# TOOLSEARCH_MAIN is a build without the patch (the simulation reads `eval --json` with
# `--param learned_sure=false`; the patched binary serves too). Needs numpy and scikit-learn.
set -e
T=${T:-target/release/toolsearch}
O=${OUT:-/tmp/weak-out}
S="python3 docs/adr/0018-sure-answer/learned_sure.py"
export TOOLSEARCH=${TOOLSEARCH_MAIN:-$T}
for set in holdout-fresh holdout-ranking holdout-ranking-2; do
  FEATURES=1 $T why --qrels qrels/$set.json --case x > "$O/$set.jsonl"
done
echo "== dev, cross-validated"
$S cv "$O"
echo "== the spent sets (trained on all of dev)"
$S apply "$O" "$O/spent.jsonl" "$O/spent.json"
$S apply "$O" "$O/holdout-abstain.jsonl" qrels/holdout-abstain.json
$S apply "$O" "$O/holdout-fresh.jsonl" qrels/holdout-fresh.json
$S apply "$O" "$O/holdout-ranking.jsonl" qrels/holdout-ranking.json
echo "== pre-registration 93: holdout-ranking-2.json"
$S apply "$O" "$O/holdout-ranking-2.jsonl" qrels/holdout-ranking-2.json
echo "== the shipped model, retrained (copy it to src/retrieve/sure_model.txt to retrain)"
HASH=$(sh docs/adr/shipped_model.sh hash "$TOOLSEARCH")
$S export "$O" "$O/sure_model.txt" "$HASH"
sh docs/adr/shipped_model.sh compare "$O/sure_model.txt" sure_model.txt
