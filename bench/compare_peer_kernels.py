#!/usr/bin/env python3
"""Our SpMM and SDDMM beside a peer kernel library's, on the same matrices, in one run.

    python3 bench/compare_peer_kernels.py --build BUILD --peer DIR --out OUT [--peer-kind auto|rode|dgsparse] \
        [--graph SUBSTRING]... [--first SUBSTRING]... [--features F,...] [--ops sddmm,spmm] \
        [--timeout SECONDS] [--deadline SECONDS] [--scratch DIR]

Two peers, each built for sm_90 outside this repository (no peer code is part
of this project; docs/kernels.md says how), found in DIR; --peer-kind auto
takes RoDe when DIR has rode_driver, else dgSPARSE-Lib:

- RoDe (PPoPP 2024, https://github.com/CRAFT-THU/RoDe): DIR/rode_driver,
  our driver (bench/peers/rode_driver.cu) compiled with RoDe's kernels by
  bench/peers/build_rode.sh. One call a matrix reads it once through RoDe's
  own reader and row segmentation, checks each kernel against a float64 CPU
  reference and times it (median of 25 runs after 5 warm-up runs); a kernel
  whose result is wrong prints no report and counts as "wrong". Its SpMM
  takes widths that are multiples of 32 (RoDeSpmm_n32) or 64 (RoDeSpmm_n128;
  the faster of the two is reported), its SDDMM 32 and 128 only. Default
  widths 32,128. The table puts both ops of a case and width on one row:
  ours, RoDe, RoDe ÷ ours (≥ 1: ours at least level, the target of issue 46).
  RoDe's SpMM adds into C with atomics, so a correct call must clear C first:
  its time without the clear (as RoDe's own programs time it) is the one
  compared; the time with the clear is in its own column.
- dgSPARSE-Lib (https://github.com/dgSPARSE/dgSPARSE-Lib): `dg_sddmm`
  (example/sddmm: its edge-balanced CSR SDDMM) and `dg_spmm`
  (example/ge-spmm: the six GE-SpMM algorithms), its own example drivers,
  called once per op and width. Each checks its kernel against a CPU
  reference, times cuSPARSE and the kernel (100 runs after 10 warm-up runs)
  and prints one report line per kernel. Default widths 64,128,256.

The matrices are the broad suite's (bench/support/bench_suite.hpp), written
by export_suite_mtx with the pattern and entry order bench_sparse times,
while the GPU programs run (into --scratch, default a temporary folder; each
file is deleted once used). Ours: bench_sparse --suite-only --graph NAME
(auto, the measured choice), in the same call on the same GPU, at the same
widths and ops. Writes OUT/peer_kernels.md and .json (and .jsonl as rows
come). --deadline: no case starts after that many seconds (the table then
says so), so that a call with a time limit still writes its table; --first
puts the cases that matter most before it.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import results_section  # noqa: E402  (bench/support: writes this run's section of bench/RESULTS.md)
from sparse_bench_runs import our_times, run  # noqa: E402  (bench/support: bench_sparse one case at a time)

REPORT = re.compile(r"Time\s+([0-9.eE+-]+)\s*\(ms\)")


def one_line(text):
    """A program's complaint as one table cell: its last line that says FAILED or error, else its last line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()] or ["no output"]
    telling = [line for line in lines if "FAILED" in line or "error" in line.lower()]
    return (telling or lines)[-1][-200:].replace("|", "/")


def failed(done, problem):
    """Why a peer program gave no usable output, or None."""
    if done is None:
        return problem
    if done.returncode != 0:
        return f"exit {done.returncode}: {one_line(done.stdout + chr(10) + done.stderr)}"
    return None


