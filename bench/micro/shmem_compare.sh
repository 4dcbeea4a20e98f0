#!/usr/bin/env bash
# One OpenSHMEM source, bench/micro/shmem_micro.c, built twice: with Open MPI's oshcc
# (bench/micro/shmem-micro, run under oshrun) and with pgdds-oshcc (shmem-micro-pgdds, run
# under pgdds-oshrun on the transport the environment picks), each on 2 PEs of this node, one
# after the other. Put/get latency, fetch-add latency, put_nbi rate and put bandwidth by size.
#   shmem_compare.sh BUILD_DIR [--json] [--iters N] [--max-size BYTES]
set -euo pipefail
build=$1
shift
as_root=()
[ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
if [ -x "$build/bench/micro/shmem-micro" ] && command -v oshrun >/dev/null; then
  echo "# Open MPI oshmem: oshcc + oshrun"
  oshrun "${as_root[@]}" -np 2 "$build/bench/micro/shmem-micro" "$@"
else
  echo "# Open MPI oshmem: not built here (no oshcc)" >&2
fi
echo "# libpgdds: pgdds-oshcc + pgdds-oshrun (${PGDDS_TRANSPORT:-auto})"
"$build/src/shmem/pgdds-oshrun" -np 2 "$build/bench/micro/shmem-micro-pgdds" "$@"
