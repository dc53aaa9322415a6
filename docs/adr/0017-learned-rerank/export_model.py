#!/usr/bin/env python3
"""Trains ADR 0017's reranker on a features file and writes it in the text form that
`prototype.patch` reads (`RERANK=FILE`).

    python3 export_model.py FEATURES.jsonl QRELS K OUT.txt '{"max_iter": 100, ...}'

K: only each request's first K candidates are kept (the prototype reranks the first K, set by
`RERANK_K`). The JSON holds scikit-learn `HistGradientBoostingClassifier` parameters
(random_state is 0). Output: a line "trees baseline", then per tree a line with its node count and
one line per node: feature threshold left right is_leaf value missing_go_to_left. A node sends a
value <= threshold to `left`. A tree's leaf values already carry the learning rate, so a request's
raw score is the baseline plus one leaf value per tree.
"""
import collections
import json
import os
import sys

from sklearn.ensemble import HistGradientBoostingClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import learned_rerank  # noqa: E402


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    features, qrels, k, out, params = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
    kept = collections.OrderedDict()
    for cid, rows in learned_rerank.load(features, qrels).items():
        first = [row for row in rows if row['rank'] <= k]
        if first:
            first[0]['has_forbidden'] = rows[0]['has_forbidden']
            kept[cid] = first
    x, y, _ = learned_rerank.matrix(kept)
    fitted = HistGradientBoostingClassifier(random_state=0, **params).fit(x, y)
    with open(out, 'w', encoding='utf-8') as f:
        f.write(f'{len(fitted._predictors)} {float(fitted._baseline_prediction.ravel()[0])!r}\n')
        write_trees(f, fitted)


def write_trees(f, fitted):
    """Each tree of a fitted classifier: its node count, then one line per node (the format above;
    also ADR 0006's weak model)."""
    for (tree,) in fitted._predictors:
        f.write(f'{len(tree.nodes)}\n')
        for node in tree.nodes:
            f.write(f"{int(node['feature_idx'])} {float(node['num_threshold'])!r} {int(node['left'])} "
                    f"{int(node['right'])} {int(node['is_leaf'])} {float(node['value'])!r} "
                    f"{int(node['missing_go_to_left'])}\n")


def write_engine_model(out, fitted, source_hash, threshold, features):
    """A fitted classifier in the text form the engine compiles in (`src/retrieve/weak_model.rs`):
    the header (catalog, threshold, feature count, trees and baseline), then its trees."""
    with open(out, 'w', encoding='utf-8') as f:
        f.write('toolsearch-weak-model 1\n')
        f.write(f'source_hash {source_hash}\n')
        f.write(f'threshold {threshold!r}\n')
        f.write(f'features {features}\n')
        f.write(f'trees {len(fitted._predictors)} {float(fitted._baseline_prediction.ravel()[0])!r}\n')
        write_trees(f, fitted)
    print(f'{len(fitted._predictors)} trees, threshold {threshold!r} -> {out}')


if __name__ == '__main__':
    main()
