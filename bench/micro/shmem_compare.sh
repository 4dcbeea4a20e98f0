#!/usr/bin/env bash
# One OpenSHMEM source, bench/micro/shmem_micro.c, built twice: with Open MPI's oshcc
# (bench/micro/shmem-micro, run under oshrun) and with pgdds-oshcc (shmem-micro-pgdds, run
# under pgdds-oshrun on the transport the environment picks), on N PEs of this node, one after
# the other. Writes OUT/shmem-vs-oshmem.json (every record of both runs, then one "speedup"
# record per line of the table: how many times faster libpgdds is, oshmem's latency over
# libpgdds's, or libpgdds's rate over oshmem's) and OUT/shmem-vs-oshmem.md (the table).
#   shmem_compare.sh BUILD_DIR [--np N] [--out DIR] [shmem-micro options: --iters N --max-size BYTES]
# OUT defaults to bench/results. oshmem 4.1 may die in shmem_finalize (docs/openshmem.md) after
# printing every record: its exit status is reported, not fatal.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
shift
np=2 out=$here/../results
while [ $# -gt 0 ]; do
  case $1 in
  --np) np=$2; shift 2 ;;
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
echo "# Open MPI oshmem: oshcc + oshrun -np $np" >&2
rc=0
oshrun "${as_root[@]}" -np "$np" "$build/bench/micro/shmem-micro" --json "$@" > "$work/oshmem.json" || rc=$?
[ $rc = 0 ] || echo "# oshmem exited with status $rc (its records are kept)" >&2
echo "# libpgdds: pgdds-oshcc + pgdds-oshrun -np $np (PGDDS_TRANSPORT=${PGDDS_TRANSPORT:-auto})" >&2
"$build/src/shmem/pgdds-oshrun" -np "$np" "$build/bench/micro/shmem-micro-pgdds" --json "$@" > "$work/pgdds.json"

/usr/bin/python3 - "$work/oshmem.json" "$work/pgdds.json" "$out" "$np" "$*" "${PGDDS_TRANSPORT:-auto}" <<'PY'
import json, sys, platform, datetime
osh_file, pg_file, out, np, opts, transport = sys.argv[1:7]
def load(path):
    recs = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            recs.append(json.loads(line))
    return recs
osh, pg = load(osh_file), load(pg_file)
key = lambda r: (r["metric"], r["size"])
osh_by = {key(r): r for r in osh}
rows, speedups = [], []
for r in pg:
    o = osh_by.get(key(r))
    if o is None or not o["value"] or not r["value"]:
        continue
    lower_is_better = r["unit"] == "us"
    s = o["value"] / r["value"] if lower_is_better else r["value"] / o["value"]
    rows.append((r["metric"], r["size"], o["value"], r["value"], r["unit"], s))
    speedups.append({"bench": "shmem_compare", "transport": "pgdds/oshmem", "ranks": r["ranks"], "threads": 1,
                     "size": r["size"], "metric": r["metric"] + "_speedup", "value": round(s, 4), "unit": "x"})
with open(f"{out}/shmem-vs-oshmem.json", "w") as f:
    for rec in osh + pg + speedups:
        f.write(json.dumps(rec, separators=(",", ":")) + "\n")
behind = [r for r in rows if r[5] < 1.0]
with open(f"{out}/shmem-vs-oshmem.md", "w") as f:
    f.write(f"# libpgdds_shmem against Open MPI's oshmem, {np} PEs on one node\n\n")
    f.write(f"Made {datetime.date.today()} on {platform.node()} ({platform.processor() or platform.machine()}) by\n"
            f"`PGDDS_TRANSPORT={transport} bench/micro/shmem_compare.sh BUILD --np {np} {opts}`: the same source, `bench/micro/shmem_micro.c`,\n"
            "built with `oshcc` (run under `oshrun`) and with `pgdds-oshcc` (run under `pgdds-oshrun`),\n"
            "one after the other. Medians of 7 batches. Speedup: how many times faster libpgdds is\n"
            "(oshmem's latency over libpgdds's; libpgdds's rate over oshmem's). oshmem 4.1 has no\n"
            "put-with-signal (OpenSHMEM 1.4): its `put_signal_latency` is put, fence, atomic set.\n\n")
    f.write(f"Lines where libpgdds is behind: {len(behind)} of {len(rows)}.\n\n")
    f.write("| metric | bytes | oshmem | libpgdds | unit | speedup |\n|---|---:|---:|---:|---|---:|\n")
    for m, size, o, p, unit, s in rows:
        f.write(f"| {m} | {size} | {o:.4g} | {p:.4g} | {unit} | {s:.2f} |\n")
print(f"wrote {out}/shmem-vs-oshmem.json and .md: {len(rows)} lines, libpgdds behind on {len(behind)}")
PY
