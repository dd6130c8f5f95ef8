#!/usr/bin/env python3
"""Epoch time of full-graph training on 1, 2, 4 ... GPUs, one process driving
every GPU (train_gcn_multigpu: one thread per GPU) against one process per GPU
(train_gcn_distributed, launcher-free: NCCL's id through a rendezvous file, so
no MPI runtime is needed on the GPU machine). Prints a markdown table: median
epoch time (epochs after the first three), communication per epoch, speed-up
over one GPU of the same mode, scaling efficiency, and the multi-process time
over the one-process time.

  python3 bench/multiprocess_scaling.py --build build --data data --gpus 1,2,4 \\
      --graphs reddit-scale,products-scale [--epochs 30] [--markdown FILE] [--out DIR]

The table replaces the section multi-gpu-scaling of bench/RESULTS.md
(--section another name, --no-results leaves the file alone) with the
machine, the commit and this command; with --out (default $OUT) it is also
saved as OUT/<section>.section.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import results_section  # noqa: E402  (bench/support: writes this run's section of bench/RESULTS.md)


def last_json(text):
    return json.loads(text.strip().splitlines()[-1])


def median_epoch_ms(result):
    times = [epoch["epoch_ms"] for epoch in result["epochs"]]
    return statistics.median(times[3:] if len(times) > 3 else times)


def model_flags(model, args):
    if model == "gcn":
        return ["--model", "gcn", "--hidden", str(args.gcn_hidden)]
    return ["--model", "gat", "--hidden", str(args.gat_hidden), "--heads", str(args.gat_heads)]


def one_process(args, dataset, model, gpus):
    command = [f"{args.build}/examples/train_gcn_multigpu", "--dataset", dataset, "--gpus", str(gpus),
               "--epochs", str(args.epochs), "--dropout", "0", "--print-json"] + model_flags(model, args)
    result = last_json(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    return median_epoch_ms(result), result["epochs"][-1]["bytes"]


def multi_process(args, partitions, model, gpus):
    with tempfile.TemporaryDirectory() as folder:
        run_id = f"scaling-{os.getpid()}-{time.time_ns()}"
        processes = []
        for rank in range(gpus):
            environment = dict(os.environ, SGNN_RANK=str(rank), SGNN_WORLD_SIZE=str(gpus), SGNN_LOCAL_RANK=str(rank),
                               SGNN_RUN_ID=run_id, SGNN_RENDEZVOUS=f"{folder}/rendezvous")
            command = [f"{args.build}/examples/train_gcn_distributed", "--partitions", partitions, "--device", "cuda",
                       "--epochs", str(args.epochs), "--dropout", "0", "--print-json"] + model_flags(model, args)
            processes.append(subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                              text=True))
        outputs = [process.communicate(timeout=args.timeout) for process in processes]
        for rank, (process, (_, stderr)) in enumerate(zip(processes, outputs)):
            if process.returncode != 0:
                raise RuntimeError(f"rank {rank} of {gpus} failed ({process.returncode}): {stderr[-2000:]}")
        result = last_json(outputs[0][0])
        return median_epoch_ms(result), result["epochs"][-1]["bytes"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--data", default="data")
    parser.add_argument("--graphs", default="reddit-scale,products-scale")
    parser.add_argument("--gpus", default="1,2,4")
    parser.add_argument("--models", default="gcn,gat")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--gcn-hidden", type=int, default=256)
    parser.add_argument("--gat-hidden", type=int, default=8)
    parser.add_argument("--gat-heads", type=int, default=8)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--markdown")
    parser.add_argument("--out", default=os.environ.get("OUT"), help="where the section is saved (default $OUT)")
    results_section.add_arguments(parser, "multi-gpu-scaling")
    args = parser.parse_args()
    gpu_counts = [int(count) for count in args.gpus.split(",")]
    lines = ["| graph | model | GPUs | one-process ms | multi-process ms | multi / one | speed-up (one, multi) | "
             "efficiency (one, multi) | MB per epoch |", "|---|---|---|---|---|---|---|---|---|"]
    for graph in args.graphs.split(","):
        dataset = f"{args.data}/{graph}"
        if not os.path.isdir(f"{dataset}/raw"):
            subprocess.run([f"{args.build}/examples/sgnn_gen", "--out", dataset, "--no-gzip", "--preset", graph],
                           check=True, stdout=subprocess.DEVNULL)
        for gpus in gpu_counts:
            partitions = f"{args.data}/{graph}-parts-{gpus}"
            if not os.path.exists(f"{partitions}/part-0-of-{gpus}.sgnn"):
                subprocess.run([f"{args.build}/examples/sgnn_partition", "--dataset", dataset, "--parts", str(gpus),
                                "--out", partitions], check=True, stdout=subprocess.DEVNULL)
        for model in args.models.split(","):
            base = {}
            for gpus in gpu_counts:
                one_ms, one_bytes = one_process(args, dataset, model, gpus)
                multi_ms, _ = multi_process(args, f"{args.data}/{graph}-parts-{gpus}", model, gpus)
                base.setdefault("one", one_ms)
                base.setdefault("multi", multi_ms)
                speedup = (base["one"] / one_ms, base["multi"] / multi_ms)
                line = (f"| {graph} | {model} | {gpus} | {one_ms:.1f} | {multi_ms:.1f} | {multi_ms / one_ms:.3f} | "
                        f"{speedup[0]:.2f}x, {speedup[1]:.2f}x | {speedup[0] / gpus:.2f}, {speedup[1] / gpus:.2f} | "
                        f"{one_bytes / 1e6:.1f} |")
                print(line, flush=True)
                lines.append(line)
    table = "\n".join(lines) + "\n"
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as out:
            out.write(table)
    results_section.write_section(
        None if args.no_results else args.results, args.out, args.section,
        "Multi-GPU and multi-process scaling",
        "one GPU in the same mode, same call; one process driving every GPU (train_gcn_multigpu) against one "
        "process per GPU (train_gcn_distributed, NCCL through a rendezvous file)",
        table + f"\nMedian epoch after the first three of {args.epochs}, dropout 0; GCN hidden {args.gcn_hidden}, "
        f"GAT {args.gat_heads} heads of {args.gat_hidden}.")


if __name__ == "__main__":
    sys.exit(main())
