#!/usr/bin/env python3
"""Attention models against GAT on one large graph: step time and peak device
memory of our gatv2 and transformer beside our gat, in the same run (issue 46:
GATv2 within 1.2x of GAT's peak memory and step time on the Reddit-scale
preset, which the fused scores make possible: no [E, H, F] tensor).

    python3 bench/compare_attention.py --build .gpu/build --data /tmp/data --out $OUT [--preset reddit-scale]
                                       [--models gat,gatv2,transformer] [--epochs 20]

Each model trains with sgnn_train --device cuda, one run, the same widths
(--hidden 8 --heads 8 --output-heads 1) and procedure (every epoch, no early
stopping; GAT without its W·x dropout, which the others do not have), on the
graph sgnn_gen --preset writes into --data (kept there for later runs). The
table goes to OUT/attention.md and the section `attention` of
bench/RESULTS.md.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "support"))
import results_section  # noqa: E402
from compare_pyg import generate, run_json  # noqa: E402  (the same runner and generator as the PyG comparison)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--data", default="data")
    parser.add_argument("--out", default=os.environ.get("OUT", "attention-out"))
    parser.add_argument("--preset", default="reddit-scale", choices=["reddit-scale", "products-scale"])
    parser.add_argument("--models", default="gat,gatv2,transformer")
    parser.add_argument("--epochs", type=int, default=20)
    results_section.add_arguments(parser, "attention")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    log = os.path.join(args.out, "attention.log")
    dataset = generate(args.build, args.data, args.preset, ["--preset", args.preset], log)
    models = args.models.split(",")
    if "gat" not in models:
        sys.exit("compare_attention: gat is the baseline; keep it in --models")
    common = ["--device", "cuda", "--runs", "1", "--epochs", str(args.epochs), "--hidden", "8", "--heads", "8",
              "--output-heads", "1", "--patience", "0", "--monitor", "accuracy", "--quiet", "--print-json"]
    results = {}
    for model in models:
        extra = ["--projected-dropout", "off"] if model == "gat" else []
        command = [os.path.join(args.build, "examples", "sgnn_train"), "--model", model, "--dataset", dataset,
                   "--out", os.path.join(args.out, f"{model}.json")] + common + extra
        results[model] = run_json(command, log)
        print(model, json.dumps(results[model])[:300], flush=True)

    base = results["gat"]
    lines = ["| model | step ms | ÷ GAT | peak GB | ÷ GAT | test acc |", "|---|---|---|---|---|---|"]
    for model in models:
        r = results[model]
        if r.get("status") != "ok":
            lines.append(f"| {model} | {r.get('status')}: {' '.join(r.get('error', []))} | | | | |")
            continue
        step, peak = r["epoch_ms_median"], r["peak_device_bytes"]
        step_ratio = step / base["epoch_ms_median"] if base.get("status") == "ok" else float("nan")
        peak_ratio = peak / base["peak_device_bytes"] if base.get("status") == "ok" else float("nan")
        lines.append(f"| {model} | {step:.2f} | {step_ratio:.2f} | {peak / 1e9:.2f} | {peak_ratio:.2f} | "
                     f"{100 * r['test_accuracy']:.1f} |")
    graph = f"{base.get('nodes', '?')} nodes, {base.get('edges', '?')} entries with self loops"
    text = "\n".join(lines) + (
        f"\n\n{args.preset} ({graph}), {args.epochs} epochs, hidden 8 x 8 heads, one output head; step: forward + "
        "backward + optimizer, median over epochs; peak: the device pool's high-water mark from load on. Target "
        "(issue 46): gatv2 within 1.2x of gat in both.")
    with open(os.path.join(args.out, "attention.md"), "w") as handle:
        handle.write(text + "\n")
    print(text)
    results_section.write_section(
        None if args.no_results else args.results, args.out, args.section,
        f"Attention models against GAT on the {args.preset} graph",
        "our gat (sgnn_train --model gat, fused LeakyReLU(u + v) scores) with the same widths and procedure", text)


if __name__ == "__main__":
    main()
