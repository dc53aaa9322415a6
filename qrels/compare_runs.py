#!/usr/bin/env python3
"""Compares two rankings on one qrels file, case by case (the comparison behind the ADRs' tables).

Each side is a binary and optional `--param K=V` knobs, so the same script compares two builds
(`A=old/toolsearch B=target/release/toolsearch`) or a knob against the default (the same binary
twice). It prints overall R@1, R@5, MRR@10, Forbidden@5 and workflow complete@5 for both sides
(four decimals), then every case whose top 5 changed: the first relevant rank and whether a
forbidden tool is in the top 5, before and after.

usage (from the repository root):
    python3 qrels/compare_runs.py QRELS BIN_A BIN_B [--catalog PATH] [--a K=V]... [--b K=V]...
    python3 qrels/compare_runs.py qrels/dev.json target/release/toolsearch target/release/toolsearch --b shingles=false
    python3 qrels/compare_runs.py qrels/dev.json OLD NEW --by-origin

`--by-origin` also prints R@1 / R@5 and Forbidden@5 per origin (the id's letter; A–D together),
each origin evaluated on its own as EVALUATION.md's per-origin figures are.
"""
import json, os, subprocess, sys, tempfile

KEYS = ("recall@1", "recall@5", "mrr@10", "forbidden@5", "workflow_complete@5")


def options(name):
    args, out = sys.argv, []
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            out.append(args[i + 1])
    return out


def evaluate(binary, qrels, catalog, params):
    cmd = [binary, "eval", "--qrels", qrels, "--json"]
    if catalog:
        cmd += ["--catalog", catalog]
    for param in params:
        cmd += ["--param", param]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {proc.stderr.strip()[:300]}")
    return json.loads(proc.stdout)


def origin(case_id):
    letter = case_id.split("-", 1)[0]
    return "A-D" if letter in ("A", "B", "C", "D") else letter


def main():
    positional = [a for i, a in enumerate(sys.argv[1:], 1)
                  if not a.startswith("--") and sys.argv[i - 1] not in ("--catalog", "--a", "--b")]
    if len(positional) != 3:
        sys.exit(__doc__)
    qrels, bin_a, bin_b = positional
    catalog = (options("--catalog") or [None])[0]
    run_a = evaluate(bin_a, qrels, catalog, options("--a"))
    run_b = evaluate(bin_b, qrels, catalog, options("--b"))
    for key in KEYS:
        print(f"{key:<20} {run_a['overall'][key]:.4f}  ->  {run_b['overall'][key]:.4f}")
    cases = {c["id"]: c for c in json.load(open(qrels, encoding="utf-8"))["cases"]}
    before = {c["id"]: c for c in run_a["per_case"]}
    for after in run_b["per_case"]:
        old = before[after["id"]]
        if old["returned"][:5] == after["returned"][:5]:
            continue
        forbidden = set(cases[after["id"]].get("forbidden", []))
        print(f"{after['id']}: rank {old.get('rank_of_first_relevant')} -> "
              f"{after.get('rank_of_first_relevant')}, forbidden in top 5 "
              f"{bool(forbidden & set(old['returned'][:5]))} -> "
              f"{bool(forbidden & set(after['returned'][:5]))} | {cases[after['id']]['query'][:80]}")
    if "--by-origin" in sys.argv:
        groups = {}
        for case in cases.values():
            groups.setdefault(origin(case["id"]), []).append(case)
        with tempfile.TemporaryDirectory() as tmp:
            for name in sorted(groups):
                path = os.path.join(tmp, f"{name}.json")
                with open(path, "w", encoding="utf-8") as out:
                    json.dump({"version": "tool-search-qrels.v1", "cases": groups[name]}, out,
                              ensure_ascii=False)
                a = evaluate(bin_a, path, catalog, options("--a"))["overall"]
                b = evaluate(bin_b, path, catalog, options("--b"))["overall"]
                print(f"{name:<4} ({len(groups[name])}) "
                      f"{a['recall@1']:.3f} / {a['recall@5']:.3f}, {a['forbidden@5']:.3f}  ->  "
                      f"{b['recall@1']:.3f} / {b['recall@5']:.3f}, {b['forbidden@5']:.3f}")


if __name__ == "__main__":
    main()
