#!/usr/bin/env bash
# sgnn_predict end to end on the bundled Cora (CPU tier), run by ctest:
#   predict_test.sh <build/examples>
# - the predictions and embeddings sgnn_predict writes from train_gcn's (and
#   train_gat's, and sgnn_train's sage, gin, gatv2 and transformer) final
#   checkpoint equal, byte for byte, those the training program wrote at the
#   end of training (CSV and .npy), and their accuracy on Cora's test split
#   equals the test accuracy of the results JSON;
# - NumPy loads the .npy files without pickle, with the documented layout;
# - --nodes and --parameters last; a checkpoint re-saved by resuming for no
#   more epochs predicts the same;
# - each mismatch (feature width, class count, model kind, damaged
#   checkpoint, missing folder) is refused with its reason and leaves no
#   output file.
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unset SGNN_DATA  # the bundled Cora only
export XDG_DATA_HOME="$work/xdg" XDG_CACHE_HOME="$work/cache"  # a bundled dataset's processed file goes to the cache
cd "$work"
fail() { echo "predict_test: $*" >&2; exit 1; }
cora="$bin/../share/sparsegnn/datasets/cora"
[ -f "$cora/raw/edge.csv.gz" ] || fail "no bundled Cora at $cora"
python=""
for candidate in python3 /usr/bin/python3; do  # NumPy comes from Debian's python3-numpy
  if "$candidate" -c 'import numpy' 2>/dev/null; then python="$candidate"; break; fi
done
[ -n "$python" ] || fail "no python3 with NumPy (scripts/install-deps.sh installs python3-numpy)"

# Training writes its outputs; sgnn_predict rebuilds the model from the checkpoint alone.
"$bin/train_gcn" --dataset cora --epochs 15 --checkpoint gcn.ckpt --predictions trained.csv \
  --embeddings trained-embeddings.npy --out gcn.json --quiet
"$bin/sgnn_predict" --checkpoint gcn.ckpt --dataset cora --predictions predicted.csv \
  --embeddings predicted-embeddings.npy >predict.out
cmp trained.csv predicted.csv || fail "sgnn_predict's predictions differ from train_gcn's"
cmp trained-embeddings.npy predicted-embeddings.npy || fail "sgnn_predict's embeddings differ from train_gcn's"
grep -q "gcn 1433 -> 16 -> 7 (relu), symmetric adjacency, row-normalize features, fp32" predict.out \
  || fail "unexpected description: $(cat predict.out)"
"$bin/sgnn_predict" --checkpoint gcn.ckpt --dataset cora --predictions predicted.npy --quiet
"$python" - "$cora" gcn.json predicted.csv predicted.npy predicted-embeddings.npy <<'PY' || fail "bad outputs"
import csv, gzip, json, sys
import numpy as np
cora, results, table, array, embeddings = sys.argv[1:]
labels = [int(line) for line in gzip.open(f"{cora}/raw/node-label.csv.gz", "rt")]
test = [int(line) for line in gzip.open(f"{cora}/raw/split/test.csv.gz", "rt")]
rows = list(csv.reader(open(table)))
assert rows[0] == ["node", "class"] + [f"p{c}" for c in range(7)], rows[0]
assert [int(r[0]) for r in rows[1:]] == list(range(2708))
predicted = {int(r[0]): int(r[1]) for r in rows[1:]}
accuracy = sum(predicted[v] == labels[v] for v in test) / len(test)
reported = json.load(open(results))
assert accuracy == reported["test_accuracy"], (accuracy, reported["test_accuracy"])
assert reported["predictions"] == "trained.csv" and reported["embeddings"] == "trained-embeddings.npy"
a = np.load(array, allow_pickle=False)
assert a.dtype.names == ("node", "class", "probabilities") and a.shape == (2708,)
assert (a["node"] == np.arange(2708)).all()
assert [int(c) for c in a["class"]] == [predicted[v] for v in range(2708)]
probabilities = np.array([[np.float32(x) for x in r[2:]] for r in rows[1:]], dtype=np.float32)
assert (a["probabilities"] == probabilities).all()  # the CSV's shortest decimals give the same float32 bits
assert np.allclose(a["probabilities"].sum(axis=1), 1.0, atol=1e-5)
assert (a["class"] == a["probabilities"].argmax(axis=1)).all()
e = np.load(embeddings, allow_pickle=False)
assert e.dtype.names == ("node", "embedding") and e["embedding"].shape == (2708, 16)
assert (e["embedding"] >= 0).all()  # after ReLU
PY

