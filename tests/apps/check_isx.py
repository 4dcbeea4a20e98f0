#!/usr/bin/env python3
"""Runs pgdds-isx (small sizes) under pgdds-run and requires its own verification to pass: every
rank's keys sorted and in its bucket's range, neighbours ordered, every key accounted for by count
and checksum per bucket. Both queue kinds; messages small enough for many pushes per bucket and
large enough for one.

  check_isx.py --run PGDDS_RUN --isx EXE -n N

Exit 0: passed; 1: failed; 77: skipped (transport unavailable).
"""
import argparse
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True)
    ap.add_argument("--isx", required=True)
    ap.add_argument("-n", type=int, default=2)
    args = ap.parse_args()
    cases = [
        ["--keys-per-rank", "100000", "--queue", "circular", "--message-size", "500"],
        ["--keys-per-rank", "100000", "--queue", "fast", "--message-size", "4096"],
        ["--keys-per-rank", "30000", "--key-bits", "32", "--message-size", "100000"],
        ["--keys-per-rank", "1000", "--key-bits", "3"],  # many equal keys, buckets of one value
    ]
    for case in cases:
        argv = [args.run, "-n", str(args.n), args.isx, "--no-reference", "--iterations", "2"] + case
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
        if "unsupported: pgdds_init" in p.stderr:
            print("SKIP: " + p.stderr.strip().splitlines()[0])
            return 77
        if p.returncode != 0 or "verification: passed" not in p.stdout:
            print("FAIL: %s exited %d:\n%s%s" % (" ".join(argv), p.returncode, p.stdout, p.stderr))
            return 1
        print("%s: verification passed" % " ".join(case))
    p = subprocess.run([args.run, "-n", str(args.n), args.isx, "--queue", "ring"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    if p.returncode != 2 or "circular or fast" not in p.stderr:
        print("FAIL: a bad --queue was not refused with a message:\n" + p.stderr)
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
