#!/usr/bin/env bash
# The core API's synchronization beside MPI and OpenSHMEM, and its RPC beside its active messages.
#
# Part 1, 2 ranks on this node, N alternating runs of: pgdds-core-sync --only sync (libpgdds, the
# shm transport, under pgdds-run), mpi-sync (Open MPI, under mpirun) and shmem-micro (Open MPI's
# oshmem, under oshrun): alltoall by bytes per pair, put-with-signal latency (half a ping-pong)
# and rate, barrier, allreduce of 8 B and 1 KiB. Part 2, N alternating runs of pgdds-core-sync
# --only rpc on each transport configuration without the on-node path (shm, ofi-tcp-noshm,
# ucx-sm-noshm, ucx-tcp-noshm of configs/transports.json): RPC round trip and rate beside
# active-message round trip and rate.
#
# Writes OUT/core-vs-peers.jsonl (every record of every run, with "run", "program" and, in part 2,
# "config" added) and OUT/core-vs-peers.md (medians; ratios where >1 means libpgdds is faster:
# the peer's time over libpgdds's, libpgdds's rate over the peer's).
#   core_compare.sh BUILD_DIR [--runs N] [--out DIR] [--iters N] [--max-size BYTES]
# N defaults to 3, DIR to bench/results; --iters and --max-size go to the programs (shmem-micro
# gets 10 times the iterations: it times its collectives over a tenth of them). A peer that is
# not built here is left out. oshmem 4.1 may die in shmem_finalize after printing every record
# (docs/openshmem.md): its exit status is not fatal.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: core_compare.sh BUILD_DIR [--runs N] [--out DIR] [--iters N] [--max-size BYTES]" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
runs=3 out=$here/../results opts=() shmem_opts=()
while [ $# -gt 0 ]; do
  case $1 in
  --runs) runs=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --iters) opts+=(--iters "$2"); shmem_opts+=(--iters "$(($2 * 10))"); shift 2 ;;
  --max-size) opts+=(--max-size "$2"); shmem_opts+=(--max-size "$2"); shift 2 ;;
  *) echo "core_compare.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
core=$build/bench/micro/pgdds-core-sync
run=$build/tools/pgdds-run
[ -x "$core" ] && [ -x "$run" ] || { echo "core_compare.sh: $core or $run is not built" >&2; exit 1; }
have_mpi=0 have_oshmem=0
[ -x "$build/bench/micro/mpi-sync" ] && command -v mpirun > /dev/null && have_mpi=1
[ -x "$build/bench/micro/shmem-micro" ] && command -v oshrun > /dev/null && have_oshmem=1
[ $have_mpi = 1 ] || echo "# mpi-sync or mpirun is not here: MPI left out" >&2
[ $have_oshmem = 1 ] || echo "# shmem-micro or oshrun is not here: oshmem left out" >&2
records=$out/core-vs-peers.jsonl
: > "$records"
# Keeps the JSON records of stdin, each with the run, the program and (part 2) the configuration added.
tag() { grep '^{' | sed "s/}\$/,\"run\":$1,\"program\":\"$2\"${3:+,\"config\":\"$3\"}}/"; }

for r in $(seq "$runs"); do
  echo "# run $r of $runs: libpgdds (shm), MPI, oshmem" >&2
  PGDDS_TRANSPORT=shm "$run" -n 2 --timeout 600 "$core" --json --only sync "${opts[@]}" | tag "$r" libpgdds >> "$records"
  if [ $have_mpi = 1 ]; then
    mpirun "${as_root[@]}" -np 2 "$build/bench/micro/mpi-sync" --json "${opts[@]}" | tag "$r" mpi >> "$records"
  fi
  if [ $have_oshmem = 1 ]; then
    { oshrun "${as_root[@]}" -np 2 "$build/bench/micro/shmem-micro" --json "${shmem_opts[@]}" 2> /dev/null || true; } |
      grep -E '"metric":"(alltoall_latency|put_signal_pingpong_latency|barrier_all_latency|allreduce_latency)"' |
      tag "$r" oshmem >> "$records"
  fi
done

