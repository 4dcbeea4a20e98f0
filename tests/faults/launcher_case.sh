#!/usr/bin/env bash
# Runs a job under a launcher (rank 1 killed through PGDDS_FAULT) and checks that it ends within
# 20 s of its start (start-up included: four ranks over tcp on a loaded node take seconds) with
# the expected non-zero status and a message matching the regex, leaving no process behind, nor
# a shared-memory file of the job when rank 0 printed its id ("JOB <id>"):
#   launcher_case.sh EXIT_STATUS MESSAGE_REGEX LAUNCHER [launcher arguments...]
# EXIT_STATUS "nonzero" accepts any failure.
set -u
want_rc=$1 want=$2
shift 2
mark="faults-$$-$RANDOM"
out=$(mktemp)
start=$(date +%s.%N)
FAULTS_MARK=$mark timeout 60 "$@" >"$out" 2>&1
rc=$?
elapsed=$(echo "$(date +%s.%N) - $start" | bc)
fail=0
say() { echo "FAIL: $*"; fail=1; }
if [ "$want_rc" = nonzero ]; then
    [ "$rc" != 0 ] || say "exit status 0"
else
    [ "$rc" = "$want_rc" ] || say "exit status $rc, expected $want_rc"
fi
[ "$rc" != 124 ] || say "still running after 60 s"
grep -Eq -- "$want" "$out" || say "no message matching /$want/"
[ "$(echo "$elapsed < 20" | bc)" = 1 ] || say "took ${elapsed}s (more than 20 s)"
sleep 0.2
job=$(sed -n 's/^\(\[0\] \)\{0,1\}JOB \([^ ]*\)$/\2/p' "$out" | head -n 1)
if [ -n "$job" ] && [ "$job" != none ]; then
    left=$(ls /dev/shm 2>/dev/null | grep -F -- "pgdds-$job-" || true)
    [ -z "$left" ] || say "shared-memory files left: $left"
fi
procs=""
for e in /proc/[0-9]*/environ; do
    if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "FAULTS_MARK=$mark"; then
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
