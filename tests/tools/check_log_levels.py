#!/usr/bin/env python3
"""PGDDS_LOG_LEVEL as a user sets it: each level prints what it promises (docs/environment.md),
every line carries the rank and the time of day, and a quieter level prints none of a louder
one's lines. usage: check_log_levels.py PGDDS_RUN PROGRAM (PROGRAM: ends with pgdds_finalize)"""
import os
import re
import subprocess
import sys

LINE = re.compile(r"^\[pgdds (?:(\d+) )?(\d\d:\d\d:\d\d\.\d{6})\] (error|warn|info|debug|trace): (.*)$")


def log_lines(run, prog, level):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PGDDS_")}
    env.update(PGDDS_LOG_LEVEL=level, PGDDS_TRANSPORT="shm")
    r = subprocess.run([run, "-n", "2", "--timeout", "60", prog, "ok"], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"PGDDS_LOG_LEVEL={level}: exit status {r.returncode}\n{r.stderr}")
    lines = [line for line in r.stderr.splitlines() if line.startswith("[pgdds")]
    parsed = [LINE.match(line) for line in lines]
    bad = [line for line, m in zip(lines, parsed) if not m]
    if bad:
        raise SystemExit(f"PGDDS_LOG_LEVEL={level}: lines without the rank and time format: {bad}")
    return [(m.group(1), m.group(3), m.group(4)) for m in parsed]


def expect(ok, what):
    if not ok:
        raise SystemExit(what)


def main():
    run, prog = sys.argv[1:3]
    warn = log_lines(run, prog, "warn")
    expect(not any(level in ("info", "debug", "trace") for _, level, _ in warn), f"warn prints louder lines: {warn}")
    debug = log_lines(run, prog, "debug")
    for rank in ("0", "1"):
        mine = [text for r, level, text in debug if r == rank and level == "debug"]
        for phase in ("pgdds_init: pmi1 in", "every rank connected in", "pgdds_finalize: last barrier in",
                      "pgdds_init: PGDDS_LOG_LEVEL=debug"):
            expect(any(phase in t for t in mine), f"rank {rank} at debug has no '{phase}' line: {mine}")
    expect(not any(level == "trace" for _, level, _ in debug), "debug prints trace lines")
    trace = log_lines(run, prog, "trace")
    coll = [t for r, level, t in trace if level == "trace" and re.search(
        r"collective \d+ step \d+: \d+ bytes (to|from) rank|collective \d+: (slot marked|every rank's slot read)", t)]
    expect(len(coll) >= 4, f"trace shows no collective messages or slots: {trace}")
    print(f"log levels: warn {len(warn)}, debug {len(debug)}, trace {len(trace)} lines, each with rank and time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
