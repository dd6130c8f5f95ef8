# Sourced by the scripts that run tests or programs: exports SGNN_DATA as the
# first folder holding the citation datasets (cora/ in OGB raw layout) among
# $SGNN_DATA, ./data, ../shared/data and /work/shared/data. Datasets are
# never committed; without them the tests that need them report "skipped".
for candidate in "${SGNN_DATA:-}" data ../shared/data /work/shared/data; do
  if [ -n "$candidate" ] && [ -d "$candidate/cora/raw" ]; then
    SGNN_DATA="$(cd "$candidate" && pwd)"
    export SGNN_DATA
    echo "datasets: $SGNN_DATA"
    return 0 2>/dev/null || exit 0
  fi
done
echo "datasets: cora not found in \$SGNN_DATA, ./data, ../shared/data or /work/shared/data: tests that need it are skipped"
