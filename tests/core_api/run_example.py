#!/usr/bin/env python3
"""Runs an example program under pgdds-run and passes on its verdict, or skips (77) where the
transport configuration cannot start on this machine (verbs without an RDMA device): the
examples report a failed pgdds_init as "pgdds_init failed (unsupported): ...".

usage: run_example.py PGDDS_RUN NRANKS PROGRAM
"""
import subprocess
import sys


def main():
    run, n, prog = sys.argv[1:4]
    p = subprocess.run([run, "-n", n, "--timeout", "240", prog], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=300)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if p.returncode != 0 and "pgdds_init failed (unsupported)" in p.stderr:
        print("SKIP: the transport is unavailable here")
        return 77
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
