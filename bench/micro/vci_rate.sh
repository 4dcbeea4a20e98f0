#!/usr/bin/env bash
# Message rate vs threads, three ways (T threads on T VCIs, T threads on one VCI, T processes),
# for T = 1, 2, 4, ... up to the number of cores, on the transport configuration given by the
# environment (e.g. PGDDS_TRANSPORT=ofi PGDDS_OFI_PROVIDER="tcp;ofi_rxm" PGDDS_SHM=off).
#   vci_rate.sh BUILD_DIR [--json] [--max-threads T] [--ops N]
set -euo pipefail
build=$1
shift
json="" max=$(nproc) ops=200000
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json=--json ;;
    --max-threads) max=$2; shift ;;
    --ops) ops=$2; shift ;;
    *) echo "usage: vci_rate.sh BUILD_DIR [--json] [--max-threads T] [--ops N]" >&2; exit 2 ;;
  esac
  shift
done
run=$build/tools/pgdds-run
exe=$build/bench/micro/vci-rate
for ((t = 1; t <= max; t *= 2)); do
  PGDDS_THREAD_LEVEL=multiple PGDDS_NUM_VCIS=$((t + 1)) "$run" -n 2 --bind-to none "$exe" --mode vcis --threads "$t" --ops "$ops" $json
  PGDDS_THREAD_LEVEL=multiple PGDDS_NUM_VCIS=1 "$run" -n 2 --bind-to none "$exe" --mode shared --threads "$t" --ops "$ops" $json
  "$run" -n $((2 * t)) --bind-to none "$exe" --mode procs --ops "$ops" $json
done
