#!/usr/bin/env python3
"""toolsearch benchmark: prints every figure of docs/PERFORMANCE.md as median and spread.

usage (from the repository root, after `cargo build --release`):
    python3 tests/bench/bench.py [--quick]

Catalogs of 1k, 10k and 100k tools are generated deterministically from the embedded default
catalog into a temporary directory (never committed). Timings are wall clock of whole
processes (what an agent pays), medians over repeated runs; peak RSS comes from
/usr/bin/time -v. This machine is shared and noisy: read medians and ratios, not single runs.
"""
import json, os, statistics, subprocess, sys, tempfile, threading, time, glob

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "target", "release", "toolsearch")
QUICK = "--quick" in sys.argv


def run(args, stdin=b""):
    start = time.perf_counter()
    proc = subprocess.run([BIN] + args, input=stdin, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {args}: {proc.stderr.decode()[:300]}")
    return elapsed, proc.stdout


def timed_peak_rss(args, stdin=b""):
    """One run under `/usr/bin/time -v`: (wall seconds, peak RSS in KiB or -1, return code)."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", BIN] + args, input=stdin, capture_output=True)
    elapsed = time.perf_counter() - start
    for line in proc.stderr.decode().splitlines():
        if "Maximum resident set size" in line:
            return elapsed, int(line.split(":")[1]), proc.returncode
    return elapsed, -1, proc.returncode


def peak_rss_kib(args, stdin=b""):
    return timed_peak_rss(args, stdin)[1]


def stats(samples):
    samples = sorted(samples)
    return statistics.median(samples), samples[0], samples[-1]


def fmt_ms(samples):
    med, lo, hi = stats(samples)
    return f"{med*1e3:.2f} ms (min {lo*1e3:.2f}, max {hi*1e3:.2f}, n={len(samples)})"


def fmt_us(samples):
    med, lo, hi = stats(samples)
    return f"{med*1e6:.1f} µs (min {lo*1e6:.1f}, max {hi*1e6:.1f}, n={len(samples)})"


def cold(label, args, runs):
    for _ in range(3):
        run(args)
    samples = [run(args)[0] for _ in range(runs)]
    rss = sorted(peak_rss_kib(args) for _ in range(5))
    print(f"{label:<48} {fmt_ms(samples)}  peak RSS median {statistics.median(rss)/1024:.1f} MiB")


def synth_catalog(n_tools, out_dir):
    """Copies of the default catalog's products, renamed per copy, until n_tools tools."""
    products = []
    for path in sorted(glob.glob(os.path.join(ROOT, "catalog", "*.json"))):
        products += json.load(open(path, encoding="utf-8"))["products"]
    base = sum(len(p["tools"]) for p in products)
    made, copy, out = 0, 0, []
    while made < n_tools:
        for product in products:
            if made >= n_tools:
                break
            pid = f"{product['id']}{copy}"
            tools = []
            for tool in product["tools"][: n_tools - made]:
                t = dict(tool)
                t["canonical_path"] = f"{pid}.{tool['name']}"
                for key in ("cli_path", "primary_cli_path"):
                    if key in t:
                        t[key] = pid + t[key][len(product["id"]):]
                t["aliases"] = [pid + a[len(product["id"]):] for a in tool.get("aliases", [])]
                if not t["aliases"]:
                    del t["aliases"]
                t["description"] = f"{tool.get('description', '')} (variant {copy})"
                tools.append(t)
            made += len(tools)
            p = {k: v for k, v in product.items() if k != "tools"}
            p["id"] = pid
            p["tools"] = tools
            out.append(p)
        copy += 1
    path = os.path.join(out_dir, f"synth-{n_tools}.json")
    json.dump({"version": "catalog.v1", "products": out}, open(path, "w", encoding="utf-8"), ensure_ascii=False)
    return path, base


def queries(origins=""):
    """Every judged query of qrels/dev.json and test.json, cut to 256 characters; with
    `origins`, only the cases whose id prefix (the letters before the first '-') is one of
    them: single letters ("ABCDEFGHI"), or prefixes separated by commas ("A,B,AA"). Sets named
    by doubled letters (AA-, AAA-) joined dev later, so "ABCDEFGHI" stays the 840 queries of
    session 4's figures however dev grows."""
    wanted = set(origins.split(",")) if "," in origins else set(origins)
    out = []
    for name in ("dev.json", "test.json"):
        for case in json.load(open(os.path.join(ROOT, "qrels", name), encoding="utf-8"))["cases"]:
            if not origins or case["id"].split("-")[0] in wanted:
                out.append(case["query"][:256])
    return out


# The pinned warm workload: session 4's 840 judged queries (ids A- to I-), which no later set
# changes, so that warm figures compare across sessions while dev grows.
PINNED_ORIGINS = "ABCDEFGHI"


def serve_per_query(catalog_args, qs, repeats, passes=1):
    """Warm per-query time in `serve`: one warm-up request is answered first (the index is
    built), then the batch is written (from a thread) while the answers are read; the batch's
    wall time divided by its size is the figure. Build time never enters it. With `passes` > 1
    the same batch is sent again in the same process: the first pass pays each term's first
    use (its merged postings are built lazily), later passes find them cached.
    Returns one list of per-query times per pass."""
    warm = (json.dumps({"version": "tool-search.v1", "query": qs[0]}, ensure_ascii=False) + "\n").encode()
    batch = "".join(json.dumps({"version": "tool-search.v1", "query": q}, ensure_ascii=False) + "\n" for q in qs).encode()
    per_pass = [[] for _ in range(passes)]
    for _ in range(repeats):
        proc = subprocess.Popen([BIN, "serve"] + catalog_args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        proc.stdin.write(warm)
        while not os.read(proc.stdout.fileno(), 1 << 16).endswith(b"\n"):
            pass
        for p in range(passes):
            writer = threading.Thread(target=lambda: proc.stdin.write(batch))
            start = time.perf_counter()
            writer.start()
            # Answers are counted in bulk reads: a Python readline per answer would add its
            # own cost to every query.
            answered = 0
            while answered < len(qs):
                chunk = os.read(proc.stdout.fileno(), 1 << 20)
                if not chunk:
                    sys.exit("serve stopped answering")
                answered += chunk.count(b"\n")
            per_pass[p].append((time.perf_counter() - start) / len(qs))
            writer.join()
        proc.stdin.close()
        proc.wait()
    return per_pass


def main():
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    print(f"binary {BIN}\nmachine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}\n")
    runs = 10 if QUICK else 40
    source = json.loads(run(["catalog", "hash"])[1])
    cold("cold search, embedded catalog, Chinese query", ["search", "--query", "帮我看看这条群消息谁还没读"], runs)
    cold("cold search, embedded catalog, English query", ["search", "--query", "who has not read my message in the sales group"], runs)
    cold("cold search, exact identity", ["search", "--query", "dws chat message send"], runs)
    cold("cold inspect", ["inspect", "chat.send_message", "--expected-source-hash", source["source_hash"], "--expected-surface-hash", source["surface_hash"]], runs)
    qs = queries()
    per = serve_per_query([], qs * (2 if QUICK else 5), 3 if QUICK else 5)[0]
    print(f"{'warm query in serve, embedded catalog':<48} {fmt_us(per)}  = {1/statistics.median(per):,.0f} queries/s  ({len(qs):,} judged queries)")
    pinned = queries(PINNED_ORIGINS)
    per = serve_per_query([], pinned * (4 if QUICK else 12), 3 if QUICK else 5)[0]
    print(f"{'  the same, pinned workload':<48} {fmt_us(per)}  ({len(pinned):,} queries: ids A- to I-)")

    with tempfile.TemporaryDirectory() as tmp:
        sizes = [1_000, 10_000] if QUICK else [1_000, 10_000, 100_000]
        print("\ntools     build (cold search incl. parse, hash, index)   warm query: 1st pass / 2nd pass   peak RSS")
        for n in sizes:
            path, _ = synth_catalog(n, tmp)
            args = ["--catalog", path]
            builds = [run(["search", "--query", "发送消息"] + args)[0] for _ in range(3 if n >= 100_000 else 5)]
            rss = peak_rss_kib(["search", "--query", "发送消息"] + args)
            first, second = serve_per_query(args, qs[:200], 3, passes=2)
            print(f"{n:>7}   {fmt_ms(builds):<50} {statistics.median(first)*1e3:6.3f} / {statistics.median(second)*1e3:6.3f} ms   {rss/1024:8.1f} MiB")
        # eval throughput: 2,500 generated cases over a 2,500-tool catalog.
        path, _ = synth_catalog(2_500, tmp)
        catalog = json.load(open(path, encoding="utf-8"))
        cases = []
        for product in catalog["products"]:
            for tool in product["tools"]:
                q = (tool.get("agent_summary") or tool.get("title") or tool["name"])[:256]
                cases.append({"id": tool["canonical_path"], "query": q, "qrels": [{"canonical": tool["canonical_path"], "relevance": 3}]})
        qpath = os.path.join(tmp, "synth.qrels.json")
        json.dump({"version": "tool-search-qrels.v1", "cases": cases[:2_500]}, open(qpath, "w", encoding="utf-8"), ensure_ascii=False)
        evals = [run(["eval", "--catalog", path, "--qrels", qpath, "--json"])[0] for _ in range(3)]
        print(f"\n{'eval, 2,500 cases x 2,500 tools':<48} {fmt_ms(evals)}")


if __name__ == "__main__":
    main()
