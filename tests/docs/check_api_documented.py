#!/usr/bin/env python3
"""Every function pgdds.h declares (each PGDDS_API declaration) is documented: doxygen's XML
gives it a brief or detailed description, an @param for each parameter and an @return, and its
section 3 manual page exists and, through the page it sources, shows the function. Doxygen
wrote no warning while making the reference (each WARNLOG given, its WARN_LOGFILE).
usage: check_api_documented.py pgdds.h XMLDIR MAN3DIR [WARNLOG...]"""
import os
import re
import sys
import xml.etree.ElementTree as ET


def declared(header):
    text = re.sub(r"/\*.*?\*/", " ", open(header).read(), flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    return set(re.findall(r"\bPGDDS_API\b[^;{}()]*?\b(pgdds_\w+)\s*\(", text))


def documented(xmldir):
    """name -> (its description's text, parameters without @param, whether it has @return)."""
    docs = {}
    root = ET.parse(os.path.join(xmldir, "pgdds_8h.xml")).getroot()
    for member in root.iter("memberdef"):
        if member.get("kind") == "function":
            text = " ".join(" ".join("".join(member.find(part).itertext()).split())
                            for part in ("briefdescription", "detaileddescription"))
            params = [p.findtext("declname") for p in member.findall("param") if p.findtext("declname")]
            described = {n.text for n in member.iter("parametername")}
            has_return = any(s.get("kind") == "return" for s in member.iter("simplesect"))
            docs[member.findtext("name")] = (text.strip(), [p for p in params if p not in described], has_return)
    return docs


def man_page_text(man3, name):
    path = os.path.join(man3, name + ".3")
    if not os.path.isfile(path):
        return ""
    text = open(path).read()
    source = re.match(r"\.so\s+(\S+)", text)
    if source:   # a link page: man sources the named page, relative to the man directory
        target = os.path.join(os.path.dirname(man3), source.group(1))
        text = open(target).read() if os.path.isfile(target) else ""
    return text


def main():
    header, xmldir, man3 = sys.argv[1:4]
    warnings = "".join(open(log).read() for log in sys.argv[4:] if os.path.isfile(log))
    if warnings.strip():
        raise SystemExit(f"doxygen warned while making the reference:\n{warnings}")
    functions = declared(header)
    if len(functions) < 100:
        raise SystemExit(f"found only {len(functions)} PGDDS_API functions in {header}: the parser is broken")
    docs = documented(xmldir)
    problems = []
    for name in sorted(functions):
        if name not in docs:
            problems.append(f"{name}: doxygen did not see its declaration")
        elif not docs[name][0]:
            problems.append(f"{name}: no documentation comment (/** ... */ before it or /**< ... */ after it)")
        elif docs[name][1]:
            problems.append(f"{name}: no @param for {', '.join(docs[name][1])}")
        elif not docs[name][2]:
            problems.append(f"{name}: no @return")
        elif f"\\fB{name}\\fP" not in man_page_text(man3, name):
            problems.append(f"{name}: no section 3 manual page {name}.3 showing it in {man3}")
    if problems:
        raise SystemExit(f"{header}: undocumented functions:\n  " + "\n  ".join(problems))
    print(f"all {len(functions)} functions of {os.path.basename(header)} are documented and have a manual page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
