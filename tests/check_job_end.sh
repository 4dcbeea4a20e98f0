#!/usr/bin/env bash
# Runs a job and checks how it ends: the exit status, a message matching the regex, an end within
# the deadline of its start (start-up included), and nothing left behind: no process the command
# started (each carries a mark in its environment), nor a shared-memory file of the job when rank 0
# printed its id ("JOB <id>"; "JOB none" without a launcher's id):
#   check_job_end.sh [--deadline SECONDS] [--need-job] EXIT_STATUS MESSAGE_REGEX COMMAND [ARGS...]
# EXIT_STATUS "nonzero" accepts any failure. The deadline defaults to 20 s; the command is ended
# after 60 s. --need-job fails the case when rank 0 printed no id.
set -u
deadline=20 need_job=0
while :; do
    case $1 in
    --deadline) deadline=$2; shift 2 ;;
    --need-job) need_job=1; shift ;;
    *) break ;;
    esac
done
want_rc=$1 want=$2
shift 2
mark="job-end-$$-$RANDOM"
out=$(mktemp)
start=$(date +%s.%N)
JOB_END_MARK=$mark timeout 60 "$@" >"$out" 2>&1
rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
fail=0
say() { echo "FAIL: $*"; fail=1; }
if [ "$want_rc" = nonzero ]; then
    [ "$rc" != 0 ] || say "exit status 0"
else
    [ "$rc" = "$want_rc" ] || say "exit status $rc, expected $want_rc"
fi
[ "$rc" != 124 ] || [ "$want_rc" = 124 ] || say "still running after 60 s"
grep -Eq -- "$want" "$out" || say "no message matching /$want/"
[ "$(echo "$elapsed < $deadline" | bc)" = 1 ] || say "took ${elapsed}s (more than $deadline s)"
sleep 0.2
job=$(sed -n 's/^\(\[0\] \)\{0,1\}JOB \([^ ]*\)$/\2/p' "$out" | head -n 1)
[ -n "$job" ] || [ "$need_job" = 0 ] || say "rank 0 never printed its job id"
if [ -n "$job" ] && [ "$job" != none ]; then
    left=$(ls /dev/shm 2>/dev/null | grep -F -- "pgdds-$job-" || true)
    [ -z "$left" ] || say "shared-memory files left: $left"
fi
procs=""
for e in /proc/[0-9]*/environ; do
    if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "JOB_END_MARK=$mark"; then
        procs="$procs $(basename "$(dirname "$e")")"
    fi
done
[ -z "$procs" ] || say "processes left:$procs"
if [ "$fail" = 1 ]; then
    echo "--- output of $* (exit $rc, ${elapsed}s) ---"
    cat "$out"
else
    echo "ok: exit $rc in ${elapsed}s: $(grep -E -- "$want" "$out" | head -n 1)"
fi
rm -f "$out"
exit "$fail"
