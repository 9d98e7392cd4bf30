# tests/support/pg_server.sh - a throwaway PostgreSQL 15 server for the
# tests, sourced by a test script:
#
#   . "$SRC/tests/support/pg_server.sh"
#   pg_start "$WORK/pg"          # initdb + start; sets PGHOST PGPORT PGUSER PGDATABASE
#   psql -c 'create table t (...)'
#   pg_stop_immediate            # crash it (prepared transactions survive)
#   pg_restart                   # start it again on the same port
#   pg_stop                      # also run from the caller's EXIT trap
#
# The server listens on 127.0.0.1 at a free port and on a socket folder under
# the work folder, trusts every local connection (a test server, never a
# real one), allows prepared transactions (two-phase commit) and logical
# replication (CDC), and runs without fsync. initdb refuses to run as root,
# so under root the data folder belongs to the postgres user and the server
# runs as that user.

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

pg__as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        su postgres -s /bin/sh -c "$*"
    else
        sh -c "$*"
    fi
}

pg__free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

pg_start() {
    local dir=$1
    if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ]; then
        echo "pg_server: PostgreSQL server binaries not found (install postgresql-15: scripts/install-deps.sh)" >&2
        return 1
    fi
    PG_DIR=$dir
    mkdir -p "$dir/data" "$dir/sock"
    if [ "$(id -u)" -eq 0 ]; then
        chown -R postgres "$dir"
        # postgres must be able to reach the folder through its parents.
        local p=$dir
        while [ "$p" != / ] && [ -n "$p" ]; do chmod o+x "$p" 2>/dev/null; p=$(dirname "$p"); done
    fi
    pg__as_owner "'$PG_BIN/initdb' -D '$dir/data' -U postgres -A trust --no-sync -E UTF8 >'$dir/initdb.log' 2>&1" || {
        cat "$dir/initdb.log" >&2
        return 1
    }
    PGPORT=$(pg__free_port)
    PG_OPTS="-p $PGPORT -k $dir/sock -c listen_addresses=127.0.0.1 -c max_prepared_transactions=32 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c wal_level=logical -c max_replication_slots=8 -c max_wal_senders=8"
    export PGHOST=127.0.0.1 PGPORT PGUSER=postgres PGDATABASE=postgres
    pg_restart
}

pg_restart() {
    pg__as_owner "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -w -t 60 -l '$PG_DIR/server.log' -o '$PG_OPTS' start >/dev/null" || {
        cat "$PG_DIR/server.log" >&2
        return 1
    }
}

# Stops the server as a crash would (no shutdown checkpoint).
pg_stop_immediate() {
    pg__as_owner "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -w -m immediate stop >/dev/null 2>&1"
}

pg_stop() {
    [ -n "${PG_DIR:-}" ] && [ -f "$PG_DIR/data/postmaster.pid" ] || return 0
    pg__as_owner "'$PG_BIN/pg_ctl' -D '$PG_DIR/data' -w -m fast stop >/dev/null 2>&1"
}