# Part 2: the RPC and active-message metrics on each configuration (those whose backend is not
# built fail to start, and their line says so).
configs=(shm ofi-tcp-noshm ucx-sm-noshm ucx-tcp-noshm)
unavailable=$(mktemp)
trap 'rm -f "$unavailable"' EXIT
for r in $(seq "$runs"); do
  for c in "${configs[@]}"; do
    grep -qx "$c" "$unavailable" && continue
    echo "# run $r of $runs: RPC and active messages over $c" >&2
    mapfile -t cenv < <(/usr/bin/python3 "$here/../../configs/transports.py" env "$c")
    if ! env -u PGDDS_TRANSPORT -u PGDDS_SHM -u PGDDS_OFI_PROVIDER -u UCX_TLS "${cenv[@]}" \
         "$run" -n 2 --timeout 600 "$core" --json --only rpc "${opts[@]}" > "$unavailable.out"; then
      echo "# $c failed (not built here?): left out" >&2
      echo "$c" >> "$unavailable"
      continue
    fi
    tag "$r" libpgdds "$c" < "$unavailable.out" >> "$records"
  done
done
rm -f "$unavailable.out"

/usr/bin/python3 - "$records" "$out" "$runs" "$*" "${configs[*]}" "$(tr '\n' ' ' < "$unavailable")" <<'PY'
import json, sys, statistics, datetime, platform
records_path, out, runs, opts, configs, unavailable = sys.argv[1:7]
runs = int(runs)
configs, unavailable = configs.split(), unavailable.split()
# oshmem's names for the same measurements (shmem_micro.c): its put_signal_latency is one-sided
# (put-with-signal + quiet), its ping-pong is put_signal_pingpong_latency.
ALIAS = {"barrier_all_latency": "barrier_latency", "put_signal_pingpong_latency": "put_signal_latency"}
sync, rpc = {}, {}
for line in open(records_path):
    r = json.loads(line)
    metric = ALIAS.get(r["metric"], r["metric"]) if r["program"] == "oshmem" else r["metric"]
    if "config" in r:
        rpc.setdefault((r["config"], metric), []).append(r["value"])
    else:
        sync.setdefault((metric, r["size"], r["program"]), []).append(r["value"])
        sync.setdefault((metric, r["size"], "unit"), [r["unit"]])
med = lambda v: statistics.median(v) if v else None
ORDER = ["alltoall_latency", "put_signal_latency", "put_signal_rate", "barrier_latency", "allreduce_latency"]
keys = sorted({(m, s) for m, s, p in sync if p == "libpgdds"}, key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else 99, k[1]))
peers = [p for p in ("mpi", "oshmem") if any(k[2] == p for k in sync)]
names = {"mpi": "MPI", "oshmem": "oshmem"}
rows, behind = [], {p: [0, 0] for p in peers}
behind_either = 0
for m, s in keys:
    unit = sync[(m, s, "unit")][0]
    lib = med(sync[(m, s, "libpgdds")])
    cells, ratios = [], []
    for p in peers:
        v = med(sync.get((m, s, p), []))
        ratio = None if v is None else (v / lib if unit == "us" else lib / v)
        cells.append(v)
        ratios.append(ratio)
        if ratio is not None:
            behind[p][1] += 1
            behind[p][0] += ratio < 1
    behind_either += any(x is not None and x < 1 for x in ratios)
    rows.append((m, s, lib, cells, unit, ratios))
