#!/usr/bin/env bash
# Distributed SpMM and SpGEMM beside PETSc's MatMatMult and single-process GraphBLAS, on this node.
#
# For each matrix (R-MAT graphs of Graph500 parameters, edge factor 16, by scale; 27-point
# stencils of N^3 grids) and dense width K, N alternating runs of: bench/matrix/spmm (libpgdds,
# every algorithm, under pgdds-run -n RANKS, shm; it also writes A as a Matrix Market file),
# petsc_matmult on that file (PETSc, MPIAIJ x MPIDense and MPIAIJ x MPIAIJ, under mpirun -np
# RANKS) and spmm --graphblas-only (one process, GraphBLAS with every core, run alone). SpGEMM
# (C = A A) runs with the first K only, on the matrices given to --spgemm.
#
# Writes OUT/NAME.jsonl (every record of every run, with "run", "program" and "case") and
# OUT/NAME.md (medians of the runs, each run the best of --reps products); NAME is matrix-sparse
# unless given. PGDDS_SEGMENT_SIZE (default 4G here) must hold a rank's share of C.
#   sparse_compare.sh BUILD_DIR [--runs N] [--reps R] [--ranks P] [--out DIR] [--name NAME]
#                     [--matrices "rmat:14 rmat:16 stencil:32"] [--spgemm "rmat:14 rmat:16 stencil:32"]
#                     [--cols "32 128"]
# A peer that is not built here (petsc_matmult needs pkg-config petsc and MPI) is left out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: sparse_compare.sh BUILD_DIR [--runs N] [--reps R] [--ranks P] [--out DIR] [--name NAME] [--matrices LIST] [--spgemm LIST] [--cols LIST]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
runs=3 reps=3 ranks=2 out=$here/../results name=matrix-sparse matrices="rmat:14 rmat:16 stencil:32" spgemm="rmat:14 rmat:16 stencil:32" cols="32 128"
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift 2 ;;
  --reps) reps=$2; shift 2 ;;
  --ranks) ranks=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --name) name=$2; shift 2 ;;
  --matrices) matrices=$2; shift 2 ;;
  --spgemm) spgemm=$2; shift 2 ;;
  --cols) cols=$2; shift 2 ;;
  *) echo "$usage" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
spmm=$build/bench/matrix/spmm petsc=$build/bench/matrix/petsc_matmult run=$build/tools/pgdds-run
[ -x "$spmm" ] && [ -x "$run" ] || { echo "sparse_compare.sh: $spmm or $run is not built" >&2; exit 1; }
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
have_petsc=0
[ -x "$petsc" ] && command -v mpirun > /dev/null && have_petsc=1
[ $have_petsc = 1 ] || echo "# petsc_matmult or mpirun is not here: PETSc left out" >&2
records=$out/$name.jsonl
: > "$records"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Keeps the JSON records of stdin, each with the run, the program and the case added.
tag() { grep '^{' | sed "s/}\$/,\"run\":$1,\"program\":\"$2\",\"case\":\"$3\"}/"; }
# SpGEMM products are large (R-MAT scale 16: 164 M entries, 1.3 GB a rank): a segment to hold them.
export PGDDS_SEGMENT_SIZE=${PGDDS_SEGMENT_SIZE:-4G}

for r in $(seq "$runs"); do
  for m in $matrices; do
    kind=${m%%:*} size=${m#*:}
    case $kind in rmat) gen=(--rmat "$size") ;; stencil) gen=(--stencil "$size") ;; *) echo "sparse_compare.sh: $m is no rmat:SCALE or stencil:N" >&2; exit 2 ;; esac
    first=1
    for k in $cols; do
      extra=()
      if [ $first = 1 ] && [[ " $spgemm " == *" $m "* ]]; then extra=(--spgemm); fi
      first=0
      echo "# run $r of $runs, $m, K = $k ${extra[*]}: libpgdds, PETSc, GraphBLAS" >&2
      "$run" -n "$ranks" --timeout 1200 "$spmm" "${gen[@]}" --cols "$k" --reps "$reps" --json "${extra[@]}" \
        --write-mm "$work/A.mtx" | tag "$r" libpgdds "$m" >> "$records"
      if [ $have_petsc = 1 ]; then
        mpirun "${as_root[@]}" -np "$ranks" "$petsc" "$work/A.mtx" --cols "$k" --reps "$reps" --json "${extra[@]}" |
          tag "$r" petsc "$m" >> "$records"
      fi
      "$spmm" "${gen[@]}" --graphblas-only --cols "$k" --reps "$reps" --json "${extra[@]}" | tag "$r" graphblas "$m" >> "$records"
    done
  done
done

/usr/bin/python3 - "$records" "$out" "$runs" "$reps" "$ranks" "$have_petsc" "$name" "$matrices" "$spgemm" "$PGDDS_SEGMENT_SIZE" <<'PY'
import json, sys, statistics, datetime, platform, os, re
records_path, out, runs, reps, ranks, have_petsc, name, matrices, spgemm_list, segment = sys.argv[1:11]
spmm, spgemm, roof = {}, {}, {}
for line in open(records_path):
    r = json.loads(line)
    m = r["metric"]
    if "roofline" in m:  # one prediction a case (the same for every algorithm)
        k = re.search(r"k=(\d+)", m)
        roof.setdefault((r["case"], int(k.group(1)) if k else None, m.split()[-2] if k else None), []).append(r["value"])
        continue
    if r["bench"] == "matrix-steals":
        continue
    if r["bench"] == "matrix-spmm":
        k = int(re.search(r"k=(\d+)", m).group(1))
        who = m.split()[-1] if r["program"] == "libpgdds" else r["program"]
        spmm.setdefault((r["case"], k, who), []).append(r["value"])
    else:
        who = m.split()[-1] if r["program"] == "libpgdds" else r["program"]
        spgemm.setdefault((r["case"], who), []).append(r["value"])
        nnz = re.search(r"nnz\(C\)=(\d+)", m)
        if nnz:
            spgemm.setdefault((r["case"], "nnz"), [int(nnz.group(1))])
