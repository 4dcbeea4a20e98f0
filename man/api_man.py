#!/usr/bin/env python3
"""Runs doxygen on a Doxyfile that writes section 3 pages (MAN_SUBDIR man3, MAN_LINKS) and XML,
and keeps only the library's pages: its groups (libpgdds_*), pgdds.h, and one link page per
function, type and constant of the API (pgdds_*, PGDDS_*), which sources the page of the
member's group (doxygen's sources pgdds.h.3, the whole header). Doxygen also writes link pages
for struct fields and anonymous enums ("capacity.3", "@0.3"), names that are not ours to install.
usage: api_man.py DOXYGEN DOXYFILE MAN3DIR XMLDIR"""
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

OURS = re.compile(r"^(libpgdds_\w+|pgdds\.h|pgdds_\w+|PGDDS_\w+)\.3$")
NOT_API = {"PGDDS_API.3", "PGDDS_H.3"}


def main():
    doxygen, doxyfile, man3, xmldir = sys.argv[1:5]
    for d in (man3, xmldir):
        shutil.rmtree(d, ignore_errors=True)   # no page of a removed function survives
    subprocess.run([doxygen, doxyfile], check=True)
    for name in os.listdir(man3):
        if not OURS.match(name) or name in NOT_API:
            os.remove(os.path.join(man3, name))
    for group in ET.parse(os.path.join(xmldir, "index.xml")).getroot().iter("compound"):
        if group.get("kind") != "group":
            continue
        for member in group.iter("member"):
            page = os.path.join(man3, member.findtext("name") + ".3")
            if os.path.isfile(page):
                with open(page, "w") as f:
                    f.write(f".so man3/{group.findtext('name')}.3\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
