#!/usr/bin/env bash
# End-to-end checks of the example programs (CPU tier), run by ctest:
#   examples_test.sh <build/examples>
# Bad flags must fail with a message naming the flag; short runs must write
# a results JSON with the documented fields and a well-formed SVG; a run
# resumed from a checkpoint must end with the same accuracy as a run without
# the interruption; mini-batch training (--batch-size) writes its JSON and
# refuses what does not apply; custom_dataset must train on CSV files.
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A fresh user's environment: nothing but the bundled Cora (share/sparsegnn/datasets beside the programs).
unset SGNN_DATA
export XDG_DATA_HOME="$work/xdg" XDG_CACHE_HOME="$work/cache"  # a bundled dataset's processed file goes to the cache
cd "$work"
fail() { echo "examples_test: $*" >&2; exit 1; }

expect_error() {  # expect_error <pattern> <program> <args...>
  local pattern="$1"; shift
  if "$@" >"$work/out" 2>&1; then fail "'$*' succeeded, expected an error"; fi
  grep -q -- "$pattern" "$work/out" || fail "'$*' printed $(cat "$work/out"), expected '$pattern'"
}
expect_error "--epochs" "$bin/train_gcn" --dataset cora --epochs 0
expect_error "--spmm" "$bin/train_gcn" --dataset cora --spmm fast
expect_error "heads" "$bin/train_gcn" --dataset cora --heads 4
expect_error "--dataset is required\|--dataset" "$bin/train_gat"
expect_error "error:" "$bin/train_gcn" --dataset /nonexistent/dataset --quiet
expect_error "single run" "$bin/train_gcn" --dataset cora --runs 2 --checkpoint "$work/x.ckpt"
expect_error "cpu\|cuda" "$bin/train_gcn" --dataset cora --device tpu

"$bin/train_gcn" --dataset cora --epochs 12 --out "$work/gcn.json" --plot "$work/gcn.svg" --print-json \
  >"$work/stdout" 2>"$work/stderr"
tail -n1 "$work/stdout" | python3 -c '
import json, sys
result = json.loads(sys.stdin.read())
for field in ("test_accuracy", "test_accuracy_std", "runs", "epoch_ms_median", "train_seconds",
              "peak_device_bytes", "preprocess_ms", "cache_hit", "device", "dataset", "model"):
    assert field in result, field
assert result["model"] == "gcn" and result["dataset"] == "cora" and result["runs"] == 1
assert len(result["history"]) == 12, len(result["history"])
' || fail "bad --print-json output: $(tail -n1 "$work/stdout")"
cmp <(tail -n1 "$work/stdout") "$work/gcn.json" || fail "--out and --print-json differ"
[ "$(grep -c '^epoch' "$work/stderr")" -eq 12 ] || fail "expected 12 plain progress lines when piped"
python3 -c '
import sys, xml.etree.ElementTree as tree
root = tree.parse(sys.argv[1]).getroot()
lines = [e for e in root.iter() if e.tag.endswith("polyline")]
assert len(lines) == 4 and all(len(e.get("points").split()) == 12 for e in lines)
' "$work/gcn.svg" || fail "bad SVG"

# Resume: 6 epochs + 6 more from the checkpoint == 12 epochs straight.
"$bin/train_gcn" --dataset cora --epochs 6 --checkpoint "$work/gcn.ckpt" --quiet --print-json >/dev/null
"$bin/train_gcn" --dataset cora --epochs 12 --resume "$work/gcn.ckpt" --quiet --print-json >"$work/resumed"
python3 -c '
import json, sys
a = json.loads(open(sys.argv[1]).read())
b = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])
assert a["test_accuracy"] == b["test_accuracy"], (a["test_accuracy"], b["test_accuracy"])
assert [e["train_loss"] for e in a["history"]] == [e["train_loss"] for e in b["history"]]
' "$work/gcn.json" "$work/resumed" || fail "resumed run differs from the uninterrupted one"

"$bin/train_gat" --dataset cora --epochs 3 --hidden 4 --heads 2 --quiet --print-json | tail -n1 | grep '"model":"gat"' > /dev/null \
  || fail "train_gat did not run"

