#!/usr/bin/env python3
"""Fails when a source file under launcher/ or workloads/ is over its bound (issue 28 point 5).

A file over the bound is one that does several things: split it by concept, as report/json.cpp
is split into report/attribution_json/ a section per file. Functions have their own bound,
checked by clang-tidy's readability-function-size (.clang-tidy, LineThreshold 80).

C, C++ and shell sources are measured; generated files (config.h, the USDT probes.h) are written
to the build tree, which this never reads.

Usage: check_file_sizes.py SOURCE_DIR [MAX_LINES]
Prints PATH:LINE: N lines (bound MAX_LINES) for each file over the bound, LINE being the first
line past it; exits 1 if there is any, 0 otherwise.
"""
import os
import sys

ROOTS = ("launcher", "workloads")
SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp", ".sh")
DEFAULT_MAX_LINES = 400


def sources(source_dir):
    for root in ROOTS:
        for directory, subdirs, files in os.walk(os.path.join(source_dir, root)):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith(SUFFIXES):
                    yield os.path.join(directory, name)


def line_count(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    source_dir = sys.argv[1]
    max_lines = int(sys.argv[2]) if len(sys.argv) == 3 else DEFAULT_MAX_LINES
    over = []
    checked = 0
    for path in sources(source_dir):
        checked += 1
        lines = line_count(path)
        if lines > max_lines:
            over.append((os.path.relpath(path, source_dir), lines))
    for path, lines in over:
        print(f"{path}:{max_lines + 1}: {lines} lines (bound {max_lines})")
    print(f"{len(over)} of {checked} files over {max_lines} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
