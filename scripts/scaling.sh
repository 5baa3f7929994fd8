#!/usr/bin/env bash
# Runs the benchmark and draws its scaling chart.
#
#   scripts/scaling.sh [OUT.svg|OUT.png] [-- extra nqueens bench flags]
# Needs matplotlib (pip install matplotlib), checked before the benchmark
# runs. Writes OUT (default: a new file under the temporary directory, so
# the committed docs/scaling.* are only replaced when named) and keeps the
# report beside it as OUT's name with .json.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if ! python3 -c 'import matplotlib' 2>/dev/null; then
    echo "error: scripts/scaling.sh needs matplotlib for python3 (pip install matplotlib)" >&2
    exit 2
fi
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    out=$1
    shift
else
    out=$(mktemp --suffix=.svg "${TMPDIR:-/tmp}/nqueens-scaling-XXXXXX")
fi
[ "${1:-}" = "--" ] && shift
case "$out" in
    *.svg | *.png) ;;
    *) echo "error: the chart is written as .svg or .png, not $out" >&2; exit 2 ;;
esac
(cd "$top" && cargo build --release --quiet)
report=${out%.*}.json
"${CARGO_TARGET_DIR:-$top/target}/release/nqueens" bench --format json "$@" >"$report"
python3 "$top/scripts/scaling.py" "$report" "$out"
echo "wrote $out and $report" >&2
