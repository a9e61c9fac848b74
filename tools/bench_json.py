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
