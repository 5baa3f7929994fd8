#!/usr/bin/env bash
# Predicted cost of whole counts, from `nqueens plan N --estimate`, in one
# sitting: core time, its 95% interval, core-ns per solution (where the
# count is published), and the resident peak of the estimating process
# against the plan's bound. The table the README and docs/q28.md quote.
#
#   scripts/estimate-table.sh THREADS SAMPLE N [N ...]   e.g. scripts/estimate-table.sh 2 300 23 24 25
#   NQUEENS_MATCHER=avx2 NQUEENS_LANES=avx2 scripts/estimate-table.sh 2 100 26   (force a path)
#   SEED=1 CORES=1000 ... (defaults 0 and 1000)
#   KEEP=DIR ... also keeps each estimate's JSON (with its timed samples) as DIR/estimate-N.json
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 THREADS SAMPLE N [N ...]" >&2; exit 2; }
threads=$1; sample=$2; shift 2
cd "$(dirname "$0")/.."
bin=${NQUEENS:-${CARGO_TARGET_DIR:-target}/release/nqueens}
[ -x "$bin" ] || cargo build --release --quiet
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || echo unknown)
echo "# $cpu, matcher ${NQUEENS_MATCHER:-auto}, lanes ${NQUEENS_LANES:-auto}, $threads threads, seed ${SEED:-0}, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "| N | tasks | sampled | core time | 95% interval | core-ns per solution | largest sampled task | wall on ${CORES:-1000} cores | estimate took | peak memory (measured / plan) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "$@"; do
    out=$( { /usr/bin/time -f '%M' "$bin" plan "$n" -j "$threads" --estimate --sample "$sample" \
        --seed "${SEED:-0}" --cores "${CORES:-1000}" --format json; } 2>&1 )
    json=$(printf '%s\n' "$out" | grep '^{' | tail -1)
    [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && printf '%s\n' "$json" > "$KEEP/estimate-$n.json"; }
    kib=$(printf '%s\n' "$out" | grep '^[0-9]*$' | tail -1)
    python3 - "$json" "$kib" <<'PY'
import json, sys
r = json.loads(sys.argv[1]); kib = int(sys.argv[2])
def span(s):
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if s >= 2 * size:
            return f"{s / size:.3g} {unit}"
    return f"{s:.3g} s"
ns = r.get("core_ns_per_solution")
print(f"| {r['n']} | {r['tasks']:,} | {r['sampled']} | {span(r['estimated_core_seconds'])} | "
      f"{span(r['interval_low'])} to {span(r['interval_high'])} | {'%.2f' % ns if ns else '(unpublished)'} | "
      f"{span(r['largest_task_seconds'])} | "
      f"{span(r['cores_wall_seconds'])} | {span(r['estimate_seconds'])} | "
      f"{kib / 1024:.0f} / {r['peak_memory_bytes'] / 2**20:.0f} MiB |")
PY
done
