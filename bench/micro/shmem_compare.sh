#!/usr/bin/env bash
# One OpenSHMEM source, bench/micro/shmem_micro.c, built twice: with Open MPI's oshcc
# (bench/micro/shmem-micro, run under oshrun) and with pgdds-oshcc (shmem-micro-pgdds, run
# under pgdds-oshrun on the transport the environment picks), on N PEs of this node, in RUNS
# alternating pairs (the first of each pair alternates too): this machine's speed drifts by up
# to 2x over seconds, so a line compares the two sides of the same pair, and the table gives the
# median of the pairs' speedups with their range. Writes OUT/shmem-vs-oshmem.json (every record
# of every run, then one "speedup" record per line: how many times faster libpgdds is, oshmem's
# latency over libpgdds's, or libpgdds's rate over oshmem's; the median of the pairs) and
# OUT/shmem-vs-oshmem.md (the table).
#   shmem_compare.sh BUILD_DIR [--np N] [--runs RUNS] [--out DIR] [shmem-micro options: --iters N --max-size BYTES]
# OUT defaults to bench/results, RUNS to 5. oshmem 4.1 may die in shmem_finalize
# (docs/openshmem.md) after printing every record: its exit status is reported, not fatal.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
shift
np=2 runs=5 out=$here/../results
while [ $# -gt 0 ]; do
  case $1 in
  --np) np=$2; shift 2 ;;
  --runs) runs=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  *) break ;;
  esac
done
mkdir -p "$out"
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

[ -x "$build/bench/micro/shmem-micro" ] && command -v oshrun > /dev/null ||
  { echo "shmem_compare.sh: Open MPI's oshcc/oshrun are not here (build/bench/micro/shmem-micro)" >&2; exit 1; }
run_oshmem() {
  local rc=0
  oshrun "${as_root[@]}" -np "$np" "$build/bench/micro/shmem-micro" --json "$@" > "$work/oshmem.$run.json" || rc=$?
  [ $rc = 0 ] || echo "# oshmem exited with status $rc (its records are kept)" >&2
}
run_pgdds() {
  "$build/src/shmem/pgdds-oshrun" -np "$np" "$build/bench/micro/shmem-micro-pgdds" --json "$@" > "$work/pgdds.$run.json"
}
echo "# $runs pairs: Open MPI oshmem (oshcc + oshrun -np $np) and libpgdds (pgdds-oshcc + pgdds-oshrun -np $np, PGDDS_TRANSPORT=${PGDDS_TRANSPORT:-auto})" >&2
for run in $(seq 1 "$runs"); do
  if [ $((run % 2)) = 1 ]; then run_oshmem "$@"; run_pgdds "$@"; else run_pgdds "$@"; run_oshmem "$@"; fi
done

/usr/bin/python3 - "$work" "$runs" "$out" "$np" "$*" "${PGDDS_TRANSPORT:-auto}" <<'PY'
import json, math, sys, platform, datetime, statistics
work, runs, out, np, opts, transport = sys.argv[1:7]
runs = int(runs)
def load(path):
    recs = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            recs.append(json.loads(line))
    return recs
key = lambda r: (r["metric"], r["size"])
def sign_test(k, n):
    # Two-sided p of k or more of n pairs on one side when either side is as likely.
    tail = sum(math.comb(n, i) for i in range(max(k, n - k), n + 1)) / 2 ** n
    return min(1.0, 2 * tail)
def verdict(pair):
    # Behind or ahead only where the pairs say so (sign test, 5%); else level.
    faster = sum(1 for x in pair if x > 1.0)
    slower = sum(1 for x in pair if x < 1.0)
    if sign_test(max(faster, slower), faster + slower) >= 0.05:
        return "level"
    return "ahead" if faster > slower else "behind"
