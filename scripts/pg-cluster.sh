#!/usr/bin/env bash
# A private, throw-away PostgreSQL cluster for tests, benchmarks and development.
#   scripts/pg-cluster.sh start [port] [dir]   creates (if needed) and starts it, creates the
#                                              role "enhydris" (password "enhydris") and the
#                                              database "enhydris"; prints its DATABASE_URL
#   scripts/pg-cluster.sh stop  [port] [dir]   stops it
#   scripts/pg-cluster.sh drop  [port] [dir]   stops it and deletes its files
#   scripts/pg-cluster.sh standby <primary port> <port> [dir]
#                                              creates (if needed, with pg_basebackup -R) and starts a
#                                              streaming standby of the cluster on <primary port>
#                                              (a read replica); prints its DATABASE_REPLICA_URLS
#                                              entry. stop/drop take its port and dir as above.
# Works as root (the server then runs as the "postgres" user) or as an ordinary user.
set -euo pipefail
action=${1:?usage: pg-cluster.sh start|stop|drop [port] [dir] | standby <primary port> <port> [dir]}
if [ "$action" = standby ]; then
  primary=${2:?usage: pg-cluster.sh standby <primary port> <port> [dir]}
  shift
fi
port=${2:-54329}
dir=${3:-/tmp/enhydris-pg-$port}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "pg-cluster: PostgreSQL server binaries not found under /usr/lib/postgresql" >&2; exit 3; }

as_owner() {
  if [ "$(id -u)" = 0 ]; then su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; else "$@"; fi
}

case "$action" in
  start)
    if [ ! -f "$dir/PG_VERSION" ]; then
      mkdir -p "$dir"
      [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
      as_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
      cat >> "$dir/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
shared_buffers = 256MB
fsync = off
synchronous_commit = off
full_page_writes = off
# streaming standbys (scripts/pg-cluster.sh standby); initdb's pg_hba.conf lets local
# connections replicate
wal_level = replica
max_wal_senders = 10
wal_keep_size = 512MB
CONF
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null
    fi
    as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qtAc \
      "DO \$\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname='enhydris') THEN CREATE ROLE enhydris LOGIN SUPERUSER PASSWORD 'enhydris'; END IF; END\$\$;" >/dev/null
    if ! as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qtAc "SELECT 1 FROM pg_database WHERE datname='enhydris'" | grep -q 1; then
      as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -qc "CREATE DATABASE enhydris OWNER enhydris" >/dev/null
    fi
    echo "postgres://enhydris:enhydris@127.0.0.1:$port/enhydris"
    ;;
  standby)
    if [ ! -f "$dir/PG_VERSION" ]; then
      mkdir -p "$dir"
      [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
      chmod 700 "$dir"
      # -R: standby.signal and primary_conninfo; -X stream: the WAL of the copy comes along.
      as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres -D "$dir" -R -X stream -c fast
      cat >> "$dir/postgresql.conf" <<CONF
# a streaming standby of the cluster on port $primary
port = $port
unix_socket_directories = '$dir'
hot_standby = on
CONF
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null
    fi
    echo "postgres://enhydris:enhydris@127.0.0.1:$port/enhydris"
    ;;
  stop)
    [ -f "$dir/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  drop)
    [ -f "$dir/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$dir" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  *) echo "usage: pg-cluster.sh start|stop|drop [port] [dir] | standby <primary port> <port> [dir]" >&2; exit 2 ;;
esac
