#!/usr/bin/env bash
# Multi-process training end to end on the CPU (ctest: mpi_training):
#   mpi_training_test.sh <build/examples> <mpiexec>
# On a small generated graph: sgnn_partition writes per-rank files; mpirun -np 2
# and -np 4 (oversubscribed) train GCN and GAT from them, and from the dataset
# partitioned at start; the losses equal train_gcn's / train_gat's (one
# process, the library's Trainer) and the final weights and metrics equal a
# one-process run. Faults: a corrupt file on rank 1, a run with more ranks than
# parts, and a rank killed with SIGKILL must end every rank with a non-zero
# status within the timeout, naming the failed rank; bad launch flags fail.
set -euo pipefail
bin="$1"
mpiexec="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "mpi_training_test: $*" >&2; exit 1; }
source "$(dirname "$0")/../support/kill_rank.sh"
run_mpi() { local ranks=$1; shift; timeout 120 "$mpiexec" -np "$ranks" "$@"; }

"$bin/sgnn_gen" --out "$work/sbm" --kind sbm --nodes 600 --edges 3000 --symmetric --features 16 --classes 4 \
  --seed 3 >/dev/null
"$bin/sgnn_partition" --dataset "$work/sbm" --parts 2 --out "$work/parts-2" >/dev/null
"$bin/sgnn_partition" --dataset "$work/sbm" --parts 4 --out "$work/parts-4" --reorder rcm >/dev/null
[ -f "$work/parts-4/part-3-of-4.sgnn" ] || fail "sgnn_partition wrote no part-3-of-4.sgnn"

common=(--epochs 6 --dropout 0 --print-json)
"$bin/train_gcn" --dataset "$work/sbm" --epochs 6 --dropout 0 --patience 0 --quiet --print-json | tail -n1 > "$work/gcn-trainer.json"
"$bin/train_gat" --dataset "$work/sbm" --epochs 6 --dropout 0 --patience 0 --quiet --print-json | tail -n1 > "$work/gat-trainer.json"
"$bin/train_gcn_distributed" --dataset "$work/sbm" "${common[@]}" > "$work/gcn-1.json"
"$bin/train_gcn_distributed" --dataset "$work/sbm" --model gat "${common[@]}" > "$work/gat-1.json"
run_mpi 2 "$bin/train_gcn_distributed" --partitions "$work/parts-2" "${common[@]}" > "$work/gcn-2.json"
run_mpi 4 "$bin/train_gcn_distributed" --partitions "$work/parts-4" "${common[@]}" --halo allgather > "$work/gcn-4.json"
run_mpi 2 "$bin/train_gcn_distributed" --dataset "$work/sbm" "${common[@]}" > "$work/gcn-2-dataset.json"
run_mpi 2 "$bin/train_gcn_distributed" --partitions "$work/parts-2" --model gat "${common[@]}" > "$work/gat-2.json"
run_mpi 4 "$bin/train_gcn_distributed" --partitions "$work/parts-4" --model gat "${common[@]}" > "$work/gat-4.json"

python3 - "$work" <<'PY' || fail "multi-process training differs from one process"
import json, sys
work = sys.argv[1]
def load(name):
    with open(f"{work}/{name}") as f:
        return json.loads(f.read().strip().splitlines()[-1])
def close(a, b, tolerance=1e-5):
    return abs(a - b) <= tolerance * max(1.0, abs(b))
