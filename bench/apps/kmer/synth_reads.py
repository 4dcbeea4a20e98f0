#!/usr/bin/python3
"""Sequencing reads of a random genome, for k-mer counting at sizes the test data does not reach.

    synth_reads.py OUT.fa.gz --genome BASES [--coverage C] [--length L] [--error E] [--seed S]

A genome of BASES uniformly random bases (seeded: the same file for the same arguments), read at
coverage C (10) by reads of L bases (150) from uniformly random positions, half of them reverse
complemented, each base substituted with probability E (0.01): a k-mer spectrum with the
shape of real data (a peak near the coverage, a long tail of error k-mers seen once). Gzipped
FASTA, 60 bases a line, as reads3.fa.gz.
"""
import argparse
import gzip
import sys

import numpy as np

BASES = np.frombuffer(b"ACGT", dtype=np.uint8)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--genome", type=int, required=True, help="genome length in bases")
    ap.add_argument("--coverage", type=float, default=10.0)
    ap.add_argument("--length", type=int, default=150, help="read length")
    ap.add_argument("--error", type=float, default=0.01, help="substitution rate per base")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.genome < a.length or a.length < 1 or a.coverage <= 0 or not 0 <= a.error < 1:
        sys.exit("synth_reads.py: need genome >= length >= 1, coverage > 0 and 0 <= error < 1")
    rng = np.random.default_rng(a.seed)
    genome = rng.integers(0, 4, a.genome, dtype=np.uint8)
    reads = int(a.genome * a.coverage / a.length)
    batch = max(1, (1 << 22) // a.length)  # reads per batch: a few MiB of bases at a time
    with gzip.open(a.out, "wb", compresslevel=1) as f:
        done = 0
        while done < reads:
            n = min(batch, reads - done)
            starts = rng.integers(0, a.genome - a.length + 1, n)
            seq = genome[starts[:, None] + np.arange(a.length)[None, :]]
            flip = rng.random(n) < 0.5
            seq[flip] = 3 - seq[flip, ::-1]  # reverse complement (A<->T, C<->G as 0<->3, 1<->2)
            errors = rng.random(seq.shape) < a.error
            seq[errors] = (seq[errors] + rng.integers(1, 4, int(errors.sum()), dtype=np.uint8)) % 4
            text = BASES[seq]
            out = []
            for i in range(n):
                row = text[i].tobytes()
                out.append(b">seq=%d len=%d\n" % (done + i + 1, a.length))
                out.extend(row[j:j + 60] + b"\n" for j in range(0, a.length, 60))
            f.write(b"".join(out))
            done += n
    print("synth_reads.py: %d reads of %d bases (%d bases) of a %d-base genome -> %s" %
          (reads, a.length, reads * a.length, a.genome, a.out))


if __name__ == "__main__":
    main()
