#!/usr/bin/env python3
"""The counts a pre-registered rule reads, summed over one or more blind sets, before and after.

Each argument is one set: its qrels file and two `toolsearch eval --json` reports of it (main's
binary, then the change's), joined by colons. Per set and summed, it prints only counts (no id, no
query): answerable single requests at rank 1 and in the first five, the MRR@10 sum, cases with a
forbidden tool in the first five, workflows complete in the first five, abstain requests answered
right (flagged `weak_match` or answered with no tool, as `eval` counts abstain accuracy) and
answerable single requests flagged `weak_match`. Then the verdict of the standard rule (MRR and R@1
not down, R@5 down at most one case, forbidden up at most two, workflows not down, abstain not down,
flagged answerable up at most two), as pre-registrations 105 and 106 wrote it; a rule worded
otherwise reads the counts, not the verdict.

    python3 qrels/rule_counts.py QRELS:BEFORE.json:AFTER.json [QRELS:BEFORE.json:AFTER.json]...
"""
import json
import sys

NAMES = ["R@1", "R@5", "MRR@10 sum", "forbidden", "workflows", "abstain right", "answerable flagged"]


def counts(qrels_path, report_path):
    cases = {c["id"]: c for c in json.load(open(qrels_path))["cases"]}
    per_case = json.load(open(report_path))["per_case"]
    assert {p["id"] for p in per_case} == cases.keys(), f"{report_path} is not a report of {qrels_path}"
    r1 = r5 = forbidden = workflows = abstain = flagged = 0
    mrr = 0.0
    for p in per_case:
        case, returned = cases[p["id"]], p["returned"]
        if set(case.get("forbidden", [])) & set(returned[:5]):
            forbidden += 1
        if case.get("workflow"):
            workflows += all(t in returned[:5] for t in case["workflow"]["required"])
        elif case.get("expect") == "abstain":
            abstain += bool(p.get("weak_match")) or not returned
        else:
            flagged += bool(p.get("weak_match"))
            rank = p["rank_of_first_relevant"]
            if rank:
                r1 += rank == 1
                r5 += rank <= 5
                mrr += 1 / rank if rank <= 10 else 0
    return [r1, r5, mrr, forbidden, workflows, abstain, flagged]


def show(label, before, after):
    parts = []
    for name, x, y in zip(NAMES, before, after):
        parts.append(f"{name} {x:.3f} -> {y:.3f}" if isinstance(x, float) else f"{name} {x} -> {y}")
    print(f"{label}: " + ", ".join(parts))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    total_before, total_after = [0] * len(NAMES), [0] * len(NAMES)
    for arg in sys.argv[1:]:
        qrels_path, before_path, after_path = arg.split(":")
        before, after = counts(qrels_path, before_path), counts(qrels_path, after_path)
        show(qrels_path, before, after)
        total_before = [t + v for t, v in zip(total_before, before)]
        total_after = [t + v for t, v in zip(total_after, after)]
    show("summed", total_before, total_after)
    b, a = total_before, total_after
    checks = [
        ("(1) MRR@10 sum does not fall", a[2] >= b[2] - 1e-9),
        ("(2) R@1 does not fall", a[0] >= b[0]),
        ("(3) R@5 falls by at most 1", a[1] >= b[1] - 1),
        ("(4) forbidden rises by at most 2", a[3] <= b[3] + 2),
        ("(5) workflows do not fall", a[4] >= b[4]),
        ("(6) abstain does not fall, flagged answerable rises by at most 2", a[5] >= b[5] and a[6] <= b[6] + 2),
    ]
    for name, ok in checks:
        print(f"{name}: {'holds' if ok else 'FAILS'}")
    print("standard rule: " + ("adopt" if all(ok for _, ok in checks) else "do not adopt"))


if __name__ == "__main__":
    main()
