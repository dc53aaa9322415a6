#!/bin/sh
# The shared last step of the learned models' run.sh (ADRs 0006, 0018, 0019): the embedded
# catalog's source_hash a model is bound to, and whether a model trained now is the shipped one.
# Run from the repository (or scratch worktree) root:
#     sh docs/adr/shipped_model.sh hash TOOLSEARCH_BINARY      prints the source_hash
#     sh docs/adr/shipped_model.sh compare TRAINED NAME        compares TRAINED with src/retrieve/NAME
set -e
case "$1" in
  hash)
    "$2" catalog hash | python3 -c 'import json, sys; print(json.load(sys.stdin)["source_hash"])' ;;
  compare)
    if cmp -s "$2" "src/retrieve/$3"; then
      echo "src/retrieve/$3 is current"
    else
      echo "src/retrieve/$3 differs from a model trained now"
    fi ;;
  *)
    echo "usage: shipped_model.sh hash TOOLSEARCH | compare TRAINED NAME" >&2
    exit 2 ;;
esac
