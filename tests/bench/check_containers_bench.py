#!/usr/bin/env python3
"""Runs pgdds-bench-containers --json on 2 ranks with small sizes and checks what it reports:
every measurement of every container is there with a positive rate, each formula ratio and
formula time (its terms measured beside the measurement) is positive, and, where the operations
go over the network, the remote operations they issued (pgdds_net_counts) are what their
protocols issue: one atomic per Bloom filter insert, none per contains or CP_FIND, at least the
formula's atomics (waited for or posted) per hash map and queue operation, no flush for a single
read or a fully atomic find. Where every rank's memory is mapped
(the shm transport) nothing is counted.

  check_containers_bench.py --run PGDDS_RUN --bench EXE (--network | --direct)

Exit 0: passed; 1: failed; 77: skipped (transport unavailable).
"""
import argparse
import json
import subprocess
import sys

SKIP = 77
EXPECTED = [
    "hashmap_insert_atomic", "hashmap_insert_cp_insert", "hashmap_insert_buffered",
    "hashmap_insert_many_atomic", "hashmap_insert_many_cp_insert",
    "hashmap_find_atomic", "hashmap_find_cp_find", "hashmap_find_many_atomic", "hashmap_find_many_cp_find",
    "queue_fast_push_one", "queue_fast_pop_one", "queue_fast_push_many", "queue_fast_pop_many",
    "queue_circular_push_one_phased", "queue_circular_pop_one_pushpop",
    "queue_checksum_push_many", "queue_checksum_pop_many",
    "bloom_insert", "bloom_contains", "bloom_insert_many", "bloom_contains_many",
]
# bench: (atomics per operation, waited for or posted: at least, at most)
ATOMICS = {
    "bloom_insert": (1, 1), "bloom_insert_many": (1, 1), "bloom_contains": (0, 0), "bloom_contains_many": (0, 0),
    "hashmap_find_cp_find": (0, 0), "hashmap_find_many_cp_find": (0, 0),
    "hashmap_insert_atomic": (2, 1000), "hashmap_find_atomic": (2, 1000), "hashmap_insert_cp_insert": (1, 1000),
    "queue_fast_push_many": (1, 1000), "queue_fast_pop_many": (1, 1000),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True)
    ap.add_argument("--bench", required=True)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--network", action="store_true", help="the operations must be counted")
    mode.add_argument("--direct", action="store_true", help="nothing may be counted")
    args = ap.parse_args()
    argv = [args.run, "-n", "2", "--timeout", "200", args.bench, "--json", "--keys", "2000", "--ops", "2000"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
    if p.returncode != 0:
        print("FAIL: %s exited %d\n%s" % (" ".join(argv), p.returncode, p.stderr))
        return 1
    # A wrong result is a failure even if the benchmark's exit status missed it.
    wrong = [l for l in p.stderr.splitlines() if " missed " in l or "the map holds" in l or "wrong results" in l]
    if wrong:
        print("FAIL: wrong results:\n" + "\n".join(wrong))
        return 1
    records = {}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        for field in ("bench", "transport", "ranks", "threads", "size", "metric", "value", "unit"):
            if field not in r:
                print("FAIL: record without %s: %s" % (field, line))
                return 1
        records[(r["bench"], r["metric"])] = r["value"]
    failures = []

    def value(bench, metric):
        v = records.get((bench, metric))
        if v is None:
            failures.append("%s: no %s" % (bench, metric))
        return v

    for bench in EXPECTED:
        rate = value(bench, "aggregate_rate")
        if rate is not None and not rate > 0:
            failures.append("%s: aggregate rate %g" % (bench, rate))
    for (bench, metric), v in records.items():
        if (metric.startswith("cost_in") or metric == "formula") and not v > 0:
            failures.append("%s: %s %g" % (bench, metric, v))
        if metric == "cost_in_formula" and (bench, "formula") not in records:
            failures.append("%s: a cost in its formula without the formula's time" % bench)
    counted = [key for key in records if key[1].startswith("issued_")]
    if args.direct and counted:
        failures.append("operations counted on the network where every rank's memory is mapped: %s" % counted[:3])
    if args.network:
        for bench, (low, high) in ATOMICS.items():
            waited, posted = value(bench, "issued_atomics"), value(bench, "issued_posted_atomics")
            a = None if waited is None or posted is None else waited + posted
            if a is not None and not low <= a <= high:
                failures.append("%s: %g atomics per operation, expected %g..%g" % (bench, a, low, high))
        # a lone read is a blocking get: no flush of its own
        for bench in ("bloom_contains", "hashmap_find_cp_find", "hashmap_find_atomic"):
            flushes = value(bench, "issued_flushes")
            if flushes is not None and flushes != 0:
                failures.append("%s: %g flushes per operation, expected none" % (bench, flushes))
        # half the keys belong to this rank on 2 ranks: read locally, the others over the network
        for bench in ("bloom_contains", "hashmap_find_cp_find"):
            reads = value(bench, "issued_reads")
            if reads is not None and not 0.3 < reads < 0.7:
                failures.append("%s: %g reads per operation over the network, expected about 0.5" % (bench, reads))
    for f in failures:
        print("FAIL:", f)
    print("%d records, %d measurements counted on the network: %s" %
          (len(records), len({b for b, _ in counted}), "failed" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
