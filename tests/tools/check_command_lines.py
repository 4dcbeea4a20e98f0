#!/usr/bin/env python3
"""The installed programs' command lines, as a user types them (getopt_long conventions).

usage: check_command_lines.py programs PGDDS_RUN PROGRAM...
         every PROGRAM (and pgdds-run) answers --help and --version with text and exit status 0,
         and refuses an unknown option and a missing value with exit status 2 and a message;
         pgdds-info's and the applications' option forms (-bt, -k25, --kmer-size=25, ...) work.
       check_command_lines.py pgdds-run PGDDS_RUN
         pgdds-run's option forms: -n3, -n 3, --np=3, --np 3, -np 3, -np3, clustered short
         options, --tag-output, --timeout=, --grace=, --bind-to=, and `--` before the program.
"""
import gzip
import os
import random
import re
import subprocess
import sys
import tempfile


def run(cmd, expect=0, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PGDDS_")}
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)
    if r.returncode != expect:
        raise SystemExit(f"{' '.join(cmd)}: exit status {r.returncode}, expected {expect}\n{r.stdout}{r.stderr}")
    return r.stdout, r.stderr


def expect(ok, what):
    if not ok:
        raise SystemExit(what)


def check_common(prog, launch):
    """--help, --version, -h, -V; an unknown option and a missing value."""
    name = os.path.basename(prog)
    for flag in ("--help", "-h"):
        out, _ = run(launch + [prog, flag])
        expect("usage:" in out and "--version" in out, f"{name} {flag} prints no usage with --version:\n{out}")
    for flag in ("--version", "-V"):
        out, _ = run(launch + [prog, flag])
        expect(re.fullmatch(rf"{re.escape(name)} \(libpgdds\) \d+\.\d+\.\d+\n", out), f"{name} {flag} printed {out!r}")
    _, err = run(launch + [prog, "--no-such-option"], expect=2)
    expect(f"{name}: unknown option --no-such-option" in err, f"{name} does not name the unknown option:\n{err}")
    _, err = run(launch + [prog, "-Z"], expect=2)
    expect(f"{name}: unknown option -Z" in err, f"{name} does not name the unknown short option:\n{err}")


def write_reads(path):
    rng = random.Random(7)
    with gzip.open(path, "wt") as f:
        for i in range(50):
            f.write(f">r{i}\n{''.join(rng.choice('ACGT') for _ in range(120))}\n")


