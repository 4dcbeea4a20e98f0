#!/usr/bin/env python3
"""Checks pgdds-kmer against its serial reference, an independent count in Python, and jellyfish.

  check_kmer.py real       --run PGDDS_RUN --kmer EXE --serial EXE -n N [--reads FILE]
  check_kmer.py synthetic  --run PGDDS_RUN --kmer EXE --serial EXE -n N
  check_kmer.py jellyfish  --run PGDDS_RUN --kmer EXE --serial EXE -n N [--reads FILE]
  check_kmer.py bad-input  --run PGDDS_RUN --kmer EXE -n N

real: a real read set (gatb-core's reads1.fa.gz): the distributed and serial counts (statistics,
full histogram) and contig sets are identical.
synthetic: reads generated here, deterministically, from a random genome with sequencing
errors, Ns, lower case and reads of both strands, an error-free genome, a circular sequence (a
cycle in the graph) and a sequence followed by its reverse complement (palindromic k-mers for
even k, a hairpin for odd k), as FASTA (multi-line, gzip) and FASTQ: the distributed and serial
runs agree, their counts equal a count made here in Python, the error-free genome is one contig
and the circle is one cycle contig.
jellyfish: the counts equal those of `jellyfish count -C` + `jellyfish stats`/`histo` (skipped
when jellyfish is not installed).
bad-input: a missing file, corrupt and truncated gzip, a file that is not FASTA/FASTQ, a FASTQ
record with too few quality values and k out of range each end every rank with a non-zero exit
and a message that says why, within the time limit.

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

READS1 = "/usr/share/doc/gatb-core/test/db/reads1.fa.gz"
SKIP = 77
COMP = str.maketrans("ACGTacgt", "TGCAtgca")


def rc(s):
    return s.translate(COMP)[::-1]


def canonical(s):
    return min(s, rc(s))


class Failure(Exception):
    pass


class Unavailable(Exception):
    pass


def run(argv, timeout=240, expect_ok=True):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if expect_ok and p.returncode != 0:
        if "unsupported: pgdds_init" in p.stderr:
            raise Unavailable(p.stderr.strip().splitlines()[0])
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


class Programs:
    def __init__(self, args, work):
        self.args, self.work = args, work

    def distributed(self, reads, extra, tag):
        contigs, histo = os.path.join(self.work, tag + ".d.fa"), os.path.join(self.work, tag + ".d.histo")
        p = run([self.args.run, "-n", str(self.args.n), self.args.kmer, reads, "--contigs", contigs, "--histo", histo,
                 "--progress", "0"] + extra)
        return summary(p.stdout), read_histogram(histo), read_contigs(contigs)

    def serial(self, reads, extra, tag):
        contigs, histo = os.path.join(self.work, tag + ".s.fa"), os.path.join(self.work, tag + ".s.histo")
        p = run([self.args.serial, reads, "--contigs", contigs, "--histo", histo, "--progress", "0"] + extra)
        return summary(p.stdout), read_histogram(histo), read_contigs(contigs)

    def compare(self, reads, extra, tag):
        """Runs both; fails unless statistics, histograms and contig sets agree. Returns the serial results."""
        d, s = self.distributed(reads, extra, tag), self.serial(reads, extra, tag)
        what = "%s %s on %d ranks" % (os.path.basename(reads), " ".join(extra), self.args.n)
        if d[0] != s[0]:
            raise Failure("%s: statistics differ:\n  distributed %s\n  serial      %s" % (what, d[0], s[0]))
        if d[1] != s[1]:
            raise Failure("%s: histograms differ" % what)
        if len(d[2]) != len(set(d[2])):
            raise Failure("%s: the distributed run wrote a contig twice" % what)
        if sorted(d[2]) != sorted(s[2]):
            only_d, only_s = set(d[2]) - set(s[2]), set(s[2]) - set(d[2])
            raise Failure("%s: contigs differ: %d only distributed (e.g. %s), %d only serial (e.g. %s)" % (
                what, len(only_d), next(iter(only_d), "-")[:80], len(only_s), next(iter(only_s), "-")[:80]))
        print("%s: %s Distinct, %s contigs: distributed and serial agree" % (what, s[0]["Distinct"], s[0].get("Contigs")))
        return s


# --- synthetic reads ------------------------------------------------------------------------------
def synthetic(work):
    """Writes the synthetic read sets; returns their paths and what must come out of them."""
    rnd = random.Random(20240611)
    bases = "ACGT"

    def genome(n):
        return "".join(rnd.choice(bases) for _ in range(n))

    noisy, clean, circle = genome(4000), genome(1500), genome(150)
    half = genome(200)
    hairpin = genome(60) + half + rc(half) + genome(60)
    reads = []

    def sample(src, length, start, errors=0.0):
        r = list(src[start:start + length])
        for i in range(len(r)):
            if rnd.random() < errors:
                r[i] = rnd.choice(bases.replace(r[i], ""))
        return "".join(r)

    for _ in range(400):  # the noisy genome, coverage 10
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


def check_synthetic(progs, work):
    reads, fasta, fastq, clean, circle = synthetic(work)
    for k, min_count in ((31, 2), (20, 1), (16, 2)):
        extra = ["-k", str(k), "--min-count", str(min_count)]
        for path in (fasta, fastq):
            stats, histo, contigs = progs.compare(path, extra, "k%d" % k)
        counts = python_counts(reads, k)
        expect = collections.Counter(counts.values())
        if histo != dict(expect):
            raise Failure("k=%d: the histogram differs from the count made in Python" % k)
        if (stats["Total"], stats["Distinct"], stats["Unique"]) != (sum(counts.values()), len(counts), expect[1]):
            raise Failure("k=%d: total, distinct or singletons differ from the count made in Python" % k)
        if k == 31:  # long enough for these random sequences to have no repeated (k-1)-mers
            if canonical(clean) not in contigs:
                raise Failure("k=31: the error-free genome is not one contig")
            if cycle_contig(circle, k) not in contigs:
                raise Failure("k=31: the circle is not one cycle contig")
        print("k=%d: counts equal the Python count%s" % (k, "; error-free genome and cycle found" if k == 31 else ""))


def check_real(progs, reads):
    for extra in (["-k", "31"], ["-k", "25", "--min-count", "3"]):
        progs.compare(reads, extra, "real")


def check_jellyfish(progs, reads, work):
    jellyfish = shutil.which("jellyfish")
    if not jellyfish:
        raise Unavailable("jellyfish is not installed")
    plain = os.path.join(work, "reads.fa")
    with gzip.open(reads, "rb") as src, open(plain, "wb") as dst:  # jellyfish reads plain files
        shutil.copyfileobj(src, dst)
    for k in (31, 22):
        db = os.path.join(work, "counts%d.jf" % k)
        run([jellyfish, "count", "-m", str(k), "-C", "-s", "1M", "-t", "2", "-o", db, plain])
        stats = summary(run([jellyfish, "stats", db]).stdout)
        histo = {int(c): int(n) for c, n in (l.split() for l in run([jellyfish, "histo", "-h", "100000000", db])
                                             .stdout.splitlines() if l.strip())}
        histo = {c: n for c, n in histo.items() if n}
        mine = progs.compare(reads, ["-k", str(k)], "jf%d" % k)
        for name in ("Unique", "Distinct", "Total", "Max_count"):
            if mine[0][name] != stats[name]:
                raise Failure("k=%d: %s is %d, jellyfish says %d" % (k, name, mine[0][name], stats[name]))
        if mine[1] != histo:
            raise Failure("k=%d: the histogram differs from jellyfish histo" % k)
        print("k=%d: Unique %d, Distinct %d, Total %d, Max_count %d, histogram: equal to jellyfish" % (
            k, stats["Unique"], stats["Distinct"], stats["Total"], stats["Max_count"]))


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
    fastq = os.path.join(work, "short_quality.fq")
    with open(fastq, "w") as f:
        f.write("@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nACGTACGTAA\n+\nIIII\n")
    missing = os.path.join(work, "no_such_file.fa")
    cases = [
        ([missing], "cannot open"),
        ([corrupt], corrupt),
        ([truncated], "truncated"),
        ([binary], "not FASTA or FASTQ"),
        ([fastq], "quality"),
        ([good, "-k", "0"], "k must be"),
        ([good, "-k", "33"], "k must be"),
        ([good, "--min-count", "x"], "--min-count"),
        ([], "no input file"),
    ]
    for argv, expected in cases:
        p = run([args.run, "-n", str(args.n), "--timeout", "60", args.kmer] + argv, timeout=90, expect_ok=False)
        if "unsupported: pgdds_init" in p.stderr:
            raise Unavailable(p.stderr.strip().splitlines()[0])
        if p.returncode == 0:
            raise Failure("%s: exited 0" % " ".join(argv))
        if expected not in p.stderr:
            raise Failure("%s: exited %d without saying %r:\n%s" % (" ".join(argv), p.returncode, expected, p.stderr))
        if "timed out" in p.stderr or "timeout" in p.stderr.lower():
            raise Failure("%s: hung until the launcher's time limit:\n%s" % (" ".join(argv), p.stderr))
        print("%s: exit %d, %s" % (" ".join(os.path.basename(a) for a in argv) or "(no arguments)", p.returncode,
                                   p.stderr.strip().splitlines()[0]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("case", choices=["real", "synthetic", "jellyfish", "bad-input"])
    ap.add_argument("--run", required=True)
    ap.add_argument("--kmer", required=True)
    ap.add_argument("--serial")
    ap.add_argument("-n", type=int, default=2)
    ap.add_argument("--reads", default=READS1)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pgdds-kmer-test-")
    try:
        progs = Programs(args, work)
        if args.case in ("real", "jellyfish") and not os.path.exists(args.reads):
            raise Unavailable("%s is missing (Debian package gatb-core-testdata)" % args.reads)
        if args.case == "real":
            check_real(progs, args.reads)
        elif args.case == "synthetic":
            check_synthetic(progs, work)
        elif args.case == "jellyfish":
            check_jellyfish(progs, args.reads, work)
        else:
            check_bad_input(args, work)
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
