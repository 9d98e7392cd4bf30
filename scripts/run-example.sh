#!/usr/bin/env bash
# Builds weir and runs its main example on bundled data, no servers needed:
# per-advertiser click billing in 5-minute event-time windows, with clicks
# that arrive up to 45 minutes late (examples/sql/click-billing/job.sql).
#   scripts/run-example.sh [EXAMPLE]   (click-billing, moving-average, sessions, late-clicks)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh >/dev/null
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target weir_cli >/dev/null
example=${1:-click-billing}
cd "examples/sql/$example"
echo "== weir run examples/sql/$example/job.sql" >&2
exec ../../../build/weir run job.sql