def programs(run_prog, progs):
    launch = [run_prog, "-n", "2", "--timeout", "60"]
    check_common(run_prog, [])
    with tempfile.TemporaryDirectory() as tmp:
        reads = os.path.join(tmp, "reads.fa.gz")
        write_reads(reads)
        for prog in progs:
            name = os.path.basename(prog)
            parallel = name not in ("pgdds-info", "pgdds-kmer-serial")
            check_common(prog, launch if parallel else [])
            if name == "pgdds-info":
                out, _ = run([prog, "-bt"])
                expect("Build" in out and "Transports on this machine" in out and "Environment" not in out,
                       "pgdds-info -bt is not -b -t")
                _, err = run([prog, "extra"], expect=2)
                expect("unexpected argument extra" in err, "pgdds-info takes an operand")
            elif name in ("pgdds-kmer", "pgdds-kmer-serial"):
                kmer_launch = launch if parallel else []
                counts = set()
                for form in (["-k25"], ["-k", "25"], ["--kmer-size=25"], ["--kmer-size", "25"]):
                    # Options before or after the input, as getopt_long permutes them.
                    out, _ = run(kmer_launch + [prog, reads, "--no-contigs"] + form)
                    counts.add(re.search(r"Distinct:\s+(\d+)", out).group(1))
                    if parallel:
                        expect("k=25" in out, f"{name} {' '.join(form)} did not count 25-mers:\n{out}")
                expect(len(counts) == 1, f"{name}: the forms of -k count differently: {counts}")
                out31, _ = run(kmer_launch + [prog, "--no-contigs", reads])
                expect(re.search(r"Distinct:\s+(\d+)", out31).group(1) not in counts, f"{name}: -k25 counted 31-mers")
                _, err = run(kmer_launch + [prog, reads, "-k"], expect=2)
                expect("option -k needs a value" in err, f"{name} -k without a value:\n{err}")
                _, err = run(kmer_launch + [prog, reads, "--kmer-size=40"], expect=2)
                expect("k must be a whole number from 1 to 32" in err, f"{name} --kmer-size=40:\n{err}")
            elif name == "pgdds-isx":
                out, _ = run(launch + [prog, "--keys-per-rank=2000", "--key-bits", "20", "--queue=fast",
                                       "--iterations=1", "--no-reference"])
                expect("verification: passed" in out, f"pgdds-isx with --opt=value forms:\n{out}")
                _, err = run(launch + [prog, "--queue"], expect=2)
                expect("option --queue needs a value" in err, f"pgdds-isx --queue:\n{err}")
            elif name == "pgdds-bench-containers":
                out, _ = run(launch + [prog, "--keys=2000", "--bench", "bloom", "--calibration=0", "--json"])
                expect('"bloom_insert' in out, f"pgdds-bench-containers --keys=2000 --bench bloom:\n{out}")
                _, err = run(launch + [prog, "--keys=x"], expect=2)
                expect("--keys x is not a whole number" in err, f"pgdds-bench-containers --keys=x:\n{err}")
            elif name == "pgdds-bench-keytable":
                out, _ = run(launch + [prog, "--max-entries=1024", "--ops", "100"])
                expect("get_remote_latency_spread" in out, f"pgdds-bench-keytable --max-entries=1024:\n{out}")
                # A count past 2^64 is refused, not saturated.
                _, err = run(launch + [prog, "--ops=99999999999999999999999"], expect=2)
                expect("--ops 99999999999999999999999 is not a positive count" in err,
                       f"pgdds-bench-keytable --ops=99999999999999999999999:\n{err}")
            print(f"{name}: --help, --version and its option forms work")


def pgdds_run(run_prog):
    def ranks(args):
        out, _ = run([run_prog] + args + ["--tag-output", "echo", "hi"])
        return sorted(re.findall(r"^\[(\d+)\] hi$", out, re.M))
    for form in (["-n3"], ["-n", "3"], ["--np=3"], ["--np", "3"], ["-np", "3"], ["-np3"]):
        got = ranks(form)
        expect(got == ["0", "1", "2"], f"pgdds-run {' '.join(form)} started ranks {got}")
    out, _ = run([run_prog, "-vn2", "--timeout=30", "--grace=1", "--bind-to=none", "--prefix", "--", "printf", "%s %s\\n", "-n", "x"])
    expect(re.search(r"^\[1\] -n x$", out, re.M), f"pgdds-run passed options after the program on to itself:\n{out}")
    _, err = run([run_prog, "-v", "-n", "2", "--timeout", "30", "echo", "x"])
    expect("rank 1 started" in err, f"pgdds-run -v is silent:\n{err}")
    for bad, why in ((["--np=0", "echo"], "not a rank count"), (["-n", "2", "--grace=601", "echo"], "0..600"),
                     (["-n", "2", "--bind-to=socket", "echo"], "expected core or none"),
                     (["-n", "2", "--timeout=-1", "echo"], "not a positive number"),
                     (["-n", "2", "--timeout"], "option --timeout needs a value"),
                     (["-np"], "option -np needs a value"), (["echo"], "-n N is required")):
        _, err = run([run_prog] + bad, expect=2)
        expect(why in err, f"pgdds-run {' '.join(bad)} says {err!r}, not {why!r}")
    print("pgdds-run: every option form works")


def main():
    mode, run_prog = sys.argv[1], sys.argv[2]
    if mode == "programs":
        programs(run_prog, sys.argv[3:])
    else:
        pgdds_run(run_prog)
    return 0


if __name__ == "__main__":
    sys.exit(main())
