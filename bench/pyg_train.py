#!/usr/bin/env python3
"""PyTorch Geometric baseline for bench/compare_pyg.py: trains PyG's GCN, GAT,
SGC, APPNP, GraphSAGE, GIN, GATv2 or TransformerConv model on an OGB
raw-layout dataset (the same files our programs read) and prints one JSON
object with the same fields as `sgnn_train --out`.

`--settings JSON` takes the `hyperparameters` object of our run's results
(sgnn_train --out): epochs, lr, weight_decay and the model's own (hidden,
layers, heads, output_heads, dropout, hops, alpha, aggregator, train_eps), so
that both sides train with the same settings; a flag given explicitly wins
over it. sage, gin, gatv2 and transformer take edge_index only (the GPU
machine's PyG has no torch-sparse).

Runs on the GPU machine (torch 2.11, torch-geometric 2.8). Settings are
PyG's ordinary best: GCNConv(cached=True), the official examples' models,
Adam. `--adjacency csr` feeds a torch.sparse CSR adjacency (not GAT: PyG's
GATConv needs edge_index for per-edge attention). `--precision bf16` runs the
forward passes and the loss under torch.autocast(dtype=torch.bfloat16), PyG's
way of mixed precision (FP32 weights, no loss scaling needed for BF16); a run
that autocast cannot carry reports its error as the status.
"""
import contextlib
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch_geometric.nn import APPNP, GATConv, GATv2Conv, GCNConv, GINConv, SAGEConv, SGConv, TransformerConv
from torch_geometric.utils import to_torch_csr_tensor


def read_csv(raw, name, dtype):
    for suffix in (".csv.gz", ".csv"):
        path = os.path.join(raw, name + suffix)
        if os.path.exists(path):
            return pd.read_csv(path, header=None, dtype=dtype, engine="c").to_numpy()
    sys.exit(f"pyg_train: {os.path.join(raw, name)}.csv[.gz] not found")


def load(directory):
    raw = os.path.join(directory, "raw")
    edges = read_csv(raw, "edge", np.int64)
    features = read_csv(raw, "node-feat", np.float32)
    labels = read_csv(raw, "node-label", np.int64).reshape(-1)
    splits = {name: read_csv(os.path.join(raw, "split"), name, np.int64).reshape(-1)
              for name in ("train", "valid", "test")}
    return edges, features, labels, splits


class GCN(torch.nn.Module):
    def __init__(self, features, hidden, classes, dropout):
        super().__init__()
        self.conv1 = GCNConv(features, hidden, cached=True)
        self.conv2 = GCNConv(hidden, classes, cached=True)
        self.dropout = dropout

    def forward(self, x, adjacency):
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = self.conv1(x, adjacency).relu()
        x = F.dropout(x, p=self.dropout, training=self.training)
        return self.conv2(x, adjacency)


class GAT(torch.nn.Module):
    def __init__(self, features, hidden, heads, classes, output_heads, dropout):
        super().__init__()
        self.conv1 = GATConv(features, hidden, heads=heads, dropout=dropout)
        self.conv2 = GATConv(hidden * heads, classes, heads=output_heads, concat=False, dropout=dropout)
        self.dropout = dropout

    def forward(self, x, adjacency):
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = F.elu(self.conv1(x, adjacency))
        x = F.dropout(x, p=self.dropout, training=self.training)
        return self.conv2(x, adjacency)


class SGC(torch.nn.Module):
    def __init__(self, features, classes, hops):
        super().__init__()
        self.conv = SGConv(features, classes, K=hops, cached=True)

    def forward(self, x, adjacency):
        return self.conv(x, adjacency)


class APPNPNet(torch.nn.Module):  # PyG's benchmark/citation/appnp.py
    def __init__(self, features, hidden, classes, hops, alpha, dropout):
        super().__init__()
        self.lin1 = torch.nn.Linear(features, hidden)
        self.lin2 = torch.nn.Linear(hidden, classes)
        self.prop = APPNP(hops, alpha)
        self.dropout = dropout

    def forward(self, x, adjacency):
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = F.relu(self.lin1(x))
        x = F.dropout(x, p=self.dropout, training=self.training)
        return self.prop(self.lin2(x), adjacency)


class SAGE(torch.nn.Module):  # our sage model: dropout before every SAGEConv, ReLU between
    def __init__(self, features, hidden, classes, layers, aggregator, dropout):
        super().__init__()
        widths = [features] + [hidden] * (layers - 1) + [classes]
        options = dict(aggr="max", project=True) if aggregator == "max-pool" else dict(aggr="mean")
        self.convs = torch.nn.ModuleList(SAGEConv(a, b, **options) for a, b in zip(widths, widths[1:]))
        self.dropout = dropout

    def forward(self, x, adjacency):
        for index, conv in enumerate(self.convs):
            x = conv(F.dropout(x, p=self.dropout, training=self.training), adjacency)
            if index + 1 < len(self.convs):
                x = x.relu()
        return x


