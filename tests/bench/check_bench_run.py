#!/usr/bin/env python3
"""bench/run honours --only, --configs and --repeat, the peers included, keeps every run's
records and summarizes them with their spread; with --prefix it measures a staged installation,
skipping (with a note) what is not installed. bench/scaling sweeps a family over 1, 2 and 4 ranks
and three sizes, with its table and plot, and renders them again from its records alone;
bench/apps/kmer/synth_reads.py writes the same reads for the same arguments.

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

    # bench/scaling: ISx over ranks and sizes, quick; then the table again from the records.
    out = os.path.join(tmp, "scaling")
    # Run by their #! lines: the system Python, with the numpy and matplotlib of .ci/install-deps.
    check(run([os.path.join(src, "bench", "scaling"), "--build", build, "--out", out, "--quick",
               "--only", "isx"]) == 0, "bench/scaling failed")
    with open(os.path.join(out, "scaling.jsonl")) as f:
        recs = [json.loads(line) for line in f]
    points = {(r["ranks"], r["size"]) for r in recs if r["metric"] == "total_time"}
    check(len(points) == 9 and {n for n, _ in points} == {1, 2, 4}, "ISx points: %s, not 3 ranks x 3 sizes"
          % sorted(points))
    check(all(r["family"] == "isx" and r["metric"] in ("distribute_time", "sort_time", "total_time") for r in recs),
          "scaling.jsonl keeps records no panel shows")
    table = open(os.path.join(out, "scaling.md")).read()
    check("## isx" in table and "4 rk, 1677721" in table and os.path.exists(os.path.join(out, "scaling-isx.png")),
          "scaling.md or scaling-isx.png lacks the ISx sweep")
    os.remove(os.path.join(out, "scaling.md"))
    check(run([os.path.join(src, "bench", "scaling"), "--render", "--out", out]) == 0 and
          open(os.path.join(out, "scaling.md")).read() == table, "--render does not give the same table")

    # bench/protocols: each mode twice in turn on one network configuration, medians in the table.
    out = os.path.join(tmp, "protocols")
    check(run([os.path.join(src, "bench", "protocols"), "--build", build, "--out", out, "--ops", "40",
               "--repeat", "2", "--configs", "ucx-tcp"]) == 0, "bench/protocols failed")
    with open(os.path.join(out, "protocols.json")) as f:
        prot = json.load(f)
    runs = prot["results"].get("ucx-tcp", {})
    check(sorted(runs) == ["auto", "rdma", "rpc"] and all(len(runs[m]["runs"]) == 2 for m in runs),
          "protocols.json lacks two runs of each mode")
    med = runs.get("auto", {}).get("records", [])
    check(med and all(r["us_min"] <= r["us"] <= r["us_max"] and r["repeats"] == 2 for r in med),
          "protocols.json's medians do not lie within their runs")
    table = open(os.path.join(out, "protocols.md")).read()
    check("medians of 2 runs" in table and "## ucx-tcp" in table and "| hashmap | insert |" in table,
          "protocols.md does not show the medians of the two runs")

    # Synthetic reads: seeded, so the same file twice; FASTA with reads of the length asked for.
    synth = os.path.join(src, "bench", "apps", "kmer", "synth_reads.py")
    files = [os.path.join(tmp, "reads-%d.fa.gz" % i) for i in range(2)]
    for f in files:
        check(run([synth, f, "--genome", "2000", "--length", "100"]) == 0, "synth_reads.py failed")
    import gzip
    texts = [gzip.open(f, "rt").read() for f in files]
    check(texts[0] == texts[1], "synth_reads.py wrote different reads for the same arguments")
    lines = texts[0].splitlines()
    check(len(lines) == 200 * 3 and lines[0] == ">seq=1 len=100" and set("".join(lines[1:3])) <= set("ACGT") and
          len(lines[1]) + len(lines[2]) == 100, "synth_reads.py's FASTA is not 200 reads of 100 bases in lines of 60")

print("bench/run: %s" % ("FAILED" if failures else "passed"))
sys.exit(1 if failures else 0)
