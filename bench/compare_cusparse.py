#!/usr/bin/env python3
"""Our SpMM and SDDMM against cuSPARSE over the whole graph-family suite, one case at a time, in one run.

    python3 bench/compare_cusparse.py --build BUILD --out OUT [--widths 128,256] [--graph SUBSTRING]...
                                      [--timeout SECONDS] [--deadline SECONDS] [--resume FILE.jsonl]...

Each suite case (bench/support/bench_suite.hpp; `bench_sparse --list`) runs
as its own `bench_sparse --suite-only --graph NAME --widths W`: ours is auto
(the measured choice, ops/kernel_choices.hpp), cuSPARSE the better of its
default and ALG2 SpMM and its default SDDMM, timed in the same process on the
same GPU. Rows go to OUT/cusparse.jsonl as each case ends, so a call cut short
keeps them; --resume reads such a file from an earlier call and runs only
the cases it lacks (a device call has a time limit; --deadline stops starting
cases after that many seconds). Writes OUT/cusparse.md and the section
spmm-sddmm-cusparse of bench/RESULTS.md (saved as OUT/spmm-sddmm-cusparse.section.md;
--no-results leaves the file alone): per op and set (calibration, held out)
the median of cuSPARSE ÷ ours, the lowest and the count below 1, and each op's
lowest and highest cases; OUT/cusparse.md also has every case at each width.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import results_section  # noqa: E402  (bench/support: writes this run's section of bench/RESULTS.md)
from sparse_bench_runs import our_times, suite_cases  # noqa: E402  (bench/support: bench_sparse one case at a time)

OPS = ("spmm", "sddmm")
OP_NAMES = {"spmm": "SpMM", "sddmm": "SDDMM"}


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            rows += [json.loads(line) for line in handle if line.strip()]
    return rows


def case_rows(name, held_out, times):
    return [{"graph": name, "held_out": held_out, "op": op, "features": features, **values}
            for (op, features), values in sorted(times.items())]


def ratio(row):
    return row["cusparse"] / row["ours"]


def per_case_table(rows, cases, widths):
    """cuSPARSE ÷ ours per case, op and width, and auto's SpMM kernel at the widest width."""
    by_case = {}
    for row in rows:
        by_case.setdefault(row["graph"], {})[(row["op"], row["features"])] = row
    header = ("| graph | set | " + " | ".join(f"{OP_NAMES[op]} F={f}" for op in OPS for f in widths) +
              f" | ours SpMM ms F={widths[-1]} (auto chose) |")
    lines = [header, "|---|---|" + "---:|" * (len(OPS) * len(widths)) + "---|"]
    missing = []
    for name, held_out in cases:
        case = by_case.get(name)
        if not case:
            missing.append(name)
            continue
        cells = [f"{ratio(case[(op, f)]):.2f}" if (op, f) in case else "–" for op in OPS for f in widths]
        widest = case.get(("spmm", widths[-1]))
        chosen = f"{widest['ours']:.4f} ({widest['chosen'].removeprefix('auto ')})" if widest else "–"
        lines.append(f"| {name} | {'held out' if held_out else 'calibration'} | " + " | ".join(cells) +
                     f" | {chosen} |")
    text = "\n".join(lines) + "\n"
    if missing:
        text += "\nNot run (deadline or failure): " + "; ".join(missing) + ".\n"
    return text


def summary(rows, widths):
    """Per op and set: the median, the lowest and the count below 1; then each op's lowest and highest cases."""
    lines = ["| cases | op | rows | median cuSPARSE ÷ ours | lowest (graph, F) | rows below 1.0 |",
             "|---|---|---:|---:|---|---:|"]
    for held_out in (False, True):
        for op in OPS:
            chosen = [r for r in rows if r["held_out"] == held_out and r["op"] == op and r["features"] in widths]
            if not chosen:
                continue
            lowest = min(chosen, key=ratio)
            lines.append(f"| {'held out' if held_out else 'calibration suite'} | {OP_NAMES[op]} | {len(chosen)} | "
                         f"{statistics.median(ratio(r) for r in chosen):.2f} | {ratio(lowest):.2f} "
                         f"({lowest['graph']}, {lowest['features']}) | "
                         f"{sum(1 for r in chosen if ratio(r) < 1.0)} |")
    lines.append("")
    for op in OPS:
        chosen = sorted((r for r in rows if r["op"] == op and r["features"] in widths), key=ratio)
        if chosen:
            ends = [f"{ratio(r):.2f} ({r['graph']}, F={r['features']})" for r in chosen[:2] + chosen[-2:]]
            lines.append(f"{OP_NAMES[op]}: lowest {ends[0]}, {ends[1]}; highest {ends[3]}, {ends[2]}.")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--widths", default="128,256")
    parser.add_argument("--graph", action="append", default=[], help="suite cases whose name contains this")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per case")
    parser.add_argument("--deadline", type=float, help="seconds after which no case starts")
    parser.add_argument("--resume", action="append", default=[], help="rows of an earlier call (cusparse.jsonl)")
    results_section.add_arguments(parser, "spmm-sddmm-cusparse")
    args = parser.parse_args()
    start = time.monotonic()
    widths = [int(w) for w in args.widths.split(",")]
    cases = suite_cases(args.build, args.graph)
    if not cases:
        sys.exit("compare_cusparse: no suite case matches " + ", ".join(args.graph))
    os.makedirs(args.out, exist_ok=True)
    jsonl = os.path.join(args.out, "cusparse.jsonl")
    rows = [r for r in read_rows(args.resume) if r["features"] in widths]
    done = {r["graph"] for r in rows}
    for row in rows:  # this call's file holds every row, the resumed ones too
        with open(jsonl, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
    for name, held_out in cases:
        if name in done:
            continue
        if args.deadline is not None and time.monotonic() - start > args.deadline:
            break
        try:
            times, _ = our_times(args.build, name, widths, OPS, args.timeout)
        except RuntimeError as error:  # the other cases still run; the table names this one as not run
            print(f"compare_cusparse: {error}", file=sys.stderr, flush=True)
            continue
        for row in case_rows(name, held_out, times):
            rows.append(row)
            print(json.dumps(row), flush=True)
            with open(jsonl, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
    cases_table, summary_table = per_case_table(rows, cases, widths), summary(rows, widths)
    with open(os.path.join(args.out, "cusparse.md"), "w", encoding="utf-8") as handle:
        handle.write(cases_table + "\n" + summary_table)
    print(cases_table + "\n" + summary_table)
    # The results file gets the summary (its 400 lines hold one table a claim); OUT/cusparse.md every case.
    not_run = cases_table[cases_table.index("\nNot run"):] if "\nNot run" in cases_table else ""
    results_section.write_section(
        None if args.no_results else args.results, args.out, args.section, "SpMM and SDDMM against cuSPARSE",
        "cuSPARSE in the same process as each case: the better of its default and ALG2 SpMM, its default SDDMM",
        "The suite (bench/support/bench_suite.hpp, docs/graph_families.md); held-out cases were chosen before "
        "anything was timed and never used to calibrate. Ours is auto: the measured choice "
        "(ops/kernel_choices.hpp). \"÷\" = cuSPARSE ÷ ours (above 1: ours is faster). Per case, with the kernel "
        "auto chose: OUT/cusparse.md.\n\n" + summary_table + not_run)


if __name__ == "__main__":
    main()
