#!/usr/bin/env bash
# Distributed dense GEMM beside ScaLAPACK's pdgemm and the machine's limit, on this node.
#
# For each size, N alternating runs of: bench/matrix/gemm (libpgdds, every algorithm of
# pgdds_dmatrix_gemm with its roofline prediction, under pgdds-run -n RANKS, shm), pdgemm (Debian's
# ScaLAPACK over Open MPI, under mpirun -np RANKS, its own defaults) and gemm --openblas-only
# (one process, OpenBLAS's dgemm with every core: the limit of this machine, run alone).
#
# Writes OUT/matrix-gemm.jsonl (every record of every run, with "run" and "program" added) and
# OUT/matrix-gemm.md (medians of the runs, each run the best of --reps products).
#   gemm_compare.sh BUILD_DIR [--runs N] [--sizes "2048 4096"] [--reps R] [--ranks P] [--out DIR]
# N defaults to 3, sizes to "2048 4096", R to 3, P to 2, DIR to bench/results. A peer that is not
# built here (pdgemm needs pkg-config scalapack-openmpi) is left out, and the table says so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: gemm_compare.sh BUILD_DIR [--runs N] [--sizes \"2048 4096\"] [--reps R] [--ranks P] [--out DIR]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
runs=3 sizes="2048 4096" reps=3 ranks=2 out=$here/../results
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift 2 ;;
  --sizes) sizes=$2; shift 2 ;;
  --reps) reps=$2; shift 2 ;;
  --ranks) ranks=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  *) echo "gemm_compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
gemm=$build/bench/matrix/gemm pdgemm=$build/bench/matrix/pdgemm run=$build/tools/pgdds-run
[ -x "$gemm" ] && [ -x "$run" ] || { echo "gemm_compare.sh: $gemm or $run is not built" >&2; exit 1; }
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
have_scalapack=0
[ -x "$pdgemm" ] && command -v mpirun > /dev/null && have_scalapack=1
[ $have_scalapack = 1 ] || echo "# pdgemm or mpirun is not here: ScaLAPACK left out" >&2
records=$out/matrix-gemm.jsonl
: > "$records"
# Keeps the JSON records of stdin, each with the run and the program added.
tag() { grep '^{' | sed "s/}\$/,\"run\":$1,\"program\":\"$2\"}/"; }

for r in $(seq "$runs"); do
  for n in $sizes; do
    echo "# run $r of $runs, n = $n: libpgdds, ScaLAPACK, OpenBLAS" >&2
    PGDDS_TRANSPORT=shm "$run" -n "$ranks" --timeout 1200 "$gemm" "$n" --json --reps "$reps" | tag "$r" libpgdds >> "$records"
    if [ $have_scalapack = 1 ]; then
      mpirun "${as_root[@]}" -np "$ranks" "$pdgemm" "$n" --json --reps "$reps" | tag "$r" scalapack >> "$records"
    fi
    "$gemm" "$n" --openblas-only --json --reps "$reps" | tag "$r" openblas >> "$records"
  done
done

/usr/bin/python3 - "$records" "$out" "$runs" "$reps" "$ranks" "$have_scalapack" <<'PY'
import json, sys, statistics, datetime, platform, os
records_path, out, runs, reps, ranks, have_scalapack = sys.argv[1:7]
vals = {}
for line in open(records_path):
    r = json.loads(line)
    vals.setdefault((r["size"], r["program"], r["metric"]), []).append(r["value"])
med = lambda v: statistics.median(v) if v else None
sizes = sorted({k[0] for k in vals})
ALGOS = ["stationary-C", "stationary-A", "stationary-B", "SUMMA", "steal-random", "steal-locality"]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
with open(f"{out}/matrix-gemm.md", "w") as f:
    f.write("# Distributed dense GEMM beside ScaLAPACK and OpenBLAS\n\n")
    f.write(f"Made {datetime.date.today()} on {platform.node()} ({cpu}, {os.cpu_count()} cores, load "
            f"{os.getloadavg()[0]:.2f} at the end) by `bench/matrix/gemm_compare.sh BUILD --runs {runs} --reps {reps} "
            f"--ranks {ranks}`: {runs} alternating runs of `bench/matrix/gemm` (libpgdds, C = A B in double, "
            f"n x n x n, square tiles one per rank and dimension, under `pgdds-run -n {ranks}`, shm), "
            f"ScaLAPACK's `pdgemm` (Debian `libscalapack-openmpi-dev`, under `mpirun -np {ranks}`, its defaults) and "
            "`gemm --openblas-only` (one process: OpenBLAS `cblas_dgemm` with every core, the machine's limit, run "
            f"alone). Each value: the median of the runs, each run the best of {reps} products, in GFLOP/s (2 n^3 "
            "flops over the slowest rank's time). Roofline: the thesis's inter-node model (§7.6) from the local "
            "GEMM peak, memory and one-sided get bandwidth `gemm` measured. Every record is in `matrix-gemm.jsonl`.\n\n")
    if have_scalapack != "1":
        f.write("ScaLAPACK was not built here (pdgemm needs `pkg-config scalapack-openmpi` and mpirun): left out.\n\n")
    f.write("| n | program | algorithm | GFLOP/s | roofline | vs ScaLAPACK | vs OpenBLAS |\n|---:|---|---|---:|---:|---:|---:|\n")
    for n in sizes:
        sca = med(vals.get((n, "scalapack", "scalapack-pdgemm"), []))
        ob = med(vals.get((n, "openblas", "openblas-dgemm"), []))
        ratio = lambda v, peer: "–" if v is None or not peer else "%.2f" % (v / peer)
        for a in ALGOS:
            v = med(vals.get((n, "libpgdds", a), []))
            roof = med(vals.get((n, "libpgdds", a + " roofline"), []))
            if v is None:
                continue
            f.write(f"| {n} | libpgdds | {a} | {v:.1f} | {roof:.1f} | {ratio(v, sca)} | {ratio(v, ob)} |\n")
        if sca is not None:
            f.write(f"| {n} | ScaLAPACK | pdgemm | {sca:.1f} | | 1.00 | {ratio(sca, ob)} |\n")
        if ob is not None:
            f.write(f"| {n} | OpenBLAS, one process | dgemm | {ob:.1f} | | {ratio(ob, sca)} | 1.00 |\n")
print(f"wrote {records_path} and {out}/matrix-gemm.md")
PY
