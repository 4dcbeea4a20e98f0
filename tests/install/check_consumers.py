#!/usr/bin/env python3
"""Installs libpgdds into a staging directory and builds outside programs against it.

The build directory is installed with `meson install --destdir` into a temporary directory
(pgdds.pc, pgdds-fortran.pc and pgdds's CMake package are relocatable, so the staged copy
describes itself). Then a C, a C++ and (when the Fortran bindings are built) a Fortran program
are compiled twice: with nothing but `pkg-config --cflags --libs pgdds` (`pgdds-fortran` for
Fortran), PKG_CONFIG_PATH pointing at the staged pkgconfig directory; and (when CMake was found
at setup) by a CMake project that calls find_package(pgdds) with CMAKE_PREFIX_PATH set to the
staged prefix and links pgdds::pgdds or pgdds::fortran. Each runs on 2 ranks under the staged
pgdds-run. They must find the staged library at run time by themselves (the rpath pgdds.pc
gives outside /usr, the build rpath CMake gives); the staged pgdds-info and benchmark must too
(their rpath is relative to themselves). C and C++ programs must not depend on
libpgdds_fortran, nor see the Fortran module's directory.

With --man MANDIR, every installed program must also have its section 1 manual page, naming it.
With --man3 MANDIR, every function of the installed pgdds.h must have its section 3 page, whose
source page (installed too) shows it.

usage: check_consumers.py MESON BUILDDIR PREFIX LIBDIR INCLUDEDIR SRCDIR [--cmake CMAKE] [--man MANDIR]
                          [--man3 MANDIR]
                          --cc CC... --cxx CXX... [--fc FC...]
(MESON: the meson on PATH, used when the running Python cannot import Meson)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def parse_args(argv):
    meson, builddir, prefix, libdir, includedir, srcdir = argv[:6]
    compilers, current = {}, None
    for a in argv[6:]:
        if a in ("--cmake", "--man", "--man3", "--python", "--cc", "--cxx", "--fc"):
            current = a[2:]
            compilers[current] = []
        else:
            compilers[current].append(a)
    cmake = compilers.pop("cmake", [None])[0]
    man = compilers.pop("man", [None])[0]
    man3 = compilers.pop("man3", [None])[0]
    python = compilers.pop("python", [None])[0]
    return meson, builddir, prefix, libdir, includedir, srcdir, cmake, man, man3, python, compilers


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


def check_program(name, lang, exe, tmp, bindir_staged, env):
    """The program loads the staged libpgdds, needs libpgdds_fortran only if it is Fortran, and
    passes on 2 ranks under the staged pgdds-run."""
    loaded = run(["ldd", exe], env=env, show=False)
    lib_line = [line for line in loaded.splitlines() if "libpgdds.so" in line]
    if not lib_line or tmp not in lib_line[0]:
        raise SystemExit(f"{exe} does not load the staged libpgdds: {lib_line}")
    needs_fortran = "libpgdds_fortran" in run(["readelf", "-d", exe], show=False)
    if needs_fortran != (lang == "fc"):
        raise SystemExit(f"{exe} {'depends' if needs_fortran else 'does not depend'} on libpgdds_fortran")
    out = run([os.path.join(bindir_staged, "pgdds-run"), "-n", "2", "--timeout", "60", exe], env=env, cwd=tmp)
    if f"{name}: passed on 2 ranks" not in out:
        raise SystemExit(f"{exe} did not report success")


def check_python(python, stage, prefix, libdir, bindir_staged, env, tmp):
    """The installed Python package records the installed library's path, and imports and runs on
    2 ranks from the staged prefix (PGDDS_LIBRARY pointing at the staged library)."""
    inits = [os.path.join(d, "__init__.py") for d, _, files in os.walk(stage)
             if os.path.basename(d) == "pgdds" and "__init__.py" in files and "_installed.py" in files]
    if len(inits) != 1:
        raise SystemExit(f"the Python package pgdds is not installed once under {stage}: {inits}")
    package = os.path.dirname(inits[0])
    recorded = open(os.path.join(package, "_installed.py")).read()
    library = os.path.join(prefix, libdir, "libpgdds.so.0")
    if f'"{library}"' not in recorded:
        raise SystemExit(f"_installed.py does not record {library}:\n{recorded}")
    penv = dict(env, PYTHONPATH=os.path.dirname(package),
                PGDDS_LIBRARY=os.path.join(staged(stage, libdir, prefix), "libpgdds.so.0"))
    script = os.path.join(tmp, "hello.py")
    with open(script, "w") as f:
        f.write("import numpy as np, pgdds\n"
                "with pgdds.init() as ctx:\n"
                "    total = ctx.allreduce(np.array([ctx.rank + 1]))[0]\n"
                "    assert total == ctx.nranks * (ctx.nranks + 1) // 2, total\n"
                "    if ctx.rank == 0:\n"
                "        print('python ranks', ctx.nranks, 'sum', total)\n")
    out = run([os.path.join(bindir_staged, "pgdds-run"), "-n", "2", "--timeout", "60", python, script],
              env=penv, cwd=tmp)
    if "python ranks 2 sum 3" not in out:
        raise SystemExit(f"the installed Python package did not run on 2 ranks:\n{out}")


def build_with_cmake(cmake, srcdir, tmp, stage_prefix, compilers, env):
    """Configures and builds tests/install/cmake against the staged prefix; returns its build
    directory. The compilers are the build's own (a launcher such as ccache is left out)."""
    build = os.path.join(tmp, "cmake-build")
    cmd = [cmake, "-S", os.path.join(srcdir, "cmake"), "-B", build, f"-DCMAKE_PREFIX_PATH={stage_prefix}",
           f"-DCONSUMER_SOURCES={srcdir}", f"-DCMAKE_C_COMPILER={compilers['cc'][-1]}",
           f"-DCMAKE_CXX_COMPILER={compilers['cxx'][-1]}", f"-DWITH_FORTRAN={'ON' if 'fc' in compilers else 'OFF'}"]
    if "fc" in compilers:
        cmd.append(f"-DCMAKE_Fortran_COMPILER={compilers['fc'][-1]}")
    run(cmd, env=env)
    run([cmake, "--build", build], env=env)
    return build


