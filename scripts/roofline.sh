#!/usr/bin/env bash
# Where a join count's time goes, by N, on one thread of this CPU: a
# sampling profile (perf) of whole counts (N <= 20) or of a sample of tasks
# timed by `plan N --estimate` (larger N), its samples grouped into the
# join's parts: the matcher (bit-sliced leaf sums, block fill, the split's
# and the dual split's cuts, squeeze, the vector filters, the grid's among
# them), the half boards (placing, pairing), the quadrant cells,
# the plan (making tasks from ids) and the rest. Whole counts also give the
# pairs of half boards decided per solution (the work measure `count` reports
# as nodes), and the peak memory. A development script: it needs perf
# (linux-perf) and GNU time.
#
#   scripts/roofline.sh                    # N = 18 20 22 24 26 28
#   scripts/roofline.sh 18 26              # some N
#   NQUEENS_MATCHER=avx2 NQUEENS_LANES=avx2 scripts/roofline.sh 18 28   # the AVX2 paths
#
# Sample sizes (tasks timed) for N > 20: SAMPLE_22 (2000), SAMPLE_24 (400),
# SAMPLE_26 (60), SAMPLE_28 (6), else SAMPLE (100). A sampled task pays its
# quadrant cells cold, where a count's neighbouring tasks share them: the
# cells' share of a sample overstates a count's.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "error: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
bin=${NQUEENS:-${CARGO_TARGET_DIR:-target}/release/nqueens}
[ -x "$bin" ] || cargo build --release --quiet
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(18 20 22 24 26 28)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
family=$(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
model=$(grep -m1 '^model' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')
echo "# $cpu (family $family, model $model), matcher ${NQUEENS_MATCHER:-auto}, lanes ${NQUEENS_LANES:-auto}, one thread, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "| N | measured on | core-ns per solution | pairs per solution | peak memory | matcher | half boards | quadrant cells | plan | other |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${sizes[@]}"; do
    if [ "$n" -le 20 ]; then
        perf record -q -F 999 -o "$tmp/perf.data" -- /usr/bin/time -f %M -o "$tmp/peak" "$bin" count "$n" -m join -j 1 --format csv >"$tmp/out" 2>/dev/null
        read -r measured ns pairs < <(awk -F, 'NR == 2 { printf "whole-count %.3f %.0f\n", $8 * 1e9 / $2, $9 / $2 }' "$tmp/out")
    else
        case $n in
            22) default=2000 ;; 24) default=400 ;; 26) default=60 ;; 28) default=6 ;; *) default=100 ;;
        esac
        sample_var=SAMPLE_$n
        sample=${!sample_var:-${SAMPLE:-$default}}
        perf record -q -F 999 -o "$tmp/perf.data" -- /usr/bin/time -f %M -o "$tmp/peak" "$bin" plan "$n" -m join -j 1 --estimate --sample "$sample" --seed 1 --format json >"$tmp/out" 2>/dev/null
        read -r measured ns pairs < <(python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
ns = e["core_ns_per_solution"]
if ns is None:  # no published count: Q(28) taken as about 2.5e18
    ns = e["estimated_core_seconds"] * 1e9 / 2.5e18
print("%d-tasks %.3f -" % (e["sampled"], ns))
' "$tmp/out")
    fi
    peak="$(( $(tail -1 "$tmp/peak") / 1024 )) MiB"
    perf report -q -i "$tmp/perf.data" --no-children --sort symbol --stdio 2>/dev/null \
        | awk -v n="$n" -v peak="$peak" -v measured="$measured" -v ns="$ns" -v pairs="$pairs" '
        /%/ {
            share = $1; sub("%", "", share); symbol = $0
            if (symbol ~ /disjoint::|matcher::|split::|squeeze|layout/) part = "matcher"
            else if (symbol ~ /glue::|halves|half_boards|count_in|Join<|fill_leaving/) part = "glue"
            else if (symbol ~ /cells::|placement/) part = "cells"
            else if (symbol ~ /tasks::|plan::|JoinTasks|estimate/) part = "plan"
            else part = "other"
            sum[part] += share
        }
        END {
            printf "| %s | %s | %s | %s | %s | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% |\n", n, measured, ns, pairs, peak,
                sum["matcher"], sum["glue"], sum["cells"], sum["plan"], sum["other"]
        }'
done
