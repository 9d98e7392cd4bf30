#!/usr/bin/env bash
# examples/sql/click-billing-postgres/run.sh [--check] [WEIR]
# Starts a throwaway PostgreSQL server in a temporary folder, creates the
# tables (tables.sql), runs job.sql against it, prints both tables and
# stops the server. --check compares the billing table with
# ../click-billing/expected.txt (the same windows printed by the print
# sink) and the totals with the sum of those windows, and fails on a
# difference. WEIR: the weir binary (default: build/weir of this checkout).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
WEIR=$(cd "$(dirname "${1:-$root/build/weir}")" && pwd)/$(basename "${1:-$root/build/weir}")
work=$(mktemp -d /tmp/weir-pg-example-XXXXXX)
. "$root/tests/support/pg_server.sh"
trap 'pg_stop; rm -rf "$work"' EXIT
pg_start "$work/pg"
psql -qX -v ON_ERROR_STOP=1 -f "$here/tables.sql"
sed -e "s|127.0.0.1:5432|127.0.0.1:$PGPORT|" -e "s|'../click-billing/clicks.json'|'$here/../click-billing/clicks.json'|" \
    "$here/job.sql" > "$work/job.sql"
cd "$work"
echo "== weir run job.sql (PostgreSQL on 127.0.0.1:$PGPORT)" >&2
"$WEIR" run job.sql
echo "== SELECT * FROM billing (first rows)" >&2
psql -X -c "SELECT * FROM billing ORDER BY window_start, advertiser LIMIT 8"
echo "== SELECT * FROM totals" >&2
psql -X -c "SELECT * FROM totals ORDER BY advertiser"
prepared=$(psql -AtqX -c "SELECT count(*) FROM pg_prepared_xacts")
echo "prepared transactions left: $prepared" >&2
if [ $check = 1 ]; then
    # expected.txt: +I[advertiser, 2023-11-14T22:00, 2023-11-14T22:05, 13, 1.30]
    sed -e 's/^+I\[//' -e 's/\]$//' -e 's/, /|/g' -e 's/T\([0-9][0-9]:[0-9][0-9]\)/ \1:00/g' \
        "$here/../click-billing/expected.txt" | LC_ALL=C sort > want.txt
    psql -AtqX -c "SELECT advertiser, to_char(window_start, 'YYYY-MM-DD HH24:MI:SS'),
        to_char(window_end, 'YYYY-MM-DD HH24:MI:SS'), clicks, amount FROM billing" | LC_ALL=C sort > got.txt
    cmp -s want.txt got.txt || { diff want.txt got.txt | head; echo "billing differs from the print example" >&2; exit 1; }
    awk -F'|' '{ c[$1] += $4; a[$1] += $5 } END { for (k in c) printf "%s|%d|%.2f\n", k, c[k], a[k] }' want.txt |
        LC_ALL=C sort > want_totals.txt
    psql -AtqX -c "SELECT advertiser, clicks, amount FROM totals" | LC_ALL=C sort > got_totals.txt
    cmp -s want_totals.txt got_totals.txt || { diff want_totals.txt got_totals.txt; echo "totals differ" >&2; exit 1; }
    [ "$prepared" = 0 ] || { echo "prepared transactions left behind" >&2; exit 1; }
    echo "check: billing equals ../click-billing/expected.txt, totals equal its sums" >&2
fi
