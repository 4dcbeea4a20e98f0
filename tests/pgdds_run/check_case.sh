#!/usr/bin/env bash
# Runs one launcher failure case and checks how the job ends:
#   check_case.sh PGDDS_RUN VICTIM CASE NRANKS EXPECTED_EXIT MESSAGE_REGEX [pgdds-run options...]
# Expects the exit status, a message matching the regex, an end within 10 s, and nothing left
# behind: no process of the job, no shared-memory file of the job.
set -u
run=$1 victim=$2 case=$3 np=$4 want_rc=$5 want_msg=$6
shift 6
out=$(mktemp)
start=$(date +%s.%N)
timeout 60 "$run" -n "$np" "$@" "$victim" "$case" >"$out" 2>&1
rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
job=$(sed -n 's/^\(\[0\] \)\{0,1\}JOB \([^ ]*\)$/\2/p' "$out" | head -n 1)
fail=0
say() { echo "FAIL [$case]: $*"; fail=1; }

[ "$rc" = "$want_rc" ] || say "exit status $rc, expected $want_rc"
grep -Eq -- "$want_msg" "$out" || say "no message matching /$want_msg/"
[ "$(echo "$elapsed < 10" | bc)" = 1 ] || say "took ${elapsed}s (more than 10 s)"
[ -n "$job" ] || say "rank 0 never printed its job id"
if [ -n "$job" ]; then
    sleep 0.2
    left=$(ls /dev/shm 2>/dev/null | grep -F -- "pgdds-$job-" || true)
    [ -z "$left" ] || say "shared-memory files left: $left"
    procs=""
    for e in /proc/[0-9]*/environ; do
        if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "PGDDS_JOBID=$job"; then
            procs="$procs $(basename "$(dirname "$e")")"
        fi
    done
    [ -z "$procs" ] || say "processes left:$procs"
fi
if [ "$fail" = 1 ]; then
    echo "--- output of pgdds-run -n $np $* $victim $case (exit $rc, ${elapsed}s) ---"
    cat "$out"
else
    echo "ok [$case]: exit $rc in ${elapsed}s: $(grep -E -- "$want_msg" "$out" | head -n 1)"
fi
rm -f "$out"
exit "$fail"
