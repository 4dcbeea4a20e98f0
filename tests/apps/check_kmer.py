#!/usr/bin/env python3
"""Checks pgdds-kmer against its serial reference, an independent count in Python, and jellyfish.

  check_kmer.py CASE --run PGDDS_RUN --kmer EXE [--serial EXE] -n N [--reads FILE] [--jellyfish EXE]
                [--small] [--few]

CASE:
  real       the first --subset reads (default 40) of a real read set (gatb-core's reads3.fa.gz),
             written to a temporary file: the distributed and serial counts (statistics, full
             histogram) and contig sets are identical, at k=31 (min count 2) and k=25 (min count
             1: every k-mer in the graph), counting by sorting and by the Bloom filter passes.
  full       the whole real read set, k=31: distributed and serial agree.
  synthetic  reads generated here, deterministically, from a random genome with sequencing errors,
             Ns, lower case and reads of both strands, an error-free genome, a circular sequence
             (a cycle in the graph) and a sequence followed by its reverse complement (palindromic
             k-mers for even k, a hairpin for odd k), as FASTA (multi-line, gzip) and FASTQ: the
             distributed and serial runs agree, their counts equal a count made here in Python, the
             error-free genome is one contig and the circle is one cycle contig. k=31 and 16 with
             min count 2 (k=31 also counting by the Bloom filter passes), k=20 with min count 1.

--small (for slow transports): real uses the first 10 reads and k=31 only; synthetic uses
genomes a quarter the size and skips k=16.
  jellyfish  the whole real read set, k=31: the distributed counts (distinct, singletons, total,
             largest count, full histogram) equal those of `jellyfish count -m 31 -C` +
             `jellyfish stats`/`histo` (skipped when jellyfish is not installed).
  bad-input  a missing file, a directory, corrupt and truncated gzip, files that are not
             FASTA/FASTQ, a FASTQ record with too few quality values, k out of range, bad options
             and no input each end every rank with a non-zero exit and one message that says why,
             well within the time limit (--few: a missing file, corrupt gzip, binary data, k=0).
  can-fail   the comparisons above fail on a wrong result: a distributed run on the synthetic
             reads is compared after changing, one at a time, a count, a histogram entry, a
             contig's base, a contig dropped, a contig written twice; and the Python count check
             is given a count one off. Each must be reported as a failure.

The distributed program runs under pgdds-run with the environment's transport configuration. Exit
0: passed; 1: failed; 77: skipped (no input data, jellyfish missing, transport unavailable).
"""
import argparse
import collections
import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile

from app_jobs import SKIP, Unavailable, run_job

READS3 = "/usr/share/doc/gatb-core/test/db/reads3.fa.gz"
COMP = str.maketrans("ACGTacgt", "TGCAtgca")


def rc(s):
    return s.translate(COMP)[::-1]


def canonical(s):
    return min(s, rc(s))


class Failure(Exception):
    pass


def run(argv, timeout=240, expect_ok=True):
    p = run_job(argv, timeout)
    if expect_ok and p.returncode != 0:
        raise Failure("%s exited with %d:\n%s%s" % (" ".join(argv), p.returncode, p.stdout, p.stderr))
    return p


def summary(stdout):
    """The 'Name: value' lines of a run's summary."""
    out = {}
    for line in stdout.splitlines():
        name, sep, value = line.partition(":")
        if sep and value.strip().isdigit():
            out[name.strip()] = int(value)
    return out


def read_histogram(path):
    with open(path) as f:
        return {int(c): int(n) for c, n in (line.split() for line in f if line.strip())}


def read_contigs(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith(">")]


