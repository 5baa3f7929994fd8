#!/usr/bin/env bash
# Core-nanoseconds per solution (threads x wall seconds / solutions) of
# `nqueens count N` for each N given, in one sitting, with the lane path
# and CPU: the table the README quotes for large N. Every count is checked
# against the published tables (a mismatch aborts).
#
#   scripts/core-ns.sh THREADS N [N ...]        e.g. scripts/core-ns.sh 2 18 19 20
#   NQUEENS_LANES=avx2 scripts/core-ns.sh 2 20  (force a lane path)
#   NQUEENS=path/to/nqueens scripts/core-ns.sh ... (default: target/release/nqueens, built if missing)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 THREADS N [N ...]" >&2; exit 2; }
threads=$1; shift
cd "$(dirname "$0")/.."
bin=${NQUEENS:-${CARGO_TARGET_DIR:-target}/release/nqueens}
[ -x "$bin" ] || cargo build --release --quiet
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo unknown)
echo "# $cpu, lanes ${NQUEENS_LANES:-auto}, $threads threads, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "| N | method | threads | seconds | solutions | core-ns per solution | peak memory |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for n in "$@"; do
    out=$( { /usr/bin/time -f '%M' "$bin" count "$n" -j "$threads" --format csv --progress never | tail -1; } 2>&1 )
    row=$(printf '%s\n' "$out" | grep -v '^[0-9]*$' | tail -1)
    kib=$(printf '%s\n' "$out" | grep '^[0-9]*$' | tail -1)
    IFS=, read -r rn solutions _ _ _ method used seconds _ _ matches _ <<<"$row"
    [ "$matches" = true ] || { echo "N = $n: count does not match the published table: $row" >&2; exit 3; }
    awk -v n="$rn" -v m="$method" -v t="$used" -v s="$seconds" -v q="$solutions" -v k="$kib" \
        'BEGIN { printf "| %d | %s | %d | %.2f | %s | %.2f | %.0f MiB |\n", n, m, t, s, q, t * s / q * 1e9, k / 1024 }'
done