def dgsparse_times(binary, matrix, features, timeout):
    """{'cusparse': ms, 'peer': best ms or None, 'peer_kernel': name} from a dgSPARSE driver."""
    done, problem = run([binary, matrix, str(features)], timeout)
    problem = failed(done, problem)
    if problem:
        return {"error": problem}
    cusparse, peer, kernel = None, None, None
    lines = done.stdout.splitlines()
    for i, line in enumerate(lines):
        if "Report" not in line:
            continue
        # The time is on the report line or the next one.
        match = REPORT.search(line) or (REPORT.search(lines[i + 1]) if i + 1 < len(lines) else None)
        if match is None:
            continue
        ms = float(match.group(1))
        if line.lstrip().lower().startswith("[cusparse]"):
            cusparse = ms
        elif peer is None or ms < peer:
            peer, kernel = ms, line.split("Report")[0].strip()
    return {"cusparse": cusparse, "peer": peer, "peer_kernel": kernel}


RODE_REPORT = re.compile(r"^\[RoDe (?P<op>SpMM|SDDMM) (?P<kernel>n32|n128)(?P<cleared>, C cleared)?\] Report: "
                         r"F=(?P<f>\d+),(?: relative error (?P<error>[0-9.eE+-]+),)? Time (?P<ms>[0-9.eE+-]+) \(ms\)")
RODE_PROBLEM = re.compile(r"^\[RoDe (?P<op>SpMM|SDDMM)[^\]]*\] F=(?P<f>\d+): (?P<what>.*)$")


def rode_times(binary, matrix, features, timeout):
    """From rode_driver: {(op, F): {'peer': ms, 'peer_kernel', 'peer_relative_error', 'peer_cleared': ms,
    'peer_notes': [why a kernel has no time]}, 'matrix': [its lines about the matrix], 'error': why it failed}."""
    done, problem = run([binary, matrix, "--widths", ",".join(str(f) for f in features)], timeout)
    problem = failed(done, problem)
    results = {}
    for line in (done.stdout.splitlines() if done is not None else []):
        report, trouble = RODE_REPORT.match(line), RODE_PROBLEM.match(line)
        if report:
            entry = results.setdefault((report.group("op").lower(), int(report.group("f"))), {"peer_notes": []})
            ms = float(report.group("ms"))
            if report.group("cleared"):
                entry["peer_cleared"] = min(ms, entry.get("peer_cleared", ms))
            elif "peer" not in entry or ms < entry["peer"]:
                entry.update(peer=ms, peer_kernel=report.group("kernel"),
                             peer_relative_error=float(report.group("error")))
        elif trouble:
            entry = results.setdefault((trouble.group("op").lower(), int(trouble.group("f"))), {"peer_notes": []})
            entry["peer_notes"].append(line.split("]", 1)[0].lstrip("[") + ": " + trouble.group("what"))
        elif line.startswith("row lengths:") or line.startswith("matrix "):
            results.setdefault("matrix", []).append(line)
    if problem:
        results["error"] = problem
    return results


def exported_cases(build, filters, folder):
    """(matrix file, case name) of each suite case as export_suite_mtx writes it (it runs alongside).

    Leaving the loop early stops the export."""
    command = [os.path.join(build, "bench", "export_suite_mtx"), "--out", folder]
    for graph in filters:
        command += ["--graph", graph]
    export = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in export.stdout:
            if "\t" in line:
                matrix, name = line.rstrip("\n").split("\t", 1)
                yield matrix, name
        problem = export.stderr.read()
        if export.wait() != 0:
            raise RuntimeError(f"export_suite_mtx failed: {problem.strip()[-500:]}")
    finally:
        if export.poll() is None:
            export.kill()
        export.wait()


def cases_in_order(build, first, filters, folder):
    """The cases of `filters`, those whose name contains one of `first` first (each once)."""
    done = set()
    for group in ([first] if first else []) + [filters]:
        for matrix, name in exported_cases(build, group, folder):
            if name in done:
                os.remove(matrix)
                continue
            done.add(name)
            yield matrix, name


