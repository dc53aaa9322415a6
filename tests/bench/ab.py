#!/usr/bin/env python3
"""Alternating A/B timing of two toolsearch binaries: the comparison to trust on a shared,
noisy machine (both binaries see the same load, pair by pair).

usage (from the repository root):
    python3 tests/bench/ab.py warm BIN_A BIN_B [--pairs 9] [--repeat 4] [--origins ABCDEFGHI]
    python3 tests/bench/ab.py warm BIN_A BIN_B --catalog PATH --qrels QRELS [--pairs 9] [--repeat 4]
    python3 tests/bench/ab.py cold BIN_A BIN_B [--pairs 40]
    python3 tests/bench/ab.py big BIN_A BIN_B [--tools 100000] [--pairs 3]

warm: every judged query of qrels/dev.json and qrels/test.json (cut to 256 characters; with
      --origins, only cases whose id prefix is one of those letters, or one of comma-separated
      prefixes), repeated --repeat times, is answered by one `serve` process; its CPU time (user +
      system, from getrusage) minus that of a one-query run, over the batch size, is the
      per-query cost. Median of --pairs pairs.
      `--origins ABCDEFGHI` is the 840-query workload of session 4's figures (ids A- to I-; an
      id's prefix must be one of the letters, so AA- and later sets stay out).
      With --catalog, `serve --catalog PATH` answers the requests of --qrels instead (any
      catalog.v1 + qrels.v1 pair; subqueries left out).
cold: whole processes, wall clock: a Chinese and an English search and an inspect (with the
      embedded catalog's real hashes), each run --pairs times per binary, order alternating.
big:  a generated catalog of --tools tools (the benchmark's own generator, in a temporary
      directory): the wall clock of a first `search --catalog` (parse, hash, index) and its peak
      RSS, then the warm per-query wall time in `serve` over 200 judged queries sent twice (the
      second pass finds every cache filled: the 2 ms target). Order alternating per pair.
"""
import json, os, statistics, subprocess, sys, tempfile, time

import bench  # the benchmark's own catalog generator, judged queries and serve timing


def option(name, default):
    if name in sys.argv:
        return sys.argv[sys.argv.index(name) + 1]
    return default


def judged_batch(queries, repeat):
    lines = [json.dumps({"version": "tool-search.v1", "query": q}, ensure_ascii=False) + "\n"
             for q in queries]
    return "".join(lines * repeat).encode(), len(lines) * repeat


def qrels_queries(path):
    with open(path, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    return [c["query"][:256] for c in cases if c.get("query")]


def serve_cpu(binary, batch, catalog_args=()):
    proc = subprocess.Popen([binary, "serve", *catalog_args], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    proc.stdin.write(batch)
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"{binary} serve failed")
    return usage.ru_utime + usage.ru_stime


def warm(binaries):
    pairs = int(option("--pairs", 9))
    catalog = option("--catalog", None)
    if catalog is None:
        queries, catalog_args = bench.queries(option("--origins", "")), ()
    else:
        qrels = option("--qrels", None)
        if qrels is None:
            sys.exit("--catalog needs --qrels")
        queries, catalog_args = qrels_queries(qrels), ("--catalog", catalog)
    batch, size = judged_batch(queries, int(option("--repeat", 4)))
    one = batch[: batch.index(b"\n") + 1]
    per_query = {b: [] for b in binaries}
    for pair in range(pairs):
        for binary in binaries if pair % 2 == 0 else binaries[::-1]:
            cost = serve_cpu(binary, batch, catalog_args) - serve_cpu(binary, one, catalog_args)
            per_query[binary].append(cost / (size - 1))
    print(f"warm serve, {size} requests per run, {pairs} pairs (CPU per query, median):")
    for binary in binaries:
        print(f"  {binary}: {statistics.median(per_query[binary]) * 1e6:.1f} µs")


def cold(binaries):
    pairs = int(option("--pairs", 40))
    # Each binary inspects with its own embedded catalog's hashes (the two may embed different catalogs).
    hashes = {b: json.loads(subprocess.run([b, "catalog", "hash"], capture_output=True, check=True).stdout)
              for b in binaries}
    commands = [
        ("search, Chinese", lambda b: ["search", "--query", "撤回刚才发到项目群的消息", "--limit", "5"]),
        ("search, English", lambda b: ["search", "--query", "who hasn't read my announcement in the sales group?", "--limit", "5"]),
        ("inspect", lambda b: ["inspect", "chat.send_message", "--expected-source-hash", hashes[b]["source_hash"],
                               "--expected-surface-hash", hashes[b]["surface_hash"]]),
    ]
    times = {(b, name): [] for b in binaries for name, _ in commands}
    for pair in range(pairs):
        for name, args in commands:
            for binary in binaries if pair % 2 == 0 else binaries[::-1]:
                start = time.perf_counter()
                proc = subprocess.run([binary] + args(binary), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[(binary, name)].append(time.perf_counter() - start)
                if proc.returncode != 0:
                    sys.exit(f"{binary} {name} failed")
    print(f"cold processes, {pairs} runs each (wall clock, median):")
    for name, _ in commands:
        row = "  ".join(f"{statistics.median(times[(b, name)]) * 1e3:.2f} ms" for b in binaries)
        print(f"  {name:<16} {row}")


def big(binaries):
    pairs = int(option("--pairs", 3))
    n_tools = int(option("--tools", 100_000))
    qs = bench.queries()[:200]
    builds = {b: [] for b in binaries}
    rss = {b: [] for b in binaries}
    second = {b: [] for b in binaries}
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = bench.synth_catalog(n_tools, tmp)
        args = ["search", "--catalog", path, "--query", "发送消息"]
        for pair in range(pairs):
            for binary in binaries if pair % 2 == 0 else binaries[::-1]:
                bench.BIN = binary
                elapsed, kib, returncode = bench.timed_peak_rss(args)
                if returncode != 0:
                    sys.exit(f"{binary} search --catalog failed")
                builds[binary].append(elapsed)
                rss[binary].append(kib / 1024)
                passes = bench.serve_per_query(["--catalog", path], qs, 1, passes=2)
                second[binary].append(passes[1][0])
    print(f"{n_tools} tools, {pairs} pairs (median):")
    for binary in binaries:
        print(f"  {binary}: build {statistics.median(builds[binary]):.2f} s, "
              f"peak RSS {statistics.median(rss[binary]):.0f} MiB, "
              f"warm query (2nd pass) {statistics.median(second[binary]) * 1e3:.3f} ms")


def main():
    modes = {"warm": warm, "cold": cold, "big": big}
    if len(sys.argv) < 4 or sys.argv[1] not in modes:
        sys.exit(__doc__)
    modes[sys.argv[1]](sys.argv[2:4])


if __name__ == "__main__":
    main()