fmt = lambda v: "–" if v is None else "%.4g" % v
fr = lambda v: "–" if v is None else "%.2f" % v
with open(f"{out}/core-vs-peers.md", "w") as f:
    f.write("# The core API beside MPI and OpenSHMEM, 2 ranks on one node\n\n")
    f.write(f"Made {datetime.date.today()} on {platform.node()} ({platform.machine()}) by "
            f"`bench/micro/core_compare.sh BUILD --runs {runs} {opts}`: {runs} alternating runs of "
            "`pgdds-core-sync` (libpgdds, `PGDDS_TRANSPORT=shm`, under `pgdds-run -n 2`), `mpi-sync` (Open MPI, "
            "under `mpirun -np 2`) and `shmem-micro` (Open MPI's oshmem, under `oshrun -np 2`); each value is the "
            "median of the runs' values, each of those the median of 7 batches. Ratio: how many times faster "
            "libpgdds is (the peer's time over libpgdds's; libpgdds's rate over the peer's), so > 1 means "
            "libpgdds is ahead. Every record is in `core-vs-peers.jsonl`.\n\n")
    f.write("What each measures: `alltoall_latency`, one all-to-all of the world team by bytes per pair "
            "(`pgdds_team_alltoall` into `pgdds_alloc_all` memory, `MPI_Alltoall`, `shmem_alltoall64`; "
            "oshmem's includes a `shmem_barrier_all` per call, which OpenSHMEM 1.4 needs before pSync is "
            "used again, and stops at 512 KiB); `put_signal_latency`, half the round trip of 8 bytes put "
            "with a signal that the other side waits for and answers the same way (`pgdds_put_signal` + "
            "`pgdds_wait_until_u64`; MPI-3 RMA in a passive-target epoch: `MPI_Put`, `MPI_Win_flush`, "
            "`MPI_Accumulate` of the signal, `MPI_Win_flush`, the target polling with `MPI_Fetch_and_op`; "
            "oshmem 4.1, OpenSHMEM 1.4, has no put-with-signal: put, fence, atomic set, quiet, and "
            "`shmem_uint64_wait_until` — its record is `put_signal_pingpong_latency`); `put_signal_rate`, "
            "windows of 256 8-byte puts with signal, one flush per window (`pgdds_put_signal_nbi` + "
            "`pgdds_flush`; MPI needs a flush between each put and its signal); `barrier_latency` "
            "(`pgdds_team_barrier`, `MPI_Barrier`, `shmem_barrier_all`); `allreduce_latency`, the SUM of "
            "1 double (8 B) and of 128 doubles (1 KiB) (`pgdds_team_allreduce`, `MPI_Allreduce`, oshmem's "
            "`shmem_double_sum_to_all` on every PE).\n\n")
    counts = "; ".join(f"behind {names[p]} on {behind[p][0]} of {behind[p][1]}" for p in peers)
    f.write(f"Lines where libpgdds is behind either peer: {behind_either} of {len(rows)} ({counts}).\n\n")
    f.write("| metric | bytes | libpgdds | " + " | ".join(names[p] for p in peers) + " | unit | " +
            " | ".join(f"vs {names[p]}" for p in peers) + " |\n")
    f.write("|---|---:|---:|" + "---:|" * len(peers) + "---|" + "---:|" * len(peers) + "\n")
    for m, s, lib, cells, unit, ratios in rows:
        f.write(f"| {m} | {s} | {fmt(lib)} | " + " | ".join(fmt(c) for c in cells) + f" | {unit} | " +
                " | ".join(fr(x) for x in ratios) + " |\n")
    f.write("\n## RPC beside active messages, per transport configuration\n\n")
    f.write(f"`pgdds-core-sync --only rpc` on 2 ranks, {runs} alternating run(s), medians; every configuration "
            "but `shm` without the on-node path (`PGDDS_SHM=off`, configs/transports.json). Rank 0 against "
            "rank 1, which progresses (`pgdds_progress`) until told to stop. `rpc_latency`: round trip of an "
            "empty `pgdds_rpc_call` whose function answers 8 bytes, until the completion callback ran; "
            "`rpc_rate`: 256 calls outstanding, then every reply; `am_latency`: round trip of an 8-byte "
            "active message whose handler sends one back; `am_rate`: 256 one-way active messages, then the "
            "handler's acknowledgment of the last. RPC / AM: the RPC's time over the AM's (latency), the "
            "AM's rate over the RPC's (rate): what the RPC layer costs on top of active messages.\n\n")
    f.write("| configuration | rpc_latency (us) | am_latency (us) | RPC / AM | rpc_rate (M/s) | am_rate (M/s) | RPC / AM |\n"
            "|---|---:|---:|---:|---:|---:|---:|\n")
    for c in configs:
        v = {m: med(rpc.get((c, m), [])) for m in ("rpc_latency", "am_latency", "rpc_rate", "am_rate")}
        if c in unavailable or None in v.values():
            f.write(f"| {c} | not built here (or failed) | | | | | |\n")
            continue
        f.write(f"| {c} | {v['rpc_latency']:.4g} | {v['am_latency']:.4g} | {v['rpc_latency'] / v['am_latency']:.2f} | "
                f"{v['rpc_rate']:.4g} | {v['am_rate']:.4g} | {v['am_rate'] / v['rpc_rate']:.2f} |\n")
print(f"wrote {records_path} and {out}/core-vs-peers.md: {len(rows)} lines, libpgdds behind either peer on {behind_either}")
PY