def ratio_text(peer, ours):
    return f"{peer / ours:.2f}" if peer and ours else "—"


def rode_rows(name, held_out, ours, rode, features):
    """One row per width: both ops of ours and RoDe's."""
    rows = []
    for f in features:
        row = {"graph": name, "held_out": held_out, "features": f, "matrix": rode.get("matrix", [])}
        if "failure" in ours:
            row["ours_failure"] = ours["failure"]
        if "error" in rode:
            row["peer_failure"] = rode["error"]
        for op in ("spmm", "sddmm"):
            for key, value in ours.get((op, f), {}).items():
                row[f"{op}_{key}"] = value
            for key, value in rode.get((op, f), {}).items():
                row[f"{op}_{key}"] = value
        rows.append(row)
    return rows


def rode_cell(row, op):
    """RoDe's time (kernel) or why there is none."""
    if f"{op}_peer" in row:
        return f"{row[f'{op}_peer']:.4f} ({row[f'{op}_peer_kernel']})"
    notes = row.get(f"{op}_peer_notes") or ([row["peer_failure"]] if "peer_failure" in row else [])
    return "; ".join(one_line(note) for note in notes) if notes else "—"


def rode_table(results, ops):
    header = ("| graph | F | ours SpMM ms (auto's kernel) | RoDe SpMM ms (kernel) | RoDe ÷ ours | "
              "RoDe SpMM ms, C cleared | ours SDDMM ms (auto's kernel) | RoDe SDDMM ms (kernel) | RoDe ÷ ours |\n"
              "|---|---:|---|---|---:|---:|---|---|---:|\n")

    def lines(rows):
        text = header
        for r in rows:
            cells = [r["graph"], str(r["features"])]
            for op in ("spmm", "sddmm"):
                if op not in ops:
                    cells += ["—"] * (4 if op == "spmm" else 3)
                    continue
                ours = r.get(f"{op}_ours")
                cells.append(f"{ours:.4f} ({r.get(f'{op}_chosen')})" if ours else
                             "bench_sparse failed" if "ours_failure" in r else "—")
                cells.append(rode_cell(r, op))
                cells.append(ratio_text(r.get(f"{op}_peer"), ours))
                if op == "spmm":
                    cleared = r.get("spmm_peer_cleared")
                    cells.append(f"{cleared:.4f}" if cleared else "—")
            text += "| " + " | ".join(cells) + " |\n"
        return text + "\n" + rode_summary(rows, ops)

    calibration = [r for r in results if not r["held_out"]]
    held_out = [r for r in results if r["held_out"]]
    text = lines(calibration)
    if held_out:
        text += "\n## held out (never used for calibration)\n\n" + lines(held_out)
    return text


def rode_summary(rows, ops):
    """Per op and width: on how many cases ours is at least level with RoDe, and the lowest RoDe ÷ ours."""
    text = ""
    for op in [op for op in ("spmm", "sddmm") if op in ops]:
        for f in sorted({r["features"] for r in rows}):
            pairs = [(r[f"{op}_peer"] / r[f"{op}_ours"], r["graph"]) for r in rows
                     if r["features"] == f and r.get(f"{op}_peer") and r.get(f"{op}_ours")]
            if not pairs:
                continue
            level = sum(1 for ratio, _ in pairs if ratio >= 1.0)
            lowest = min(pairs)
            text += (f"{'SpMM' if op == 'spmm' else 'SDDMM'} F={f}: ours at least level with RoDe on {level} of "
                     f"{len(pairs)} cases; lowest RoDe ÷ ours {lowest[0]:.2f} ({lowest[1]})\n")
    return text


