#!/usr/bin/env python3
"""Alternating A/B timing of two toolsearch binaries: the comparison to trust on a shared,
noisy machine (both binaries see the same load, pair by pair).

usage (from the repository root):
    python3 tests/bench/ab.py warm BIN_A BIN_B [--pairs 9] [--repeat 4] [--origins ABCDEFGHI]
    python3 tests/bench/ab.py cold BIN_A BIN_B [--pairs 40]

warm: every judged query of qrels/dev.json and qrels/test.json (cut to 256 characters; with
      --origins, only cases whose id starts with one of those letters), repeated --repeat times,
      is answered by one `serve` process; its CPU time (user + system, from getrusage) minus that
      of a one-query run, over the batch size, is the per-query cost. Median of --pairs pairs.
      `--origins ABCDEFGHI` is the 840-query workload of session 4's figures.
cold: whole processes, wall clock: a Chinese and an English search and an inspect (with the
      embedded catalog's real hashes), each run --pairs times per binary, order alternating.
"""
import json, os, statistics, subprocess, sys, time

from bench import queries  # the benchmark's own reading of the judged queries


def option(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def judged_batch(origins, repeat):
    lines = [json.dumps({"version": "tool-search.v1", "query": q}, ensure_ascii=False) + "\n"
             for q in queries(origins)]
    return "".join(lines * repeat).encode(), len(lines) * repeat


def serve_cpu(binary, batch):
    proc = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    proc.stdin.write(batch)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"{binary} serve failed")
    return usage.ru_utime + usage.ru_stime


def warm(binaries):
    pairs = int(option("--pairs", 9))
    batch, size = judged_batch(option("--origins", ""), int(option("--repeat", 4)))
    one = batch[: batch.index(b"\n") + 1]
    per_query = {b: [] for b in binaries}
    for pair in range(pairs):
        for binary in binaries if pair % 2 == 0 else binaries[::-1]:
            cost = serve_cpu(binary, batch) - serve_cpu(binary, one)
            per_query[binary].append(cost / (size - 1))
    print(f"warm serve, {size} requests per run, {pairs} pairs (CPU per query, median):")
    for binary in binaries:
        print(f"  {binary}: {statistics.median(per_query[binary]) * 1e6:.1f} µs")


def cold(binaries):
    pairs = int(option("--pairs", 40))
    hashes = json.loads(subprocess.run([binaries[0], "catalog", "hash"], capture_output=True, check=True).stdout)
    commands = [
        ("search, Chinese", ["search", "--query", "撤回刚才发到项目群的消息", "--limit", "5"]),
        ("search, English", ["search", "--query", "who hasn't read my announcement in the sales group?", "--limit", "5"]),
        ("inspect", ["inspect", "chat.send_message", "--expected-source-hash", hashes["source_hash"],
                     "--expected-surface-hash", hashes["surface_hash"]]),
    ]
    times = {(b, name): [] for b in binaries for name, _ in commands}
    for pair in range(pairs):
        for name, args in commands:
            for binary in binaries if pair % 2 == 0 else binaries[::-1]:
                start = time.perf_counter()
                proc = subprocess.run([binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[(binary, name)].append(time.perf_counter() - start)
                if proc.returncode != 0:
                    sys.exit(f"{binary} {name} failed")
    print(f"cold processes, {pairs} runs each (wall clock, median):")
    for name, _ in commands:
        row = "  ".join(f"{statistics.median(times[(b, name)]) * 1e3:.2f} ms" for b in binaries)
        print(f"  {name:<16} {row}")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("warm", "cold"):
        sys.exit(__doc__)
    binaries = sys.argv[2:4]
    (warm if sys.argv[1] == "warm" else cold)(binaries)


if __name__ == "__main__":
    main()
