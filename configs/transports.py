#!/usr/bin/python3
"""The transport configurations of libpgdds (transports.json beside this file): the one list
that the tests, bench/run and CI read.

    transports.py meson               one line per test configuration, for tests/meson.build:
                                      kind<TAB>name<TAB>backend<TAB>quick|full<TAB>KEY=VALUE...
                                      (kind: plain, rpc or rdma)
    transports.py names BACKEND...    the names of the configurations of these backends
    transports.py env NAME            the environment of one configuration, KEY=VALUE a line

From Python: `load()` gives the configurations (dicts of name, backend, env, quick, protocols,
bench) and `bench_configs()` the (name, env, backend) triples that bench/run measures.
"""
import json
import os
import sys

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "transports.json")
BACKENDS = ("shm", "ofi", "ucx", "verbs")
PROTOCOLS = ("rpc", "rdma")


def load(path=PATH):
    """The configurations, in the file's order, checked."""
    with open(path) as f:
        configs = json.load(f)["configs"]
    names = set()
    for c in configs:
        name = c["name"]
        if name in names:
            raise ValueError("%s: configuration %s is listed twice" % (path, name))
        names.add(name)
        if c["backend"] not in BACKENDS:
            raise ValueError("%s: %s: unknown backend %s" % (path, name, c["backend"]))
        if not isinstance(c["quick"], bool):
            raise ValueError("%s: %s: quick is true or false" % (path, name))
        for key, value in c["env"].items():
            # The meson form separates fields with tabs and key from value with the first '='.
            if "=" in key or "\t" in key + value or "\n" in key + value:
                raise ValueError("%s: %s: %s=%s cannot be passed on" % (path, name, key, value))
        for proto, where in c.get("protocols", {}).items():
            if proto not in PROTOCOLS or where not in ("quick", "full"):
                raise ValueError("%s: %s: protocols maps rpc and rdma to quick or full" % (path, name))
        c.setdefault("protocols", {})
        c.setdefault("bench", None)
    return configs


def test_configs(configs=None):
    """(kind, name, backend, quick, env) of every test configuration: the plain ones, then each
    protocol's variants (<name>-rpc, then <name>-rdma), in the file's order."""
    configs = load() if configs is None else configs
    out = [("plain", c["name"], c["backend"], c["quick"], dict(c["env"])) for c in configs]
    for proto in PROTOCOLS:
        for c in configs:
            if proto in c["protocols"]:
                env = dict(c["env"], PGDDS_CONTAINER_PROTOCOL=proto)
                out.append((proto, c["name"] + "-" + proto, c["backend"], c["protocols"][proto] == "quick", env))
    return out


def bench_configs(configs=None):
    """(name, env, backend) of the configurations bench/run measures; backend None for shm (always
    built)."""
    configs = load() if configs is None else configs
    return [(c["bench"], dict(c["env"]), None if c["backend"] == "shm" else c["backend"])
            for c in configs if c["bench"]]


def main(argv):
    if len(argv) >= 1 and argv[0] == "meson":
        for kind, name, backend, quick, env in test_configs():
            print("\t".join([kind, name, backend, "quick" if quick else "full"] +
                            ["%s=%s" % kv for kv in env.items()]))
    elif len(argv) >= 1 and argv[0] == "names":
        for kind, name, backend, quick, env in test_configs():
            if backend in argv[1:]:
                print(name)
    elif len(argv) == 2 and argv[0] == "env":
        for c in load():
            if c["name"] == argv[1]:
                for kv in c["env"].items():
                    print("%s=%s" % kv)
                return 0
        print("transports.py: no configuration %s" % argv[1], file=sys.stderr)
        return 2
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