# Mini-batch training: sgnn_train --batch-size with the model's registry entry (sage, gcn, gat), its progress
# lines, the JSON; refused for models whose layers take no blocks and with full-graph-only flags.
# (Into a file first: under pipefail, grep -q leaving early would fail the listing with SIGPIPE.)
"$bin/sgnn_train" --list-models > "$work/models.txt"
grep -q '^sage' "$work/models.txt" || fail "sage is not registered (training/nn/sage_model.cpp)"
"$bin/sgnn_train" --model sage --dataset cora --batch-size 64 --fanout 10,10 --epochs 3 --hidden 16 --seed 2 \
  --out "$work/minibatch.json" >"$work/minibatch.out" 2>"$work/minibatch.err" ||
  fail "mini-batch sgnn_train failed: $(cat "$work/minibatch.err")"
python3 - "$work/minibatch.json" <<'PY' || fail "bad mini-batch JSON: $(cat "$work/minibatch.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["program"] == "sgnn_train" and r["model"] == "sage" and r["training"] == "minibatch", r
assert r["dataset"] == "cora" and r["batch_size"] == 64 and r["fanouts"] == [10, 10] and r["layers"] == 2
assert r["hidden"] == 16 and r["epochs"] == 3 and r["seed"] == 2 and r["train_nodes"] == 140
assert r["aggregator"] == "mean", r["aggregator"]
assert len(r["epochs_run"]) == 3 and all(e["evaluated"] and e["seeds_per_second"] > 0 for e in r["epochs_run"])
assert 1 <= r["best_epoch"] <= 3 and 0.2 < r["test_accuracy"] <= 1.0, r["test_accuracy"]
assert r["seeds_per_second"] > 0 and r["sampled_edges_per_second"] > 0
PY
[ "$(grep -c '^epoch' "$work/minibatch.err")" -ge 3 ] || fail "expected a progress line per epoch: $(cat "$work/minibatch.err")"
grep -q "sage (mini-batch) on cora" "$work/minibatch.out" || fail "no mini-batch summary: $(cat "$work/minibatch.out")"
expect_error "layers take sampled blocks (sage, gcn, gat); the sgc model's layers do not" \
  "$bin/sgnn_train" --model sgc --dataset cora --batch-size 64
"$bin/train_gat" --dataset cora --batch-size 64 --fanout 5,5 --epochs 1 --out "$work/gat-minibatch.json" >/dev/null 2>&1 ||
  fail "mini-batch GAT (train_gat --batch-size) failed"
grep -q '"model":"gat","training":"minibatch"' "$work/gat-minibatch.json" && grep -q '"heads":8' "$work/gat-minibatch.json" ||
  fail "mini-batch GAT's JSON: $(cat "$work/gat-minibatch.json")"
"$bin/sgnn_train" --model gcn --dataset cora --batch-size 64 --fanout 10,10 --epochs 2 --hidden 16 \
  --out "$work/gcn-minibatch.json" >/dev/null 2>&1 || fail "mini-batch GCN failed"
python3 - "$work/gcn-minibatch.json" <<'PY' || fail "bad mini-batch GCN JSON: $(cat "$work/gcn-minibatch.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["model"] == "gcn" and r["training"] == "minibatch" and r["layers"] == 2 and "aggregator" not in r, r
assert len(r["epochs_run"]) == 2 and 0.1 < r["test_accuracy"] <= 1.0, r["test_accuracy"]
PY
expect_error "drop --patience and --monitor" "$bin/sgnn_train" --model gat --dataset cora --batch-size 64 --patience 10
expect_error "--fanout requires --batch-size" "$bin/sgnn_train" --model sage --dataset cora --fanout 10,10
expect_error "does not take --runs, --embeddings" "$bin/sgnn_train" --model sage --dataset cora --batch-size 64 \
  --runs 2 --embeddings "$work/x.csv"
expect_error "--layers 3 and --fanout (2 hops) disagree" "$bin/sgnn_train" --model sage --dataset cora --batch-size 64 \
  --fanout 10,10 --layers 3
"$bin/sgnn_train" --model sage --aggregator max-pool --dataset cora --batch-size 64 --fanout 5,5 --epochs 1 \
  --hidden 8 --out "$work/pool-minibatch.json" --predictions "$work/pool.csv" --checkpoint "$work/pool.ckpt" \
  >/dev/null 2>&1 || fail "mini-batch max-pool GraphSAGE failed"
"$bin/sgnn_predict" --checkpoint "$work/pool.ckpt" --dataset cora --predictions "$work/pool-predicted.csv" \
  > "$work/pool-predict.txt" 2>&1 || fail "sgnn_predict on a mini-batch checkpoint: $(cat "$work/pool-predict.txt")"
cmp -s "$work/pool.csv" "$work/pool-predicted.csv" || fail "sgnn_predict's mini-batch predictions differ from training's"
grep -q "sage (mini-batch) 1433 -> 8 -> 7, max-pool aggregator" "$work/pool-predict.txt" \
  || fail "sgnn_predict's summary: $(cat "$work/pool-predict.txt")"
