#!/usr/bin/env python3
"""How often would a held-out set of N cases pass a change that dev measured?

Takes two `toolsearch eval --json` reports of the same qrels file (before and after a change;
dev in practice) and draws N cases at random, with replacement, many times. A draw "passes" when
the pre-registration rule's core holds on it: MRR@10 and R@1 not down, R@5 down at most one case
(Forbidden@5 is left out: the reports' per-case rows do not carry it). The share of passing draws
is the chance that a blind set drawn like dev lets the change through; one minus it, the chance
that a change dev likes is rejected by the luck of the draw.

usage (from the repository root):
    python3 qrels/holdout_power.py QRELS BEFORE.json AFTER.json [--sizes 80,160,320] [--draws 4000]
"""
import json, random, sys


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    qrels, before, after = sys.argv[1:4]
    sizes = [int(n) for n in option("--sizes", "80,160,320").split(",")]
    draws = int(option("--draws", "4000"))
    cases = {c["id"]: c for c in json.load(open(qrels))["cases"]}
    a = {p["id"]: p["rank_of_first_relevant"] for p in json.load(open(before))["per_case"]}
    b = {p["id"]: p["rank_of_first_relevant"] for p in json.load(open(after))["per_case"]}
    # Answerable cases only: abstain cases have no rank.
    ids = sorted(i for i in a if i in b and cases.get(i, {}).get("qrels"))

    def sums(ranks, drawn):
        rr = sum(1 / ranks[i] for i in drawn if ranks[i] and ranks[i] <= 10)
        r1 = sum(1 for i in drawn if ranks[i] == 1)
        r5 = sum(1 for i in drawn if ranks[i] and ranks[i] <= 5)
        return rr, r1, r5

    moved = sum(1 for i in ids if a[i] != b[i])
    print(f"{len(ids)} answerable cases, {moved} with a different first relevant rank")
    for n in sizes:
        rnd = random.Random(n)  # a fixed seed per size: the figures are reproducible
        passed = 0
        for _ in range(draws):
            drawn = [rnd.choice(ids) for _ in range(n)]
            (rr_a, r1_a, r5_a), (rr_b, r1_b, r5_b) = sums(a, drawn), sums(b, drawn)
            if rr_b >= rr_a - 1e-12 and r1_b >= r1_a and r5_b >= r5_a - 1:
                passed += 1
        print(f"N = {n}: passes {passed / draws:.3f} of {draws} draws")


if __name__ == "__main__":
    main()