# GAT (a few epochs) the same way.
"$bin/train_gat" --dataset cora --epochs 4 --hidden 4 --heads 2 --checkpoint gat.ckpt --predictions gat-trained.npy \
  --quiet
"$bin/sgnn_predict" --checkpoint gat.ckpt --dataset cora --predictions gat-predicted.npy --quiet
cmp gat-trained.npy gat-predicted.npy || fail "sgnn_predict's GAT predictions differ from train_gat's"

# The other built-in models (a few epochs each; gin's best epoch comes with its batch-norm statistics).
for model in sage gin gatv2 transformer; do
  "$bin/sgnn_train" --model "$model" --dataset cora --epochs 4 --hidden 8 --checkpoint "$model.ckpt" \
    --predictions "$model-trained.npy" --embeddings "$model-trained-embeddings.npy" --quiet
  "$bin/sgnn_predict" --checkpoint "$model.ckpt" --dataset cora --predictions "$model-predicted.npy" \
    --embeddings "$model-predicted-embeddings.npy" --quiet
  cmp "$model-trained.npy" "$model-predicted.npy" || fail "sgnn_predict's $model predictions differ from sgnn_train's"
  cmp "$model-trained-embeddings.npy" "$model-predicted-embeddings.npy" \
    || fail "sgnn_predict's $model embeddings differ from sgnn_train's"
done
"$bin/sgnn_train" --model sage --aggregator max-pool --dataset cora --epochs 3 --hidden 8 --checkpoint pool.ckpt \
  --predictions pool-trained.csv --quiet
"$bin/sgnn_predict" --checkpoint pool.ckpt --dataset cora --predictions pool-predicted.csv >pool.out
cmp pool-trained.csv pool-predicted.csv || fail "sgnn_predict's max-pool sage predictions differ from sgnn_train's"
grep -q "sage 1433 -> 8 -> 7 (relu), max-pool aggregator" pool.out || fail "unexpected description: $(cat pool.out)"

# GINE on a generated graph with edge features: they come from the dataset at prediction time too.
"$bin/sgnn_gen" --out edge-features --kind edge-features --nodes 300 --edge-features 6 --seed 3 >/dev/null
"$bin/sgnn_train" --model gine --dataset edge-features --epochs 4 --hidden 8 --checkpoint gine.ckpt \
  --predictions gine-trained.csv --embeddings gine-trained.npy --quiet
"$bin/sgnn_predict" --checkpoint gine.ckpt --dataset edge-features --predictions gine-predicted.csv \
  --embeddings gine-predicted.npy --quiet
cmp gine-trained.csv gine-predicted.csv || fail "sgnn_predict's GINE predictions differ from sgnn_train's"
cmp gine-trained.npy gine-predicted.npy || fail "sgnn_predict's GINE embeddings differ from sgnn_train's"

# --nodes: the listed nodes in their order; --parameters last: another epoch's parameters.
printf '# a few nodes\n2707\n0\n1500\n' >nodes.txt
"$bin/sgnn_predict" --checkpoint gcn.ckpt --dataset cora --nodes nodes.txt --predictions some.csv --quiet
[ "$(cut -d, -f1 some.csv | tr '\n' ' ')" = "node 2707 0 1500 " ] || fail "--nodes: $(cut -d, -f1 some.csv)"
[ "$(sed -n 2p some.csv)" = "$(grep '^2707,' predicted.csv)" ] || fail "--nodes changed a node's prediction"
"$bin/sgnn_predict" --checkpoint gcn.ckpt --dataset cora --parameters last --predictions last.csv >last.out
grep -q "parameters of epoch 15 (last)" last.out || fail "--parameters last: $(cat last.out)"