def rode_compact(results, ops):
    """The section's text: per case set, op and width, how ours and RoDe compare over the cases both timed
    (the per-case table stays in peer_kernels.md), then the cases where RoDe gave no time and why."""
    text = ("| cases | op | F | both timed | ours at least level | median RoDe ÷ ours | lowest (graph) |\n"
            "|---|---|---:|---:|---:|---:|---|\n")
    for held_out in (False, True):
        rows = [r for r in results if r["held_out"] == held_out]
        for op in [op for op in ("spmm", "sddmm") if op in ops]:
            for f in sorted({r["features"] for r in rows}):
                pairs = sorted((r[f"{op}_peer"] / r[f"{op}_ours"], r["graph"]) for r in rows
                               if r["features"] == f and r.get(f"{op}_peer") and r.get(f"{op}_ours"))
                if not pairs:
                    continue
                level = sum(1 for ratio, _ in pairs if ratio >= 1.0)
                median = pairs[len(pairs) // 2][0] if len(pairs) % 2 else \
                    (pairs[len(pairs) // 2 - 1][0] + pairs[len(pairs) // 2][0]) / 2
                text += (f"| {'held out' if held_out else 'calibration suite'} | "
                         f"{'SpMM' if op == 'spmm' else 'SDDMM'} | {f} | {len(pairs)} | {level} | {median:.2f} | "
                         f"{pairs[0][0]:.2f} ({pairs[0][1]}) |\n")
    missing = {}
    for r in results:
        for op in [op for op in ("spmm", "sddmm") if op in ops]:
            if not r.get(f"{op}_peer"):
                why = rode_cell(r, op)
                why = "failed: " + why.split("FAILED:")[-1].strip() if "FAILED:" in why else why
                missing.setdefault(why, set()).add(r["graph"])
    for why, graphs in missing.items():
        text += f"\nNo RoDe time ({why}): {'; '.join(sorted(graphs))}.\n"
    return text


def dgsparse_table(results):
    lines = ["| graph | op | F | ours ms (auto's kernel) | dgSPARSE ms (best kernel) | dgSPARSE ÷ ours | "
             "cuSPARSE ms (our run / peer's run) |", "|---|---|---|---|---|---|---|"]
    for r in results:
        peer = r.get("peer_peer")
        ours = r.get("ours")
        if "peer_error" in r:
            peer_text, ratio = "error: " + r["peer_error"], "—"
        elif peer is None:
            peer_text, ratio = "wrong result (no report)", "—"
        else:
            peer_text = f"{peer:.4f} ({r.get('peer_peer_kernel')})"
            ratio = ratio_text(peer, ours)
        ours_text = f"{ours:.4f} ({r.get('chosen')})" if ours else "—"
        theirs_cusparse = r.get("peer_cusparse")
        cusparse = f"{r.get('cusparse', float('nan')):.4f} / " + (f"{theirs_cusparse:.4f}" if theirs_cusparse else "—")
        lines.append(f"| {r['graph']} | {r['op']} | {r['features']} | {ours_text} | {peer_text} | {ratio} | {cusparse} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--peer", required=True, help="folder with rode_driver, or dg_sddmm and dg_spmm")
    parser.add_argument("--peer-kind", choices=["auto", "rode", "dgsparse"], default="auto")
    parser.add_argument("--out", required=True)
    parser.add_argument("--graph", action="append", default=[], help="suite cases whose name contains this")
    parser.add_argument("--features", help="widths (default: 32,128 for RoDe, 64,128,256 for dgSPARSE)")
    parser.add_argument("--ops", default="sddmm,spmm")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per peer program run (ours: three times it)")
    parser.add_argument("--first", action="append", default=[],
                        help="cases whose name contains this run before the others (and are added if --graph left "
                             "them out)")
    parser.add_argument("--deadline", type=float, help="seconds after which no case starts")
    parser.add_argument("--scratch", help="folder for the matrix files (default: a temporary one)")
    parser.add_argument("--peer-version", default="commit not given",
                        help="the peer's version, for the results file (e.g. RoDe f446e29)")
    results_section.add_arguments(parser, "peer-kernels")
    args = parser.parse_args()
    start = time.monotonic()
    kind = args.peer_kind
    if kind == "auto":
        kind = "rode" if os.path.exists(os.path.join(args.peer, "rode_driver")) else "dgsparse"
    features = [int(f) for f in (args.features or ("32,128" if kind == "rode" else "64,128,256")).split(",")]
    ops = args.ops.split(",")
    os.makedirs(args.out, exist_ok=True)
    scratch = args.scratch or tempfile.mkdtemp(prefix="peer-matrices-")
    jsonl = os.path.join(args.out, "peer_kernels.jsonl")

    results, seen, stopped = [], 0, False
    try:
        for matrix, name in cases_in_order(args.build, args.first, args.graph, scratch):
            seen += 1
            if args.deadline is not None and time.monotonic() - start > args.deadline:
                stopped = True
                break
            try:
                ours, held_out = our_times(args.build, name, features, ops, args.timeout * 3)
            except RuntimeError as error:  # the other cases still run
                print(f"compare_peer_kernels: {error}", file=sys.stderr, flush=True)
                ours, held_out = {"failure": str(error)}, False
            if kind == "rode":
                rows = rode_rows(name, held_out, ours, rode_times(os.path.join(args.peer, "rode_driver"), matrix,
                                                                  features, args.timeout), features)
            else:
                rows = []
                for op in ops:
                    binary = os.path.join(args.peer, "dg_sddmm" if op == "sddmm" else "dg_spmm")
                    for f in features:
                        peer = dgsparse_times(binary, matrix, f, args.timeout)
                        row = {"graph": name, "op": op, "features": f, **{"peer_" + k: v for k, v in peer.items()}}
                        row.update(ours.get((op, f), {}))
                        if "failure" in ours:
                            row["ours_failure"] = ours["failure"]
                        rows.append(row)
            for row in rows:
                results.append(row)
                print(json.dumps(row), flush=True)
                with open(jsonl, "a") as handle:  # survives a timeout
                    handle.write(json.dumps(row) + "\n")
            os.remove(matrix)  # large files: one at a time
    finally:
        if not args.scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    if seen == 0:
        sys.exit("compare_peer_kernels: no suite case matches " + ", ".join(args.graph))

    with open(os.path.join(args.out, "peer_kernels.json"), "w") as handle:
        json.dump(results, handle, indent=1)
    table = rode_table(results, ops) if kind == "rode" else dgsparse_table(results)
    if stopped:
        table += (f"\nThe deadline ({args.deadline:g} s) passed after {seen - 1} cases: the suite's later cases "
                  "were not run.\n")
    table += f"\n{time.monotonic() - start:.0f} s in all.\n"
    with open(os.path.join(args.out, "peer_kernels.md"), "w") as handle:
        handle.write(table)
    print(table)
    peer = ("RoDe: its SpMM (the faster of its n32/n128 kernels) and SDDMM, driven by bench/peers/rode_driver.cu"
            if kind == "rode" else
            "dgSPARSE-Lib: its edge-balanced CSR SDDMM and the fastest of GE-SpMM's six algorithms that passed its "
            "driver's check; cuSPARSE timed by both programs as a cross-check")
    # The section: RoDe's per-case table is long (every suite case at two widths), so the results file gets
    # its summary and peer_kernels.md the cases.
    body = (rode_compact(results, ops) + table[table.index("\nThe deadline"):] if stopped else
            rode_compact(results, ops)) if kind == "rode" else table
    results_section.write_section(
        None if args.no_results else args.results, args.out, args.section,
        "SpMM and SDDMM against RoDe" if kind == "rode" else "SpMM and SDDMM against peer kernels",
        f"{peer} ({args.peer_version})", body + "\nOurs: auto, the measured choice. \"peer ÷ ours\" > 1: ours is "
        "faster." + (" Per case: OUT/peer_kernels.md." if kind == "rode" else ""))


if __name__ == "__main__":
    main()
