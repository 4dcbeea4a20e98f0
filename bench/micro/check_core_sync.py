#!/usr/bin/env python3
"""Smoke test of pgdds-core-sync and bench/micro/core_compare.sh (tiny iteration counts: this
checks that every measurement is made and reported, not the figures).

  check_core_sync.py --run PGDDS_RUN --bench PGDDS_CORE_SYNC
      runs it on 2 ranks (the transport the environment picks) with --iters 20 --max-size 4096 and
      checks it exits 0 with one record of every metric and size, each a positive number;
  check_core_sync.py --compare SOURCE_DIR BUILD_DIR
      runs core_compare.sh BUILD_DIR --runs 1 with tiny counts and checks both tables are made.

Exit 0: passed; 1: failed.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

FIELDS = ("bench", "transport", "ranks", "threads", "size", "metric", "value", "unit")
# metric: (unit, sizes)
EXPECTED = {
    "alltoall_latency": ("us", [8, 32, 128, 512, 2048, 4096]),
    "put_signal_latency": ("us", [8]),
    "put_signal_rate": ("Mmsg/s", [8]),
    "barrier_latency": ("us", [0]),
    "allreduce_latency": ("us", [8, 1024]),
    "rpc_latency": ("us", [8]),
    "rpc_rate": ("M/s", [8]),
    "am_latency": ("us", [8]),
    "am_rate": ("M/s", [8]),
}


def check_bench(run, bench):
    argv = [run, "-n", "2", "--timeout", "200", bench, "--json", "--iters", "20", "--max-size", "4096"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    if p.returncode != 0:
        print("FAIL: %s exited %d\n%s" % (" ".join(argv), p.returncode, p.stderr))
        return 1
    seen, bad = {}, []
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            bad.append("not a JSON record: %r" % line)
            continue
        if tuple(r) != FIELDS:
            bad.append("fields %s, not %s" % (list(r), list(FIELDS)))
            continue
        if not (isinstance(r["value"], (int, float)) and math.isfinite(r["value"]) and r["value"] > 0):
            bad.append("%s %d: value %r" % (r["metric"], r["size"], r["value"]))
        key = (r["metric"], r["size"])
        if key in seen:
            bad.append("%s %d reported twice" % key)
        seen[key] = r
    for metric, (unit, sizes) in EXPECTED.items():
        for size in sizes:
            r = seen.pop((metric, size), None)
            if r is None:
                bad.append("no %s record for %d bytes" % (metric, size))
            elif r["unit"] != unit or r["ranks"] != 2 or r["bench"] != "core_sync":
                bad.append("%s %d: unit %s, ranks %s, bench %s" % (metric, size, r["unit"], r["ranks"], r["bench"]))
    bad += ["an unexpected record: %s %d" % key for key in seen]
    if bad:
        print("FAIL:\n  " + "\n  ".join(bad))
        return 1
    print("pgdds-core-sync: %d records, every metric present" % sum(len(s) for _, s in EXPECTED.values()))
    return 0


def check_compare(source, build):
    with tempfile.TemporaryDirectory() as out:
        argv = [os.path.join(source, "bench", "micro", "core_compare.sh"), build, "--runs", "1", "--out", out,
                "--iters", "20", "--max-size", "4096"]
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=280)
        if p.returncode != 0:
            print("FAIL: %s exited %d\n%s%s" % (" ".join(argv), p.returncode, p.stdout, p.stderr))
            return 1
        md = open(os.path.join(out, "core-vs-peers.md")).read()
        programs = set()
        for line in open(os.path.join(out, "core-vs-peers.jsonl")):
            programs.add(json.loads(line)["program"])
        bad = ["no records of %s" % p for p in ("libpgdds", "mpi", "oshmem") if p not in programs]
        for row in ("| alltoall_latency | 8 |", "| put_signal_latency | 8 |", "| put_signal_rate | 8 |",
                    "| barrier_latency | 0 |", "| allreduce_latency | 1024 |", "| shm |", "libpgdds is behind"):
            if row not in md:
                bad.append("the table has no %r line" % row)
        if bad:
            print("FAIL:\n  " + "\n  ".join(bad) + "\n" + md)
            return 1
    print("core_compare.sh: both tables made")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run")
    ap.add_argument("--bench")
    ap.add_argument("--compare", nargs=2, metavar=("SOURCE_DIR", "BUILD_DIR"))
    args = ap.parse_args()
    if args.compare:
        return check_compare(*args.compare)
    if not (args.run and args.bench):
        ap.error("--run and --bench, or --compare")
    return check_bench(args.run, args.bench)


if __name__ == "__main__":
    sys.exit(main())
