#!/usr/bin/env bash
# One process per GPU over NCCL (GPU tier, run by scripts/gpu-check.sh on a
# machine with 2+ GPUs):  multiprocess_nccl_test.sh <build> <data folder with cora/>
# The launcher-free mode (and mpirun where installed) trains GCN and GAT on
# Cora on 2 GPUs with the same losses as one GPU (train_gcn/train_gat, CSR
# SpMM); a corrupt file on rank 1 and a SIGKILLed rank 1 end rank 0 too, with
# a non-zero status, naming the failure, within the timeout.
set -euo pipefail
build="$1"
export SGNN_DATA="$2"
bin="$build/examples"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "multiprocess_nccl_test: $*" >&2; exit 1; }
source "$(dirname "$0")/../support/kill_rank.sh"

# launch <name> <extra flags...>: two ranks without MPI, rank 0's stdout in $work/<name>.json.
launch() {
  local name=$1; shift
  local pids=()
  for rank in 0 1; do
    SGNN_RANK=$rank SGNN_WORLD_SIZE=2 SGNN_RUN_ID="$name-$$" SGNN_RENDEZVOUS="$work/$name.rendezvous" \
      timeout 300 "$bin/train_gcn_distributed" --device cuda "$@" > "$work/$name.$rank.out" 2> "$work/$name.$rank.err" &
    pids+=($!)
  done
  local status=0
  for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
  cp "$work/$name.0.out" "$work/$name.json"
  return $status
}

"$bin/sgnn_partition" --dataset cora --parts 2 --out "$work/cora-2" > /dev/null
common=(--epochs 6 --dropout 0 --print-json)
"$bin/train_gcn" --dataset cora --device cuda --spmm csr --cuda-graph off --epochs 6 --dropout 0 --patience 0 \
  --quiet --print-json | tail -n1 > "$work/gcn-trainer.json"
"$bin/train_gat" --dataset cora --device cuda --cuda-graph off --epochs 6 --dropout 0 --patience 0 \
  --quiet --print-json | tail -n1 > "$work/gat-trainer.json"
launch gcn --partitions "$work/cora-2" "${common[@]}" || fail "GCN on 2 processes failed: $(cat "$work"/gcn.*.err)"
launch gat --partitions "$work/cora-2" --model gat "${common[@]}" || fail "GAT on 2 processes failed: $(cat "$work"/gat.*.err)"
if command -v mpirun > /dev/null; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 mpirun -np 2 "$bin/train_gcn_distributed" \
    --device cuda --partitions "$work/cora-2" "${common[@]}" > "$work/gcn-mpi.json" || fail "mpirun -np 2 failed"
fi
python3 - "$work" <<'PY' || fail "2 processes differ from one GPU"
import json, os, sys
work = sys.argv[1]
def load(name):
    return json.loads(open(f"{work}/{name}").read().strip().splitlines()[-1])
for model, runs in (("gcn", ["gcn.json", "gcn-mpi.json"]), ("gat", ["gat.json"])):
    reference = [e["train_loss"] for e in load(f"{model}-trainer.json")["history"]]
    for name in runs:
        if not os.path.exists(f"{work}/{name}"):
            continue
        run = load(name)
        losses = [e["train_loss"] for e in run["epochs"]]
        assert run["transport"].startswith("nccl"), run["transport"]
        assert all(abs(a - b) <= 1e-4 * abs(b) for a, b in zip(losses, reference)), (name, losses, reference)
        print(name, "equal to one GPU:", losses)
PY

# A corrupt file on rank 1: both ranks exit non-zero; rank 0 names rank 1's failure.
cp -r "$work/cora-2" "$work/bad"
python3 -c '
import sys
data = bytearray(open(sys.argv[1], "rb").read()); data[len(data) // 2] ^= 0x40; open(sys.argv[1], "wb").write(data)
' "$work/bad/part-1-of-2.sgnn"
start=$SECONDS
if launch bad --partitions "$work/bad" --epochs 100000; then fail "a corrupt file on rank 1 did not fail the run"; fi
grep -q "rank 1 failed" "$work/bad.0.err" || fail "rank 0 did not name rank 1's failure: $(cat "$work/bad.0.err")"
echo "corrupt file on rank 1: both ranks ended in $((SECONDS - start)) s"

# SIGKILL rank 1 mid-training: rank 0 ends (NCCL's error or no progress for 20 s) with a non-zero status.
for rank in 0 1; do
  SGNN_RANK=$rank SGNN_WORLD_SIZE=2 SGNN_RUN_ID="kill-$$" SGNN_RENDEZVOUS="$work/kill.rendezvous" \
    "$bin/train_gcn_distributed" --device cuda --partitions "$work/cora-2" --epochs 10000000 --timeout 20 \
    > "$work/kill.$rank.out" 2> "$work/kill.$rank.err" &
  eval "pid_$rank=$!"
done
for _ in $(seq 1 600); do grep -q "^epoch" "$work/kill.0.err" && break; sleep 0.1; done
kill_rank "$pid_1" "$pid_0" 90 || fail "rank 0 still runs 90 s after rank 1 was killed"
[ "$killed_status" -ne 0 ] || fail "rank 0 exited 0 after rank 1 was killed"
echo "rank 1 killed: rank 0 ended in $killed_seconds s (status $killed_status): $(tail -n1 "$work/kill.0.err")"
echo "multiprocess_nccl_test: all checks passed"