# Resuming a finished run for no more epochs re-saves the checkpoint; it predicts the same.
"$bin/train_gcn" --dataset cora --epochs 15 --resume gcn.ckpt --checkpoint resaved.ckpt --quiet
"$bin/sgnn_predict" --checkpoint resaved.ckpt --dataset cora --predictions resaved.csv --quiet
cmp predicted.csv resaved.csv || fail "the re-saved checkpoint predicts differently"

# Refusals: the reason is printed, the exit status is 1 and no output file is left.
refused() {  # refused <pattern> <sgnn_predict args...>
  local pattern="$1"; shift
  rm -f out.csv out.npy
  if "$bin/sgnn_predict" "$@" >refusal.out 2>&1; then fail "'sgnn_predict $*' succeeded, expected a refusal"; fi
  grep -q -- "$pattern" refusal.out || fail "'sgnn_predict $*' printed $(cat refusal.out), expected '$pattern'"
  [ ! -e out.csv ] && [ ! -e out.npy ] || fail "'sgnn_predict $*' left an output file"
}
refused "nodes have 3703 features, the gcn model reads 1433" \
  --checkpoint gcn.ckpt --dataset citeseer --predictions out.csv --embeddings out.npy
"$python" - gcn.ckpt damaged.ckpt <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0x20
open(sys.argv[2], "wb").write(data)
PY
refused "checksum mismatch" --checkpoint damaged.ckpt --dataset cora --predictions out.csv
head -c 100 gcn.ckpt >short.ckpt
refused "truncated" --checkpoint short.ckpt --dataset cora --predictions out.csv
refused "not a sparsegnn section file" --checkpoint nodes.txt --dataset cora --predictions out.csv
refused "does not exist" --checkpoint gcn.ckpt --dataset cora --predictions missing/out.csv
echo 2708 >past-the-end.txt
refused "node id 2708 >= the graph's 2708 nodes" --checkpoint gcn.ckpt --dataset cora --nodes past-the-end.txt \
  --predictions out.csv
refused "--predictions" --checkpoint gcn.ckpt --dataset cora
"$bin/sgnn_gen" --out other-edge-width --kind edge-features --nodes 300 --edge-features 5 --seed 3 >/dev/null
refused "reads edge features of width 6, the dataset's edges have 5" \
  --checkpoint gine.ckpt --dataset other-edge-width --predictions out.csv
# Ten classes (labels up to 9) with Cora's feature width: sgnn_gen's synthetic graph.
"$bin/sgnn_gen" --out ten-classes --kind sbm --nodes 200 --edges 800 --symmetric --features 1433 --classes 10 \
  --seed 1 >/dev/null
refused "labels go up to 9 (10 classes), the model predicts 7 classes" \
  --checkpoint gcn.ckpt --dataset ten-classes --predictions out.csv
# The training programs refuse outputs they cannot write before training.
if "$bin/train_gcn" --dataset cora --runs 2 --predictions out.csv --quiet >refusal.out 2>&1; then
  fail "train_gcn wrote predictions of several runs"
fi
grep -q "apply to a single run" refusal.out || fail "--predictions with --runs 2: $(cat refusal.out)"
if "$bin/train_gcn" --dataset cora --epochs 3 --embeddings missing/out.npy >refusal.out 2>&1; then
  fail "train_gcn accepted --embeddings in a missing folder"
fi
grep -q "embeddings: the folder missing does not exist" refusal.out || fail "--embeddings: $(cat refusal.out)"
grep -q "^epoch" refusal.out && fail "train_gcn trained before refusing --embeddings in a missing folder"
# A checkpoint of another model kind for the training program: refused on resume.
if "$bin/train_gcn" --dataset cora --resume gat.ckpt --quiet >refusal.out 2>&1; then
  fail "train_gcn resumed a GAT checkpoint"
fi
grep -q "holds a gat model, not a gcn" refusal.out || fail "resume of a GAT checkpoint: $(cat refusal.out)"
echo "predict_test: all checks passed"
