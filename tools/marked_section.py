"""A generated section of a Markdown file, between a begin and an end marker line.

tools/algorithms_table.py and tools/measured_tables.py each keep one such section in
collectives/algorithms/README.md; both read and rewrite it through these two functions.
"""


def split(text, begin, end, tool, path):
    """(head, section, tail) of `text` around the markers; exits naming `path` and the markers when one is missing."""
    if begin not in text or end not in text:
        raise SystemExit(f"{tool}: {path} lacks the marker lines:\n{begin}\n{end}")
    head, rest = text.split(begin, 1)
    section, tail = rest.split(end, 1)
    return head, section, tail


def replace(path, begin, end, section, tool):
    """Rewrites the section of the file at `path` with `section` (which ends with a newline)."""
    with open(path, encoding="utf-8") as f:
        head, _, tail = split(f.read(), begin, end, tool, path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + begin + "\n" + section + end + tail)
