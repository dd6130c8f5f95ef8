"""bench_sparse run one suite case at a time, for the scripts that put our times beside another's.

run(command, timeout) -> (CompletedProcess or None, problem): a program run with a time limit.
our_times(build, graph, features, ops, timeout) -> ({(op, F): {ours, chosen, cusparse}}, held_out): our
    rows of `bench_sparse --suite-only --graph GRAPH` (auto, the measured choice, and the best of
    cuSPARSE's algorithms in the same call), read from the line bench_sparse prints as each row is measured.
suite_cases(build, filters) -> [(name, held_out)]: the suite's cases (`bench_sparse --list`) whose name
    contains one of the filters (all of them without filters), in the suite's order.
"""
import os
import re
import subprocess


def run(command, timeout):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    return done, None


OURS = re.compile(r"^(?P<graph>.*) F=(?P<f>\d+) (?P<op>SpMM|SDDMM): ours (?P<ours>[0-9.]+) ms \((?P<chosen>[^)]*\)?)\), "
                  r"best cuSPARSE (?P<cusparse>[0-9.]+) ms")


def our_times(build, graph, features, ops, timeout):
    """Our rows of bench_sparse for this graph, only at these widths and ops (the peer's), and whether it is held out."""
    command = [os.path.join(build, "bench", "bench_sparse"), "--suite-only", "--graph", graph,
               "--widths", ",".join(str(f) for f in features)]
    if "sddmm" not in ops:
        command.append("--spmm-only")
    elif "spmm" not in ops:
        command.append("--sddmm-only")
    done, problem = run(command, timeout)
    if done is None:
        raise RuntimeError(f"bench_sparse --graph '{graph}': {problem}")
    if done.returncode != 0:
        raise RuntimeError(f"bench_sparse --graph '{graph}' failed: {done.stderr.strip()[-500:]}")
    rows = {}
    for line in done.stderr.splitlines() + done.stdout.splitlines():
        match = OURS.match(line.strip())
        if match and match.group("graph") == graph:
            rows[(match.group("op").lower(), int(match.group("f")))] = {
                "ours": float(match.group("ours")), "chosen": match.group("chosen"),
                "cusparse": float(match.group("cusparse"))}
    # bench_sparse's table lists the held-out cases after this heading.
    held_out_table = done.stdout.split("## held out", 1)[1] if "## held out" in done.stdout else ""
    return rows, f"| {graph} |" in held_out_table


def suite_cases(build, filters):
    """The suite's cases in its order, as (name, held_out), kept when a filter is in the name (or no filter)."""
    done = subprocess.run([os.path.join(build, "bench", "bench_sparse"), "--list"], capture_output=True, text=True,
                          check=True)
    cases = []
    for line in done.stdout.splitlines():
        kind, name = line.split("\t", 1)
        if not filters or any(f in name for f in filters):
            cases.append((name, kind == "held-out"))
    return cases
