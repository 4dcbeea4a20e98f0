#!/usr/bin/env python3
"""Compiles one program that must not compile and checks that the compiler says why.

usage: check.py SOURCE INCLUDE_DIR COMPILER [ARGS...]
The source names the expected message in a comment line "// expect: <text>"."""
import subprocess
import sys

source, include = sys.argv[1], sys.argv[2]
compiler = sys.argv[3:]
expected = next(line.split('expect:', 1)[1].strip() for line in open(source) if '// expect:' in line)
run = subprocess.run(compiler + ['-std=c++17', '-fsyntax-only', '-I', include, source],
                     capture_output=True, text=True)
if run.returncode == 0:
    sys.exit(f'{source} compiled, but must not')
if expected not in run.stderr:
    sys.exit(f'{source} failed to compile without "{expected}":\n{run.stderr[-3000:]}')
print(f'{source}: refused with "{expected}"')
