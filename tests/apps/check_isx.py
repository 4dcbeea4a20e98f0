#!/usr/bin/env python3
"""Runs pgdds-isx (small sizes) under pgdds-run and requires its own verification to pass: every
rank's keys sorted and in its bucket's range, neighbours ordered, every key accounted for by count
and checksum per bucket. Both queue kinds; messages small enough for many pushes per bucket and
large enough for one; many equal keys. Then the checks must be able to fail: with an error
injected after the sort (two keys swapped, one key changed) the run must fail its verification;
and a bad option must be refused with a message.

  check_isx.py --run PGDDS_RUN --isx EXE -n N [--keys-per-rank K] [--few]

Exit 0: passed; 1: failed; 77: skipped (transport unavailable).
"""
import argparse
import subprocess
import sys

from app_jobs import SKIP, Unavailable, run_job


def run(args, extra, timeout=240):
    argv = [args.run, "-n", str(args.n), "--timeout", str(timeout - 20), args.isx] + extra
    return argv, run_job(argv, timeout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", required=True)
    ap.add_argument("--isx", required=True)
    ap.add_argument("-n", type=int, default=2)
    ap.add_argument("--keys-per-rank", type=int, default=1 << 16)
    ap.add_argument("--few", action="store_true", help="both queues, one injected error, the bad option")
    args = ap.parse_args()
    keys = args.keys_per_rank
    cases = [
        ["--keys-per-rank", str(keys), "--queue", "circular", "--message-size", "500", "--sort", "std"],
        ["--keys-per-rank", str(keys), "--key-bits", "22", "--message-size", "700", "--sort", "counting"],
        ["--keys-per-rank", "3000", "--key-bits", "32", "--sort", "counting"],  # sparse windows of 2^18 values
        ["--keys-per-rank", str(keys), "--queue", "fast", "--message-size", "4096"],
        ["--keys-per-rank", str(keys // 4), "--key-bits", "32", "--message-size", str(keys)],  # one push per bucket
        ["--keys-per-rank", "1000", "--key-bits", "3"],  # many equal keys, buckets of one value (counted)
    ]
    errors = ("order", "key")
    if args.few:
        cases, errors = cases[:2], ("key",)
    try:
        for case in cases:
            argv, p = run(args, ["--no-reference", "--iterations", "2"] + case)
            if p.returncode != 0 or "verification: passed" not in p.stdout:
                print("FAIL: %s exited %d:\n%s%s" % (" ".join(argv), p.returncode, p.stdout, p.stderr))
                return 1
            print("%s: verification passed" % " ".join(case))
        for error in errors:
            argv, p = run(args, ["--no-reference", "--keys-per-rank", "5000", "--inject-error", error])
            if p.returncode == 0 or "verification: FAILED" not in p.stdout:
                print("FAIL: %s (an injected error) was not caught: exit %d\n%s%s" % (
                    " ".join(argv), p.returncode, p.stdout, p.stderr))
                return 1
            print("--inject-error %s: caught by the verification (exit %d)" % (error, p.returncode))
        argv, p = run(args, ["--queue", "ring"], timeout=60)
        if p.returncode != 2 or "circular or fast" not in p.stderr:
            print("FAIL: a bad --queue was not refused with a message (exit %d):\n%s" % (p.returncode, p.stderr))
            return 1
        print("--queue ring: refused (%s)" % p.stderr.strip().splitlines()[0])
        argv, p = run(args, ["--sort", "quick"], timeout=60)
        if p.returncode != 2 or "counting, std or auto" not in p.stderr:
            print("FAIL: a bad --sort was not refused with a message (exit %d):\n%s" % (p.returncode, p.stderr))
            return 1
        print("--sort quick: refused")
    except Unavailable as e:
        print("SKIP: %s" % e)
        return SKIP
    except subprocess.TimeoutExpired as e:
        print("FAIL: %s" % e)
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
