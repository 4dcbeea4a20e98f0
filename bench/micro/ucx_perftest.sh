#!/bin/sh
# The peer reference for the UCX transport: UCX's own ucx_perftest, two processes on this node,
# over UCX's shared-memory transports and over TCP, 8-byte messages.
#
#   bench/micro/ucx_perftest.sh [--json BENCH_RECORD] [--iters N] [--tls "sm tcp"]
#
# Prints one line per measurement, or with --json one object per line, written by the build's
# bench-record (bench/record.h):
#   {"bench":"ucx_perftest","transport":"ucx/sm","ranks":2,"threads":1,"size":8,
#    "metric":"put_latency","value":0.2,"unit":"us"}
# Each test reports the overall average ("<op>_latency") and the median ("<op>_latency_p50").
#
# What ucx_perftest measures, next to pgdds:
# - put_latency (ucp_put_lat) is half of a ping-pong in which each side puts 8 bytes into the
#   other's memory and polls its own memory until the other's put lands. It is therefore the
#   time until a put is *visible at the target*, with no flush call; pgdds_put + pgdds_flush
#   additionally waits for UCX's remote-completion acknowledgement.
# - get_latency (ucp_get) and fetch_add_latency (ucp_fadd) are the times of one blocking
#   operation with one outstanding, like pgdds_get and a fetching pgdds_atomic_u64.
# - Buffers are ucp_mem_map'ed with allocation, as the segment of PGDDS_TRANSPORT=ucx with
#   PGDDS_SHM=off: on sm the peer's memory is mapped and nothing needs the target's help; on tcp
#   get and atomics are emulated with active messages the target must progress (ucx_perftest's
#   server does).
set -eu

json=0
iters=100000
tls_list="sm tcp"
while [ $# -gt 0 ]; do
    case "$1" in
    --json) json=1; record=$2; shift ;;
    --iters) iters="$2"; shift ;;
    --tls) tls_list="$2"; shift ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "ucx_perftest.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
command -v ucx_perftest >/dev/null || { echo "ucx_perftest.sh: ucx_perftest is not installed" >&2; exit 77; }

server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null || true' EXIT

# run_test TLS TEST ITERS: prints ucx_perftest's final CSV line (iterations,p50,avg,overall,...).
run_test() {
    tls=$1 test=$2 n=$3
    for attempt in 1 2 3 4 5; do
        port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
        UCX_TLS=$tls ucx_perftest -p "$port" >/dev/null 2>&1 &
        server=$!
        sleep 0.3
        warmup=$((n / 10 < 1000 ? n / 10 : 1000))
        if out=$(UCX_TLS=$tls timeout 300 ucx_perftest 127.0.0.1 -p "$port" -t "$test" -s 8 -n "$n" -w "$warmup" -v 2>&1); then
            wait "$server" 2>/dev/null || true
            server=""
            printf '%s\n' "$out" | grep -E '^[0-9]+,' | tail -n 1
            return 0
        fi
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=""
    done
    echo "ucx_perftest.sh: $test over $tls failed: $out" >&2
    return 1
}

report() {  # transport metric value
    if [ "$json" = 1 ]; then
        "$record" ucx_perftest "$1" 2 1 8 "$2" "$3" us
    else
        printf '%-8s %-26s %10s us\n' "$1" "$2" "$3"
    fi
}

status=0
for tls in $tls_list; do
    n=$iters
    # TCP emulates get and atomics through the server: far slower, fewer iterations suffice.
    [ "$tls" = tcp ] && n=$((iters / 20 > 100 ? iters / 20 : 100))
    for spec in put_latency:ucp_put_lat get_latency:ucp_get fetch_add_latency:ucp_fadd; do
        metric=${spec%%:*}
        test=${spec#*:}
        if line=$(run_test "$tls" "$test" "$n"); then
            p50=$(printf '%s' "$line" | cut -d, -f2)
            overall=$(printf '%s' "$line" | cut -d, -f4)
            report "ucx/$tls" "$metric" "$overall"
            report "ucx/$tls" "${metric}_p50" "$p50"
        else
            status=1
        fi
    done
done
exit $status
