#!/usr/bin/env python3
"""Side-by-side table of several results files written by train_gcn/train_gat
with --out (schema: docs/results-json.md).

    python3 scripts/compare_results.py gcn-cpu.json gcn-cuda.json gat-cuda.json
"""
import argparse
import json
import sys

ROWS = [  # (label, field, format)
    ("model", "model", "{}"),
    ("dataset", "dataset", "{}"),
    ("device", "device", "{}"),
    ("spmm", "spmm", "{}"),
    ("runs", "runs", "{}"),
    ("test accuracy %", "test_accuracy", "{:.2f}", 100.0),
    ("± std %", "test_accuracy_std", "{:.2f}", 100.0),
    ("test macro-F1", "test_macro_f1", "{:.4f}"),
    ("epoch ms (median)", "epoch_ms_median", "{:.3f}"),
    ("train s (median run)", "train_seconds", "{:.2f}"),
    ("peak device MiB", "peak_device_bytes", "{:.1f}", 1.0 / 2**20),
    ("read ms", "read_ms", "{:.1f}"),
    ("preprocess ms", "preprocess_ms", "{:.1f}"),
    ("cache hit", "cache_hit", "{}"),
]


def cell(result, row):
    value = result.get(row[1])
    if value is None:
        return "—"
    if len(row) > 3:
        value = value * row[3]
    return row[2].format(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="results JSON files (--out of the training programs)")
    args = parser.parse_args()
    results = []
    for name in args.files:
        try:
            with open(name) as handle:
                results.append(json.load(handle))
        except (OSError, json.JSONDecodeError) as error:
            sys.exit(f"compare_results: {name}: {error}")
    print("| | " + " | ".join(args.files) + " |")
    print("|---" * (len(args.files) + 1) + "|")
    for row in ROWS:
        print(f"| {row[0]} | " + " | ".join(cell(result, row) for result in results) + " |")


if __name__ == "__main__":
    main()
