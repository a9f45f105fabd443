#!/usr/bin/env python3
"""Checks docs/architecture.md's map of launcher/ against the CMake files that build it.

usage: check_architecture_map.py SOURCE_DIR [DOC]

The map is the first table under "## The map": one row per library, bottom up, with the
columns folder | library | links PUBLIC | links PRIVATE | owns. The libraries are read from
every launcher/**/CMakeLists.txt: iotap_library(NAME ... PUBLIC ... PRIVATE ...) calls
(cmake/IotapLibrary.cmake), add_library() and add_executable() with target_link_libraries();
the <NAME>_internals helpers that iotap_library makes for tests are not libraries of their own.
Fails, saying which row to write, when
  - a folder of launcher/ with a CMakeLists.txt has no row, or a library no row;
  - a row names a library or a folder that is gone, or the library's folder is another;
  - a row's links are not the library's link line (PUBLIC and PRIVATE apart);
  - a row links a library of the map whose row comes after it (the map is bottom up).
"""
import os
import re
import sys

from doc_check import cells, finish, is_rule

KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE"}
LIBRARY_KINDS = {"STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE"}


def cmake_calls(text):
    """(command, [arguments]) for each command call, comments and quotes handled."""
    calls = []
    pos = 0
    while True:
        match = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(").search(text, pos)
        if not match:
            return calls
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "#" in text[line_start:match.start()]:
            pos = text.find("\n", match.start()) + 1 or len(text)
            continue
        args, word, depth, at = [], "", 1, match.end()
        quoted = False
        while at < len(text) and depth > 0:
            char = text[at]
            if quoted:
                word += char
                quoted = char != '"'
            elif char == '"':
                word += char
                quoted = True
            elif char == "#":
                at = text.find("\n", at)
                if at < 0:
                    break
                continue
            elif char == "(":
                depth += 1
                word += char
            elif char == ")":
                depth -= 1
                if depth > 0:
                    word += char
            elif char.isspace():
                if word:
                    args.append(word)
                word = ""
            else:
                word += char
            at += 1
        if word:
            args.append(word)
        calls.append((match.group(1).lower(), args))
        pos = at


def split_links(words):
    links = {"PUBLIC": [], "PRIVATE": []}
    keyword = "PUBLIC"  # the plain signature passes links on, as PUBLIC does
    for word in words:
        if word in KEYWORDS:
            keyword = "PUBLIC" if word == "INTERFACE" else word
        else:
            links[keyword].append(word)
    return links


def libraries_in(source_dir):
    """{library: {"folder", "PUBLIC", "PRIVATE"}}, and the set of folders with a CMakeLists.txt."""
    libraries, folders = {}, set()
    launcher = os.path.join(source_dir, "launcher")
    for root, dirs, files in os.walk(launcher):
        dirs.sort()
        if "CMakeLists.txt" not in files:
            continue
        folder = "launcher/" + os.path.relpath(root, launcher).replace(os.sep, "/") + "/"
        folder = folder.replace("launcher/./", "launcher/")
        folders.add(folder)
        with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as cmake:
            calls = cmake_calls(cmake.read())
        for command, args in calls:
            if not args:
                continue
            name = args[0]
            if command == "iotap_library":
                sections = {"SOURCES": [], "PUBLIC": [], "PRIVATE": []}
                section = "SOURCES"
                for word in args[1:]:
                    if word in sections:
                        section = word
                    else:
                        sections[section].append(word)
                libraries[name] = {"folder": folder, "PUBLIC": sections["PUBLIC"],
                                   "PRIVATE": sections["PRIVATE"]}
            elif command in ("add_library", "add_executable"):
                if name.endswith("_internals") or "ALIAS" in args or "IMPORTED" in args:
                    continue
                libraries[name] = {"folder": folder, "PUBLIC": [], "PRIVATE": []}
            elif command == "target_link_libraries" and name in libraries:
                links = split_links(args[1:])
                libraries[name]["PUBLIC"] += links["PUBLIC"]
                libraries[name]["PRIVATE"] += links["PRIVATE"]
    return libraries, folders


def code_words(cell):
    return re.findall(r"`([^`]+)`", cell)


def map_rows(doc):
    """[(line number, {column: cell})] of the first table under '## The map'."""
    rows, header, in_section = [], None, False
    with open(doc, encoding="utf-8") as text:
        for number, line in enumerate(text, 1):
            if line.startswith("## "):
                if in_section and header:
                    break
                in_section = line.strip() == "## The map"
                continue
            if not in_section:
                continue
            if not line.startswith("|"):
                if header:
                    break
                continue
            if is_rule(line):
                continue
            row = cells(line)
            if header is None:
                header = [cell.lower() for cell in row]
                continue
            rows.append((number, dict(zip(header, row))))
    if header is None:
        sys.exit(f"{doc}: no table under '## The map'")
    wanted = ["folder", "library", "links public", "links private", "owns"]
    if header != wanted:
        sys.exit(f"{doc}: the map's columns are {header}, expected {wanted}")
    return rows


def link_cell(names):
    return ", ".join(f"`{name}`" for name in names) if names else "none"


def row_text(library, info, owns):
    return (f"| `{info['folder']}` | `{library}` | {link_cell(info['PUBLIC'])} | "
            f"{link_cell(info['PRIVATE'])} | {owns} |")


def main():
    source_dir = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else os.path.join(source_dir, "docs/architecture.md")
    libraries, folders = libraries_in(source_dir)
    rows = map_rows(doc)
    problems = []
    position, mapped_folders = {}, set()
    for index, (number, row) in enumerate(rows):
        names = code_words(row.get("library", ""))
        folder_words = code_words(row.get("folder", ""))
        if len(names) != 1 or len(folder_words) != 1:
            problems.append(f"{doc}:{number}: a row names one `folder/` and one `library`")
            continue
        name, folder = names[0], folder_words[0]
        mapped_folders.add(folder)
        if name in position:
            problems.append(f"{doc}:{number}: `{name}` has a second row; remove it")
            continue
        position[name] = index
        if name not in libraries:
            gone = folder not in folders
            problems.append(f"{doc}:{number}: `{name}` is not built by any launcher/**/"
                            f"CMakeLists.txt{' (and ' + folder + ' has none)' if gone else ''}: "
                            "remove its row")
            continue
        info = libraries[name]
        want = row_text(name, info, row.get("owns", ""))
        if folder != info["folder"]:
            problems.append(f"{doc}:{number}: `{name}` is built in {info['folder']}, not "
                            f"{folder}; write:\n  {want}")
            continue
        for keyword in ("PUBLIC", "PRIVATE"):
            doc_links = code_words(row.get("links " + keyword.lower(), ""))
            if sorted(doc_links) == sorted(info[keyword]):
                continue
            extra = sorted(set(info[keyword]) - set(doc_links))
            missing = sorted(set(doc_links) - set(info[keyword]))
            said = []
            if extra:
                said.append("links " + ", ".join(extra) + " " + keyword + " (the map does not say)")
            if missing:
                said.append("does not link " + ", ".join(missing) + " " + keyword +
                            " (the map says it does)")
            problems.append(f"{doc}:{number}: `{name}` " + "; ".join(said) +
                            f"; write:\n  {want}")
    for name, info in sorted(libraries.items(), key=lambda item: item[1]["folder"]):
        if name not in position:
            problems.append(f"{doc}: `{name}` ({info['folder']}) has no row in the map; add, "
                            "below every library it links:\n  " +
                            row_text(name, info, "WHAT IT OWNS"))
    for folder in sorted(folders - mapped_folders):
        if not any(info["folder"] == folder for info in libraries.values()):
            problems.append(f"{doc}: {folder} has a CMakeLists.txt but builds no library the "
                            "map could name: give it a row, or fold it into its parent")
    for name, index in position.items():
        if name not in libraries:
            continue
        info = libraries[name]
        for link in info["PUBLIC"] + info["PRIVATE"]:
            if link in position and position[link] > index:
                problems.append(f"{doc}: `{name}` links `{link}`, whose row comes after "
                                f"`{name}`'s: the map lists libraries bottom up; move "
                                f"`{link}`'s row above")
    return finish(problems, "docs/architecture.md's map and launcher/'s CMake link lines disagree:",
                  f"{doc}: the map's {len(rows)} rows match launcher/'s {len(libraries)} libraries")

if __name__ == "__main__":
    sys.exit(main())
