#!/usr/bin/env python3
"""A PMI-1 launcher that never answers: pgdds_init must fail with PGDDS_ERR_TIMEOUT and a message
naming PGDDS_TIMEOUT, within seconds of PGDDS_TIMEOUT, instead of blocking for ever.
    silent_pmi.py PROGRAM [ARGS...]"""
import os
import socket
import subprocess
import sys
import time

ours, theirs = socket.socketpair()
env = dict(os.environ, PMI_FD=str(theirs.fileno()), PMI_RANK='0', PMI_SIZE='2', PGDDS_PMI='pmi1',
           PGDDS_TIMEOUT='2')
start = time.monotonic()
proc = subprocess.Popen(sys.argv[1:], env=env, pass_fds=[theirs.fileno()], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
theirs.close()
try:
    out, _ = proc.communicate(timeout=20)
except subprocess.TimeoutExpired:
    proc.kill()
    out, _ = proc.communicate()
    print('FAIL: still in pgdds_init 20 s after start (PGDDS_TIMEOUT=2)\n' + out)
    sys.exit(1)
elapsed = time.monotonic() - start
ours.close()
failures = []
if proc.returncode == 0:
    failures.append('exit status 0')
if 'failed with -11' not in out or '(PGDDS_TIMEOUT)' not in out:
    failures.append('no PGDDS_ERR_TIMEOUT with a message naming PGDDS_TIMEOUT')
if elapsed > 10:
    failures.append('took %.1f s' % elapsed)
if failures:
    print('FAIL: ' + '; '.join(failures) + '\n--- output ---\n' + out)
    sys.exit(1)
print('ok: exit %d in %.1f s: %s' % (proc.returncode, elapsed, out.strip()))
