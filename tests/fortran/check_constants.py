#!/usr/bin/env python3
"""The constants of the Fortran module are those of the C headers: every PGDDS_* parameter of
pgdds.f90 has the value pgdds.h (or another header given, matrix.h) gives it, and every
constant of them that Fortran programs use (status codes, thread levels, init fields, atomic
ops, data types, reduction ops, concurrency promises, container protocols and operations, queue
kinds, version, global-pointer layout, matrix distributions, fields and algorithms) is in the
module.

usage: check_constants.py PGDDS_H PGDDS_F90 [HEADER...]
"""
import re
import sys

# pgdds.h constants the Fortran module does not bind.
# (The Fortran module binds hash-map creation with defaults only (no options, so no choice of
# protocol; the protocol queries and their PROTOCOL_* and CONTAINER_OP_* constants are bound),
# and no key tables.)
NOT_BOUND = re.compile(r"PGDDS_(API|H|AM_MAX_PAYLOAD|CONFIG_FIELD_\w+|TRANSPORT_FIELD_\w+|"
                       r"HASHMAP_OPTION_\w+|KEYTABLE_\w+)$")


def c_value(expr):
    expr = re.sub(r"(\d+)u\b", r"\1", expr.strip())
    if not re.fullmatch(r"[-\d\s<()]+", expr):
        return None
    return int(eval(expr))  # digits, minus, shifts and parentheses only


def c_constants(text):
    out = {}
    for name, value in re.findall(r"#define\s+(PGDDS_\w+)\s+(-?\d+)\b", text):
        out[name] = int(value)
    for body in re.findall(r"enum(?:\s+\w+)?\s*\{([^}]*)\}", text):  # named enums too
        next_value = 0
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)  # comments may hold commas
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition("=")
            value = c_value(expr) if expr else next_value
            out[name.strip()] = value
            next_value = value + 1
    return out


def main():
    c = {}
    for header in [sys.argv[1]] + sys.argv[3:]:
        with open(header, encoding="utf-8") as f:
            c.update(c_constants(f.read()))
    with open(sys.argv[2], encoding="utf-8") as f:
        fortran = {n: int(v) for n, v in re.findall(r"\b(PGDDS_[A-Z0-9_]+)\s*=\s*(-?\d+)\b", f.read())}
    problems = []
    for name, value in sorted(fortran.items()):
        if name == "PGDDS_GPTR_NULL":
            continue  # ((pgdds_gptr_t)0) in C
        if name not in c:
            problems.append(f"{name} is in the Fortran module but not in the headers")
        elif c[name] != value:
            problems.append(f"{name} is {value} in the Fortran module but {c[name]} in the headers")
    for name in sorted(c):
        if name not in fortran and not NOT_BOUND.match(name):
            problems.append(f"{name} = {c[name]} of the headers is missing from the Fortran module")
    for p in problems:
        print(p)
    print(f"{len(fortran)} Fortran constants checked against {len(c)} of the headers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
