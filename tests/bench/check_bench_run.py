#!/usr/bin/env python3
"""bench/run honours --only, --configs and --repeat, the peers included, keeps every run's
records and summarizes them with their spread; with --prefix it measures a staged installation,
skipping (with a note) what is not installed.

usage: check_bench_run.py SRCDIR BUILDDIR PREFIX"""
import json
import os
import subprocess
import sys
import tempfile

src, build, prefix = sys.argv[1:4]
bench_run = os.path.join(src, "bench", "run")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(args):
    print("$ " + " ".join(args), flush=True)
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(p.stdout[-3000:])
    return p.returncode


def records(out):
    with open(os.path.join(out, "results.jsonl")) as f:
        return [json.loads(line) for line in f]


with tempfile.TemporaryDirectory() as tmp:
    # A build: one family, one configuration, two runs of it, nothing else (no peers).
    out = os.path.join(tmp, "build-results")
    check(run([sys.executable, bench_run, "--build", build, "--out", out, "--quick", "--only", "containers",
               "--configs", "shm", "--repeat", "2"]) == 0, "bench/run on the build failed")
    recs = records(out)
    check(recs, "no records")
    check(all(r.get("config") == "shm" for r in recs), "a record of another configuration than shm")
    check(not any(r["bench"].startswith(("peer", "kmer", "isx", "vci_rate", "micro")) or
                  r.get("config", "").startswith("peer") for r in recs), "a record of another family or of a peer")
    check(sorted({r.get("rep") for r in recs}) == [0, 1], "records do not carry runs 0 and 1")
    table = open(os.path.join(out, "results.md")).read()
    check("min-max (runs)" in table and "(2) |" in table, "results.md shows no spread over the 2 runs")

    # An installation, staged: the installed benchmark runs; the micro-benchmarks are not installed.
    stage = os.path.join(tmp, "stage")
    check(run(["meson", "install", "-C", build, "--destdir", stage, "--no-rebuild", "--quiet"]) == 0, "meson install")
    installed = stage + prefix
    out = os.path.join(tmp, "prefix-results")
    check(run([sys.executable, bench_run, "--prefix", installed, "--out", out, "--quick", "--only", "containers",
               "micro", "--configs", "shm"]) == 0, "bench/run on the installation failed")
    recs = records(out)
    check(any(r["bench"] != "micro" for r in recs), "no records of the installed container benchmark")
    table = open(os.path.join(out, "results.md")).read()
    check("micro not measured: pgdds-micro is not installed" in table, "results.md does not say why micro is missing")

print("bench/run: %s" % ("FAILED" if failures else "passed"))
sys.exit(1 if failures else 0)
