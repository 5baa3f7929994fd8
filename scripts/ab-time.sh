#!/usr/bin/env bash
# Times two commands in turns (A, B, A, B, ...) so both see the same machine
# load, and prints each median and the ratio B/A. Output of the commands is
# discarded; a failing run aborts.
#
#   scripts/ab-time.sh RUNS 'command A' 'command B'
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 RUNS 'command A' 'command B'" >&2; exit 2; }
runs=$1 a=$2 b=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
time_of() {
    local start end
    start=$(now)
    bash -c "$1" >/dev/null 2>&1
    end=$(now)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f\n", e - s }'
}
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for run in $(seq 1 "$runs"); do
    ta=$(time_of "$a"); echo "$ta" >>"$tmp/a"
    tb=$(time_of "$b"); echo "$tb" >>"$tmp/b"
    printf '  run %d: A %.3f s   B %.3f s\n' "$run" "$ta" "$tb"
done
ma=$(median "$tmp/a") mb=$(median "$tmp/b")
printf 'median A %.3f s  B %.3f s  ratio B/A %.4f\n  A: %s\n  B: %s\n' "$ma" "$mb" \
    "$(awk -v a="$ma" -v b="$mb" 'BEGIN { print b / a }')" "$a" "$b"
