#!/usr/bin/env python3
"""Our SpMM and SDDMM beside a peer kernel library's, on the same matrices, in one run.

    python3 bench/compare_peer_kernels.py --build BUILD --peer DIR --out OUT \
        [--graph SUBSTRING]... [--features 64,128,256] [--ops sddmm,spmm]

The peer is dgSPARSE-Lib (https://github.com/dgSPARSE/dgSPARSE-Lib), built
for sm_90 outside this repository from its own example drivers: DIR holds
`dg_sddmm` (example/sddmm: its edge-balanced CSR SDDMM) and `dg_spmm`
(example/ge-spmm: the six GE-SpMM algorithms). Each driver reads a Matrix
Market file, checks its kernel against a CPU reference, times cuSPARSE and
the kernel (100 runs after 10 warm-up runs) and prints one report line per
kernel; a kernel whose result is wrong prints none and counts as "wrong".
docs/kernels.md says how to build them. No peer code is part of this project.

The matrices are the broad suite's (bench/support/bench_suite.hpp), written
by export_suite_mtx with the pattern and entry order bench_sparse times.
Ours: bench_sparse --suite-only --graph NAME (auto, the measured choice), in
the same call on the same GPU. Writes OUT/peer_kernels.md and .json; the
table replaces the section peer-kernels of bench/RESULTS.md (--section another
name, --no-results leaves the file alone) with the machine, the commit and
this command, and is saved as OUT/<section>.section.md.
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import results_section  # noqa: E402  (bench/support: writes this run's section of bench/RESULTS.md)

REPORT = re.compile(r"Time\s+([0-9.eE+-]+)\s*\(ms\)")


def run(command, timeout):
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    return done, None


def peer_times(binary, matrix, features, timeout):
    """{'cusparse': ms, 'peer': best ms or None, 'peer_kernel': name} from a dgSPARSE driver."""
    done, problem = run([binary, matrix, str(features)], timeout)
    if done is None:
        return {"error": problem}
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-300:]}"}
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


OURS = re.compile(r"^(?P<graph>.*) F=(?P<f>\d+) (?P<op>SpMM|SDDMM): ours (?P<ours>[0-9.]+) ms \((?P<chosen>[^)]*\)?)\), "
                  r"best cuSPARSE (?P<cusparse>[0-9.]+) ms")


def our_times(build, graph, features, ops, timeout):
    """Our rows of bench_sparse for this graph, only at these widths and ops (the peer's)."""
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
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True)
    parser.add_argument("--peer", required=True, help="folder with dg_sddmm and dg_spmm")
    parser.add_argument("--out", required=True)
    parser.add_argument("--graph", action="append", default=[], help="suite cases whose name contains this")
    parser.add_argument("--features", default="64,128,256")
    parser.add_argument("--ops", default="sddmm,spmm")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per program run")
    parser.add_argument("--peer-version", default="commit not given",
                        help="the peer's version, for the results file (e.g. dgSPARSE-Lib 973a972)")
    results_section.add_arguments(parser, "peer-kernels")
    args = parser.parse_args()
    features = [int(f) for f in args.features.split(",")]
    ops = args.ops.split(",")
    os.makedirs(args.out, exist_ok=True)
    matrices = os.path.join(args.out, "matrices")
    export = [os.path.join(args.build, "bench", "export_suite_mtx"), "--out", matrices]
    for graph in args.graph:
        export += ["--graph", graph]
    done = subprocess.run(export, capture_output=True, text=True, check=True)
    cases = [line.split("\t", 1) for line in done.stdout.splitlines() if "\t" in line]
    if not cases:
        sys.exit("compare_peer_kernels: no suite case matches " + ", ".join(args.graph))

    results = []
    for matrix, name in cases:
        ours = our_times(args.build, name, features, ops, args.timeout * 3)
        for op in ops:
            binary = os.path.join(args.peer, "dg_sddmm" if op == "sddmm" else "dg_spmm")
            for f in features:
                peer = peer_times(binary, matrix, f, args.timeout)
                row = {"graph": name, "op": op, "features": f, **{"peer_" + k: v for k, v in peer.items()}}
                row.update(ours.get((op, f), {}))
                results.append(row)
                print(json.dumps(row), flush=True)
                with open(os.path.join(args.out, "peer_kernels.jsonl"), "a") as handle:  # survives a timeout
                    handle.write(json.dumps(row) + "\n")
        os.remove(matrix)  # large files: one at a time

    with open(os.path.join(args.out, "peer_kernels.json"), "w") as handle:
        json.dump(results, handle, indent=1)
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
            ratio = f"{peer / ours:.2f}" if ours else "—"
        ours_text = f"{ours:.4f} ({r.get('chosen')})" if ours else "—"
        theirs_cusparse = r.get("peer_cusparse")
        cusparse = f"{r.get('cusparse', float('nan')):.4f} / " + (f"{theirs_cusparse:.4f}" if theirs_cusparse else "—")
        lines.append(f"| {r['graph']} | {r['op']} | {r['features']} | {ours_text} | {peer_text} | {ratio} | {cusparse} |")
    table = "\n".join(lines) + "\n"
    with open(os.path.join(args.out, "peer_kernels.md"), "w") as handle:
        handle.write(table)
    print(table)
    results_section.write_section(
        None if args.no_results else args.results, args.out, args.section, "SpMM and SDDMM against peer kernels",
        f"dgSPARSE-Lib ({args.peer_version}): its edge-balanced CSR SDDMM and the fastest of GE-SpMM's six "
        "algorithms that passed its driver's check; cuSPARSE timed by both programs as a cross-check",
        table + "\nOurs: auto, the measured choice. \"dgSPARSE ÷ ours\" > 1: ours is faster.")


if __name__ == "__main__":
    main()
