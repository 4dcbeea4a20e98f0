#!/usr/bin/env bash
# Hostile conditions on one node, with real ranks under pgdds-run:
#   check_hostile.sh CASE PGDDS_RUN PROGRAM ON_NODE_SHM(yes|no)
# Cases:
#   small-shm   a 24 MiB /dev/shm (a tmpfs in a private mount namespace), 64 MiB segments:
#               init fails with NO_MEMORY naming /dev/shm and PGDDS_SEGMENT_SIZE, no SIGBUS
#   many-vcis   the same /dev/shm, 1 MiB segments but 12 VCIs (a 1 MiB mailbox each)
#   fits        the same /dev/shm, 4 MiB segments: the job runs and fills a hash map
#   overcommit  the same /dev/shm, 16 MiB segments (each fits, two do not) and a hash map of
#               12 MiB per rank: its creation fails with NO_MEMORY naming /dev/shm, no SIGBUS
#   squat       files with the job's predictable segment names exist beforehand (another
#               user's): the job runs, and those files are left alone
#   decoy       files that look like the ranks' (pid in the name) but are not the job's survive
#               pgdds-run's cleanup
#   early-exit  rank 1 exits before pgdds_init: the others' start-up fails naming rank 1
#   disagree    ranks ask for different transports: PGDDS_ERR_STARTUP on every rank
#   tiny-segment  PGDDS_SEGMENT_SIZE=1 is raised to the minimum with a warning
#   kill-launcher  pgdds-run is SIGKILLed while the ranks wait: within 5 s no rank is left and
#               no file of the job is left in /dev/shm
#   kill-launcher-deaf  the same with ranks that ignore SIGTERM and wait in barriers: the
#               library notices that the PMI connection closed
# ON_NODE_SHM says whether the configuration maps segments through /dev/shm files of pgdds.
set -u
case=$1 run=$2 prog=$3 on_node_shm=$4
fail=0
say() { echo "FAIL [$case]: $*"; fail=1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT

if [ "${PGDDS_TRANSPORT:-}" = verbs ] && [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
    echo "SKIP: no RDMA device (/sys/class/infiniband is empty) for the verbs transport"
    exit 77
fi

# Runs the rest of this script inside a private mount namespace with a small /dev/shm.
if [ "${HOSTILE_IN_NS:-}" = "" ] && [[ $case == small-shm || $case == many-vcis || $case == fits || $case == overcommit ]]; then
    for flags in -m -rm; do
        if unshare $flags true 2>/dev/null; then
            exec env HOSTILE_IN_NS=1 unshare $flags --propagation private "$0" "$@"
        fi
    done
    echo "SKIP: cannot create a mount namespace (unshare -m and unshare -rm both fail: $(unshare -rm true 2>&1))"
    exit 77
fi
if [ "${HOSTILE_IN_NS:-}" = 1 ]; then
    if ! msg=$(mount -t tmpfs -o size=24m,mode=1777 tmpfs /dev/shm 2>&1); then
        echo "SKIP: cannot mount a tmpfs on /dev/shm in a private mount namespace: $msg"
        exit 77
    fi
fi

# The job's processes (by PGDDS_JOBID) and /dev/shm files (its names, its ranks' libfabric names).
job_procs() {
    local p=""
    for e in /proc/[0-9]*/environ; do
        if { tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qx "PGDDS_JOBID=$1"; then p="$p $(basename "$(dirname "$e")")"; fi
    done
    echo "$p"
}
job_files() {
    local job=$1; shift
    ls /dev/shm 2>/dev/null | grep -E -- "^pgdds-$job-$(for p in "$@"; do printf '|^%s:|^fi_shm_%s_' "$p" "$p"; done)" | grep -v decoy
}
signalled() { [ "$1" -ge 128 ] || grep -q "killed by signal" "$out"; }

case $case in
small-shm | many-vcis | fits | overcommit)
    if [ "$case" = small-shm ]; then seg=64M vcis=1 entries=1048576; fi
    if [ "$case" = overcommit ]; then seg=16M vcis=1 entries=500000; fi
    if [ "$case" = many-vcis ]; then seg=1M vcis=12 entries=1000; fi
    if [ "$case" = fits ]; then seg=4M vcis=1 entries=65536; fi
    PGDDS_SEGMENT_SIZE=$seg PGDDS_NUM_VCIS=$vcis timeout 60 "$run" -n 2 "$prog" fill $entries >"$out" 2>&1
    rc=$?
    signalled "$rc" && say "a rank died of a signal (exit $rc)"
    # The fabric libraries' own /dev/shm files: libfabric's shm provider checks the free space
    # and hides itself; UCX's shared-memory transports fail to allocate, naming /dev/shm. Either
    # may come before pgdds reserves its files; what matters is a clean failure that says why.
    theirs=$(grep -E "is absent when /dev/shm has too little free space|UCX .*/dev/shm" "$out")
    want=$([ "$case" = many-vcis ] && echo "PGDDS_NUM_VCIS=12" || echo "PGDDS_SEGMENT_SIZE")
    if [ "$case" = fits ]; then
        # Beside a fabric library's own files, pgdds's may be the ones that do not fit.
        [ "$rc" = 0 ] || { [ "${PGDDS_TRANSPORT:-}" != shm ] && grep -q "/dev/shm" "$out"; } || say "exit $rc, expected 0"
    elif [ "$on_node_shm" = yes ]; then
        [ "$rc" != 0 ] || say "the job succeeded on a /dev/shm too small for it"
        [ -n "$theirs" ] || grep -Eq "out of memory: .*/dev/shm has [0-9.]+ MiB free.*$want" "$out" ||
            say "no NO_MEMORY message naming /dev/shm, its free space and $want"
    else
        # No pgdds file in /dev/shm: the job runs, or fails with a message naming /dev/shm.
        [ "$rc" = 0 ] || grep -q "/dev/shm" "$out" || say "exit $rc without naming /dev/shm"
    fi
    ;;
squat)
    # pgdds-run will run as this shell's pid; its job id was "<pid>-<time>" (hex) and rank r's
    # segment "/dev/shm/pgdds-<job>-<r>".
    squat=$(mktemp)
    cat >"$squat" <<'SH'
        t=$(date +%s)
        for dt in 0 1 2; do
            for r in 0 1; do
                f=/dev/shm/pgdds-$(printf %x $$)-$(printf %x $(( (t + dt) & 0xfffffff )))-$r
                : >"$f"; chown 65534:65534 "$f" 2>/dev/null; echo "$f" >>"$SQUATTED"
            done
        done
        exec "$@"
SH
    squatted=$(mktemp)
    SQUATTED=$squatted timeout 60 bash "$squat" "$run" -n 2 "$prog" fill 1000 >"$out" 2>&1
    rc=$?
    [ "$rc" = 0 ] || say "exit $rc with the job's predictable names taken"
    while read -r f; do
        [ -e "$f" ] || say "pgdds-run removed $f, which the job did not create"
        rm -f "$f"
    done <"$squatted"
    rm -f "$squat" "$squatted"
    ;;
decoy)
    [ "$(id -u)" = 0 ] || { echo "SKIP: making files owned by another user needs root (uid $(id -u))"; exit 77; }
    timeout 60 "$run" -n 2 "$prog" decoy >"$out" 2>&1
    rc=$?
    [ "$rc" = 0 ] || say "exit $rc"
    for p in $(awk '/^READY/ {print $3}' "$out"); do
        for f in "/dev/shm/$p:decoy" "/dev/shm/fi_shm_${p}_decoy" "/dev/shm/decoy_${p}_x"; do
            [ -e "$f" ] || say "pgdds-run removed $f, which the job did not create"
            rm -f "$f"
        done
    done
    ;;
