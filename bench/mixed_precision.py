#!/usr/bin/env python3
"""BF16 mixed precision against FP32 (issue 22), our programs only, on the GPU
machine; writes OUT/mixed_precision.md (a table per set, with the targets)
and OUT/mixed_precision.json (every run).

    python3 bench/mixed_precision.py --build build --data data --out OUT [--sets accuracy,speed] [--seeds 10]

Sets:
  accuracy  Cora and Citeseer (the bundled copies), the --models (default
            gcn,gat; any registered model that trains on them), --runs SEEDS
            (seeds 0..SEEDS-1) in each precision with each model's default
            settings: test accuracy mean ± std and BF16 − FP32. Target:
            |BF16 − FP32| <= 0.5 points.
  speed     the Reddit-scale preset (sgnn_gen --preset reddit-scale into
            --data): GCN hidden 128 and GAT (8 heads of 8), 20 epochs, one
            run each precision: median step, peak device memory and their
            ratios. Targets: GCN step >= 1.6x faster and peak memory <= 0.65x
            of FP32; GAT step >= 1.5x faster.
  families  GAT (8 heads of 8) on graphs of the kernel suite's families
            (Chung-Lu, SBM shuffled and contiguous, a 2D 9-point stencil,
            FEM meshes, a hub row; sgnn_gen into --data), 10 epochs, both
            precisions: median step. With --baseline-build (another
            version's programs) the same runs with those programs, side by
            side: kernels that are not timed choices must not lose on graphs
            they were not tuned on.
PyG under torch.autocast on the same graphs: bench/compare_pyg.py
--precisions fp32,bf16.
Each set's table replaces its section of bench/RESULTS.md (accuracy,
bf16-step, bf16-families; "-cpu" appended with --device cpu; --no-results
leaves the file alone) with the machine, the commit and this command, and is
saved as OUT/<section>.section.md.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from compare_pyg import generate, run_json  # noqa: E402  (one way to run a program and read its JSON)
import results_section  # noqa: E402  (bench/support: writes this run's section of bench/RESULTS.md)


def train(args, model, dataset, precision, flags, log):
    program = os.path.join(args.build, "examples", "sgnn_train")
    return run_json([program, "--model", model, "--dataset", dataset, "--device", args.device, "--precision",
                     precision, "--quiet", "--print-json"] + flags, log)


def value(result, key):
    return result.get(key) if result.get("status") == "ok" else None


def text(number, scale=1.0, digits=2):
    return "—" if number is None else f"{number * scale:.{digits}f}"


def accuracy_table(found, models):
    """One row per model, Cora and Citeseer side by side. found[(model, dataset)] = {"fp32": (mean, std),
    "bf16": (mean, std)} in percent, None where a run failed."""
    lines = ["| model | Cora FP32 (%) | Cora BF16 (%) | BF16 − FP32 | Citeseer FP32 (%) | Citeseer BF16 (%) "
             "| BF16 − FP32 | within 0.5 |", "|---|---|---|---|---|---|---|---|"]
    for model in models:
        cells, verdicts = [], []
        for dataset in ("cora", "citeseer"):
            runs = found.get((model, dataset), {})
            for precision in ("fp32", "bf16"):
                mean_std = runs.get(precision)
                cells.append("—" if mean_std is None else f"{mean_std[0]:.2f} ± {mean_std[1]:.2f}")
            wide, narrow = runs.get("fp32"), runs.get("bf16")
            difference = None if wide is None or narrow is None else narrow[0] - wide[0]
            cells.append("—" if difference is None else f"{difference:+.2f}")
            verdicts.append(None if difference is None else abs(difference) <= 0.5 + 1e-9)
        verdict = "—" if None in verdicts else "yes" if all(verdicts) else "NO"
        lines.append(f"| {model} | " + " | ".join(cells) + f" | {verdict} |")
    return "\n".join(lines)


def accuracy_set(args, log, record):
    found = {}
    models = args.models.split(",")
    for dataset in ("cora", "citeseer"):
        directory = os.path.join(args.build, "share", "sparsegnn", "datasets", dataset)
        for model in models:
            for precision in ("fp32", "bf16"):
                result = train(args, model, directory, precision, ["--runs", str(args.seeds)], log)
                record.append({"set": "accuracy", "dataset": dataset, "model": model, "precision": precision,
                               "result": result})
                mean, std = value(result, "test_accuracy"), value(result, "test_accuracy_std")
                if mean is not None:
                    found.setdefault((model, dataset), {})[precision] = (100 * mean, 100 * (std or 0.0))
                print(dataset, model, precision, mean, flush=True)
    return ("accuracy", f"Accuracy, {args.seeds} seed{'' if args.seeds == 1 else 's'}, FP32 and BF16",
            "the same programs in FP32, same seeds; the papers' figures (GCN: Kipf & Welling 2017, Cora 81.5, "
            "Citeseer 70.3; GAT: Veličković et al. 2018, Cora 83.0 ± 0.7, Citeseer 72.5 ± 0.7)",
            f"Test accuracy at the best validation epoch, mean ± std over seeds 0..{args.seeds - 1}, the public "
            "Planetoid split, the papers' settings (GAT: its authors' procedure, the programs' defaults); target "
            "|BF16 − FP32| <= 0.5 points on both datasets.\n\n" + accuracy_table(found, models) + "\n")


def speed_set(args, log, record):
    reddit = generate(args.build, args.data, "reddit-scale", ["--preset", "reddit-scale"], log)
    cache = os.path.join(args.out, "cache")
    cases = [("gcn", ["--hidden", "128", "--epochs", "20", "--runs", "1", "--cache", cache], 1.6, 0.65),
             ("gat", ["--epochs", "20", "--patience", "0", "--runs", "1", "--cache", cache], 1.5, None)]
    lines = ["| model | step ms FP32 | step ms BF16 | FP32 ÷ BF16 (target) | peak GB FP32 / BF16 "
             "| BF16 ÷ FP32 (target) | training peak GB FP32 / BF16 | BF16 ÷ FP32 | test acc FP32 / BF16 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for model, flags, speed_target, memory_target in cases:
        results = {}
        for precision in ("fp32", "bf16"):
            train(args, model, reddit, precision, flags, log)  # fills the adjacency cache: the run after is warm
            results[precision] = train(args, model, reddit, precision, flags, log)
            record.append({"set": "speed", "dataset": "reddit-scale", "model": model, "precision": precision,
                           "result": results[precision]})
        step = {p: value(results[p], "epoch_ms_median") for p in results}
        # The whole run's peak, and the peak once the graph and features are prepared (building the
        # graph needs temporaries that no precision changes).
        peak = {p: value(results[p], "peak_device_bytes") for p in results}
        training_peak = {p: value(results[p], "training_peak_device_bytes") for p in results}
        accuracy = {p: value(results[p], "test_accuracy") for p in results}
        speedup = step["fp32"] / step["bf16"] if step["fp32"] and step["bf16"] else None
        memory = peak["bf16"] / peak["fp32"] if peak["fp32"] and peak["bf16"] else None
        training_memory = (training_peak["bf16"] / training_peak["fp32"]
                           if training_peak["fp32"] and training_peak["bf16"] else None)
        if speedup is None:
            speed_cell = "—"
        else:
            speed_cell = f"{speedup:.2f}x (>= {speed_target}x{'' if speedup >= speed_target else ', NOT MET'})"
        if memory is None:
            memory_cell = "—"
        elif memory_target is None:
            memory_cell = f"{memory:.2f}"
        else:
            memory_cell = f"{memory:.2f} (<= {memory_target}{'' if memory <= memory_target else ', NOT MET'})"
        lines.append(f"| {model} | {text(step['fp32'], 1, 2)} | {text(step['bf16'], 1, 2)} | {speed_cell} | "
                     f"{text(peak['fp32'], 1e-9)} / {text(peak['bf16'], 1e-9)} | {memory_cell} | "
                     f"{text(training_peak['fp32'], 1e-9)} / {text(training_peak['bf16'], 1e-9)} | "
                     f"{text(training_memory)} | "
                     f"{text(accuracy['fp32'], 100, 1)} / {text(accuracy['bf16'], 100, 1)} |")
        print(lines[-1], flush=True)
    return ("bf16-step", "BF16 training step and memory on the Reddit-scale graph",
            "the same programs in FP32, same graph, same call",
            "Reddit-scale preset (232,965 nodes, 109.3M edges; random labels: accuracy is at chance), 20 epochs, "
            "median step of a warm run (adjacency cache hit); GCN hidden 128, GAT 8 heads of 8.\n\n"
            + "\n".join(lines) + "\n")


# The graphs of the families set: bench/support/bench_suite.hpp's families at
# sizes where GAT's per-edge tensors fit twice over (two builds) in one call.
FAMILIES = [
    ("chung-lu γ=2.1, 1M nodes", "chung-lu-2.1",
     ["--kind", "chung-lu", "--nodes", "1000000", "--degree", "20", "--exponent", "2.1", "--max-degree", "50000"]),
    ("chung-lu γ=3.0, 232,965 nodes", "chung-lu-3.0",
     ["--kind", "chung-lu", "--nodes", "232965", "--degree", "100", "--exponent", "3.0"]),
    ("SBM shuffled, 500K nodes", "sbm-shuffled", ["--kind", "sbm", "--nodes", "500000", "--edges", "5000000"]),
    ("SBM contiguous, 500K nodes", "sbm-contiguous",
     ["--kind", "sbm", "--nodes", "500000", "--edges", "5000000", "--contiguous-blocks"]),
    ("2D 9-point stencil, 1024²", "stencil2d-9", ["--kind", "stencil2d", "--grid", "1024", "--points", "9"]),
    ("FEM 3D linear, 3 dofs, 39³", "fem3d-1", ["--kind", "fem3d", "--grid", "39", "--order", "1", "--dofs", "3"]),
    ("FEM 2D quadratic, 2 dofs, 256²", "fem2d-2", ["--kind", "fem2d", "--grid", "256", "--order", "2", "--dofs", "2"]),
    ("hub row of 1M among 2M nodes", "hub-1m", ["--kind", "hub", "--nodes", "2000000", "--hub-degree", "1000000"]),
]


def families_set(args, log, record):
    builds = [("this build", args.build)] + ([("baseline", args.baseline_build)] if args.baseline_build else [])
    header = "| graph | entries | " + " | ".join(f"{name} FP32 / BF16 ms | ÷" for name, _ in builds)
    if len(builds) > 1:
        header += " | baseline ÷ this build FP32 / BF16"
    lines = [header + " |", "|" + "---|" * (2 + 2 * len(builds) + (1 if len(builds) > 1 else 0))]
    for label, name, options in FAMILIES:
        dataset = generate(args.build, args.data, name, options + ["--features", "64", "--classes", "16"], log)
        steps = {}
        entries = None
        for build_name, build in builds:
            for precision in ("fp32", "bf16"):
                cache = os.path.join(args.out, "cache-" + ("baseline" if build_name == "baseline" else "this"))
                program = os.path.join(build, "examples", "train_gat")
                result = run_json([program, "--dataset", dataset, "--device", args.device, "--precision", precision,
                                   "--quiet", "--print-json", "--epochs", "10", "--patience", "0", "--runs", "1",
                                   "--cache", cache], log)
                record.append({"set": "families", "dataset": name, "build": build, "precision": precision,
                               "result": result})
                steps[(build_name, precision)] = value(result, "epoch_ms_median")
                entries = entries or value(result, "edges")
        cells = [label, "—" if entries is None else f"{entries / 1e6:.1f}M"]
        for build_name, _ in builds:
            fp32, bf16 = steps[(build_name, "fp32")], steps[(build_name, "bf16")]
            cells += [f"{text(fp32)} / {text(bf16)}", f"{fp32 / bf16:.2f}x" if fp32 and bf16 else "—"]
        if len(builds) > 1:
            ratios = []
            for precision in ("fp32", "bf16"):
                ours, theirs = steps[("this build", precision)], steps[("baseline", precision)]
                ratios.append(f"{theirs / ours:.2f}" if ours and theirs else "—")
            cells.append(" / ".join(ratios))
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    baseline = "FP32 of the same programs" + (f"; the programs of {args.baseline_build} in the same call"
                                              if args.baseline_build else "")
    return ("bf16-families", "BF16 GAT step on the kernel suite's families", baseline,
            "GAT (8 heads of 8, 64 input features, 16 classes), 10 epochs, median step; graphs of the kernel "
            "suite's families\n\n" + "\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--data", default="data")
    parser.add_argument("--out", default=os.environ.get("OUT", "mixed-precision-out"))
    parser.add_argument("--sets", default="accuracy,speed")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--device", default="cuda", help="cuda (the targets' device) or cpu (a dry run)")
    parser.add_argument("--baseline-build", help="families: another version's build folder, timed beside this one")
    parser.add_argument("--models", default="gcn,gat", help="accuracy: these registered models (default gcn,gat; sgnn_train --list-models)")
    parser.add_argument("--results", default=results_section.DEFAULT_RESULTS,
                        help="the results file whose sections this run rewrites (default bench/RESULTS.md)")
    parser.add_argument("--no-results", action="store_true", help="leave the results file alone")
    args = parser.parse_args()
    sets = args.sets.split(",")
    for name in sets:
        if name not in ("accuracy", "speed", "families"):
            sys.exit(f"mixed_precision: unknown set {name!r} (accuracy, speed, families)")
    os.makedirs(args.out, exist_ok=True)
    log = os.path.join(args.out, "mixed_precision.log")
    record = []
    sections = []
    if "accuracy" in sets:
        sections.append(accuracy_set(args, log, record))
    if "speed" in sets:
        sections.append(speed_set(args, log, record))
    if "families" in sets:
        sections.append(families_set(args, log, record))
    with open(os.path.join(args.out, "mixed_precision.json"), "w") as handle:
        json.dump(record, handle, indent=1)
    report = "\n".join(body for _, _, _, body in sections)
    with open(os.path.join(args.out, "mixed_precision.md"), "w") as handle:
        handle.write(report)
    print(report)
    suffix = "" if args.device == "cuda" else "-" + args.device
    for name, title, baseline, body in sections:
        results_section.write_section(None if args.no_results else args.results, args.out, name + suffix,
                                      title + ("" if args.device == "cuda" else f" ({args.device})"), baseline, body)


if __name__ == "__main__":
    main()
