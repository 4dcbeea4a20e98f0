#!/usr/bin/env bash
# bench/micro/shmem_compare.sh runs both builds of shmem_micro.c (tiny iteration counts: this
# checks the table is made, not the figures; two pairs, one in each order) and writes a speedup record for every line the
# comparison has: put/get latency and rate, put-with-signal, the AMOs, barrier, alltoall, ISx.
#   check_shmem_compare.sh SOURCE_DIR BUILD_DIR
set -u
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$1/bench/micro/shmem_compare.sh" "$2" --np 2 --runs 2 --out "$out" --iters 20 --max-size 1024 || exit 1
fail=0
for m in put_latency put_rate get_latency get_rate put_signal_latency amo_fetch_add_latency \
         amo_compare_swap_latency amo_fetch_latency amo_add_rate barrier_all_latency alltoall_latency \
         isx_exchange_latency isx_key_rate; do
    grep -q "\"metric\":\"${m}_speedup\"" "$out/shmem-vs-oshmem.json" || { echo "FAIL: no ${m}_speedup record"; fail=1; }
done
for size in 8 1024; do
    grep -q "\"size\":$size,\"metric\":\"put_latency_speedup\"" "$out/shmem-vs-oshmem.json" ||
        { echo "FAIL: no put_latency line for $size bytes"; fail=1; }
done
grep -q "^| put_latency | 8 |" "$out/shmem-vs-oshmem.md" || { echo "FAIL: the table has no put_latency line"; fail=1; }
[ $fail = 0 ] && echo "shmem_compare: every line present"
exit $fail
