#!/usr/bin/env python3
"""Checks docs/reliability.md against the tests that prove it.

usage: check_reliability_doc.py CTEST BUILD_DIR DOC

Every row of the doc's tables names the tests that prove it (last column, in backticks).
For each row:
  - every test it names must exist in this build's CTest list;
  - where the test is a CLI test (cmake/ExpectExit.cmake), the row's exit column must be the
    test's expected exit status, and the row's message must match the test's regex: the doc
    shows what the test demands, not what someone remembered.
And every CLI test that expects a failure (non-zero exit) must be named by some row: a new
class of bad input is not tested without being documented.
"""
import json
import re
import subprocess
import sys


def cli_expectations(ctest, build_dir):
    listing = subprocess.run([ctest, "--show-only=json-v1"], cwd=build_dir, check=True,
                             capture_output=True, text=True).stdout
    tests = {}
    for test in json.loads(listing)["tests"]:
        command = test.get("command") or []
        expectation = None
        if any(word.endswith("ExpectExit.cmake") for word in command):
            expectation = {}
            for word in command:
                for key in ("EXPECT_EXIT", "EXPECT_REGEX"):
                    if word.startswith("-D" + key + "="):
                        expectation[key] = word[len(key) + 3:]
        # gtest_discover_tests names a parameterised case "Suite.Case/Param  # GetParam() = ...".
        tests[test["name"].split("  #")[0]] = expectation
    return tests


def cells(line):
    # A row's cells, split on '|' that is not escaped as '\|'.
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [part.strip().replace("\\|", "|") for part in parts]


def doc_rows(path):
    rows = []
    with open(path, encoding="utf-8") as doc:
        for number, line in enumerate(doc, 1):
            if not line.startswith("|") or re.match(r"^\|[\s:|-]+\|\s*$", line):
                continue
            row = cells(line)
            if len(row) < 6 or row[0].lower() == "what":
                continue
            rows.append((number, row))
    return rows


def message_text(cell):
    # `code` spans joined, <br> as a line break: the output as a person would see it.
    spans = re.findall(r"`([^`]*)`", cell)
    text = "\n".join(spans) if spans else cell
    # Each message is a whole line of output, so it ends with a newline as the output does.
    return text.replace("<br>", "\n") + "\n"


def main():
    ctest, build_dir, doc = sys.argv[1:4]
    tests = cli_expectations(ctest, build_dir)
    problems = []
    documented = set()
    for number, row in doc_rows(doc):
        message, exit_cell, test_cell = row[2], row[3], row[-1]
        names = re.findall(r"`([^`]+)`", test_cell)
        if not names:
            problems.append(f"{doc}:{number}: the row names no test")
        for name in names:
            documented.add(name)
            if name not in tests:
                problems.append(f"{doc}:{number}: no test named '{name}' in this build")
                continue
            expectation = tests[name]
            if not expectation:
                continue
            if exit_cell.strip("` ") != expectation.get("EXPECT_EXIT"):
                problems.append(f"{doc}:{number}: exit {exit_cell} but {name} expects "
                                f"{expectation.get('EXPECT_EXIT')}")
            regex = expectation.get("EXPECT_REGEX", "")
            if not re.search(regex, message_text(message)):
                problems.append(f"{doc}:{number}: the message does not match {name}'s regex "
                                f"{regex!r}")
    for name, expectation in sorted(tests.items()):
        if expectation and expectation.get("EXPECT_EXIT", "0") != "0" and name not in documented:
            problems.append(f"{doc}: the failing-input test '{name}' is not in any row")
    for problem in problems:
        print(problem)
    print(f"{len(documented)} tests named in {doc}; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