med = lambda v: statistics.median(v) if v else None
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
ALGOS = ["stationary-c", "stationary-a", "stationary-b", "steal-random", "steal-locality"]
ratio = lambda a, b: "–" if a is None or b is None or b == 0 else "%.2f" % (a / b)
with open(f"{out}/{name}.md", "w") as f:
    f.write("# Distributed SpMM and SpGEMM beside PETSc and GraphBLAS\n\n")
    f.write(f"Made {datetime.date.today()} on {platform.node()} ({cpu}, {os.cpu_count()} cores, load "
            f"{os.getloadavg()[0]:.2f} at the end) by `PGDDS_SEGMENT_SIZE={segment} bench/matrix/sparse_compare.sh BUILD "
            f"--runs {runs} --reps {reps} --ranks {ranks} --matrices \"{matrices}\" --spgemm \"{spgemm_list}\""
            + ("" if name == "matrix-sparse" else f" --name {name}") + f"`: {runs} alternating runs of `bench/matrix/spmm` (libpgdds, double, under "
            f"`pgdds-run -n {ranks}`, shm), PETSc's `MatMatMult` (`bench/matrix/petsc_matmult`, Debian `petsc-dev`, "
            f"MPIAIJ x MPIDense and MPIAIJ x MPIAIJ, under `mpirun -np {ranks}`) and single-process GraphBLAS "
            "(`spmm --graphblas-only`, `GrB_mxm` with every core, run alone). R-MAT: Graph500 parameters, edge "
            "factor 16; stencil: the 27-point stencil of an N^3 grid. Each value: the median of the runs, each "
            f"run the best of {reps} products. Every record is in `{name}.jsonl`.\n\n")
    if have_petsc != "1":
        f.write("PETSc was not built here (petsc_matmult needs `pkg-config petsc` and MPI): left out.\n\n")
    f.write("## SpMM, C = A B (B and C dense, K columns), GFLOP/s (2 nnz K flops)\n\n")
    f.write("| matrix | K | libpgdds best (algorithm) | roofline | PETSc | GraphBLAS, one process | vs PETSc | vs GraphBLAS | every algorithm |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
    for case, k in sorted({(c, k) for c, k, _ in spmm}):
        algos = {a: med(spmm.get((case, k, a), [])) for a in ALGOS}
        algos = {a: v for a, v in algos.items() if v is not None}
        if not algos:
            continue
        best = max(algos, key=algos.get)
        pe, gb = med(spmm.get((case, k, "petsc"), [])), med(spmm.get((case, k, "graphblas"), []))
        every = ", ".join(f"{a} {v:.2f}" for a, v in algos.items())
        fmt = lambda v: "–" if v is None else "%.2f" % v
        rf = med(roof.get((case, k, best), []))
        f.write(f"| {case} | {k} | {algos[best]:.2f} ({best}) | {fmt(rf)} | {fmt(pe)} | {fmt(gb)} | {ratio(algos[best], pe)} | "
                f"{ratio(algos[best], gb)} | {every} |\n")
    f.write("\n## SpGEMM, C = A A, seconds (a new product each time)\n\n")
    f.write("| matrix | nnz(C) | libpgdds best (algorithm) | roofline | PETSc | GraphBLAS, one process | PETSc / libpgdds | GraphBLAS / libpgdds | every algorithm |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
    for case in sorted({c for c, _ in spgemm}):
        algos = {a: med(spgemm.get((case, a), [])) for a in ALGOS}
        algos = {a: v for a, v in algos.items() if v is not None}
        if not algos:
            continue
        best = min(algos, key=algos.get)
        pe, gb = med(spgemm.get((case, "petsc"), [])), med(spgemm.get((case, "graphblas"), []))
        nnz = spgemm.get((case, "nnz"), ["?"])[0]
        every = ", ".join(f"{a} {v:.3f}" for a, v in algos.items())
        fmt = lambda v: "–" if v is None else "%.3f" % v
        rf = med(roof.get((case, None, None), []))
        f.write(f"| {case} | {nnz} | {algos[best]:.3f} ({best}) | {fmt(rf)} | {fmt(pe)} | {fmt(gb)} | {ratio(pe, algos[best])} | "
                f"{ratio(gb, algos[best])} | {every} |\n")
    f.write("\nRatios above 1 mean libpgdds is ahead (its rate over the peer's; the peer's time over its own). "
            "Roofline: the thesis's inter-node model (§7.6) from the memory and one-sided get bandwidth `spmm` "
            "measured: for SpMM the rate it allows the best algorithm, for SpGEMM the least time its traffic takes "
            "(A read twice and C written from memory; under stationary C, A's tile rows and B's tile columns once "
            "per C tile across, (p - 1) / p of them remote).\n")
print(f"wrote {records_path} and {out}/{name}.md")
PY
