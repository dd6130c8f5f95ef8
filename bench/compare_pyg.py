#!/usr/bin/env python3
"""Program-level benchmark: trains our models (examples/sgnn_train --model
NAME) and PyG's (bench/pyg_train.py) on the same OGB raw-layout files in one
run on the GPU machine, and writes a markdown table with our ÷ PyG ratios to
OUT/bench_training.md (JSON of every run beside it).

    python3 bench/compare_pyg.py --build build --data data --out OUT [--sets citation,large,degree] [--quick]
                                 [--precisions fp32,bf16] [--datasets reddit-scale,...] [--models gcn,gat,...]
                                 [--pyg-inputs edge_index] [--runs 10]

Sets: citation = the bundled cora and citeseer (<build>/share/sparsegnn/datasets), every model of
pyg_train.py (gcn, gat, sgc, appnp, sage, gin, gatv2, transformer); large = the Reddit-scale and
products-scale synthetic graphs (GCN; every model on Reddit-scale); degree = GAT on the degree-50 and degree-100
graphs of issue 7. Synthetic graphs are generated with sgnn_gen into --data first. --quick = --sets citation.
Same settings on both sides: PyG trains with the hyperparameters and the
feature transform our run reports (its JSON's `hyperparameters` and
`feature_transform`, passed as pyg_train.py --settings), and our runs follow
PyG's procedure (every epoch runs, no early stopping, the test accuracy at the
best validation accuracy; GAT without dropout on W·x; GAT, GATv2 and the
transformer 200 epochs) so that both sides do the same work per epoch and in
total. sage, gin, gatv2 and transformer: PyG on edge_index only.
--precisions fp32,bf16 runs every case in both precisions: ours with
--precision bf16, PyG under torch.autocast(dtype=torch.bfloat16)
(bench/pyg_train.py --precision bf16), side by side in the table.
--datasets keeps only the named cases of the sets, --models only those
models' (gcn, gat, ...), --pyg-inputs only those PyG inputs (edge_index, csr). The table and JSON are rewritten after every
case, so a run stopped by a time limit keeps the cases it finished.
At the end each set's table replaces its section of bench/RESULTS.md
(pyg-citation, pyg-large, pyg-degree; --section puts every row in one
section, --no-results leaves the file alone) with the machine, the commit and
this command, and is saved as OUT/<section>.section.md
(bench/support/results_section.py --apply puts a saved one in).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "support"))
import results_section  # noqa: E402  (bench/support: writes this run's section of bench/RESULTS.md)
# The registered models pyg_train.py has a PyG counterpart of.
MODELS = ("gcn", "gat", "sgc", "appnp", "sage", "gin", "gatv2", "transformer")


def run_json(command, log):
    started = time.perf_counter()
    process = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    with open(log, "a") as handle:
        handle.write("$ " + " ".join(command) + "\n" + process.stdout + process.stderr + "\n")
    if process.returncode != 0:
        return {"status": f"failed (exit {process.returncode})", "error": process.stderr.strip().splitlines()[-1:]}
    for line in reversed(process.stdout.strip().splitlines()):
        if line.startswith("{"):
            result = json.loads(line)
            result["wall_seconds"] = elapsed
            return result
    return {"status": "no JSON output"}


def ours(build, model, dataset, extra, out, cache, log):
    # The results come back on stdout (--print-json) and go into OUT/bench_training.json with PyG's: no file
    # per run, so that OUT stays within what the GPU machine sends back.
    command = [os.path.join(build, "examples", "sgnn_train"), "--model", model, "--dataset", dataset,
               "--device", "cuda", "--quiet"] + extra
    if cache:
        command += ["--cache", cache]
    result = run_json(command + ["--print-json"], log)
    return result


def generate(build, data, name, arguments, log):
    directory = os.path.join(data, name)
    if os.path.exists(os.path.join(directory, "raw", "num-node-list.csv")):
        return directory
    command = [os.path.join(build, "examples", "sgnn_gen"), "--out", directory, "--no-gzip"] + arguments
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    with open(log, "a") as handle:
        handle.write(f"generated {name} in {time.perf_counter() - started:.1f} s\n")
    return directory


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "—"
    return f"{a / b:.2f}"


def number(value, scale=1.0, digits=2):
    return "—" if value is None else f"{value * scale:.{digits}f}"


def table(rows):
    """The markdown table of these rows: ours beside PyG, ÷ = ours ÷ PyG."""
    lines = ["| dataset | model | precision | PyG input | step ms ours | step ms PyG | ÷ | train s ours "
             "| train s PyG | ÷ | peak GB ours | peak GB PyG | ÷ | prep ms cold / warm | prep ms PyG "
             "| test acc ours | test acc PyG |",
             "|" + "---|" * 17]
    for label, model, precision, mode, cold, warm, pyg in rows:
        step_ours, step_pyg = warm.get("epoch_ms_median"), pyg.get("epoch_ms_median")
        total_ours, total_pyg = warm.get("train_seconds"), pyg.get("train_seconds")
        peak_ours, peak_pyg = warm.get("peak_device_bytes"), pyg.get("peak_device_bytes")
        status = "" if pyg.get("status") == "ok" else f" ({pyg.get('status')})"
        if status:  # a failed run's peak is where it stopped, not a figure to compare
            total_pyg = None
            peak_pyg_cell = "—" if peak_pyg is None else f"≥ {peak_pyg * 1e-9:.2f} when it stopped"
        else:
            peak_pyg_cell = number(peak_pyg, 1e-9)
        captured = " (graph)" if warm.get("step_captured") else ""  # step replayed from a CUDA Graph
        lines.append(
            f"| {label} | {model} | {precision} | {mode}{status} | {number(step_ours, 1, 3)}{captured} | "
            f"{number(step_pyg, 1, 3)} | "
            f"{ratio(step_ours, step_pyg)} | {number(total_ours)} | {number(total_pyg)} | "
            f"{ratio(total_ours, total_pyg)} | {number(peak_ours, 1e-9)} | {peak_pyg_cell} | "
            f"{ratio(peak_ours, None if status else peak_pyg)} | {number(cold.get('preprocess_ms'), 1, 1)} / "
            f"{number(warm.get('preprocess_ms'), 1, 1)} | {number(pyg.get('preprocess_ms'), 1, 1)} | "
            f"{number(warm.get('test_accuracy'), 100, 1)} | {number(pyg.get('test_accuracy'), 100, 1)} |")
    return "\n".join(lines) + "\n"


def write_tables(rows, out):
    """Writes the JSON and the markdown table of the rows so far (after every case: a run cut short keeps them)."""
    with open(os.path.join(out, "bench_training.json"), "w") as handle:
        json.dump([{"dataset": r[0], "model": r[1], "precision": r[2], "pyg_adjacency": r[3], "ours_cold": r[4],
                    "ours_warm": r[5], "pyg": r[6]} for r in rows], handle, indent=1)
    text = table(rows)
    with open(os.path.join(out, "bench_training.md"), "w") as handle:
        handle.write(text)
    return text


def speedups(rows):
    """Per (dataset, precision) one line: the range over models of PyG's fastest input's step and peak memory
    against ours (the slowest and fastest model named); a model without a ratio gets a line of its own."""
    lines, seen = [], {}
    for label, model, precision, mode, cold, warm, pyg in rows:
        entry = seen.setdefault((label, model, precision), {"ours": warm, "pyg": None, "failed": []})
        if pyg.get("status") == "ok" and pyg.get("epoch_ms_median"):
            if entry["pyg"] is None or pyg["epoch_ms_median"] < entry["pyg"][1]["epoch_ms_median"]:
                entry["pyg"] = (mode, pyg)
        else:
            entry["failed"].append(f"{mode}: {pyg.get('status')}")
    ranges = {}  # (label, precision) -> [(step ratio, model, memory ratio or None)]
    for (label, model, precision), entry in seen.items():
        ours = entry["ours"]
        if entry["pyg"] is None or not ours.get("epoch_ms_median"):
            lines.append(f"- {label} {model} {precision}: no ratio (PyG {'; '.join(entry['failed']) or 'not run'}; "
                         f"ours {number(ours.get('epoch_ms_median'), 1, 3)} ms a step, "
                         f"{number(ours.get('peak_device_bytes'), 1e-9)} GB)")
            continue
        mode, pyg = entry["pyg"]
        memory = (ours["peak_device_bytes"] / pyg["peak_device_bytes"]
                  if ours.get("peak_device_bytes") and pyg.get("peak_device_bytes") else None)
        ranges.setdefault((label, precision), []).append(
            (pyg["epoch_ms_median"] / ours["epoch_ms_median"], model, memory))
    for (label, precision), found in ranges.items():
        slowest, fastest = min(found), max(found)
        step = (f"{slowest[0]:.1f}x ({slowest[1]})" if len(found) == 1 else
                f"{slowest[0]:.1f}x ({slowest[1]}) to {fastest[0]:.1f}x ({fastest[1]})")
        memories = [m for _, _, m in found if m is not None]
        memory = (f", {min(memories):.2f}-{max(memories):.2f}x its peak memory" if len(memories) > 1 else
                  f", {memories[0]:.2f}x its peak memory" if memories else "")
        lines.append(f"- {label} {precision}: step {step} faster than PyG's faster input{memory}")
    return "\n".join(lines) + "\n"


SET_OF = {"cora": "citation", "citeseer": "citation", "reddit-scale": "large", "products-scale": "large",
          "degree-50": "degree", "degree-100": "degree"}
TITLES = {"citation": "Training step against PyG: Cora and Citeseer",
          "large": "Training step against PyG: the Reddit- and products-scale graphs",
          "degree": "GAT against PyG on the degree-50 and degree-100 graphs"}
NOTES = """step: forward + backward + optimizer, median over epochs ("(graph)": replayed from a CUDA Graph);
train s: the whole run with evaluation; peak: device bytes at peak (ours: the pool's high-water mark from
load on; PyG: torch.cuda.max_memory_allocated); prep: our read + prepare with a cold / warm adjacency
cache; ÷ = ours ÷ PyG (under 1: ours is faster or smaller). Our GAT, GATv2 and transformer run PyG's
procedure here (200 epochs, no early stopping; GAT without dropout on W·x)."""


def pyg_version():
    probe = subprocess.run([sys.executable, "-c", "import torch, torch_geometric; "
                            "print(f'{torch_geometric.__version__} (torch {torch.__version__})')"],
                           capture_output=True, text=True)
    return probe.stdout.strip() if probe.returncode == 0 else "(not importable where this ran)"


def write_sections(rows, args):
    """Each set's rows as its section of the results file (or every row in --section)."""
    groups = {}
    for row in rows:
        name = args.section if args.section != "pyg-SET" else "pyg-" + SET_OF.get(row[0], "other")
        groups.setdefault(name, []).append(row)
    baseline = (f"PyTorch Geometric {pyg_version()} through bench/pyg_train.py on the same files and GPU: "
                "GCNConv(cached=True), SGConv(cached=True) and APPNP on edge_index and on a torch.sparse CSR "
                "adjacency; GATConv, SAGEConv, GINConv, GATv2Conv and TransformerConv on edge_index; "
                "bf16 rows under torch.autocast")
    for name, group in groups.items():
        title = TITLES.get(name[len("pyg-"):], "Training against PyG") if name.startswith("pyg-") else name
        results_section.write_section(None if args.no_results else args.results, args.out, name, title, baseline,
                                      table(group) + "\n" + speedups(group) + "\n" + NOTES)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--data", default="data")
    parser.add_argument("--out", default=os.environ.get("OUT", "compare-out"))
    parser.add_argument("--sets", default="citation,large,degree")
    parser.add_argument("--quick", action="store_true", help="cora and citeseer only (--sets citation)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--precisions", default="fp32", help="comma-separated: fp32, bf16 (default fp32)")
    parser.add_argument("--datasets", default="",
                        help="comma-separated labels (cora, reddit-scale, degree-50, ...): only these cases of the sets")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated: only these models' cases (" + ", ".join(MODELS) + ")")
    parser.add_argument("--pyg-inputs", default="edge_index,csr",
                        help="PyG adjacency inputs to run where a case has them (default edge_index,csr)")
    results_section.add_arguments(parser, "pyg-SET")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    log = os.path.join(args.out, "compare_pyg.log")
    # The adjacency caches of the cold and warm runs: scratch, outside OUT (many files, none a result).
    cache = tempfile.mkdtemp(prefix="compare-pyg-cache-")

    sets = {"citation"} if args.quick else set(args.sets.split(","))
    pyg_procedure = ["--patience", "0", "--monitor", "accuracy"]  # every model's
    gat_procedure = pyg_procedure + ["--projected-dropout", "off"]
    wanted = set(filter(None, args.datasets.split(",")))
    chosen = lambda label: not wanted or label in wanted
    cases = []  # (label, model, dataset dir, our extra flags, pyg extra flags, pyg adjacency modes)
    for name in [n for n in ("cora", "citeseer") if chosen(n)] if "citation" in sets else ():
        directory = os.path.join(args.build, "share", "sparsegnn", "datasets", name)  # the bundled copies
        cases.append((name, "gcn", directory, pyg_procedure, [], ["edge_index", "csr"]))
        cases.append((name, "gat", directory, ["--epochs", "200"] + gat_procedure, [], ["edge_index"]))
        for model in ("sgc", "appnp"):  # PyG's SGConv and APPNP normalise a CSR input as GCNConv does
            cases.append((name, model, directory, pyg_procedure, [], ["edge_index", "csr"]))
        for model in ("sage", "gin"):
            cases.append((name, model, directory, pyg_procedure, [], ["edge_index"]))
        for model in ("gatv2", "transformer"):  # GAT's procedure without its W·x dropout switch
            cases.append((name, model, directory, ["--epochs", "200"] + pyg_procedure, [], ["edge_index"]))
    gat_big = ["--epochs", "20", "--runs", "1"]
    if "large" in sets:
        big = ["--epochs", "20", "--runs", "1", "--hidden", "128"]
        if chosen("reddit-scale"):
            reddit = generate(args.build, args.data, "reddit-scale", ["--preset", "reddit-scale"], log)
            cases.append(("reddit-scale", "gcn", reddit, big + pyg_procedure, big, ["edge_index", "csr"]))
            cases.append(("reddit-scale", "gat", reddit, gat_big + gat_procedure, gat_big, ["edge_index"]))
            # The other models with their own widths (sgc has none) and the citation cases' inputs.
            short = ["--epochs", "20", "--runs", "1"]
            cases.append(("reddit-scale", "sgc", reddit, short + pyg_procedure, short, ["edge_index", "csr"]))
            cases.append(("reddit-scale", "appnp", reddit, big + pyg_procedure, big, ["edge_index", "csr"]))
            for model in ("sage", "gin"):
                cases.append(("reddit-scale", model, reddit, big + pyg_procedure, big, ["edge_index"]))
            for model in ("gatv2", "transformer"):
                cases.append(("reddit-scale", model, reddit, gat_big + pyg_procedure, gat_big, ["edge_index"]))
        if chosen("products-scale"):
            products = generate(args.build, args.data, "products-scale", ["--preset", "products-scale"], log)
            cases.append(("products-scale", "gcn", products, big + pyg_procedure, big, ["edge_index", "csr"]))
    if "degree" in sets:
        for degree in [d for d in (50, 100) if chosen(f"degree-{d}")]:
            directory = generate(args.build, args.data, f"degree-{degree}",
                                 ["--kind", "rmat", "--nodes", "232965", "--edges", str(232965 * degree // 2),
                                  "--symmetric", "--features", "602", "--classes", "41", "--seed", "3"], log)
            cases.append((f"degree-{degree}", "gat", directory, gat_big + gat_procedure, gat_big, ["edge_index"]))

    models = set(args.models.split(","))
    unknown = models - set(MODELS)
    if unknown:
        sys.exit(f"compare_pyg: unknown model {sorted(unknown)[0]!r} ({', '.join(MODELS)})")
    cases = [case for case in cases if case[1] in models]
    precisions = args.precisions.split(",")
    for precision in precisions:
        if precision not in ("fp32", "bf16"):
            sys.exit(f"compare_pyg: unknown precision {precision!r} (fp32, bf16)")
    rows = []
    for label, model, directory, our_flags, pyg_flags, modes in cases:
        runs = ["--runs", str(args.runs)] if "--runs" not in our_flags else []
        for precision in precisions:
            flags = our_flags + runs + ["--precision", precision]
            cold = ours(args.build, model, directory, flags, args.out, cache + "-" + label, log)
            warm = ours(args.build, model, directory, flags, args.out, cache + "-" + label, log)
            # PyG trains with the settings our run used (a failed run of ours: pyg_train.py's defaults).
            same = ["--settings", json.dumps(warm.get("hyperparameters", {}))]
            if warm.get("feature_transform") == "none":
                same.append("--no-row-normalise")
            for mode in [m for m in modes if m in args.pyg_inputs.split(",")]:
                pyg = run_json([sys.executable, os.path.join(HERE, "pyg_train.py"), "--dataset", directory,
                                "--model", model, "--adjacency", mode, "--precision", precision] + same + pyg_flags
                               + runs, log)
                rows.append((label, model, precision, mode, cold, warm, pyg))
                print(label, model, precision, mode, json.dumps({"ours": warm, "pyg": pyg}), flush=True)
                write_tables(rows, args.out)

    print(write_tables(rows, args.out))
    write_sections(rows, args)
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
