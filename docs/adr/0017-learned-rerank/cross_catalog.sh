#!/bin/sh
# ADR 0017's cross-catalog addendum (session 21): can one reranker serve every catalog? Run after
# run.sh, in the same scratch worktree (features.patch applied and built), with ../shared present:
#     OUT=/tmp/rerank-out sh docs/adr/0017-learned-rerank/cross_catalog.sh
# Dumps the top-20 features of the shared sets, then trains on every catalog family but one and
# applies the model to the one left out.
set -e
T=${T:-target/release/toolsearch}
D=docs/adr/0017-learned-rerank
O=${OUT:-/tmp/rerank-out}
S=${SHARED:-../shared/evaldata}
FEATURES=1 $T why --catalog $S/bfcl/all.catalog.json --qrels $S/bfcl/all.name-lenient.qrels.json --case x > "$O/bfcl_all.jsonl"
FEATURES=1 $T why --catalog $S/bfcl/pool_600.catalog.json --qrels $S/bfcl/pool_600.name-lenient.qrels.json --case x > "$O/bfcl600.jsonl"
FEATURES=1 $T why --catalog $S/acebench/zh/all.catalog.json --qrels $S/acebench/zh/all.qrels.json --case x > "$O/acezh.jsonl"
FEATURES=1 $T why --catalog $S/acebench/en/all.catalog.json --qrels $S/acebench/en/all.qrels.json --case x > "$O/aceen.jsonl"
python3 $D/cross_catalog.py "$O" "$S" gb