def compare_results(d, s, what):
    """Fails unless two runs' (statistics, histogram, contigs) agree: statistics and histogram
    exactly, contigs as sets, the distributed run writing none twice."""
    if d[0] != s[0]:
        raise Failure("%s: statistics differ:\n  distributed %s\n  serial      %s" % (what, d[0], s[0]))
    if d[1] != s[1]:
        diff = sorted(c for c in set(d[1]) | set(s[1]) if d[1].get(c) != s[1].get(c))
        raise Failure("%s: histograms differ at counts %s" % (what, diff[:10]))
    if len(d[2]) != len(set(d[2])):
        raise Failure("%s: the distributed run wrote a contig twice" % what)
    if sorted(d[2]) != sorted(s[2]):
        only_d, only_s = set(d[2]) - set(s[2]), set(s[2]) - set(d[2])
        raise Failure("%s: contigs differ: %d only distributed (e.g. %s), %d only serial (e.g. %s)" % (
            what, len(only_d), next(iter(only_d), "-")[:80], len(only_s), next(iter(only_s), "-")[:80]))


class Programs:
    def __init__(self, args, work):
        self.args, self.work = args, work

    def distributed(self, reads, extra, tag, n=None):
        contigs, histo = os.path.join(self.work, tag + ".d.fa"), os.path.join(self.work, tag + ".d.histo")
        argv = [self.args.run, "-n", str(n or self.args.n), "--timeout", "200", self.args.kmer, reads,
                "--histo", histo, "--progress", "0"] + extra
        if "--no-contigs" not in extra:
            argv += ["--contigs", contigs]
        p = run(argv)
        return summary(p.stdout), read_histogram(histo), read_contigs(contigs) if "--no-contigs" not in extra else []

    def serial(self, reads, extra, tag):
        if not self.args.serial:
            raise Failure("this case needs --serial")
        contigs, histo = os.path.join(self.work, tag + ".s.fa"), os.path.join(self.work, tag + ".s.histo")
        p = run([self.args.serial, reads, "--contigs", contigs, "--histo", histo, "--progress", "0"] + extra)
        return summary(p.stdout), read_histogram(histo), read_contigs(contigs)

    def compare(self, reads, extra, tag):
        """Runs both; fails unless statistics, histograms and contig sets agree. Returns the serial results."""
        d, s = self.distributed(reads, extra, tag), self.serial(reads, extra, tag)
        what = "%s %s on %d ranks" % (os.path.basename(reads), " ".join(extra), self.args.n)
        compare_results(d, s, what)
        print("%s: Total %d, Distinct %d, Unique %d, %d contigs (N50 %d): distributed and serial agree" % (
            what, s[0]["Total"], s[0]["Distinct"], s[0]["Unique"], s[0].get("Contigs", 0), s[0].get("N50", 0)))
        return s


