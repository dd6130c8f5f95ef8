#!/usr/bin/env bash
# End-to-end checks of sgnn_data (and train_gcn --download) against real HTTP
# servers on 127.0.0.1 (CPU tier; no internet), run by ctest:
#   data_test.sh <build/examples> <source dir>
# `python3 -m http.server` serves the Planetoid fixtures, an OGB-style zip made
# from the bundled Cora, a zip with a "../" entry and a corrupted Cora file;
# tests/tools/range_server.py (Range requests, a transfer cut short on
# purpose) serves the resume case. Checked: Planetoid fetch + conversion equals
# the bundled Cora; the OGB zip fetches and loads; 404; connection refused; a
# transfer cut short, then resumed; a stale part the server cannot continue;
# a wrong checksum, a not-writable target, a "../" entry and counts that
# contradict the catalogue each fail with a clear message and place nothing;
# train_gcn names the fetch command for a missing dataset and --download
# fetches it first.
set -euo pipefail
bin_dir="$(cd "$1" && pwd)"
source_dir="$(cd "$2" && pwd)"
sgnn_data="$bin_dir/sgnn_data"
work="$(mktemp -d)"
server_pids=()
cleanup() {
  for pid in "${server_pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "data_test: $*" >&2; exit 1; }
export HOME="$work/home" XDG_DATA_HOME="$work/xdg"
unset SGNN_DATA SGNN_DATA_MIRROR

# ---- fixtures -------------------------------------------------------------
served="$work/served"
mkdir -p "$served/bad"
cp "$source_dir"/tests/fixtures/planetoid/ind.cora.* "$served/"
cp "$served"/ind.cora.* "$served/bad/"
python3 - "$source_dir/datasets/cora" "$served" <<'PY'
import os, sys, zipfile
cora, served = sys.argv[1], sys.argv[2]
# OGB's layout as OGB ships it: <folder>/raw/..., <folder>/split/<type>/..., extras.
with zipfile.ZipFile(os.path.join(served, "arxiv.zip"), "w") as z:
    for name in ["edge", "node-feat", "node-label", "num-node-list", "num-edge-list"]:
        z.write(os.path.join(cora, "raw", name + ".csv.gz"), f"arxiv/raw/{name}.csv.gz")
    for name in ["train", "valid", "test"]:
        z.write(os.path.join(cora, "raw", "split", name + ".csv.gz"), f"arxiv/split/time/{name}.csv.gz")
    z.writestr("arxiv/mapping/README.md", "ids\n")
    z.writestr("arxiv/RELEASE_v1.txt", "")
with zipfile.ZipFile(os.path.join(served, "evil.zip"), "w") as z:
    z.write(os.path.join(cora, "raw", "edge.csv.gz"), "evil/raw/edge.csv.gz")
    z.writestr("evil/../../escaped.txt", "outside\n")
# Same size as the published ind.cora.x, one byte different: only the sha256 tells.
path = os.path.join(served, "bad", "ind.cora.x")
data = bytearray(open(path, "rb").read())
data[100] ^= 0x01
open(path, "wb").write(bytes(data))
PY

# Starts `python3 -m http.server` over $1 on a free port; sets $base.
start_http_server() {
  local log="$work/http-$RANDOM.log"
  python3 -u -m http.server --bind 127.0.0.1 0 --directory "$1" >"$log" 2>&1 &
  server_pids+=("$!")
  for _ in $(seq 200); do
    port="$(sed -n 's/.* port \([0-9][0-9]*\) .*/\1/p' "$log" | head -n 1)"
    if [ -n "$port" ]; then base="http://127.0.0.1:$port"; return; fi
    sleep 0.05
  done
  fail "python3 -m http.server did not start: $(cat "$log")"
}
# Starts tests/tools/range_server.py over $1 with flags $2...; sets $range_base.
start_range_server() {
  local root="$1"; shift
  python3 "$source_dir/tests/tools/range_server.py" "$root" --port-file "$work/range.port" --log "$work/range.log" "$@" &
  server_pids+=("$!")
  for _ in $(seq 200); do
    if [ -s "$work/range.port" ]; then range_base="http://127.0.0.1:$(cat "$work/range.port")"; return; fi
    sleep 0.05
  done
  fail "range_server.py did not start"
}
# expect_failure <pattern> <dataset folder that must not appear> <sgnn_data args...>
expect_failure() {
  local pattern="$1" absent="$2"; shift 2
  if "$sgnn_data" "$@" >"$work/out" 2>&1; then fail "'sgnn_data $*' succeeded, expected an error"; fi
  grep -q -- "$pattern" "$work/out" || fail "'sgnn_data $*' printed: $(cat "$work/out") -- expected '$pattern'"
  [ ! -e "$absent" ] || fail "'sgnn_data $*' failed but left $absent"
}

start_http_server "$served"
data="$work/data"

# ---- Planetoid: fetch + conversion equals the bundled Cora -----------------
"$sgnn_data" fetch cora --dir "$data" --mirror "$base/" >"$work/out" 2>"$work/err" || fail "fetch cora: $(cat "$work/err")"
grep -q "^cora: ready in $data/cora" "$work/out" || fail "fetch cora printed $(cat "$work/out")"
grep -q "ind.cora.allx  257.3 kB / 257.3 kB  100%" "$work/err" || fail "no progress line in $(cat "$work/err")"
python3 - "$source_dir/datasets/cora" "$data/cora" <<'PY' || fail "the fetched Cora differs from the bundled one"
import gzip, os, sys
bundled, fetched = sys.argv[1], sys.argv[2]
def files(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, names in os.walk(root) for f in names)
expected = files(bundled)
got = [f for f in files(fetched) if f != "FETCHED.txt"]
assert got == expected, (got, expected)
for name in expected:
    a = gzip.open(os.path.join(bundled, name)).read()
    b = gzip.open(os.path.join(fetched, name)).read()
    assert a == b, name
PY
grep -q "^check size and sha256 equal the catalogue's" "$data/cora/FETCHED.txt" || fail "FETCHED.txt: $(cat "$data/cora/FETCHED.txt")"
[ ! -e "$data/.sgnn-fetch/cora" ] || fail "the downloads of cora were not cleaned up"
"$sgnn_data" fetch cora --dir "$data" --mirror "$base" >"$work/out" 2>&1
grep -q "already present" "$work/out" || fail "a second fetch printed $(cat "$work/out")"
"$sgnn_data" list --dir "$data" >"$work/out"
grep -q "ogbn-papers100M .*not loadable here: OGB ships it as NumPy .npz" "$work/out" || fail "list printed $(cat "$work/out")"

# A stale part that python's http.server cannot continue (it ignores Range): started over.
mkdir -p "$data/.sgnn-fetch/cora/download"
head -c 1000 /dev/urandom >"$data/.sgnn-fetch/cora/download/ind.cora.x.part"
SGNN_DATA_MIRROR="$base" "$sgnn_data" fetch cora --dir "$data" --force --quiet >"$work/out" 2>&1 ||
  fail "fetch --force over a stale part: $(cat "$work/out")"
cmp -s <(gzip -dc "$data/cora/raw/node-feat.csv.gz") <(gzip -dc "$source_dir/datasets/cora/raw/node-feat.csv.gz") ||
  fail "Cora fetched again over a stale part differs"

# ---- failures place nothing ------------------------------------------------
expect_failure "sha256 mismatch: expected 23cfa55d" "$work/other/cora" fetch cora --dir "$work/other" --mirror "$base/bad"
[ -z "$(ls "$work/other/.sgnn-fetch/cora/download/" | grep 'ind.cora.x')" ] || fail "the bad ind.cora.x was kept"
expect_failure "ind.citeseer.x: HTTP 404 (not found)" "$data/citeseer" fetch citeseer --dir "$data" --mirror "$base"
closed_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
expect_failure "127.0.0.1:$closed_port/ind.citeseer.x: .*onnect" "$data/citeseer" \
  fetch citeseer --dir "$data" --mirror "http://127.0.0.1:$closed_port"
touch "$work/a-file"
expect_failure "a-file" "$work/a-file/data/cora" fetch cora --dir "$work/a-file/data" --mirror "$base"
if [ "$(id -u)" -ne 0 ]; then
  mkdir "$work/read-only" && chmod 555 "$work/read-only"
  expect_failure "ermission denied" "$work/read-only/cora" fetch cora --dir "$work/read-only" --mirror "$base"
else
  echo "data_test: running as root, so a chmod 555 folder is writable; checked the not-a-folder case only"
fi
expect_failure "escapes the target folder" "$data/evil" fetch evil --dir "$data" --url "$base/evil.zip"
[ ! -e "$work/escaped.txt" ] && [ ! -e "$data/escaped.txt" ] && [ ! -e "$data/.sgnn-fetch/escaped.txt" ] ||
  fail "a ../ entry was written outside"
expect_failure "does not match the catalogue: nodes 2708 (expected 169343)" "$data/ogbn-arxiv" \
  fetch ogbn-arxiv --dir "$data" --mirror "$base"
expect_failure "not loadable here" "$data/ogbn-proteins" fetch ogbn-proteins --dir "$data"
expect_failure "unknown dataset \"nope\"" "$data/nope" fetch nope --dir "$data"

# ---- an OGB zip as OGB ships it fetches and loads --------------------------
"$sgnn_data" fetch cora-ogb --dir "$data" --url "$base/arxiv.zip" >"$work/out" 2>&1 || fail "fetch --url: $(cat "$work/out")"
[ -f "$data/cora-ogb/split/time/train.csv.gz" ] && [ -f "$data/cora-ogb/mapping/README.md" ] ||
  fail "the zip's layout was not kept: $(find "$data/cora-ogb")"
"$bin_dir/sgnn_describe" "$data/cora-ogb" >"$work/describe.txt"
grep -q '^nodes: 2708$' "$work/describe.txt" || fail "sgnn_describe read $(cat "$work/describe.txt")"

# ---- a transfer cut short, then resumed with a Range request ---------------
start_range_server "$served" --cut-after 50000
expect_failure "cut short after 50000 of" "$data/cora-resumed" fetch cora-resumed --dir "$data" --url "$range_base/arxiv.zip"
[ "$(stat -c %s "$data/.sgnn-fetch/cora-resumed/download/arxiv.zip.part")" = 50000 ] || fail "the part was not kept"
"$sgnn_data" fetch cora-resumed --dir "$data" --url "$range_base/arxiv.zip" >"$work/out" 2>&1 ||
  fail "the resumed fetch failed: $(cat "$work/out")"
grep -q "resumed at 50.0 kB" "$work/out" || fail "the resumed fetch printed $(cat "$work/out")"
grep -q "^/arxiv.zip bytes=50000-$" "$work/range.log" || fail "no Range request: $(cat "$work/range.log")"
cmp -s "$data/cora-resumed/raw/edge.csv.gz" "$source_dir/datasets/cora/raw/edge.csv.gz" || fail "resumed data differs"

# ---- train_gcn: the fetch command when missing, --download fetches first ---
# A copy of the program and its library away from the build tree does not see
# the bundled datasets (found beside the program or the library). It runs in
# an empty folder, whose ./data holds nothing.
mkdir "$work/bin" "$work/lib" "$work/run" && cp "$bin_dir/train_gcn" "$bin_dir/sgnn_data" "$work/bin/"
cp -P "$bin_dir"/../lib/libsparsegnn.so* "$work/lib/"
if (cd "$work/run" && "$work/bin/train_gcn" --dataset pubmed >"$work/out" 2>&1); then fail "train_gcn on a missing pubmed ran"; fi
grep -q "sgnn_data fetch pubmed" "$work/out" || fail "train_gcn printed $(cat "$work/out")"
(cd "$work/run" && SGNN_DATA_MIRROR="$base" "$work/bin/train_gcn" --dataset cora --download --epochs 3 >"$work/out" 2>&1) ||
  fail "train_gcn --download: $(cat "$work/out")"
grep -q "on cora" "$work/out" || fail "train_gcn --download printed $(cat "$work/out")"
# Without sgnn_data beside it, --download says how to fetch instead.
mkdir "$work/solo" && cp "$bin_dir/train_gcn" "$work/solo/"
if (cd "$work/run" && "$work/solo/train_gcn" --dataset citeseer --download --epochs 1 >"$work/out" 2>&1); then
  fail "train_gcn --download without sgnn_data ran"
fi
grep -q "sgnn_data was not found beside this program" "$work/out" || fail "train_gcn printed $(cat "$work/out")"
[ -f "$XDG_DATA_HOME/sparsegnn/cora/FETCHED.txt" ] || fail "--download did not fetch into the user data folder"
echo "data_test: ok"
