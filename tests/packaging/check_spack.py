#!/usr/bin/env python3
"""The Spack package (packaging/spack/packages/libpgdds/package.py) compiles and offers one
variant per Meson feature option of meson_options.txt, passed on as -D<name>=enabled|disabled.

usage: check_spack.py SRCDIR"""
import re
import sys

src = sys.argv[1]
package = open(src + "/packaging/spack/packages/libpgdds/package.py").read()
compile(package, "package.py", "exec")
options = open(src + "/meson_options.txt").read()
features = re.findall(r"option\('([^']+)', type : 'feature'", options)
variants = re.findall(r'variant\("([^"]+)"', package)
passed = re.search(r'for v in \(([^)]*)\)', package)
passed = re.findall(r'"([^"]+)"', passed.group(1)) if passed else []
bad = [f for f in features if f not in variants or f not in passed]
bad += ["variant %s is no Meson feature option" % v for v in variants if v not in features]
for b in bad:
    print("FAIL: the Spack package does not handle the Meson feature option: %s" % b)
print("spack package: %s (%d feature options)" % ("FAILED" if bad else "passed", len(features)))
sys.exit(1 if bad else 0)
