#!/bin/sh
# Reproduces ADR 0017's prototype figures, after run.sh (which leaves the features in $OUT). Run
# from the root of a scratch worktree with both patches applied and built:
#     git apply docs/adr/0017-learned-rerank/features.patch docs/adr/0017-learned-rerank/prototype.patch
#     cargo build --release
#     OUT=/tmp/rerank-out sh docs/adr/0017-learned-rerank/prototype.sh
# Pre-registration 89's model over the spent sets by default. Pre-registration 90's form:
#     VARIANT="RERANK_REORDER=5 RERANK_SINGLES=1" QRELS=qrels/holdout-ranking.json sh ...
set -e
T=${T:-$(pwd)/target/release/toolsearch}
D=docs/adr/0017-learned-rerank
O=${OUT:-/tmp/rerank-out}
python3 $D/export_model.py "$O/dev_oof.jsonl" qrels/dev.json 10 "$O/model.txt" \
  '{"max_iter": 100, "learning_rate": 0.1, "max_depth": 4, "max_leaf_nodes": 16, "min_samples_leaf": 40}'
printf '#!/bin/sh\nexec %s "$@"\n' "$T" > "$O/today.sh"
printf '#!/bin/sh\nRERANK=%s RERANK_K=10 %s exec %s "$@"\n' "$O/model.txt" "${VARIANT:-}" "$T" > "$O/rerank.sh"
chmod +x "$O/today.sh" "$O/rerank.sh"
# The spent blind sets, every case (compare_runs.py prints both sides and the cases that moved).
python3 qrels/compare_runs.py "${QRELS:-$O/spent.json}" "$O/today.sh" "$O/rerank.sh"
# Warm query cost.
cd tests/bench && python3 ab.py warm "$O/today.sh" "$O/rerank.sh" --pairs 7
