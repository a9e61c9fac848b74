"""Reading a benchmark's --json file (nccl-tests' JSON layout, with or without kcoll's fields), for tools/plot and
tools/busbw_table."""
import json
import sys


def load(path, tool):
    """The parsed file; exits with a message naming `tool` when it is not a benchmark JSON file."""
    with open(path) as f:
        doc = json.load(f)
    if "results" not in doc:
        sys.exit(f"{tool}: {path} has no 'results' (not a benchmark JSON file)")
    return doc


def busbw(result, half, stat, tool):
    """busbw of one result's `half` ("out_of_place" or "in_place"): the table's (mean time) for stat "mean", else that
    of the p50 or min iteration of a run made with -I 1. None when the result has no busbw."""
    m = result.get(half)
    if not m or m.get("bus_bw") is None:
        return None
    if stat == "mean":
        return m["bus_bw"]
    per_iter = result.get(half + "_per_iter")
    if not per_iter:
        sys.exit(f"{tool}: --stat {stat} needs a run with -I 1 (per-iteration times)")
    t = per_iter[f"{stat}_us"]
    return m["bus_bw"] * m["time"] / t if t > 0 else 0.0


# Rows that are not kcoll's algorithms: the peers, and the benchmark's reference rows (--algo floor, --algo copy).
PEER_PREFIXES = ("MPI_", "gloo", "nccl", "latency_floor", "peer_copy")


def parse_size(text, tool):
    """Bytes of a size such as 4K, 1M, 64MiB or 65536; exits naming `tool` when `text` is not one."""
    cleaned = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(cleaned[-1:], 1)
    digits = cleaned[:-1] if scale > 1 else cleaned
    try:
        return int(float(digits) * scale)
    except ValueError:
        sys.exit(f"{tool}: --sizes: '{text}' is not a size (e.g. 4K, 1M, 65536)")


def size_label(b):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale} {unit}iB"
    return f"{b} B"


def busbw_rows(doc, half, stat, tool, collective="all_reduce", dtype="float", op="sum"):
    """{implementation: {size: busbw}} of one half ("out_of_place" or "in_place"), in the file's order."""
    rows = {}
    for r in doc["results"]:
        if r.get("collective", collective) != collective or r.get("type") != dtype:
            continue
        if r.get("redop") not in (op, "none"):
            continue
        bw = busbw(r, half, stat, tool)
        if bw is not None:
            rows.setdefault(r.get("algorithm", "?"), {})[r["size"]] = bw
    return rows


def markdown_table(rows_by_half, sizes, column_label):
    """Lines of a Markdown table: one row per implementation, one column per (size, half) of `rows_by_half`
    ({half: busbw_rows(...)}), headed by column_label(size, half). Each cell is the busbw in GB/s and, when the
    vendor MPI has a row at that size and half, the ratio to it; the fastest kcoll implementation of a column is in
    bold."""
    names = []
    for rows in rows_by_half.values():
        names += [name for name in rows if name not in names]
    columns = [(size, half) for size in sizes for half in rows_by_half]
    mpi = {half: next((row for name, row in rows.items() if name.startswith("MPI_")), {})
           for half, rows in rows_by_half.items()}
    best = {}
    for size, half in columns:
        kcoll = [(row.get(size, 0), name) for name, row in rows_by_half[half].items()
                 if not name.startswith(PEER_PREFIXES)]
        if kcoll:
            best[(size, half)] = max(kcoll)[1]
    lines = ["| implementation | " + " | ".join(column_label(s, h) for s, h in columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for name in names:
        cells = []
        for size, half in columns:
            bw = rows_by_half[half].get(name, {}).get(size)
            if bw is None:
                cells.append("-")
                continue
            cell = f"{bw:.2f}"
            reference = mpi[half].get(size)
            if reference and not name.startswith(PEER_PREFIXES):
                cell += f" ({bw / reference:.2f}x)"
            cells.append(f"**{cell}**" if best.get((size, half)) == name else cell)
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return lines
