#!/usr/bin/env python3
"""Checks that no source of a layer includes a header of a layer above it or beside it.

The layers and what each may use are those of src/meson.build; calls are checked there, by
linking each layer alone (--no-undefined). Usage: check_layers.py SRC_DIR
"""
import os
import re
import sys

LAYER_OF_DIR = {
    'base': 'base', 'pmi': 'pmi', 'transport': 'transport', 'core': 'core', 'gpu': 'core',
    'containers': 'structures', 'keytable': 'structures', 'matrix': 'structures', 'shmem': 'shmem',
}
MAY_USE = {
    'base': set(),
    'pmi': {'base'},
    'transport': {'base'},
    'core': {'base', 'pmi', 'transport'},
    'structures': {'base', 'pmi', 'transport', 'core'},
    'shmem': set(),  # over the public C API only (include/)
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(src, path):
    rel = os.path.relpath(path, src).split(os.sep)
    return LAYER_OF_DIR.get(rel[0]) if len(rel) > 1 and not rel[0].startswith('..') else None


def main():
    src = os.path.abspath(sys.argv[1])
    bad = []
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(('.h', '.hpp', '.c', '.cc')):
                continue
            path = os.path.join(root, name)
            mine = layer_of(src, path)
            if mine is None:
                bad.append('%s: in no layer (add its directory to check_layers.py and src/meson.build)' % path)
                continue
            for target in INCLUDE.findall(open(path, encoding='utf-8').read()):
                theirs = layer_of(src, os.path.normpath(os.path.join(root, target)))
                if theirs is not None and theirs != mine and theirs not in MAY_USE[mine]:
                    bad.append('%s (%s) includes %s (%s)' % (os.path.relpath(path, src), mine, target, theirs))
    for line in bad:
        print('layer violation:', line)
    print('%d violation(s)' % len(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
