#!/usr/bin/env bash
# Runs the benchmark and draws its scaling chart.
#
#   scripts/scaling.sh [OUT.svg|OUT.png] [-- extra nqueens bench flags]
# Needs matplotlib (pip install matplotlib). Writes OUT (default
# docs/scaling.svg) and keeps the report beside it as OUT's name with .json.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/docs/scaling.svg}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
(cd "$top" && cargo build --release --quiet)
report=${out%.*}.json
"$top/target/release/nqueens" bench --format json "$@" >"$report"
python3 "$top/scripts/scaling.py" "$report" "$out"
