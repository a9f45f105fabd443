#!/usr/bin/env python3
"""Holds the verbs and --stack kinds the docs name to what the built iotap's --help lists.

usage: check_help_names.py IOTAP SOURCE_DIR

Verbs: `iotap --help` lists them under "verbs:". Every `iotap VERB` written as code (in a code
block or a `code span`) in README.md, docs/verbs.md and docs/stack-grammar.md must be one of
them, and each of them must have a row in docs/verbs.md's table.

Kinds: the verb whose --help documents --stack lists them in its "--stack SPEC grammar:" lines.
docs/stack-grammar.md's table of kinds (under "## Kinds") must name exactly those, and every
spec the docs write as code (after --stack, or a code span or example line that reads as a spec)
must use only those kinds (and `missing`, the empty raid5 slot, where that help names it).
"""
import re
import subprocess
import sys

from doc_check import finish, is_rule

DOCS = ["README.md", "docs/verbs.md", "docs/stack-grammar.md"]
SPEC_CHARS = re.compile(r"^[A-Za-z0-9_.,:*=()\s]+$")


def help_text(iotap, *args):
    done = subprocess.run([iotap, *args, "--help"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{iotap} {' '.join(args)} --help exited {done.returncode}: {done.stderr}")
    return done.stdout


def help_verbs(text):
    verbs, inside = [], False
    for line in text.splitlines():
        if line.strip() == "verbs:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            verbs.append(line.split()[0])
    if not verbs:
        sys.exit("iotap --help lists no verbs under 'verbs:'")
    return verbs


def help_kinds(iotap, verbs):
    """The kinds of the first verb whose --help has the grammar, and that verb."""
    for verb in verbs:
        text = help_text(iotap, verb)
        lines = text.splitlines()
        for at, line in enumerate(lines):
            if not line.startswith("--stack SPEC grammar:"):
                continue
            sentence = line[len("--stack SPEC grammar:"):]
            for more in lines[at + 1:]:
                if "(disks)" in sentence:
                    break
                sentence += " " + more
            sentence = sentence[:sentence.index("(disks)")] if "(disks)" in sentence else sentence
            kinds = re.findall(r"[a-z][a-z0-9]*", re.sub(r"\([a-z]+\)", " ", sentence))
            slots = {"missing"} if "'missing'" in text else set()
            return verb, kinds, slots
    sys.exit("no verb's --help lists the --stack kinds (a line starting '--stack SPEC grammar:')")


def code_parts(text):
    """(line number, code, fenced) for each line of a code block and each `code span` elsewhere
    (a span may run over a line break, as Markdown allows)."""
    parts, fenced, prose = [], False, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            prose.append("")
            continue
        if fenced:
            parts.append((number, line, True))
            prose.append("")
        else:
            prose.append(line)
    joined = "\n".join(prose)
    for match in re.finditer(r"`([^`]+)`", joined):
        number = joined.count("\n", 0, match.start()) + 1
        parts.append((number, match.group(1).replace("\n", " "), False))
    return parts


def named_verbs(text):
    found = []
    for number, code, _ in code_parts(text):
        # A command: iotap (or a path to it) first, or inside $(...); not "... iotap knows".
        for match in re.finditer(r"(?:^\s*(?:\S*/)?|\$\()iotap ([a-z][a-z0-9-]*)", code):
            found.append((number, match.group(1)))
    return found


def looks_like_spec(code):
    code = code.strip()
    if not code or not SPEC_CHARS.match(code) or not re.match(r"^[a-z]", code):
        return False
    if "()" in code or re.search(r"[A-Za-z]\.[A-Za-z]", code):
        return False  # kernel.function(), module().function(): SystemTap, not a spec
    return "(" in code or re.search(r"[*:]\d", code) is not None


def spec_kinds(spec):
    """The lower-case words of a spec that stand for devices (not option keys or values)."""
    words = []
    for match in re.finditer(r"[A-Za-z0-9_.]+", spec):
        word = match.group(0)
        after = spec[match.end():].lstrip()
        if re.match(r"^[a-z]", word) and not after.startswith("="):
            words.append(word)
    return words


def named_specs(text, example_lines):
    specs = []
    for number, code, fenced in code_parts(text):
        for match in re.finditer(r"--stack[ =](?:'([^']*)'|\"([^\"]*)\"|(\S+))", code):
            spec = next(group for group in match.groups() if group is not None)
            if spec != "SPEC":
                specs.append((number, spec))
        if fenced and example_lines:
            # An example block: the spec, then two blanks and what it is.
            head = re.split(r"\s{2,}", code.strip())[0]
            if looks_like_spec(head):
                specs.append((number, head))
        elif not fenced and looks_like_spec(code):
            specs.append((number, code))
    return specs


def kinds_table(text):
    rows, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("## "):
            inside = line.strip() == "## Kinds"
            continue
        if inside and line.startswith("|") and not is_rule(line):
            first = line.strip().strip("|").split("|")[0].strip()
            if first.lower() != "kind":
                rows.append((number, first.strip("`")))
        elif inside and rows and not line.startswith("|"):
            break
    return rows


def verbs_table(text):
    names = set()
    for line in text.splitlines():
        match = re.match(r"^\|\s*`iotap ([a-z][a-z0-9-]*)", line)
        if match:
            names.add(match.group(1))
    return names


def main():
    iotap, source = sys.argv[1], sys.argv[2]
    texts = {}
    for doc in DOCS:
        with open(f"{source}/{doc}", encoding="utf-8") as handle:
            texts[doc] = handle.read()
    problems = []

    verbs = help_verbs(help_text(iotap))
    for doc, text in texts.items():
        for number, verb in named_verbs(text):
            if verb not in verbs:
                problems.append(f"{doc}:{number}: 'iotap {verb}': iotap --help lists no verb "
                                f"'{verb}' (it lists {', '.join(verbs)})")
    tabled = verbs_table(texts["docs/verbs.md"])
    for verb in verbs:
        if verb not in tabled:
            problems.append(f"docs/verbs.md: iotap --help lists '{verb}', the verbs table has no "
                            f"row for it: add | `iotap {verb} ...` | what it does |")

    verb, kinds, slots = help_kinds(iotap, verbs)
    table = kinds_table(texts["docs/stack-grammar.md"])
    if not table:
        problems.append("docs/stack-grammar.md: no table of kinds under '## Kinds'")
    for number, kind in table:
        if kind not in kinds:
            problems.append(f"docs/stack-grammar.md:{number}: kind '{kind}' is not among "
                            f"'iotap {verb} --help''s kinds ({', '.join(kinds)})")
    for kind in kinds:
        if kind not in {name for _, name in table}:
            problems.append(f"docs/stack-grammar.md: 'iotap {verb} --help' lists kind '{kind}', "
                            "the table of kinds has no row for it")
    for doc, text in texts.items():
        for number, spec in named_specs(text, doc == "docs/stack-grammar.md"):
            for word in spec_kinds(spec):
                if word not in kinds and word not in slots:
                    problems.append(f"{doc}:{number}: '{spec}' uses '{word}', which "
                                    f"'iotap {verb} --help' does not list as a kind")

    return finish(problems, "the docs and iotap's --help disagree:",
                  f"{len(verbs)} verbs and {len(kinds)} --stack kinds (from 'iotap {verb} --help') "
                  f"agree with {', '.join(DOCS)}")

if __name__ == "__main__":
    sys.exit(main())