for model in ("gcn", "gat"):
    trainer = [e["train_loss"] for e in load(f"{model}-trainer.json")["history"]]
    one = load(f"{model}-1.json")
    runs = [f"{model}-2.json", f"{model}-4.json"] + (["gcn-2-dataset.json"] if model == "gcn" else [])
    assert one["ranks"] == 1 and one["mode"] == "single"
    for name in [f"{model}-1.json"] + runs:
        run = load(name)
        # The 4 parts were made after an RCM reordering: each row's sums run in another order.
        tolerance = 1e-4 if "-4" in name else 1e-5
        losses = [e["train_loss"] for e in run["epochs"]]
        assert len(losses) == 6, (name, losses)
        assert all(close(a, b, tolerance) for a, b in zip(losses, trainer)), (name, losses, trainer)
        assert close(run["parameter_norm"], one["parameter_norm"], tolerance), (name, run["parameter_norm"], one["parameter_norm"])
        for field in ("test_loss", "train_accuracy", "validation_accuracy", "test_accuracy"):
            assert close(run[field], one[field], 1e-4), (name, field, run[field], one[field])
    for name in runs:
        run = load(name)
        assert run["mode"] == "mpi" and run["transport"] == "mpi" and run["ranks"] in (2, 4), name
        assert len(run["rank_rows"]) == run["ranks"] and sum(run["rank_rows"]) == one["nodes"], name
        assert all(e["bytes"] > 0 for e in run["epochs"]), name
print("losses, weights and metrics equal on 1, 2 and 4 processes")
PY

# expect_failure <seconds> <pattern> <command...>: exits non-zero within the time, output matching.
expect_failure() {
  local seconds=$1 pattern=$2; shift 2
  local start=$SECONDS status=0
  timeout "$seconds" "$@" > "$work/out" 2>&1 || status=$?
  [ "$status" -ne 0 ] || fail "'$*' succeeded, expected a failure"
  [ "$status" -ne 124 ] || fail "'$*' hung for ${seconds} s"
  grep -q -- "$pattern" "$work/out" || fail "'$*' printed: $(cat "$work/out"), expected '$pattern'"
  echo "failed as expected in $((SECONDS - start)) s: $pattern"
}

cp -r "$work/parts-2" "$work/bad"
python3 -c '
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0x40
open(path, "wb").write(data)' "$work/bad/part-1-of-2.sgnn"
expect_failure 60 "rank 1 of 2.*part-1-of-2.sgnn: corrupt" \
  "$mpiexec" -np 2 "$bin/train_gcn_distributed" --partitions "$work/bad" --epochs 100000
expect_failure 60 "holds a partition into 2 parts" \
  "$mpiexec" -np 3 "$bin/train_gcn_distributed" --partitions "$work/parts-2" --epochs 100000

# SIGKILL rank 1 mid-training: mpirun must end rank 0 too and fail.
"$mpiexec" -np 2 "$bin/train_gcn_distributed" --partitions "$work/parts-2" --epochs 1000000 > "$work/killed" 2>&1 &
launcher=$!
victim=""
for _ in $(seq 1 300); do
  if grep -q "^epoch" "$work/killed"; then
    for child in $(pgrep -P "$launcher"); do
      if tr '\0' '\n' < "/proc/$child/environ" 2>/dev/null | grep -x "OMPI_COMM_WORLD_RANK=1" > /dev/null; then victim=$child; fi
    done
    [ -n "$victim" ] && break
  fi
  sleep 0.1
done
[ -n "$victim" ] || { kill "$launcher" 2>/dev/null; fail "rank 1 of the run to kill was not found: $(cat "$work/killed")"; }
kill_rank "$victim" "$launcher" 30 || fail "mpirun still runs 30 s after rank 1 was killed"
[ "$killed_status" -ne 0 ] || fail "mpirun exited 0 after rank 1 was killed"
grep -qi "signal 9\|killed" "$work/killed" || fail "mpirun did not say a rank was killed: $(cat "$work/killed")"
echo "rank 1 killed: every rank ended in $killed_seconds s, status $killed_status"

expect_failure 30 "connects the ranks with NCCL" \
  "$bin/train_gcn_distributed" --dataset "$work/sbm" --rendezvous "$work/rv" --rank 0 --world-size 2 --run-id t
expect_failure 30 "belong to the launcher-free mode" "$bin/train_gcn_distributed" --dataset "$work/sbm" --rank 1
expect_failure 30 "give --partitions" "$bin/train_gcn_distributed"
echo "mpi_training_test: all checks passed"
