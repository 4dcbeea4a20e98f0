#!/usr/bin/env python3
"""ABI hygiene of libpgdds.

  check_abi.py exports LIB HEADER...
                                    every dynamic symbol LIB defines is a pgdds_* function
                                    declared in one of the HEADERs (the version node aside)
  check_abi.py soname LIB NAME      LIB's SONAME is NAME
  check_abi.py header INCDIR LANG COMPILER... -- FLAGS...
                                    a file that includes only <pgdds/pgdds.h> (or the header
                                    named by PGDDS_ABI_HEADER, e.g. pgdds/matrix.h) compiles
                                    with COMPILER FLAGS (LANG: c or c++)
  check_abi.py dlopen LIB           LIB's thread-locals take at most 256 bytes, and LIB loads with
                                    dlopen() into a running process (as Python's ctypes, plugin
                                    hosts and language bindings load it) and answers a call
"""
import os
import re
import subprocess
import sys
import tempfile


def exports(lib, *headers):
    out = subprocess.run([os.environ.get("NM", "nm"), "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    declared = set()
    for h in headers:
        with open(h, encoding="utf-8") as f:
            declared |= set(re.findall(r"PGDDS_API[^;]*?\b(pgdds_\w+)\s*\(", f.read()))
    header = " or ".join(headers)
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        kind, name = fields[1], fields[2].split("@")[0]
        if kind == "A" and re.fullmatch(r"PGDDS_\d+", name):
            continue  # the version node of the version script
        symbols.append(name)
    foreign = [s for s in symbols if not s.startswith("pgdds_")]
    undeclared = [s for s in symbols if s.startswith("pgdds_") and s not in declared]
    for s in foreign:
        print(f"{lib} exports {s}, which is not a pgdds_* name")
    for s in undeclared:
        print(f"{lib} exports {s}, which {header} does not declare")
    missing = sorted(declared - set(symbols))
    if missing:
        print(f"note: declared but not in this build ({len(missing)}): {' '.join(missing)}")
    print(f"{lib}: {len(symbols)} exported symbols")
    return 1 if foreign or undeclared or not symbols else 0


def soname(lib, expected):
    out = subprocess.run([os.environ.get("READELF", "readelf"), "-d", lib], check=True, capture_output=True, text=True).stdout
    found = re.findall(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    if found != [expected]:
        print(f"{lib}: SONAME is {found or 'missing'}, expected {expected}")
        return 1
    print(f"{lib}: SONAME {expected}")
    return 0


def header(incdir, lang, rest):
    split = rest.index("--")
    compiler, flags = rest[:split], rest[split + 1:]
    suffix = ".c" if lang == "c" else ".cpp"
    source = "#include <" + os.environ.get("PGDDS_ABI_HEADER", "pgdds/pgdds.h") + ">\n\nint main(void)\n{\n    pgdds_context_t ctx = NULL;\n" \
             "    (void)ctx;\n    return pgdds_strerror(PGDDS_OK) ? PGDDS_OK : PGDDS_ERR_INVALID_ARG;\n}\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "only_pgdds_h" + suffix)
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        cmd = [*compiler, "-x", lang, *flags, "-I", incdir, "-fsyntax-only", path]
        result = subprocess.run(cmd, capture_output=True, text=True)
    print(" ".join(cmd))
    print(result.stdout + result.stderr, end="")
    return result.returncode


def dlopen(lib, max_tls=256):
    import ctypes
    # The library's thread-locals are initial-exec, so its whole TLS block goes into the static
    # TLS area, whose spare room for libraries loaded late is a few hundred bytes shared by all of
    # them: past that, dlopen fails with "cannot allocate memory in static TLS block".
    out = subprocess.run([os.environ.get("READELF", "readelf"), "-lW", lib], check=True, capture_output=True,
                         text=True).stdout
    tls = [int(line.split()[5], 16) for line in out.splitlines() if line.split()[:1] == ["TLS"]]
    tls_bytes = tls[0] if tls else 0
    print(f"{lib}: {tls_bytes} bytes of thread-locals (at most {max_tls})")
    if tls_bytes > int(max_tls):
        print(f"{lib}: too many thread-local bytes for a library that may be loaded with dlopen; put large "
              "per-thread buffers on the heap")
        return 1
    try:
        handle = ctypes.CDLL(os.path.abspath(lib), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError as e:
        print(f"{lib}: dlopen failed: {e}")
        return 1
    handle.pgdds_strerror.restype = ctypes.c_char_p
    handle.pgdds_strerror.argtypes = [ctypes.c_int]
    text = handle.pgdds_strerror(0)
    print(f"{lib}: loaded with dlopen; pgdds_strerror(PGDDS_OK) = {text!r}")
    return 0 if text else 1


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    what, args = sys.argv[1], sys.argv[2:]
    if what == "exports":
        return exports(*args)
    if what == "soname":
        return soname(*args)
    if what == "dlopen":
        return dlopen(*args)
    if what == "header":
        return header(args[0], args[1], args[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
