"""What the checks of tests/docs share: Markdown table rows, and how a check ends."""
import re


def is_rule(line):
    """A table's |---|---| line."""
    return re.match(r"^\|[\s:|-]+\|\s*$", line) is not None


def cells(line):
    """A row's cells, split on '|' that is not escaped as '\\|'."""
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [part.strip().replace("\\|", "|") for part in parts]


def finish(problems, heading, success):
    """Prints the problems under `heading` (exit status 1), or the one line of `success` (0)."""
    if problems:
        if heading:
            print(heading)
        print("\n".join(problems))
        return 1
    print(success)
    return 0
