#!/usr/bin/env bash
# End-to-end checks of sgnn_describe's pictures (CPU tier), run by ctest:
#   describe_test.sh <build/examples>
# On a banded graph with shuffled ids written here: bad flags and unwritable
# paths fail with a message naming the problem and leave no file behind; a
# good run writes well-formed SVGs with one panel per ordering, RCM shrinks
# the bandwidth, and the degree histogram has one bar per non-empty
# power-of-two bin of the row degrees.
set -euo pipefail
bin="$1/sgnn_describe"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "describe_test: $*" >&2; exit 1; }

python3 - "$work/band.txt" <<'PY'
import random, sys
random.seed(5)
n = 300
ids = list(range(n))
random.shuffle(ids)
with open(sys.argv[1], "w") as out:
    out.write("# a band of half-width 3, ids shuffled\n")
    for i in range(n):
        for j in range(max(0, i - 3), min(n, i + 4)):
            if i != j:
                out.write(f"{ids[i]} {ids[j]}\n")
PY

expect_error() {  # expect_error <pattern> <args...>
  local pattern="$1"; shift
  if "$bin" "$@" >"$work/out" 2>&1; then fail "'$*' succeeded, expected an error"; fi
  grep -q -- "$pattern" "$work/out" || fail "'$*' printed $(cat "$work/out"), expected '$pattern'"
}
expect_error "--reorder: unknown reordering \"metis\"" "$work/band.txt" --pattern "$work/p.svg" --reorder rcm,metis
expect_error "/nonexistent/folder" "$work/band.txt" --pattern /nonexistent/folder/p.svg
expect_error "--cells" "$work/band.txt" --pattern "$work/p.svg" --cells 0
mkdir "$work/in-the-way"
expect_error "in-the-way" "$work/band.txt" --degrees "$work/in-the-way"
[ -d "$work/in-the-way" ] || fail "the folder in the way was replaced"
[ ! -e "$work/p.svg" ] || fail "a failed run left p.svg behind"
leftovers="$(find "$work" -name '*.tmp-*')"
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"
"$bin" --help | grep -- "--hrpb-density" > /dev/null || fail "--help does not explain --hrpb-density"

"$bin" "$work/band.txt" --pattern "$work/p.svg" --reorder rcm,degree --degrees "$work/d.svg" \
  --hrpb-density "$work/h.svg" --cells 64 >"$work/stdout" || fail "describe failed: $(cat "$work/stdout")"
grep -q "^dataset: " "$work/stdout" || fail "the statistics are missing: $(cat "$work/stdout")"
python3 - "$work" <<'PY'
import collections, re, sys, xml.etree.ElementTree as tree
work = sys.argv[1]
ns = "{http://www.w3.org/2000/svg}"

def panels(name):
    root = tree.parse(f"{work}/{name}").getroot()
    assert root.tag == ns + "svg", root.tag
    return [[e for e in g.iter() if e.get("class") == "cell"]
            for g in root.iter(ns + "g") if g.get("class") == "panel"]

stdout = open(f"{work}/stdout").read()
bandwidth = dict(re.findall(r"bandwidth \((\w+) order\): (\d+)", stdout))
assert set(bandwidth) == {"original", "rcm", "degree"}, stdout
assert int(bandwidth["rcm"]) <= 6 < int(bandwidth["original"]), bandwidth

pattern = panels("p.svg")
assert len(pattern) == 3, len(pattern)
original, rcm, _ = (len(cells) for cells in pattern)
assert 0 < rcm < original, (rcm, original)
# 300 rows in 64 cells, band of 3: RCM leaves only cells on or next to the diagonal.
for cell in pattern[1]:
    assert abs(int(cell.get("x")) - int(cell.get("y"))) <= 1, (cell.get("x"), cell.get("y"))

hrpb = panels("h.svg")
assert len(hrpb) == 3 and all(hrpb), [len(p) for p in hrpb]

degrees = collections.Counter()
for line in open(f"{work}/band.txt"):
    if not line.startswith("#"):
        degrees[int(line.split()[1])] += 1  # rows are targets
bins = {d.bit_length() - 1 for d in degrees.values()}
root = tree.parse(f"{work}/d.svg").getroot()
bars = [e for e in root.iter(ns + "rect") if e.get("class") == "bar"]
assert len(bars) == len(bins), (len(bars), bins)
assert sum(int(b.get("data-count")) for b in bars) == len(degrees)
PY
# --symmetrize draws A + Aᵀ + I: the band is symmetric already, so each row gains its self loop.
"$bin" "$work/band.txt" --degrees "$work/d1.svg" --symmetrize >/dev/null || fail "--symmetrize failed"
python3 - "$work" <<'PY'
import collections, sys, xml.etree.ElementTree as tree
work = sys.argv[1]
degrees = collections.Counter()
for line in open(f"{work}/band.txt"):
    if not line.startswith("#"):
        degrees[int(line.split()[1])] += 1
expected = collections.Counter((d + 1).bit_length() - 1 for d in degrees.values())
root = tree.parse(f"{work}/d1.svg").getroot()
bars = [e for e in root.iter("{http://www.w3.org/2000/svg}rect") if e.get("class") == "bar"]
assert sorted(int(b.get("data-count")) for b in bars) == sorted(expected.values()), (bars, expected)
PY
echo "describe_test: all passed"
