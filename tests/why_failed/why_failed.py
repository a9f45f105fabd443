#!/usr/bin/env python3
"""Prints why each failed test failed, from the JUnit file ctest writes (--output-junit).

For each failed test: gtest's failure messages (the "file:line: Failure" line and what follows
it), the runtime cases' FAILED lines and SystemTap's overhead line (its skipped probe hits explain
many a missing event); for a test that printed none of those (a script, a lint), its last 10
lines. test.sh prints this after a failing run, last, so that a log kept only in its head and
tail still says why.

The JUnit file, not ctest's Testing/Temporary/LastTest.log: tests that run ctest themselves
(check_reliability_doc.py lists the tests) write that log over the one of the run they are in.

    why_failed.py build/Testing/junit.xml
"""
import sys
import xml.etree.ElementTree as ElementTree

MAX_LINES = 40
TAIL_LINES = 10
FOLLOWING_LINES = 8


def why(output):
    kept = []
    follow = 0
    for line in output.splitlines():
        if follow:
            if line == "" or line.startswith("["):
                follow = 0
            else:
                kept.append(line)
                follow -= 1
                continue
        if line.endswith(": Failure"):
            kept.append(line)
            follow = FOLLOWING_LINES
        elif line.startswith("FAILED ") or ("overhead: " in line and " skipped" in line):
            kept.append(line)
    unique = list(dict.fromkeys(kept))
    return unique[:MAX_LINES] if unique else output.splitlines()[-TAIL_LINES:]


def main():
    try:
        suite = ElementTree.parse(sys.argv[1]).getroot()
    except (OSError, ElementTree.ParseError) as error:
        print(f"why_failed.py: cannot read {sys.argv[1]}: {error}")
        return 1
    for case in suite.iter("testcase"):
        if case.get("status") != "fail":
            continue
        print(f"--- {case.get('name')}")
        for line in why(case.findtext("system-out") or ""):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
