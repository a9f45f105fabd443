#!/usr/bin/env python3
"""Holds docs/exit-status.md to the built iotap and to the code.

usage: check_exit_status_doc.py IOTAP SOURCE_DIR

- Exit statuses: the first column of the table under "## Exit statuses" must be exactly the
  statuses `iotap --help` lists under "exit status:" (0, N, 1, 2, ...).
- Environment variables: the first column of the table under "## Environment variables" must
  name exactly the variables launcher/ reads with getenv("NAME") (C and C++ sources).
"""
import os
import re
import subprocess
import sys

from doc_check import finish, is_rule

DOC = "docs/exit-status.md"


def table(text, heading):
    """[(line number, first cell)] of the first table under `heading`."""
    rows, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            if inside and rows:
                break
            inside = line.strip() == heading
            continue
        if not inside or not line.startswith("|") or is_rule(line):
            if inside and rows and not line.startswith("|"):
                break
            continue
        rows.append((number, line.strip().strip("|").split("|")[0].strip()))
    return rows[1:]  # the header row


def help_statuses(iotap):
    text = subprocess.run([iotap, "--help"], capture_output=True, text=True, check=True).stdout
    statuses, inside = [], False
    for line in text.splitlines():
        if line.startswith("exit status:"):
            inside = True
        elif inside:
            match = re.match(r"^  (\S+)\s", line)
            if match:
                statuses.append(match.group(1))
    if not statuses:
        sys.exit("iotap --help has no 'exit status:' list")
    return statuses


def getenv_names(source):
    names = {}
    for root, _, files in os.walk(os.path.join(source, "launcher")):
        for name in files:
            if not name.endswith((".cpp", ".h", ".c")):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as code:
                for variable in re.findall(r"getenv\(\s*\"([A-Za-z_][A-Za-z0-9_]*)\"", code.read()):
                    names.setdefault(variable, os.path.relpath(path, source))
    return names


def main():
    iotap, source = sys.argv[1], sys.argv[2]
    with open(os.path.join(source, DOC), encoding="utf-8") as doc:
        text = doc.read()
    problems = []

    statuses = help_statuses(iotap)
    rows = table(text, "## Exit statuses")
    documented = [cell for _, cell in rows]
    for status in statuses:
        if status not in documented:
            problems.append(f"{DOC}: iotap --help lists exit status {status}; the table has no "
                            f"row '| {status} | ... |'")
    for number, cell in rows:
        if cell not in statuses:
            problems.append(f"{DOC}:{number}: exit status '{cell}' is not in iotap --help's "
                            f"list ({', '.join(statuses)})")

    read = getenv_names(source)
    rows = table(text, "## Environment variables")
    named = {}
    for number, cell in rows:
        for variable in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cell):
            named[variable] = number
    for variable, path in sorted(read.items()):
        if variable not in named:
            problems.append(f"{DOC}: {path} reads {variable} (getenv); the table of environment "
                            f"variables has no row for it")
    for variable, number in sorted(named.items()):
        if variable not in read:
            problems.append(f"{DOC}:{number}: {variable} is read by no getenv in launcher/: "
                            "remove it, or say where it is read")

    return finish(problems, None, f"{DOC}: {len(statuses)} exit statuses and {len(read)} "
                                  "environment variables agree with iotap --help and launcher/'s "
                                  "getenv calls")

if __name__ == "__main__":
    sys.exit(main())