# --- synthetic reads ------------------------------------------------------------------------------
def synthetic(work, small=False):
    """Writes the synthetic read sets; returns their paths and what must come out of them. small:
    shorter genomes (a quarter of the reads, contigs of at most 400 bases), for transports where
    every step of a walk is a slow round trip; check_synthetic then skips k=16."""
    rnd = random.Random(20240611)
    bases = "ACGT"

    def genome(n):
        return "".join(rnd.choice(bases) for _ in range(n))

    scale = 4 if small else 1
    noisy, clean, circle = genome(4000 // scale), genome(1600 // scale), genome(150)
    half = genome(200)
    hairpin = genome(60) + half + rc(half) + genome(60)
    reads = []

    def sample(src, length, start, errors=0.0):
        r = list(src[start:start + length])
        for i in range(len(r)):
            if rnd.random() < errors:
                r[i] = rnd.choice(bases.replace(r[i], ""))
        return "".join(r)

    for _ in range(400 // scale):  # the noisy genome, coverage 10
        length = rnd.randint(60, 140)
        r = sample(noisy, length, rnd.randint(0, len(noisy) - length), errors=0.005)
        if rnd.random() < 0.05:  # an unreadable base
            i = rnd.randrange(len(r))
            r = r[:i] + "N" + r[i + 1:]
        if rnd.random() < 0.1:
            r = r.lower()
        reads.append(rc(r) if rnd.random() < 0.5 else r)
    for start in range(0, len(clean) - 100 + 1, 20):  # the error-free genome, tiled, both strands
        r = clean[start:start + 100]
        reads += [r, rc(r)]
    wrapped = circle * 3
    for _ in range(30):  # the circle, coverage 20
        start = rnd.randrange(len(circle))
        r = wrapped[start:start + 100]
        reads.append(rc(r) if rnd.random() < 0.5 else r)
    for _ in range(3):
        reads.append(hairpin)
    reads.append("NNNN")  # no k-mer at all
    reads.append("ACGTNACGT")

    fasta = os.path.join(work, "synthetic.fa.gz")
    with gzip.open(fasta, "wt") as f:
        for i, r in enumerate(reads):
            f.write(">read%d some description\n" % i)
            for j in range(0, len(r), 60):
                f.write(r[j:j + 60] + "\n")
    fastq = os.path.join(work, "synthetic.fq")
    with open(fastq, "w") as f:
        for i, r in enumerate(reads):
            f.write("@read%d\n%s\n+\n%s\n" % (i, r, "I" * len(r)))
    return reads, fasta, fastq, clean, circle


def python_counts(reads, k):
    """Canonical k-mer counts of the reads, breaking at anything but ACGT."""
    counts = collections.Counter()
    for r in reads:
        for piece in "".join(c if c in "ACGT" else " " for c in r.upper()).split():
            for i in range(len(piece) - k + 1):
                counts[canonical(piece[i:i + k])] += 1
    return counts


def cycle_contig(circle, k):
    """The cycle's contig as defined: read forwards from its smallest canonical k-mer."""
    kmers = [(circle * 2)[i:i + k] for i in range(len(circle))]
    smallest = min(canonical(x) for x in kmers)
    seq = circle if smallest in kmers else rc(circle)
    i = [(seq * 2)[j:j + k] for j in range(len(seq))].index(smallest)
    return (seq * 3)[i:i + len(seq) + k - 1]


def check_python_counts(reads, k, stats, histo):
    counts = python_counts(reads, k)
    expect = collections.Counter(counts.values())
    if histo != dict(expect):
        raise Failure("k=%d: the histogram differs from the count made in Python" % k)
    if (stats["Total"], stats["Distinct"], stats["Unique"]) != (sum(counts.values()), len(counts), expect[1]):
        raise Failure("k=%d: total, distinct or singletons differ from the count made in Python" % k)


def check_synthetic(progs, work, small):
    reads, fasta, fastq, clean, circle = synthetic(work, small)
    # the Bloom filter path at two k, the unfiltered path (min count 1); both formats
    variants = ((31, 2, fasta), (20, 1, fastq), (16, 2, fastq))
    for k, min_count, path in variants[:2] if small else variants:
        stats, histo, contigs = progs.compare(path, ["-k", str(k), "--min-count", str(min_count)], "k%d" % k)
        check_python_counts(reads, k, stats, histo)
        if k == 31:  # the other counting method, on the same reads
            bloom = progs.compare(path, ["-k", "31", "--min-count", "2", "--counting", "bloom"], "k31-bloom")
            check_python_counts(reads, k, bloom[0], bloom[1])
        if k == 31:  # long enough for these random sequences to have no repeated (k-1)-mers
            if canonical(clean) not in contigs:
                raise Failure("k=31: the error-free genome is not one contig")
            if cycle_contig(circle, k) not in contigs:
                raise Failure("k=31: the circle is not one cycle contig")
        print("k=%d: counts equal the Python count%s" % (k, "; error-free genome and cycle found" if k == 31 else ""))


def first_reads(src, count, dst):
    """Writes the first `count` records of a FASTA file (plain or gzip) to dst, unchanged."""
    opener = gzip.open if open(src, "rb").read(2) == b"\x1f\x8b" else open
    seen = 0
    with opener(src, "rt") as f, open(dst, "w") as out:
        for line in f:
            if line.startswith(">"):
                seen += 1
                if seen > count:
                    break
            out.write(line)
    return dst


def check_real(progs, reads, count, work, small):
    subset = first_reads(reads, count, os.path.join(work, "first%d.fa" % count))
    for extra in (["-k", "31"],) if small else (["-k", "31"], ["-k", "25", "--min-count", "1"]):
        for counting in ("sort", "bloom"):
            progs.compare(subset, extra + ["--counting", counting], "real")


def check_full(progs, reads):
    progs.compare(reads, ["-k", "31"], "full")


def check_jellyfish(progs, reads, work, jellyfish):
    jellyfish = jellyfish or shutil.which("jellyfish")
    if not jellyfish:
        raise Unavailable("jellyfish is not installed (Debian package jellyfish)")
    plain = os.path.join(work, "reads.fa")
    with gzip.open(reads, "rb") as src, open(plain, "wb") as dst:  # jellyfish reads plain files
        shutil.copyfileobj(src, dst)
    k = 31
    db = os.path.join(work, "counts.jf")
    run([jellyfish, "count", "-m", str(k), "-C", "-s", "10M", "-t", "2", "-o", db, plain])
    stats = summary(run([jellyfish, "stats", db]).stdout)
    histo = {int(c): int(n) for c, n in (line.split() for line in run([jellyfish, "histo", "-h", "100000000", db])
                                         .stdout.splitlines() if line.strip())}
    histo = {c: n for c, n in histo.items() if n}
    mine = progs.distributed(reads, ["-k", str(k), "--no-contigs"], "jf")
    for name in ("Unique", "Distinct", "Total", "Max_count"):
        if mine[0].get(name) != stats[name]:
            raise Failure("k=%d: %s is %s, jellyfish says %d" % (k, name, mine[0].get(name), stats[name]))
    if mine[1] != histo:
        raise Failure("k=%d: the histogram differs from jellyfish histo" % k)
    print("%s k=%d on %d ranks: Unique %d, Distinct %d, Total %d, Max_count %d, histogram: equal to jellyfish" % (
        os.path.basename(reads), k, progs.args.n, stats["Unique"], stats["Distinct"], stats["Total"],
        stats["Max_count"]))


def check_bad_input(args, work):
    good = os.path.join(work, "good.fa")
    with open(good, "w") as f:
        f.write(">r\nACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT\n")
    corrupt = os.path.join(work, "corrupt.fa.gz")
    with open(corrupt, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(7, 250)) * 20)
    truncated = os.path.join(work, "truncated.fa.gz")
    data = gzip.compress(b"".join(b">r%d\n%s\n" % (i, b"ACGT" * 50) for i in range(2000)))
    with open(truncated, "wb") as f:
        f.write(data[:len(data) // 2])
    binary = os.path.join(work, "binary.fa")
    with open(binary, "wb") as f:
        f.write(bytes(range(256)) * 4)
    text = os.path.join(work, "notes.txt")
    with open(text, "w") as f:
        f.write("These are not reads.\nACGT\n")
    fastq = os.path.join(work, "short_quality.fq")
    with open(fastq, "w") as f:
        f.write("@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nACGTACGTAA\n+\nIIII\n")
    missing = os.path.join(work, "no_such_file.fa")
    cases = [
        ([missing], "cannot open"),
        ([work], "directory"),
        ([corrupt], "invalid"),
        ([truncated], "truncated"),
        ([binary], "not FASTA or FASTQ"),
        ([text], "not FASTA or FASTQ"),
        ([fastq], "quality"),
        ([good, "-k", "0"], "k must be"),
        ([good, "-k", "33"], "k must be"),
        ([good, "-k", "x"], "k must be"),
        ([good, "--min-count", "x"], "--min-count"),
        ([good, "--frobnicate"], "unknown option"),
        ([good, "--counting", "hash"], "--counting takes sort or bloom"),
        ([], "no input file"),
    ]
    if args.few:  # one of each kind: a file that cannot be opened, read, or parsed; a bad argument
        cases = [cases[i] for i in (0, 2, 4, 7)]
    for argv, expected in cases:
        p = run([args.run, "-n", str(args.n), "--timeout", "60", args.kmer] + argv, timeout=90, expect_ok=False)
        if p.returncode == 0:
            raise Failure("%s: exited 0" % " ".join(argv))
        if p.returncode == 124 or "timed out" in p.stderr or "timeout" in p.stderr.lower():
            raise Failure("%s: hung until the launcher's time limit:\n%s" % (" ".join(argv), p.stderr))
        if expected not in p.stderr:
            raise Failure("%s: exited %d without saying %r:\n%s" % (" ".join(argv), p.returncode, expected, p.stderr))
        if p.stderr.count("pgdds-kmer:") != 1 and "usage" not in p.stderr:
            raise Failure("%s: expected one message (from one rank), got:\n%s" % (" ".join(argv), p.stderr))
        print("%s: exit %d after %.1f s, %s" % (" ".join(os.path.basename(a) for a in argv) or "(no arguments)",
                                                p.returncode, p.seconds, p.stderr.strip().splitlines()[0]))


def check_can_fail(progs, work):
    """Each wrong result handed to the checks must be reported as a failure."""
    reads, fasta, _, _, _ = synthetic(work)
    k = 31
    d = progs.distributed(fasta, ["-k", str(k)], "cf")
    s = progs.serial(fasta, ["-k", str(k)], "cf")
    compare_results(d, s, "unchanged")  # the untouched results pass
    check_python_counts(reads, k, d[0], d[1])
    stats, histo, contigs = d

    def changed(i, f):
        parts = [dict(stats), dict(histo), list(contigs)]
        f(parts[i])
        return tuple(parts)

    def bump(key):
        return lambda x: x.__setitem__(key, x[key] + 1)

    def mutate_base(c):
        c[0] = c[0][:5] + ("A" if c[0][5] != "A" else "C") + c[0][6:]

    wrong = [
        ("Distinct one more", changed(0, bump("Distinct"))),
        ("Unique one more", changed(0, bump("Unique"))),
        ("Total one more", changed(0, bump("Total"))),
        ("histogram count 2 one more", changed(1, bump(2))),
        ("a contig with one base changed", changed(2, mutate_base)),
        ("a contig missing", changed(2, lambda c: c.pop())),
        ("a contig written twice", changed(2, lambda c: c.append(c[0]))),
    ]
    for what, result in wrong:
        try:
            compare_results(result, s, what)
        except Failure as e:
            print("%s: caught (%s)" % (what, str(e).splitlines()[0]))
        else:
            raise Failure("the comparison with the serial reference passed %s" % what)
    for name in ("Total", "Distinct", "Unique"):
        try:
            check_python_counts(reads, k, dict(stats, **{name: stats[name] - 1}), histo)
        except Failure as e:
            print("%s one less: caught by the Python count (%s)" % (name, e))
        else:
            raise Failure("the Python count check passed %s one less" % name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("case", choices=["real", "full", "synthetic", "jellyfish", "bad-input", "can-fail"])
    ap.add_argument("--run", required=True)
    ap.add_argument("--kmer", required=True)
    ap.add_argument("--serial")
    ap.add_argument("--jellyfish")
    ap.add_argument("-n", type=int, default=2)
    ap.add_argument("--reads", default=READS3)
    ap.add_argument("--subset", type=int, default=40, help="reads of --reads that `real` uses")
    ap.add_argument("--few", action="store_true", help="bad-input: four of the cases")
    ap.add_argument("--small", action="store_true",
                    help="real: the first 10 reads, k=31 only; synthetic: smaller genomes")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pgdds-kmer-test-")
    try:
        progs = Programs(args, work)
        if args.case in ("real", "full", "jellyfish") and not os.path.exists(args.reads):
            raise Unavailable("%s is missing (Debian package gatb-core-testdata)" % args.reads)
        if args.case == "real":
            check_real(progs, args.reads, 10 if args.small else args.subset, work, args.small)
        elif args.case == "full":
            check_full(progs, args.reads)
        elif args.case == "synthetic":
            check_synthetic(progs, work, args.small)
        elif args.case == "jellyfish":
            check_jellyfish(progs, args.reads, work, args.jellyfish)
        elif args.case == "bad-input":
            check_bad_input(args, work)
        else:
            check_can_fail(progs, work)
    except Unavailable as e:
        print("SKIP: %s" % e)
        return SKIP
    except (Failure, subprocess.TimeoutExpired) as e:
        print("FAIL: %s" % e)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
