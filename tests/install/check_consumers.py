#!/usr/bin/env python3
"""Installs libpgdds into a staging directory and builds outside programs against it.

The build directory is installed with `meson install --destdir` into a temporary directory
(pgdds.pc is relocatable, so the staged copy describes itself). Then a C, a C++ and (when
the Fortran bindings are built) a Fortran program are compiled with nothing but
`pkg-config --cflags --libs pgdds`, PKG_CONFIG_PATH pointing at the staged pkgconfig
directory, and run on 2 ranks under the staged pgdds-run. They must find the staged
library at run time by themselves (the rpath pgdds.pc gives outside /usr); the staged
pgdds-info must too (its rpath is relative to itself). The C program must not depend on
libpgdds_fortran.

usage: check_consumers.py MESON BUILDDIR PREFIX LIBDIR SRCDIR --cc CC... --cxx CXX... [--fc FC...]
(MESON: the meson on PATH, used when the running Python cannot import Meson)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def parse_args(argv):
    meson, builddir, prefix, libdir, srcdir = argv[:5]
    compilers, current = {}, None
    for a in argv[5:]:
        if a in ("--cc", "--cxx", "--fc"):
            current = a[2:]
            compilers[current] = []
        else:
            compilers[current].append(a)
    return meson, builddir, prefix, libdir, srcdir, compilers


def run(cmd, env=None, cwd=None, show=True):
    print("$ " + " ".join(cmd), flush=True)
    result = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if show or result.returncode != 0:
        sys.stdout.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise SystemExit(f"failed with exit status {result.returncode}: {' '.join(cmd)}")
    return result.stdout


def meson_command(fallback):
    """The Meson that configured the build: its Python runs this script and imports mesonbuild,
    unless Meson is packaged some other way; then the meson found on PATH."""
    own = [sys.executable, "-m", "mesonbuild.mesonmain"]
    if subprocess.run(own + ["--version"], capture_output=True).returncode == 0:
        return own
    return [fallback]


def staged(stage, path, prefix):
    """Where an installed path lives under the staging directory."""
    full = path if os.path.isabs(path) else os.path.join(prefix, path)
    return os.path.join(stage, full.lstrip("/"))


def main():
    meson, builddir, prefix, libdir, srcdir, compilers = parse_args(sys.argv[1:])
    tmp = tempfile.mkdtemp(prefix="pgdds-install-")
    try:
        stage = os.path.join(tmp, "stage")
        # Without --no-rebuild: `meson test` builds only what tests name, and an install needs
        # every installed target (the Fortran module file, the benchmarks). The test runs alone
        # (is_parallel false), so building here races nothing.
        run(meson_command(meson) + ["install", "-C", builddir, "--destdir", stage, "--quiet"])
        libdir_staged = staged(stage, libdir, prefix)
        bindir_staged = staged(stage, "bin", prefix)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(libdir_staged, "pkgconfig"))
        env.pop("LD_LIBRARY_PATH", None)
        flags = run([os.environ.get("PKG_CONFIG", "pkg-config"), "--cflags", "--libs", "pgdds"], env=env).split()
        if "-Wl,-rpath," not in " ".join(flags):
            # Installed under /usr: the dynamic linker's own directories are expected to hold it.
            env["LD_LIBRARY_PATH"] = libdir_staged

        info = json.loads(run([os.path.join(bindir_staged, "pgdds-info"), "--json"], env=env, show=False))
        if not info["variables"] or info["version"] != info["build"]["version"]:
            raise SystemExit("the staged pgdds-info gives no variables or an inconsistent version")

        programs = [("consumer-c", "cc", "consumer.c", ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]),
                    ("consumer-cxx", "cxx", "consumer.cpp", ["-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror"])]
        if "fc" in compilers:
            programs.append(("consumer-fortran", "fc", "consumer.f90", ["-std=f2008", "-Wall"]))
        for name, lang, source, strict in programs:
            exe = os.path.join(tmp, name)
            run(compilers[lang] + strict + [os.path.join(srcdir, source), "-o", exe] + flags, env=env)
            loaded = run(["ldd", exe], env=env, show=False)
            lib_line = [line for line in loaded.splitlines() if "libpgdds.so" in line]
            if not lib_line or tmp not in lib_line[0]:
                raise SystemExit(f"{name} does not load the staged libpgdds: {lib_line}")
            needs_fortran = "libpgdds_fortran" in run(["readelf", "-d", exe], show=False)
            if needs_fortran != (lang == "fc"):
                raise SystemExit(f"{name} {'depends' if needs_fortran else 'does not depend'} on libpgdds_fortran")
            out = run([os.path.join(bindir_staged, "pgdds-run"), "-n", "2", "--timeout", "60", exe], env=env, cwd=tmp)
            if f"{name}: passed on 2 ranks" not in out:
                raise SystemExit(f"{name} did not report success")
        print("every consumer built with pkg-config and ran on 2 ranks")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
