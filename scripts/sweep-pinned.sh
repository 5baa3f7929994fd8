#!/usr/bin/env bash
# Times two builds of nqueens at every N of a list, both at once, one
# pinned to each of the first two cores, then with the cores (and which
# starts first) swapped, as scripts/ab-pinned.sh does for one N: the
# check that no N got slower. Up to N = 20 a round times a whole count
# (`bench --n N -j1 --runs R`, its median); from N = 21 the core time
# `plan N -j1 --estimate --sample K --seed 2` predicts from the same
# sampled tasks. Prints a Markdown row per N: the measure, the rounds and
# the geometric mean of NEW/BASE over them (each round both core orders).
# Needs taskset and python3; the pair's runs are scripts/pinned-pair.sh's.
#
#   [METHOD=M] scripts/sweep-pinned.sh BASE NEW [ROUNDS] [N...]
#
# ROUNDS defaults to 2; N defaults to 10 to 27; METHOD (`-m`) to auto.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BASE NEW [ROUNDS] [N...]" >&2; exit 2; }
base=$1 new=$2; shift 2
rounds=2
if [ $# -gt 0 ]; then rounds=$1; shift; fi
ns=("$@")
[ ${#ns[@]} -gt 0 ] || ns=($(seq 10 27))
for bin in "$base" "$new"; do
    [ -x "$bin" ] || { echo "$0: $bin is not an executable" >&2; exit 2; }
done
method=${METHOD:-auto}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The work at N, sized to take seconds a run on one Zen 4 core.
work_of() {
    case $1 in
        10 | 11) echo "bench --runs 1001" ;; 12) echo "bench --runs 301" ;;
        13) echo "bench --runs 101" ;; 14) echo "bench --runs 31" ;;
        15) echo "bench --runs 11" ;; 16) echo "bench --runs 5" ;;
        17 | 18) echo "bench --runs 3" ;; 19 | 20) echo "bench --runs 1" ;;
        21) echo "plan --sample 3000" ;; 22) echo "plan --sample 400" ;;
        23) echo "plan --sample 200" ;; 24) echo "plan --sample 150" ;;
        25) echo "plan --sample 40" ;; 26) echo "plan --sample 12" ;;
        *) echo "plan --sample 4" ;;
    esac
}
# Seconds of the measure: bench's median or the estimate's core time.
measure() {
    local core=$1 bin=$2 n=$3 out=$4 kind arg
    read -r kind arg value <<<"$(work_of "$n")"
    if [ "$kind" = bench ]; then
        taskset -c "$core" "$bin" bench --n "$n" -m "$method" -j1 "$arg" "$value" --format json 2>/dev/null >"$out.json"
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median_seconds"])' "$out.json" >"$out"
    else
        taskset -c "$core" "$bin" plan "$n" -m "$method" -j1 --estimate "$arg" "$value" --seed 2 --format json 2>/dev/null >"$out.json"
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["estimated_core_seconds"])' "$out.json" >"$out"
    fi
}
run_base() { measure "$1" "$base" "$n" "$tmp/base"; }
run_new() { measure "$1" "$new" "$n" "$tmp/new"; }
. "$(dirname "$0")/pinned-pair.sh"
echo "method $method"
echo "| N | measured by | rounds | NEW / BASE (each round) | geometric mean |"
echo "| --- | --- | --- | --- | --- |"
for n in "${ns[@]}"; do
    logs=() shown=""
    for round in $(seq 1 "$rounds"); do
        sum=0
        for base_core in 0 1; do
            pinned_pair "$base_core" run_base run_new || exit 1
            sum=$(awk -v s="$sum" -v a="$(cat "$tmp/base")" -v b="$(cat "$tmp/new")" 'BEGIN { print s + log(b / a) }')
        done
        logs+=("$sum")
        shown="$shown $(awk -v s="$sum" 'BEGIN { printf "%.3f", exp(s / 2) }')"
    done
    mean=$(printf '%s\n' "${logs[@]}" | awk '{ s += $1 / 2 } END { printf "%.3f", exp(s / NR) }')
    echo "| $n | \`$(work_of "$n")\` | $rounds |$shown | $mean |"
done
