# Sourced by gpu-check.sh and gpu-profile.sh: `limited CMD...` runs a
# step under a time limit, `step_limit` seconds, or what is left of
# `budget` seconds since `started` where those are set, whichever is
# less. A step that runs out (or finds no time left) says so on stderr,
# which each step sends to its log (stdout is the step's table), and
# returns 124; the check goes on.
limited() {
    local limit=$step_limit
    if [ -n "${budget:-}" ]; then
        local left=$((budget - (SECONDS - started)))
        limit=$((left < limit ? left : limit))
        if [ "$limit" -le 5 ]; then
            echo "(skipped, no time left: $*)" >&2
            return 124
        fi
    fi
    timeout -k 10 "$limit" "$@"
    local status=$?
    if [ "$status" = 124 ] || [ "$status" = 137 ]; then echo "(stopped after $limit s: $*)" >&2; fi
    return "$status"
}