grep -q '"aggregator":"max-pool"' "$work/pool-minibatch.json" || fail "max-pool not reported: $(cat "$work/pool-minibatch.json")"
# Mini-batch resume: 1 epoch + 1 more from its checkpoint == 2 epochs straight (losses and test accuracy).
"$bin/sgnn_train" --model gcn --dataset cora --batch-size 64 --fanout 5,5 --epochs 2 --hidden 8 \
  --out "$work/mb-whole.json" >/dev/null 2>&1 || fail "mini-batch GCN, 2 epochs, failed"
"$bin/sgnn_train" --model gcn --dataset cora --batch-size 64 --fanout 5,5 --epochs 1 --hidden 8 \
  --checkpoint "$work/mb.ckpt" >/dev/null 2>&1 || fail "mini-batch GCN with --checkpoint failed"
"$bin/sgnn_train" --model gcn --dataset cora --batch-size 64 --fanout 5,5 --epochs 2 --hidden 8 \
  --resume "$work/mb.ckpt" --checkpoint "$work/mb.ckpt" --out "$work/mb-resumed.json" >/dev/null 2>"$work/mb-resumed.err" ||
  fail "mini-batch --resume failed: $(cat "$work/mb-resumed.err")"
grep -q "resumed from $work/mb.ckpt after epoch 1" "$work/mb-resumed.err" || fail "no resume note: $(cat "$work/mb-resumed.err")"
python3 - "$work/mb-whole.json" "$work/mb-resumed.json" <<'PY' || fail "the resumed mini-batch run differs from the uninterrupted one"
import json, sys
a, b = (json.load(open(name)) for name in sys.argv[1:3])
assert a["test_accuracy"] == b["test_accuracy"], (a["test_accuracy"], b["test_accuracy"])
assert [e["train_loss"] for e in a["epochs_run"]] == [e["train_loss"] for e in b["epochs_run"]]
assert len(b["epochs_run"]) == 2, b["epochs_run"]
PY
expect_error "resumes mini-batch checkpoints only" "$bin/sgnn_train" --model gcn \
  --dataset cora --batch-size 64 --fanout 5,5 --resume "$work/gcn.ckpt"
grep -q "\"predictions\":\"$work/pool.csv\"" "$work/pool-minibatch.json" || fail "predictions not reported"
[ "$(wc -l < "$work/pool.csv")" -eq 2709 ] && head -n 1 "$work/pool.csv" | grep -qx 'node,class,p0,p1,p2,p3,p4,p5,p6' \
  || fail "mini-batch predictions: $(head -n 2 "$work/pool.csv")"
expect_error "aggregator" "$bin/sgnn_train" --model sage --dataset cora --batch-size 64 --aggregator sum
expect_error "--plot excludes --batch-size" "$bin/sgnn_train" --model sage --dataset cora --batch-size 64 --plot x.svg
expect_error "each fanout is >= 1" "$bin/sgnn_train" --model sage --dataset cora --batch-size 64 --fanout 10,0

# custom_dataset on a small two-community graph written here.
python3 - "$work" <<'PY'
import random, sys
random.seed(1)
work = sys.argv[1]
n = 60
with open(f"{work}/edges.csv", "w") as edges:
    for _ in range(240):
        a = random.randrange(n)
        b = random.randrange(n // 2) * 2 + a % 2 if random.random() < 0.9 else random.randrange(n)
        edges.write(f"{a},{b}\n")
with open(f"{work}/features.csv", "w") as features:
    for i in range(n):
        features.write(",".join(f"{random.random() + (0.5 if j == i % 2 else 0):.3f}" for j in range(4)) + "\n")
with open(f"{work}/labels.csv", "w") as labels:
    labels.writelines(f"{i % 2}\n" for i in range(n))
PY
"$bin/custom_dataset" --edges "$work/edges.csv" --features "$work/features.csv" --labels "$work/labels.csv" \
  --epochs 50 >"$work/custom" || fail "custom_dataset failed: $(cat "$work/custom")"
grep -q "test accuracy" "$work/custom" || fail "custom_dataset printed $(cat "$work/custom")"
echo "1,x" >>"$work/edges.csv"
expect_error "edges.csv:241" "$bin/custom_dataset" --edges "$work/edges.csv" --features "$work/features.csv" \
  --labels "$work/labels.csv"
echo "examples_test: all passed"