class GIN(torch.nn.Module):  # examples/gin.py's, per node: GINConv layers, then MLP([hidden, hidden, classes])
    def __init__(self, features, hidden, classes, layers, train_eps, dropout):
        super().__init__()
        Linear, BatchNorm, ReLU = torch.nn.Linear, torch.nn.BatchNorm1d, torch.nn.ReLU
        self.convs = torch.nn.ModuleList(
            GINConv(torch.nn.Sequential(Linear(features if i == 0 else hidden, hidden), BatchNorm(hidden), ReLU(),
                                        Linear(hidden, hidden)), train_eps=train_eps)
            for i in range(layers))
        self.head = torch.nn.Sequential(Linear(hidden, hidden), ReLU(), torch.nn.Dropout(dropout),
                                        Linear(hidden, classes))

    def forward(self, x, adjacency):
        for conv in self.convs:
            x = conv(x, adjacency).relu()
        return self.head(x)


class Attention(torch.nn.Module):  # GAT's architecture with GATv2Conv or TransformerConv layers
    def __init__(self, layer, features, hidden, heads, classes, output_heads, dropout):
        super().__init__()
        self.conv1 = layer(features, hidden, heads=heads, dropout=dropout)
        self.conv2 = layer(hidden * heads, classes, heads=output_heads, concat=False, dropout=dropout)
        self.dropout = dropout

    def forward(self, x, adjacency):
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = F.elu(self.conv1(x, adjacency))
        x = F.dropout(x, p=self.dropout, training=self.training)
        return self.conv2(x, adjacency)


def row_normalise(x):
    sums = x.sum(dim=1, keepdim=True).clamp(min=1e-12)
    return x / sums


def run(args, seed, data, log):
    torch.manual_seed(seed)
    device = torch.device("cuda")
    x, y, adjacency, splits = data
    classes = int(y.max().item()) + 1
    if args.model == "gcn":
        model = GCN(x.size(1), args.hidden, classes, args.dropout).to(device)
        optimizer = torch.optim.Adam([
            dict(params=model.conv1.parameters(), weight_decay=args.weight_decay),
            dict(params=model.conv2.parameters(), weight_decay=0.0)], lr=args.lr)
    else:
        if args.model == "gat":
            model = GAT(x.size(1), args.hidden, args.heads, classes, args.output_heads, args.dropout)
        elif args.model == "sgc":
            model = SGC(x.size(1), classes, args.hops)
        elif args.model == "appnp":
            model = APPNPNet(x.size(1), args.hidden, classes, args.hops, args.alpha, args.dropout)
        elif args.model == "sage":
            model = SAGE(x.size(1), args.hidden, classes, args.layers, args.aggregator, args.dropout)
        elif args.model == "gin":
            model = GIN(x.size(1), args.hidden, classes, args.layers, args.train_eps, args.dropout)
        else:
            layer = GATv2Conv if args.model == "gatv2" else TransformerConv
            model = Attention(layer, x.size(1), args.hidden, args.heads, classes, args.output_heads, args.dropout)
        model = model.to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    def precision():
        if args.precision == "bf16":
            return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def step():
        model.train()
        optimizer.zero_grad()
        with precision():
            out = model(x, adjacency)
            loss = F.cross_entropy(out[splits["train"]], y[splits["train"]])
        loss.backward()
        optimizer.step()
        return loss

    @torch.no_grad()
    def evaluate():
        model.eval()
        with precision():
            out = model(x, adjacency)
        predictions = out.argmax(dim=-1)
        validation_loss = F.cross_entropy(out[splits["valid"]].float(), y[splits["valid"]])
        accuracy = {name: (predictions[index] == y[index]).float().mean() for name, index in splits.items()}
        return validation_loss, accuracy

    step_ms = []
    best = (-1.0, None)
    torch.cuda.synchronize()
    total_start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        torch.cuda.synchronize()
        start = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        step_ms.append((time.perf_counter() - start) * 1e3)
        validation_loss, accuracy = evaluate()
        validation = float(accuracy["valid"])  # the logged scalars, as our trainer logs them
        if validation > best[0]:
            best = (validation, float(accuracy["test"]))
        if log:
            print(f"epoch {epoch} loss {float(loss):.4f} val {validation:.4f}", file=sys.stderr)
    torch.cuda.synchronize()
    total_s = time.perf_counter() - total_start
    warm = step_ms[min(5, len(step_ms) - 1):]
    return best[1], statistics.median(warm), total_s


# Each model's settings when neither a flag nor --settings gives them: our
# registry's defaults (sgnn_train --list-models).
COMMON = {"epochs": 200, "lr": 0.01, "weight_decay": 5e-4, "hidden": 16, "heads": 8, "output_heads": 1,
          "dropout": 0.5, "hops": 2, "alpha": 0.1}
