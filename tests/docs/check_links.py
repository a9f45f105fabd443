#!/usr/bin/env python3
"""Checks the README's shape and every relative link of README.md and docs/*.md.

usage: check_links.py SOURCE_DIR

- Every [text](target) that is not a URL must name a file of the tree, and its #anchor, when it
  has one, a heading of that file (as GitHub makes anchors: lower case, punctuation dropped,
  blanks as '-').
- Every path of the tree a `code span` names (launcher/..., tests/..., a top-level folder of the
  tree first) exists: a file moved or renamed is a doc to update. Placeholders (`examples/X.stp`,
  `include/iotap/<folder>/`) are not paths.
- No line of the README's prose (outside code blocks) is longer than 100 characters: the
  README starts small, and long reference rows belong in docs/.
"""
import glob
import os
import re
import sys

from doc_check import finish

README_WIDTH = 100


def prose_lines(path):
    """(line number, line) for each line outside code blocks (and not their ``` fences)."""
    fenced = False
    with open(path, encoding="utf-8") as text:
        for number, line in enumerate(text, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced:
                yield number, line.rstrip("\n")


def anchors(path):
    found = set()
    for _, line in prose_lines(path):
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            base, n = slug, 1
            while slug in found:
                slug = f"{base}-{n}"
                n += 1
            found.add(slug)
    return found


def links(path):
    for number, line in prose_lines(path):
        prose = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            yield number, target


def named_paths(path, folders):
    """(line number, path) for each path of the tree named in a code span outside code blocks."""
    pattern = re.compile(r"(?<![\w/.$~-])((?:" + "|".join(map(re.escape, folders)) +
                         r")/[\w./-]*)")
    for number, line in prose_lines(path):
        for span in re.findall(r"`([^`]+)`", line):
            for match in pattern.finditer(span):
                named = match.group(1).rstrip(".,:;")
                if re.search(r"(^|/)[A-Z][A-Z_]*(\.|/|$)", named) or \
                        span[match.end():match.end() + 1] in ("<", "*"):
                    continue  # a placeholder: examples/X.stp, workloads/NAME/NAME
                yield number, named


def main():
    source = sys.argv[1]
    problems = []
    docs = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs",
                                                                               "*.md")))
    for doc in docs:
        shown = os.path.relpath(doc, source)
        for number, target in links(doc):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            file_part, _, anchor = target.partition("#")
            path = os.path.normpath(os.path.join(os.path.dirname(doc), file_part)) if file_part \
                else doc
            if not os.path.exists(path):
                problems.append(f"{shown}:{number}: link to '{target}': no file "
                                f"{os.path.relpath(path, source)}")
                continue
            if anchor and path.endswith(".md") and anchor not in anchors(path):
                problems.append(f"{shown}:{number}: link to '{target}': "
                                f"{os.path.relpath(path, source)} has no heading with anchor "
                                f"'#{anchor}'")
    folders = sorted(name for name in os.listdir(source)
                     if os.path.isdir(os.path.join(source, name)) and
                     not name.startswith((".", "build")))
    for doc in docs:
        for number, named in named_paths(doc, folders):
            if not os.path.exists(os.path.join(source, named)):
                problems.append(f"{os.path.relpath(doc, source)}:{number}: `{named}`: no such "
                                "file or folder in the tree (moved? say where it is)")
    for number, line in prose_lines(docs[0]):
        if len(line) > README_WIDTH:
            problems.append(f"README.md:{number}: {len(line)} characters of prose, more than "
                            f"{README_WIDTH}: wrap it, or move the detail to docs/")
    return finish(problems, None, f"links and paths of {len(docs)} documents resolve; "
                                  f"README prose within {README_WIDTH} columns")


if __name__ == "__main__":
    sys.exit(main())