early-exit)
    # Rank 1 leaves before pgdds_init: rank 0's start-up names it, and pgdds-run does not claim
    # that rank 0 finalized.
    timeout 60 "$run" -n 2 "$prog" early-exit >"$out" 2>&1
    rc=$?
    [ "$rc" = 2 ] || say "exit $rc, expected 2 (pgdds_init failed)"
    grep -q "rank 1 never published" "$out" || say "no message naming rank 1 as missing"
    grep -q "after finalizing" "$out" && say "pgdds-run says a rank that failed in pgdds_init finalized"
    ;;
disagree)
    timeout 60 "$run" --grace 5 -n 2 "$prog" disagree >"$out" 2>&1
    rc=$?
    [ "$rc" = 2 ] || say "exit $rc, expected 2 (pgdds_init failed)"
    [ "$(grep -c "init failed: start-up fault" "$out")" = 2 ] || say "not every rank failed with PGDDS_ERR_STARTUP"
    grep -q "rank . chose .* but rank . chose" "$out" || say "no message naming the transports"
    ;;
tiny-segment)
    PGDDS_SEGMENT_SIZE=1 timeout 60 "$run" -n 2 "$prog" fill 1 >"$out" 2>&1
    rc=$?
    signalled "$rc" && say "a rank died of a signal (exit $rc)"
    grep -q "a segment of 1 bytes cannot hold anything.*using the minimum" "$out" || say "no warning about PGDDS_SEGMENT_SIZE=1"
    ;;
kill-launcher | kill-launcher-deaf)
    "$run" -n 2 "$prog" "$([ "$case" = kill-launcher ] && echo wait || echo deaf)" >"$out" 2>&1 &
    launcher=$!
    for _ in $(seq 300); do
        [ "$(grep -c '^READY' "$out")" -ge 2 ] && break
        sleep 0.1
    done
    job=$(sed -n 's/^JOB //p' "$out" | head -n 1)
    pids=$(awk '/^READY/ {print $3}' "$out")
    [ -n "$job" ] && [ -n "$pids" ] || say "the job did not start"
    kill -KILL "$launcher"
    wait "$launcher" 2>/dev/null
    left="x" files="x" deadline=$(( $(date +%s) + 5 ))
    while [ "$(date +%s)" -le "$deadline" ]; do
        left=""
        for p in $pids; do
            tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "PGDDS_JOBID=$job" && left="$left $p"
        done
        files=$(job_files "$job" $pids)
        [ -z "$left$files" ] && break
        sleep 0.1
    done
    [ -n "$left" ] || left=$(job_procs "$job")
    [ -z "$left" ] || say "rank processes left 5 s after the launcher died:$left"
    [ -z "$files" ] || say "files left in /dev/shm: $files"
    for p in $left; do kill -KILL "$p" 2>/dev/null; done
    ;;
*)
    echo "unknown case $case"; exit 2 ;;
esac
if [ "$fail" = 1 ]; then
    echo "--- output (case $case) ---"
    cat "$out"
else
    echo "ok [$case]"
fi
exit "$fail"