DEFAULTS = {
    "gcn": dict(COMMON),
    "gat": dict(COMMON, hidden=8, lr=0.005, dropout=0.6),
    "sgc": dict(COMMON, epochs=100, lr=0.2, weight_decay=5e-3, dropout=0.0),
    "appnp": dict(COMMON, hidden=64, hops=10),
    "sage": dict(COMMON, hidden=64, layers=2, aggregator="mean"),
    "gin": dict(COMMON, hidden=64, layers=2, train_eps=True),
    "gatv2": dict(COMMON, hidden=8, lr=0.005, dropout=0.6),
    "transformer": dict(COMMON, hidden=8, lr=0.005, dropout=0.6),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", required=True, help="OGB raw-layout directory (containing raw/)")
    parser.add_argument("--model", choices=sorted(DEFAULTS), default="gcn")
    parser.add_argument("--adjacency", choices=["edge_index", "csr"], default="edge_index")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hidden", type=int)
    parser.add_argument("--heads", type=int)
    parser.add_argument("--output-heads", type=int)
    parser.add_argument("--lr", type=float)
    parser.add_argument("--weight-decay", type=float)
    parser.add_argument("--dropout", type=float)
    parser.add_argument("--hops", type=int, help="SGC's and APPNP's K")
    parser.add_argument("--alpha", type=float, help="APPNP's teleport probability")
    parser.add_argument("--layers", type=int, help="graph layers of sage and gin (gcn: 2 only)")
    parser.add_argument("--aggregator", choices=["mean", "max-pool"], help="sage's aggregator")
    parser.add_argument("--train-eps", type=lambda text: text in ("on", "true", "1"),
                        help="gin: learn eps (on/off)")
    parser.add_argument("--settings", default="{}",
                        help="our run's `hyperparameters` JSON object; explicit flags win over it")
    parser.add_argument("--no-row-normalise", action="store_true")
    parser.add_argument("--precision", choices=["fp32", "bf16"], default="fp32",
                        help="bf16: forward and loss under torch.autocast(dtype=torch.bfloat16)")
    parser.add_argument("--log", action="store_true")
    args = parser.parse_args()
    settings = json.loads(args.settings)
    if args.model == "gcn" and settings.get("layers", 2) != 2:
        sys.exit(f"pyg_train: the GCN here has 2 layers, not {settings['layers']}")
    for name, default in DEFAULTS[args.model].items():
        if getattr(args, name) is None:
            setattr(args, name, type(default)(settings.get(name, default)))
    if args.adjacency == "csr" and args.model not in ("gcn", "sgc", "appnp"):
        sys.exit(f"pyg_train: --adjacency csr is not for {args.model} (edge_index only: per-edge attention, "
                 "max or sum aggregation without torch-sparse)")

    result = {"framework": "pyg", "model": args.model, "adjacency": args.adjacency, "precision": args.precision,
              "dataset": os.path.basename(os.path.normpath(args.dataset)), "runs": args.runs,
              "device": torch.cuda.get_device_name(),
              "hyperparameters": {name: getattr(args, name) for name in DEFAULTS[args.model]},
              "feature_transform": "none" if args.no_row_normalise else "row-normalize"}
    load_start = time.perf_counter()
    edges, features, labels, splits = load(args.dataset)
    read_s = time.perf_counter() - load_start
    device = torch.device("cuda")
    torch.cuda.reset_peak_memory_stats()
    prepare_start = time.perf_counter()
    x = torch.from_numpy(features).to(device)
    if not args.no_row_normalise:
        x = row_normalise(x)
    y = torch.from_numpy(labels).to(device)
    edge_index = torch.from_numpy(edges.T.copy()).to(device)
    n = x.size(0)
    adjacency = edge_index if args.adjacency == "edge_index" else to_torch_csr_tensor(edge_index, size=(n, n))
    split_tensors = {name: torch.from_numpy(index).to(device) for name, index in splits.items()}
    torch.cuda.synchronize()
    result["read_ms"] = read_s * 1e3
    result["preprocess_ms"] = (time.perf_counter() - prepare_start) * 1e3
    result["nodes"], result["edges"] = n, int(edges.shape[0])

    accuracies, steps, totals = [], [], []
    try:
        for run_index in range(args.runs):
            accuracy, step_ms, total_s = run(args, args.seed + run_index, (x, y, adjacency, split_tensors), args.log)
            accuracies.append(accuracy)
            steps.append(step_ms)
            totals.append(total_s)
        result["status"] = "ok"
    except torch.cuda.OutOfMemoryError as error:
        result["status"] = "out of memory"
        result["error"] = str(error).splitlines()[0]
    except RuntimeError as error:  # an op autocast leaves in another dtype than its partner (sparse CSR)
        if args.precision == "fp32":
            raise
        result["status"] = "failed under autocast"
        result["error"] = str(error).splitlines()[0]
    if accuracies:
        result["test_accuracy"] = statistics.mean(accuracies)
        result["test_accuracy_std"] = statistics.pstdev(accuracies) if len(accuracies) > 1 else 0.0
        result["epoch_ms_median"] = statistics.median(steps)
        result["train_seconds"] = statistics.median(totals)
    result["peak_device_bytes"] = torch.cuda.max_memory_allocated()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
