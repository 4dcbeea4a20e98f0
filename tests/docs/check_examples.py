#!/usr/bin/env python3
"""The example programs the documents show are the ones the tests build and run: every code block
that follows a `<!-- example: PATH -->` line in a document is exactly the file PATH (relative to
the source root), and each document given shows at least one.

usage: check_examples.py SOURCE_ROOT DOCUMENT...
"""
import os
import re
import sys

BLOCK = re.compile(r"<!-- example: (\S+) -->\n```\w*\n(.*?)```\n", re.S)


def main():
    root, docs = sys.argv[1], sys.argv[2:]
    problems = []
    for doc in docs:
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        blocks = BLOCK.findall(text)
        if not blocks:
            problems.append(f"{doc} shows no example program")
        for path, shown in blocks:
            try:
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    actual = f.read()
            except OSError as e:
                problems.append(f"{doc}: {path}: {e.strerror}")
                continue
            if shown != actual:
                problems.append(f"{doc} shows a {path} that differs from the file")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
