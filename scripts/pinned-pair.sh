# Sourced by ab-pinned.sh and sweep-pinned.sh: two measurements at once,
# one pinned to each of the first two cores.
#
#   pinned_pair BASE_CORE RUN_BASE RUN_NEW
#
# calls `RUN_BASE BASE_CORE` and `RUN_NEW` on the other core (0 or 1), at
# the same time; returns non-zero if either fails. The one started first
# swaps with the cores (base when BASE_CORE is 0, new when it is 1): the
# one started second read about 2% slower against itself on Zen 4 (3
# seeds, 1.017 to 1.022), so a caller that runs both core orders cancels
# the start order as it cancels the cores.
pinned_pair() {
    local base_core=$1 run_base=$2 run_new=$3 pid
    local new_core=$((1 - base_core))
    if [ "$base_core" = 0 ]; then
        "$run_base" "$base_core" & pid=$!
        "$run_new" "$new_core" || { wait "$pid" || true; return 1; }
    else
        "$run_new" "$new_core" & pid=$!
        "$run_base" "$base_core" || { wait "$pid" || true; return 1; }
    fi
    wait "$pid"
}
