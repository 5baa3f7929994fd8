#!/usr/bin/env bash
# Times nqueens against the classic single-threaded reference counter, taking
# turns in one run so both see the same machine load, and prints the medians
# and their ratio.
#
# The yardstick is the classic reference counter, ../shared/reference/mirror.c
# beside the repository, where it is (override with REFERENCE_C=path);
# elsewhere (a fresh clone) the repository's own scripts/reference/queens.c,
# the same kind of counter written here, and the output says which. Either
# is built into target/reference/ and never committed.
#
#   scripts/compare-reference.sh N THREADS [--method M] [--runs R] [-- extra nqueens flags]
set -euo pipefail

usage() {
    echo "usage: $0 N THREADS [--method M] [--runs R] [-- extra nqueens count flags]" >&2
    exit 2
}

[ $# -ge 2 ] || usage
n=$1
threads=$2
shift 2
method=mirror
runs=5
extra=()
while [ $# -gt 0 ]; do
    case $1 in
        --method) method=${2:?--method needs a value}; shift 2 ;;
        --runs) runs=${2:?--runs needs a value}; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) usage ;;
    esac
done
[[ $n =~ ^[0-9]+$ && $threads =~ ^[0-9]+$ && $runs =~ ^[0-9]+$ ]] || usage

top=$(cd "$(dirname "$0")/.." && pwd)
reference_c=${REFERENCE_C:-$top/../shared/reference/mirror.c}
if [ -z "${REFERENCE_C:-}" ] && [ ! -f "$reference_c" ]; then
    reference_c=$top/scripts/reference/queens.c
    echo "(the classic reference is not beside the repository: timing against scripts/reference/queens.c)"
fi
if [ ! -f "$reference_c" ]; then
    echo "error: reference source not found at $reference_c (set REFERENCE_C)" >&2
    exit 1
fi
mkdir -p "$top/target/reference"
reference=$top/target/reference/$(basename "$reference_c" .c)
if [ ! -x "$reference" ] || [ "$reference_c" -nt "$reference" ]; then
    cc -O3 -march=native -o "$reference" "$reference_c"
fi
(cd "$top" && cargo build --release --quiet)
# Where cargo put it: CARGO_TARGET_DIR if set (a common setup).
nqueens=${CARGO_TARGET_DIR:-$top/target}/release/nqueens

now() { date +%s.%N; }
seconds_of() { # command... -> wall seconds on stdout, output checked by caller
    local start end
    start=$(now)
    "$@" >"$tmp/out"
    end=$(now)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/ref" ; : >"$tmp/ours"
echo "N=$n  nqueens: --method $method -j $threads ${extra[*]}  reference: 1 thread  runs: $runs (alternating)"
for run in $(seq 1 "$runs"); do
    t_ref=$(seconds_of "$reference" "$n")
    ref_count=$(awk '{ print $2 }' "$tmp/out")
    t_ours=$(seconds_of "$nqueens" count "$n" --method "$method" -j "$threads" --format csv --progress never "${extra[@]}")
    our_count=$(tail -n 1 "$tmp/out" | cut -d, -f2)
    if [ "$ref_count" != "$our_count" ]; then
        echo "error: counts differ: reference $ref_count, nqueens $our_count" >&2
        exit 3
    fi
    echo "$t_ref" >>"$tmp/ref"
    echo "$t_ours" >>"$tmp/ours"
    printf '  run %d: reference %.3f s   nqueens %.3f s\n' "$run" "$t_ref" "$t_ours"
done
med_ref=$(median <"$tmp/ref")
med_ours=$(median <"$tmp/ours")
printf 'median: reference %.3f s   nqueens %.3f s   ratio nqueens/reference %.3f   (count %s)\n' \
    "$med_ref" "$med_ours" "$(awk -v a="$med_ours" -v b="$med_ref" 'BEGIN { print a / b }')" "$our_count"
