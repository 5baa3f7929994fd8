#!/usr/bin/env bash
# Redraws the board pictures in docs/ from the program itself, so they show
# what `nqueens list --format svg` draws today (tests/suite/boards_cli.rs fails
# when a picture and the program disagree).
#
#   scripts/boards.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet -- list 8 --limit 1 --format svg > docs/queens-8.svg
echo "wrote docs/queens-8.svg"
