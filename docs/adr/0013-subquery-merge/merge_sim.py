#!/usr/bin/env python3
"""ADR 0013: how many workflow cases other merges of the same subquery arms would complete.

Each workflow case's subqueries are searched one by one (top 10, with scores from --explain);
the arms are then merged into 5 slots by
  rr      today's round-robin (depth by depth, arms in request order, duplicates skipped);
  v1      round-robin, but deeper than depth 1 the arms take their turn in order of their
          candidate's score over the arm's best score;
  v2      every arm's first candidate, then each slot to the arm whose next candidate has the
          highest score over its arm's best;
  oracle  any prefixes of the arms whose union holds at most 5 tools (the ceiling of a merge);
and a case is complete when all its required tools are in the merged list.

usage (from the repository root, after `cargo build --release`):
    python3 docs/adr/0013-subquery-merge/merge_sim.py qrels/dev.json [BINARY]
"""
import itertools, json, subprocess, sys

LIMIT = 5


def arms_of(binary, case):
    arms = []
    for subquery in case["workflow"]["subqueries"]:
        out = subprocess.run([binary, "search", "--query", subquery, "--limit", "10", "--explain"],
                             capture_output=True, text=True, check=True).stdout
        arms.append([(c["canonical_path"], c.get("score_breakdown", {}).get("total", 0.0))
                     for c in json.loads(out)["candidates"]])
    return arms


def relative(arm, i):
    return arm[i][1] / arm[0][1] if arm[0][1] > 0 else 0.0


def rr(arms, ordered=False):
    merged = []
    for level in range(max(map(len, arms))):
        turn = [i for i, arm in enumerate(arms) if level < len(arm)]
        if ordered and level > 0:
            turn.sort(key=lambda i: (-relative(arms[i], level), i))
        for i in turn:
            if len(merged) >= LIMIT:
                return merged
            if arms[i][level][0] not in merged:
                merged.append(arms[i][level][0])
    return merged


def v2(arms):
    merged, nxt = [], [0] * len(arms)

    def advance(i):
        while nxt[i] < len(arms[i]) and arms[i][nxt[i]][0] in merged:
            nxt[i] += 1

    for i in range(len(arms)):
        advance(i)
        if nxt[i] < len(arms[i]) and len(merged) < LIMIT:
            merged.append(arms[i][nxt[i]][0])
            nxt[i] += 1
    while len(merged) < LIMIT:
        best = None
        for i in range(len(arms)):
            advance(i)
            if nxt[i] < len(arms[i]) and (best is None or relative(arms[i], nxt[i]) > best[0]):
                best = (relative(arms[i], nxt[i]), i)
        if best is None:
            break
        merged.append(arms[best[1]][nxt[best[1]]][0])
        nxt[best[1]] += 1
    return merged


def oracle(arms, required):
    for depths in itertools.product(range(LIMIT + 1), repeat=len(arms)):
        union = {t for arm, d in zip(arms, depths) for t, _ in arm[:d]}
        if len(union) <= LIMIT and all(r in union for r in required):
            return True
    return False


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = sys.argv[2] if len(sys.argv) == 3 else "target/release/toolsearch"
    cases = [c for c in json.load(open(sys.argv[1]))["cases"] if c.get("workflow")]
    complete = {"rr": 0, "v1": 0, "v2": 0, "oracle": 0, "in some arm's top 10": 0}
    for case in cases:
        arms, required = arms_of(binary, case), case["workflow"]["required"]
        for name, merged in (("rr", rr(arms)), ("v1", rr(arms, True)), ("v2", v2(arms))):
            complete[name] += all(r in merged for r in required)
        complete["oracle"] += oracle(arms, required)
        complete["in some arm's top 10"] += all(any(r in [t for t, _ in a] for a in arms) for r in required)
    print(f"{len(cases)} workflow cases; complete@5:")
    for name, n in complete.items():
        print(f"  {name:22} {n:4}  {n / len(cases):.3f}")


if __name__ == "__main__":
    main()
