#!/usr/bin/env python3
"""docs/using.md names every file an installation gives users: each header, module, program,
pkg-config file and CMake file this build installs (from Meson's introspection) must appear in
it as `name`. Shared-library links (libpgdds.so.0, ...) count under their plain name.
usage: check_installed_listed.py BUILDDIR docs/using.md"""
import json
import os
import re
import sys


def main():
    builddir, doc_path = sys.argv[1:3]
    with open(os.path.join(builddir, "meson-info", "intro-installed.json")) as f:
        installed = json.load(f).values()
    doc = open(doc_path).read()
    missing = set()
    for path in installed:
        name = re.sub(r"\.so(\.\d+)*$", ".so", os.path.basename(path))
        if f"`{name}`" not in doc:
            missing.add(name)
    if missing:
        raise SystemExit(f"{doc_path} does not list: {', '.join(sorted(missing))}")
    print(f"{doc_path} lists all {len(installed)} installed files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
