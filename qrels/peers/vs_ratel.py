#!/usr/bin/env python3
"""Our ranking against ratel's (the best English peer of ../shared/evaldata/PEERS.md), case by case.

For every answerable single-query case: the first relevant rank in our top 10 and in ratel's,
how many cases each side ranks better, which cases only one side keeps in its top 5, and (with
--show N) the first N cases where ratel ranks the first relevant tool higher. Ratel runs through
the `ratel-ai-core` 0.2.0 crate (qrels/peers/ratel, built on first use; needs the crate registry).

usage (from the repository root, after `cargo build --release`):
    python3 qrels/peers/vs_ratel.py CATALOG QRELS [--show N] [--param K=V]...
    python3 qrels/peers/vs_ratel.py ../shared/evaldata/bfcl/pool_300.catalog.json \
        ../shared/evaldata/bfcl/pool_300.qrels.json --show 20
"""
import json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OURS = os.path.join(ROOT, "target", "release", "toolsearch")
PEER_DIR = os.path.join(ROOT, "qrels", "peers", "ratel")
PEER = os.path.join(PEER_DIR, "target", "release", "ratel-peer")


def main():
    args = sys.argv[1:]
    show, params = 0, []
    while "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i : i + 2]
    while "--param" in args:
        i = args.index("--param")
        params.append(args[i + 1])
        del args[i : i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    catalog, qrels = args
    if not os.path.exists(PEER):
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=PEER_DIR, check=True)
    cmd = [OURS, "eval", "--catalog", catalog, "--qrels", qrels, "--json"]
    for p in params:
        cmd += ["--param", p]
    ours = {c["id"]: c["returned"] for c in json.loads(subprocess.run(cmd, capture_output=True, check=True).stdout)["per_case"]}
    out = subprocess.run([PEER, catalog, qrels], capture_output=True, check=True, text=True).stdout
    peer = {d["id"]: d["returned"] for d in map(json.loads, out.splitlines())}

    def rank(returned, relevant):
        return next((i + 1 for i, t in enumerate(returned[:10]) if t in relevant), None)

    rows = []
    for case in json.load(open(qrels, encoding="utf-8"))["cases"]:
        if case.get("expect") == "abstain" or "workflow" in case:
            continue
        relevant = {q["canonical"] for q in case["qrels"] if q["relevance"] >= 1}
        rows.append((case, rank(ours[case["id"]], relevant), rank(peer[case["id"]], relevant)))
    n = len(rows)
    at = lambda side, k: sum(1 for r in rows if r[side] and r[side] <= k) / n
    key = lambda r: r or 99
    better = [r for r in rows if key(r[1]) < key(r[2])]
    worse = [r for r in rows if key(r[1]) > key(r[2])]
    print(f"{n} cases  ours R@1 {at(1, 1):.3f} R@5 {at(1, 5):.3f}  ratel R@1 {at(2, 1):.3f} R@5 {at(2, 5):.3f}")
    print(f"we rank better on {len(better)}, worse on {len(worse)}; in our top 5 only: "
          f"{sum(1 for r in better if r[1] <= 5 < key(r[2]))}, in ratel's only: "
          f"{sum(1 for r in worse if r[2] <= 5 < key(r[1]))}")
    for case, ro, rr in worse[:show]:
        print(f"ours {ro} ratel {rr} | {case['query'][:140]!r}")
        print(f"    relevant {[q['canonical'] for q in case['qrels'] if q['relevance'] >= 1][:2]}")
        print(f"    ours {ours[case['id']][:3]}")


if __name__ == "__main__":
    main()