osh_runs = [load(f"{work}/oshmem.{i}.json") for i in range(1, runs + 1)]
pg_runs = [load(f"{work}/pgdds.{i}.json") for i in range(1, runs + 1)]
rows, speedups = [], []
for r in pg_runs[0]:
    k = key(r)
    lower_is_better = r["unit"] == "us"
    osh_v, pg_v, pair = [], [], []
    for osh, pg in zip(osh_runs, pg_runs):
        o = next((x["value"] for x in osh if key(x) == k), None)
        p = next((x["value"] for x in pg if key(x) == k), None)
        if not o or not p:
            continue
        osh_v.append(o); pg_v.append(p)
        pair.append(o / p if lower_is_better else p / o)
    if not pair:
        continue
    s = statistics.median(pair)
    slower = sum(1 for x in pair if x < 1.0)
    rows.append((r["metric"], r["size"], statistics.median(osh_v), statistics.median(pg_v), r["unit"], s, min(pair),
                 max(pair), slower, len(pair), verdict(pair)))
    speedups.append({"bench": "shmem_compare", "transport": "pgdds/oshmem", "ranks": r["ranks"], "threads": 1,
                     "size": r["size"], "metric": r["metric"] + "_speedup", "value": round(s, 4), "unit": "x"})
with open(f"{out}/shmem-vs-oshmem.json", "w") as f:
    for rec in [x for run in osh_runs + pg_runs for x in run] + speedups:
        f.write(json.dumps(rec, separators=(",", ":")) + "\n")
behind = [r for r in rows if r[10] == "behind"]
level = [r for r in rows if r[10] == "level"]
median_below = [r for r in rows if r[5] < 1.0]
behind_always = [r for r in rows if r[7] < 1.0]
with open(f"{out}/shmem-vs-oshmem.md", "w") as f:
    f.write(f"# libpgdds_shmem against Open MPI's oshmem, {np} PEs on one node\n\n")
    f.write(f"Made {datetime.date.today()} on {platform.node()} ({platform.processor() or platform.machine()}) by\n"
            f"`PGDDS_TRANSPORT={transport} bench/micro/shmem_compare.sh BUILD --np {np} --runs {runs} {opts}`: the same source,\n"
            "`bench/micro/shmem_micro.c`, built with `oshcc` (run under `oshrun`) and with `pgdds-oshcc` (run under\n"
            f"`pgdds-oshrun`), in {runs} alternating pairs of runs; each run gives a line the median of 7 batches.\n"
            "Speedup: how many times faster libpgdds is (oshmem's latency over libpgdds's; libpgdds's rate over\n"
            "oshmem's) within a pair, the median of the pairs, and the slowest and fastest pair. The value columns are\n"
            "each side's median over the runs. A line is *behind* (or *ahead*) when libpgdds is slower (faster) in\n"
            "so many of the pairs that a sign test puts the chance of it, were the two equally fast, under 5%; else\n"
            "*level*. oshmem 4.1 has no put-with-signal (OpenSHMEM 1.4): its `put_signal_latency` is put,\n"
            "fence, atomic set.\n\n")
    f.write(f"Lines where libpgdds is behind: {len(behind)} of {len(rows)}; level: {len(level)}; "
            f"ahead: {len(rows) - len(behind) - len(level)}. Median pair below 1: {len(median_below)}; "
            f"slower in every pair: {len(behind_always)}.\n\n")
    f.write("| metric | bytes | oshmem | libpgdds | unit | speedup | pairs' range | pairs slower | verdict |\n"
            "|---|---:|---:|---:|---|---:|---|---:|---|\n")
    for m, size, o, p, unit, s, lo, hi, slower, n, v in rows:
        f.write(f"| {m} | {size} | {o:.4g} | {p:.4g} | {unit} | {s:.2f} | {lo:.2f}-{hi:.2f} | {slower} of {n} | {v} |\n")
print(f"wrote {out}/shmem-vs-oshmem.json and .md: {len(rows)} lines, libpgdds behind on {len(behind)}, "
      f"level on {len(level)}, median pair below 1 on {len(median_below)}")
PY
