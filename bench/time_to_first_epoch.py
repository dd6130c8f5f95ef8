#!/usr/bin/env python3
"""Time to first epoch (issue 20): where a training run's time goes before
and around its first epoch, on a first run from the raw CSV files and on a
second run that finds the processed dataset and the adjacency cache, with
the wall time of the whole process beside the phases the run reports
(phases in the results JSON, docs/results-json.md). Writes a markdown
table to OUT/time_to_first_epoch.md and every JSON beside it.

    python3 bench/time_to_first_epoch.py --build BUILD --data DIR --out OUT [--quick]

Cases: GCN (hidden 128) on the Reddit-scale preset, 20 epochs: first run
(no processed file, no cache), second run (both there); the same with 200
epochs to measure what timing the kernels costs a long run; GCN on the
products-scale preset and GAT on the Reddit-scale preset (first and
second run); Cora and Citeseer (GCN, cuda, default settings) for the
small-graph time. --quick: Cora and Citeseer only. The presets are written
with sgnn_gen --no-gzip into --data first (not timed).
Case cpu (not in the default list): GCN on the CPU, one epoch, on a 4M-entry
R-MAT graph (262,144 nodes, 2M edges each way), cold and warm, and the
ratio of their read + prepare (dataset + adjacency + HRPB); run it on the
CPU machine with --cases cpu --section cpu-warm-start.
The table replaces the section time-to-first-epoch of bench/RESULTS.md
(--section another name, --no-results leaves the file alone) with the
machine, the commit and this command, and is saved as
OUT/<section>.section.md.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from compare_pyg import generate, run_json  # noqa: E402  (one way to run a program and read its JSON)
import results_section  # noqa: E402  (bench/support: writes this run's section of bench/RESULTS.md)


COLUMNS = """The phases are those the program reports in its results JSON (`phases`, docs/results-json.md):
dataset (parsed from CSV, or the processed file mapped), adjacency (built, or the cache hit), upload,
HRPB layout, tuning (the measured kernel choices), the first epoch; "start to end of epoch 1" counts
from process start. The presets are written by `sgnn_gen --preset NAME --no-gzip` beforehand (not timed)."""


def fresh(directory):
    """Removes what a previous run left: the processed file and the cache folder."""
    shutil.rmtree(os.path.join(directory, "processed"), ignore_errors=True)


def train(build, program, dataset, extra, cache, log, device="cuda"):
    command = [os.path.join(build, "examples", program), "--dataset", dataset, "--device", device, "--quiet",
               "--print-json"] + extra
    if cache:
        command += ["--cache", cache]
    return run_json(command, log)


def read_and_prepare_ms(result):
    """Dataset + adjacency + HRPB layout: what a warm start saves."""
    phases = result.get("phases", {})
    return sum(phases.get(key, 0.0) for key in ("load_ms", "adjacency_ms", "hrpb_ms"))


def row(label, run, result):
    phases = result.get("phases", {})
    cell = lambda key, scale=1.0, digits=1: "—" if key not in phases else f"{phases[key] * scale:.{digits}f}"
    return (f"| {label} | {run} | {'mapped' if phases.get('processed_hit') else 'parsed'} {cell('load_ms')} | "
            f"{'hit' if phases.get('adjacency_cache_hit') else 'built'} {cell('adjacency_ms')} | {cell('upload_ms')} | "
            f"{cell('hrpb_ms')} | {cell('tuning_ms')} | {cell('first_epoch_ms')} | "
            f"{cell('start_to_first_epoch_s', 1.0, 2)} | {result.get('wall_seconds', float('nan')):.2f} | "
            f"{result.get('epoch_ms_median', float('nan')):.2f} | {result.get('spmm', '—')} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--data", default="data")
    parser.add_argument("--out", default=os.environ.get("OUT", "ttfe-out"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cases", default="cora,citeseer,reddit,reddit200,products,gat",
                        help="which cases, of cora, citeseer, reddit, reddit200, products, gat, cpu")
    results_section.add_arguments(parser, "time-to-first-epoch")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    log = os.path.join(args.out, "time_to_first_epoch.log")
    results = []
    lines = ["| case | run | dataset ms | adjacency ms | upload ms | HRPB ms | tuning ms | first epoch ms | "
             "start to end of epoch 1 s | process wall s | epoch ms (median) | spmm |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]

    notes = []

    def case(label, program, dataset, extra, runs=("first (from CSV)", "second (processed + cache)"), device="cuda"):
        cache = os.path.join(args.out, "cache-" + label.replace(" ", "-").replace(",", ""))
        shutil.rmtree(cache, ignore_errors=True)
        fresh(dataset)
        found = []
        for run in runs:
            result = train(args.build, program, dataset, extra, cache, log, device)
            results.append({"case": label, "run": run, "result": result})
            found.append(result)
            lines.append(row(label, run, result))
            print(lines[-1], flush=True)
        return found

    wanted = set(args.cases.split(","))
    if args.quick:
        wanted &= {"cora", "citeseer"}
    bundled = os.path.join(args.build, "share", "sparsegnn", "datasets")
    for name in ("cora", "citeseer"):
        if name in wanted:
            case(f"GCN {name}", "train_gcn", os.path.join(bundled, name), [])
    if wanted & {"reddit", "reddit200", "gat"}:
        reddit = generate(args.build, args.data, "reddit-scale", ["--preset", "reddit-scale"], log)
    if "reddit" in wanted:
        case("GCN reddit-scale, 20 epochs", "train_gcn", reddit, ["--hidden", "128", "--epochs", "20"])
    if "reddit200" in wanted:
        case("GCN reddit-scale, 200 epochs", "train_gcn", reddit, ["--hidden", "128", "--epochs", "200"],
             runs=("first (from CSV)",))
    if "products" in wanted:
        products = generate(args.build, args.data, "products-scale", ["--preset", "products-scale"], log)
        case("GCN products-scale, 20 epochs", "train_gcn", products, ["--hidden", "128", "--epochs", "20"])
    if "gat" in wanted:
        case("GAT reddit-scale, 20 epochs", "train_gat", reddit, ["--epochs", "20", "--patience", "0"])
    if "cpu" in wanted:
        rmat = generate(args.build, args.data, "rmat-4m",
                        ["--kind", "rmat", "--nodes", "262144", "--edges", "2000000", "--symmetric", "--features",
                         "32", "--classes", "8"], log)
        cold, warm = case("GCN, R-MAT 262,144 nodes, 2M edges each way, CPU, 1 epoch", "train_gcn", rmat,
                          ["--epochs", "1"], device="cpu")
        cold_ms, warm_ms = read_and_prepare_ms(cold), read_and_prepare_ms(warm)
        if cold_ms > 0:
            notes.append(f"Read + prepare (dataset + adjacency + HRPB): {cold_ms:.1f} ms cold, {warm_ms:.1f} ms "
                         f"warm, {warm_ms / cold_ms:.2f}x (target <= 0.2x)." +
                         ("" if wanted - {"cpu"} else " Columns as in `time-to-first-epoch`."))
    with open(os.path.join(args.out, "time_to_first_epoch.json"), "w") as handle:
        json.dump(results, handle, indent=1)
    with open(os.path.join(args.out, "time_to_first_epoch.md"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    title = "Time to first epoch" if wanted - {"cpu"} else "Warm start on the CPU"
    results_section.write_section(
        None if args.no_results else args.results, args.out, args.section, title,
        "the first run from the CSV files (no processed file, empty cache folder) against the second run, "
        "which finds the processed file and the adjacency cache the first wrote; same call",
        "\n".join(lines) + "\n\n" + "".join(note + "\n" for note in notes) + (COLUMNS if wanted - {"cpu"} else ""))


if __name__ == "__main__":
    main()
