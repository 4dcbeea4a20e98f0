#!/usr/bin/env bash
# The 8-byte put message rate on one node, in alternating runs: pgdds-micro (pgdds_put_nbi, a
# flush per window), the OpenSHMEM benchmark built over libpgdds_shmem (shmem_putmem_nbi,
# shmem_quiet per window) and the same benchmark built with Open MPI's oshcc (its UCX sm path).
# Writes OUT/put-rate.jsonl (every run) and OUT/put-rate.md (each one's runs and median).
#   put_rate.sh BUILD_DIR [--runs N] [--out DIR]     (N defaults to 5, DIR to bench/results)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
shift
runs=5 out=$here/../results
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  *) echo "put_rate.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
command -v oshrun > /dev/null && [ -x "$build/bench/micro/shmem-micro" ] ||
  { echo "put_rate.sh: Open MPI's oshrun and build/bench/micro/shmem-micro are needed" >&2; exit 1; }
mkdir -p "$out"
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
records=$out/put-rate.jsonl
: > "$records"
# One run of each, in turn; each prints JSON records, of which the 8-byte put rate is kept.
for run in $(seq "$runs"); do
  PGDDS_TRANSPORT=shm "$build/tools/pgdds-run" -n 2 "$build/bench/micro/pgdds-micro" --json --max-size 8 |
    grep '"put_nbi_rate"' | sed "s/}\$/,\"run\":$run,\"program\":\"pgdds_put_nbi\"}/" >> "$records"
  PGDDS_TRANSPORT=shm "$build/src/shmem/pgdds-oshrun" -np 2 "$build/bench/micro/shmem-micro-pgdds" --json --max-size 8 |
    grep '"put_rate"' | head -n 1 | sed "s/}\$/,\"run\":$run,\"program\":\"libpgdds_shmem\"}/" >> "$records"
  # oshmem 4.1 may die in shmem_finalize after printing every record (docs/openshmem.md).
  { oshrun "${as_root[@]}" -np 2 "$build/bench/micro/shmem-micro" --json --max-size 8 2>/dev/null || true; } |
    grep '"put_rate"' | head -n 1 | sed "s/}\$/,\"run\":$run,\"program\":\"oshmem\"}/" >> "$records"
done

/usr/bin/python3 - "$records" "$out" "$runs" <<'PY'
import json, sys, statistics, datetime, platform
records_path, out, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
by = {}
for line in open(records_path):
    r = json.loads(line)
    by.setdefault(r["program"], []).append(r["value"])
if set(by) != {"pgdds_put_nbi", "libpgdds_shmem", "oshmem"} or any(len(v) != runs for v in by.values()):
    sys.exit("put_rate.sh: a run printed no put rate: %s" % {k: len(v) for k, v in by.items()})
osh = statistics.median(by["oshmem"])
with open(f"{out}/put-rate.md", "w") as f:
    f.write("# 8-byte put message rate, 2 ranks on one node\n\n")
    f.write(f"Made {datetime.date.today()} on {platform.node()} by `bench/micro/put_rate.sh BUILD --runs {runs}`: "
            f"{runs} alternating runs of each program; M messages/s, median and runs. A window of puts, then "
            "one flush (`pgdds_flush`, `shmem_quiet`).\n\n")
    f.write("| program | median | runs | median / oshmem's |\n|---|---:|---|---:|\n")
    for name, label in (("pgdds_put_nbi", "pgdds-micro, `pgdds_put_nbi`"),
                        ("libpgdds_shmem", "shmem-micro over libpgdds_shmem, `shmem_putmem_nbi`"),
                        ("oshmem", "shmem-micro over Open MPI's oshmem, `shmem_putmem_nbi`")):
        v = by[name]
        f.write(f"| {label} | {statistics.median(v):.1f} | {', '.join('%.1f' % x for x in v)} | "
                f"{statistics.median(v) / osh:.2f} |\n")
print(f"wrote {records_path} and {out}/put-rate.md")
PY
