#!/usr/bin/env bash
# End-to-end checks of sgnn_gen (CPU tier), run by ctest:
#   gen_test.sh <build/examples>
# A small dataset of every --kind is written and read back by sgnn_describe
# with the asked node count (and the family's mark: the hub's row, a
# stencil's degrees); an unknown --preset, a --preset mixed with a shape
# option, a family option given to another kind and bad family values are
# refused with a message naming the problem and write nothing.
set -euo pipefail
gen="$1/sgnn_gen"
describe="$1/sgnn_describe"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "gen_test: $*" >&2; exit 1; }

expect_error() {  # expect_error <pattern> <args...>
  local pattern="$1"; shift
  if "$gen" "$@" >"$work/out" 2>&1; then fail "'$*' succeeded, expected an error"; fi
  grep -q -- "$pattern" "$work/out" || fail "'$*' printed $(cat "$work/out"), expected '$pattern'"
  [ ! -e "$work/refused" ] || fail "'$*' was refused but wrote $work/refused"
}
expect_error "reddit-scale" --out "$work/refused" --preset reddit
expect_error "excludes" --out "$work/refused" --preset reddit-scale --nodes 100
expect_error "excludes" --out "$work/refused" --preset reddit-scale --grid 10
expect_error "--exponent does not apply to --kind stencil2d" --out "$work/refused" --kind stencil2d --exponent 2.1
expect_error "--grid does not apply to --kind sbm" --out "$work/refused" --grid 10
expect_error "a 3D stencil has 7 or 27 points" --out "$work/refused" --kind stencil3d --points 9
expect_error "1 or 2 values for a 2D grid" --out "$work/refused" --kind fem2d --grid 3,4,5
expect_error "exponent 1.5 must be > 2" --out "$work/refused" --kind chung-lu --exponent 1.5
expect_error "hub_degree 100 outside" --out "$work/refused" --kind hub --nodes 100 --hub-degree 100
expect_error "--partners does not apply to --kind sbm" --out "$work/refused" --partners 3
expect_error "--symmetric does not apply to --kind edge-features" --out "$work/refused" --kind edge-features --symmetric
expect_error "edge_features (3) must be at least num_classes (4)" --out "$work/refused" --kind edge-features \
  --edge-features 3

"$gen" --out "$work/small" --kind rmat --nodes 500 --edges 4000 --symmetric --features 8 --classes 3 --seed 4 \
  > "$work/gen.json"
grep -q '"nodes": 500' "$work/gen.json" || fail "sgnn_gen printed $(cat "$work/gen.json")"
"$describe" "$work/small" > "$work/describe.txt"
grep -q '^nodes: 500$' "$work/describe.txt" || fail "sgnn_describe read back $(cat "$work/describe.txt")"
grep -q '^symmetric: yes$' "$work/describe.txt" || fail "the --symmetric graph is not symmetric"

# The papers100M-scale preset stores a CSR and no edge list: sgnn_describe counts its entries.
"$gen" --out "$work/papers" --preset papers100m-scale --scale 10000 > "$work/papers.json" || fail "papers preset"
"$describe" "$work/papers" > "$work/papers.txt"
grep -q '^nodes: 11106$' "$work/papers.txt" || fail "papers: $(cat "$work/papers.txt")"
grep -Eq '^edges: [1-9][0-9]{5}$' "$work/papers.txt" || fail "papers: no edges described: $(cat "$work/papers.txt")"
grep -q '^symmetric: yes$' "$work/papers.txt" || fail "papers: $(cat "$work/papers.txt")"
grep -q '^in-degree: min [1-9]' "$work/papers.txt" || fail "papers: a node without entries: $(cat "$work/papers.txt")"

# every family: generate <name> <expected nodes> <args...>, then read it back.
generate() {
  local name="$1" nodes="$2"; shift 2
  "$gen" --out "$work/$name" --features 4 --seed 2 "$@" > "$work/$name.json" || fail "sgnn_gen $* failed"
  grep -q "\"kind\": \"$name\"" "$work/$name.json" || fail "sgnn_gen $* printed $(cat "$work/$name.json")"
  "$describe" "$work/$name" > "$work/$name.txt"
  grep -q "^nodes: $nodes\$" "$work/$name.txt" || fail "$name: sgnn_describe read back $(cat "$work/$name.txt")"
}
generate sbm 2000 --kind sbm --nodes 2000 --edges 10000 --classes 5 --contiguous-blocks
grep -q '^classes: 5$' "$work/sbm.txt" || fail "sbm: $(cat "$work/sbm.txt")"
generate chung-lu 3000 --kind chung-lu --nodes 3000 --degree 12 --exponent 2.1 --max-degree 300 --symmetric
grep -q '^symmetric: yes$' "$work/chung-lu.txt" || fail "the --symmetric Chung-Lu graph is not symmetric"
# A 40 x 30 grid, 9 points: interior nodes have 8 neighbours, corners 3.
generate stencil2d 1200 --kind stencil2d --grid 40,30 --points 9 --symmetric
grep -q '^in-degree: min 3, median 8, .*max 8' "$work/stencil2d.txt" || fail "stencil2d: $(cat "$work/stencil2d.txt")"
generate stencil3d 1728 --kind stencil3d --grid 12
# Quadratic quadrilaterals, 2 dofs: 21 x 21 nodes; an interior vertex meets 25 nodes (49 other unknowns).
generate fem2d 882 --kind fem2d --grid 10 --order 2 --dofs 2 --symmetric
grep -q '^in-degree: .*max 49,' "$work/fem2d.txt" || fail "fem2d: $(cat "$work/fem2d.txt")"
generate fem3d 300 --kind fem3d --grid 4,4,3 --dofs 3
generate bipartite 2300 --kind bipartite --sources 2000 --targets 300 --edges 8000
# Edges go sources -> targets only: the 2000 sources have no in-edges (every target has some at this seed).
grep -q '^in-degree: .*zero 2000$' "$work/bipartite.txt" || fail "bipartite: $(cat "$work/bipartite.txt")"
generate hub 5000 --kind hub --nodes 5000 --hub-degree 3000
grep -q '^in-degree: .*max 3000,' "$work/hub.txt" || fail "hub: $(cat "$work/hub.txt")"
generate sparse 10000 --kind sparse --nodes 10000
grep -Eq '^edges: (99[0-9][0-9]|10000)$' "$work/sparse.txt" ||
  fail "sparse: average degree 2 means ~10000 edges: $(cat "$work/sparse.txt")"
# Edge features: one row of --edge-features values per line of edge.csv.
generate edge-features 400 --kind edge-features --nodes 400 --partners 3 --edge-features 6
[ "$(zcat "$work/edge-features/raw/edge-feat.csv.gz" | wc -l)" = "$(zcat "$work/edge-features/raw/edge.csv.gz" | wc -l)" ] ||
  fail "edge-feat.csv.gz and edge.csv.gz have different line counts"
[ "$(zcat "$work/edge-features/raw/edge-feat.csv.gz" | head -n1 | tr ',' '\n' | wc -l)" = 6 ] ||
  fail "edge-feat.csv.gz rows are not 6 wide"
echo "gen_test: ok"