def check_api_man_pages(srcdir, header, man3):
    """Each function the staged pgdds.h declares has its staged section 3 page showing it."""
    sys.path.insert(0, os.path.join(srcdir, "..", "docs"))
    from check_api_documented import declared, man_page_text
    functions = declared(header)
    missing = [f for f in sorted(functions) if f"\\fB{f}\\fP" not in man_page_text(man3, f)]
    if not functions or missing:
        raise SystemExit(f"no section 3 manual page showing {', '.join(missing) or 'any function'} in {man3}")
    print(f"{len(functions)} functions of pgdds.h have their section 3 page in {man3}")


def main():
    meson, builddir, prefix, libdir, includedir, srcdir, cmake, man, man3, python, compilers = \
        parse_args(sys.argv[1:])
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
        pkg_config = os.environ.get("PKG_CONFIG", "pkg-config")
        flags = {"cc": run([pkg_config, "--cflags", "--libs", "pgdds"], env=env).split()}
        flags["cxx"] = flags["cc"]
        if any("pgdds/fortran" in f or "pgdds_fortran" in f for f in flags["cc"]):
            raise SystemExit("pgdds.pc gives C programs the Fortran module's directory or library")
        if "fc" in compilers:
            flags["fc"] = run([pkg_config, "--cflags", "--libs", "pgdds-fortran"], env=env).split()
            module = os.path.join(staged(stage, includedir, prefix), "pgdds", "fortran", "pgdds.mod")
            if not os.path.isfile(module):
                raise SystemExit(f"pgdds.mod is not installed in {os.path.dirname(module)}")
        if "-Wl,-rpath," not in " ".join(flags["cc"]):
            # Installed under /usr: the dynamic linker's own directories are expected to hold it.
            env["LD_LIBRARY_PATH"] = libdir_staged

        info = json.loads(run([os.path.join(bindir_staged, "pgdds-info"), "--json"], env=env, show=False))
        if not info["variables"] or info["version"] != info["build"]["version"]:
            raise SystemExit("the staged pgdds-info gives no variables or an inconsistent version")
        if man:
            man1 = os.path.join(staged(stage, man, prefix), "man1")
            for program in sorted(os.listdir(bindir_staged)):
                page = os.path.join(man1, program + ".1")
                text = open(page).read() if os.path.isfile(page) else ""
                if ".SH NAME" not in text or program.replace("-", "\\-") not in text:
                    raise SystemExit(f"{program} has no manual page naming it in {man1}")
        if man3:
            check_api_man_pages(srcdir, os.path.join(staged(stage, includedir, prefix), "pgdds", "pgdds.h"),
                                os.path.join(staged(stage, man3, prefix), "man3"))
        # An installed benchmark runs from the staged prefix like the tools.
        out = run([os.path.join(bindir_staged, "pgdds-run"), "-n", "2", "--timeout", "120",
                   os.path.join(bindir_staged, "pgdds-bench-keytable"), "--max-entries", "1024", "--ops", "100"],
                  env=env, cwd=tmp, show=False)
        if "get_remote_latency_spread" not in out:
            raise SystemExit(f"the staged pgdds-bench-keytable reported no measurement:\n{out}")

        if python:
            check_python(python, stage, prefix, libdir, bindir_staged, env, tmp)

        programs = [("consumer-c", "cc", "consumer.c", ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]),
                    ("consumer-cxx", "cxx", "consumer.cpp", ["-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror"])]
        if "fc" in compilers:
            programs.append(("consumer-fortran", "fc", "consumer.f90", ["-std=f2008", "-Wall"]))
        for name, lang, source, strict in programs:
            exe = os.path.join(tmp, name)
            run(compilers[lang] + strict + [os.path.join(srcdir, source), "-o", exe] + flags[lang], env=env)
            check_program(name, lang, exe, tmp, bindir_staged, env)
        print("every consumer built with pkg-config and ran on 2 ranks")

        if cmake:
            build = build_with_cmake(cmake, srcdir, tmp, staged(stage, "", prefix), compilers, env)
            for name, lang, _, _ in programs:
                check_program(name, lang, os.path.join(build, name), tmp, bindir_staged, env)
            print("every consumer built with CMake (find_package(pgdds)) and ran on 2 ranks")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
