#!/usr/bin/env bash
# Times two builds of nqueens on the same tasks at the same time, one
# pinned to each of the first two cores, then again with the cores
# swapped, so both see the same machine and neither core's speed favours
# one: the way docs/performance.md compares builds on a 2-core VM. Each
# run is `plan N -j1 --estimate --sample S --seed SEED` (the same sampled
# tasks for both builds at a seed). Prints every pair's ratio NEW/BASE,
# the ratio of the summed times, and each seed's ratio with the cores'
# difference taken out (the geometric mean of its two pairs) with their
# geometric mean and its 95% interval over the seeds (Student's t): an
# interval that holds 1.000 is not a difference this sitting can tell
# from noise. Needs taskset (util-linux).
#
#   scripts/ab-pinned.sh BASE NEW [--n N] [--sample S] SEED...
#
# BASE and NEW are nqueens binaries (or scripts that exec one with an
# environment variable set).
set -euo pipefail
usage() { echo "usage: $0 BASE NEW [--n N] [--sample S] SEED..." >&2; exit 2; }
[ $# -ge 3 ] || usage
base=$1 new=$2; shift 2
n=28 sample=3 seeds=()
while [ $# -gt 0 ]; do
    case $1 in
        --n) [ $# -ge 2 ] || usage; n=$2; shift 2 ;;
        --sample) [ $# -ge 2 ] || usage; sample=$2; shift 2 ;;
        -*) usage ;;
        *) seeds+=("$1"); shift ;;
    esac
done
[ ${#seeds[@]} -gt 0 ] || usage
for bin in "$base" "$new"; do
    [ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Seconds one run takes on core $1 with binary $2 at seed $3, into file $4.
timed() {
    local start end
    start=$(date +%s.%N)
    taskset -c "$1" "$2" plan "$n" -j1 --estimate --sample "$sample" --seed "$3" >/dev/null 2>"$tmp/err.$1" \
        || { echo "$0: $2 failed on seed $3: $(tail -1 "$tmp/err.$1")" >&2; return 1; }
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }' >"$4"
}
run_base() { timed "$1" "$base" "$seed" "$tmp/base"; }
run_new() { timed "$1" "$new" "$seed" "$tmp/new"; }
. "$(dirname "$0")/pinned-pair.sh"
sum_base=0 sum_new=0
: >"$tmp/seeds"
for seed in "${seeds[@]}"; do
    logs=0
    for base_core in 0 1; do
        pinned_pair "$base_core" run_base run_new || exit 1
        tb=$(cat "$tmp/base") tn=$(cat "$tmp/new")
        sum_base=$(awk -v a="$sum_base" -v b="$tb" 'BEGIN { print a + b }')
        sum_new=$(awk -v a="$sum_new" -v b="$tn" 'BEGIN { print a + b }')
        printf 'seed %s  base on core %s %8.3f s  new on core %s %8.3f s  ratio %.3f\n' \
            "$seed" "$base_core" "$tb" "$((1 - base_core))" "$tn" "$(awk -v a="$tb" -v b="$tn" 'BEGIN { print b / a }')"
        logs=$(awk -v l="$logs" -v a="$tb" -v b="$tn" 'BEGIN { print l + log(b / a) }')
    done
    echo "$seed $logs" >>"$tmp/seeds"
done
printf 'summed: base %.3f s  new %.3f s  ratio %.3f  (plan %s -j1 --estimate --sample %s)\n' \
    "$sum_base" "$sum_new" "$(awk -v a="$sum_base" -v b="$sum_new" 'BEGIN { print b / a }')" "$n" "$sample"
awk '
    # Two-sided 95% quantiles of Student t for 1 to 30 degrees of freedom;
    # past 30 the 30th, a little wider than the true one, never narrower.
    BEGIN {
        split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228" \
            " 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086" \
            " 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", t, " ")
    }
    { seed[NR] = $1; mean_log[NR] = $2 / 2; sum += $2 / 2 }
    END {
        k = NR; m = sum / k
        line = "per seed (both core orders):"
        for (i = 1; i <= k; i++) line = line sprintf(" %s:%.3f", seed[i], exp(mean_log[i]))
        print line
        if (k < 2) { printf "geometric mean %.3f (one seed: no interval)\n", exp(m); exit }
        for (i = 1; i <= k; i++) ss += (mean_log[i] - m) ^ 2
        half = t[k - 1 <= 30 ? k - 1 : 30] * sqrt(ss / (k - 1) / k)
        verdict = (exp(m - half) <= 1 && exp(m + half) >= 1) ? "holds 1: noise at this sitting" : "excludes 1"
        printf "geometric mean %.3f, 95%% interval %.3f to %.3f over %d seeds (%s)\n", exp(m), exp(m - half), exp(m + half), k, verdict
    }' "$tmp/seeds"
