#!/usr/bin/env bash
# A failover trial on this machine (docs/scaling.md, "Failover"): etcd, two PostgreSQL nodes run
# by Patroni with synchronous replication, HAProxy in front sending connections to whichever node
# Patroni's REST API calls the primary, and the service on HAProxy's port. A writer appends one
# record every 100 ms; after 15 s the primary's Patroni and PostgreSQL are killed with SIGKILL
# (a machine that dies); the writer then checks that every acknowledged append is stored.
#   apt-get install -y patroni etcd-server haproxy
#   npm run build && bash scripts/lab/failover-trial.sh [dir]
# Runs as root (PostgreSQL and Patroni then run as the "postgres" user). Ports 2379–2380,
# 8101–8102, 57430–57432 and 3999 must be free. Everything it starts is stopped at the end.
set -euo pipefail
dir=${1:-/tmp/enhydris-failover}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir" && chown postgres:postgres "$dir"
as_postgres() { su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; }
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 2
  pkill -9 -f "$dir/" 2>/dev/null || true
}
trap cleanup EXIT

etcd --name e1 --data-dir "$dir/etcd" --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster e1=http://127.0.0.1:2380 > "$dir/etcd.log" 2>&1 &
pids+=($!)

for n in 1 2; do
  cat > "$dir/node$n.yml" <<YAML
scope: enhydris
name: node$n
restapi:
  listen: 127.0.0.1:810$n
  connect_address: 127.0.0.1:810$n
etcd3:
  hosts: 127.0.0.1:2379
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 5
    maximum_lag_on_failover: 1048576
    # A commit is acknowledged once the standby has it: a failover loses no acknowledged write.
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 200
        wal_log_hints: "on"
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 md5
    - host all all 127.0.0.1/32 md5
postgresql:
  listen: 127.0.0.1:5743$n
  connect_address: 127.0.0.1:5743$n
  data_dir: $dir/node$n/data
  bin_dir: $bin
  authentication:
    superuser: {username: postgres, password: postgres}
    replication: {username: replicator, password: replicator}
    rewind: {username: postgres, password: postgres}
  parameters:
    unix_socket_directories: $dir/node$n
YAML
  as_postgres mkdir -p "$dir/node$n"
  su postgres -s /bin/sh -c "exec patroni '$dir/node$n.yml'" > "$dir/node$n.log" 2>&1 &
  pids+=($!)
  sleep 1
done

cat > "$dir/haproxy.cfg" <<CFG
global
  maxconn 400
defaults
  mode tcp
  timeout connect 3s
  timeout client 30m
  timeout server 30m
  timeout check 2s
listen primary
  bind 127.0.0.1:57430
  option httpchk GET /primary
  http-check expect status 200
  # on-marked-down shutdown-sessions: connections to a node that stops being the primary are
  # closed, so the service's pools open new ones to the new primary.
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
  server node1 127.0.0.1:57431 check port 8101
  server node2 127.0.0.1:57432 check port 8102
CFG
haproxy -f "$dir/haproxy.cfg" > "$dir/haproxy.log" 2>&1 &
pids+=($!)

echo "waiting for a primary and a synchronous standby…"
for _ in $(seq 1 90); do
  if curl -sf http://127.0.0.1:8101/primary >/dev/null || curl -sf http://127.0.0.1:8102/primary >/dev/null; then
    if curl -s http://127.0.0.1:8101/cluster | grep -q sync_standby; then break; fi
  fi
  sleep 1
done
curl -s http://127.0.0.1:8101/cluster; echo
PGPASSWORD=postgres "$bin/psql" -h 127.0.0.1 -p 57430 -U postgres -d postgres -qc \
  "CREATE ROLE enhydris LOGIN SUPERUSER PASSWORD 'enhydris'" -c "CREATE DATABASE enhydris OWNER enhydris"

url=postgres://enhydris:enhydris@127.0.0.1:57430/enhydris
cd "$here"
DATABASE_URL=$url npm run --silent db:migrate > "$dir/migrate.log" 2>&1
DATABASE_URL=$url npm run --silent createsuperuser -- --username admin --password failover-trial-1 > /dev/null
DATABASE_URL=$url PORT=3999 ENHYDRIS_SITE_URL=http://127.0.0.1:3999 ENHYDRIS_SECRET_KEY=failover-trial-secret-key-0123456789 node server.mjs > "$dir/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do curl -sf http://127.0.0.1:3999/api/ >/dev/null && break; sleep 1; done

status=0
# The failover: the primary's machine dies (its Patroni and its PostgreSQL, SIGKILL).
primary=$(curl -sf http://127.0.0.1:8101/primary >/dev/null && echo 1 || echo 2)
pm=$(head -1 "$dir/node$primary/data/postmaster.pid")
kill_primary="kill -9 \$(pgrep -f '^/usr/bin/python3 /usr/bin/patroni $dir/node$primary.yml'); pkill -9 -P $pm; kill -9 $pm; echo 'node$primary killed'"
BASE=http://127.0.0.1:3999 USERNAME=admin PASSWORD=failover-trial-1 DURATION=${DURATION:-60} FAILOVER_AFTER=15 FAILOVER="$kill_primary" \
  npx tsx scripts/lab/failover-writer.ts || status=$?
survivor=$((3 - primary))
curl -s http://127.0.0.1:810$survivor/cluster; echo
# The dead machine comes back: its Patroni rewinds it (pg_rewind) and it rejoins as the standby.
su postgres -s /bin/sh -c "exec patroni '$dir/node$primary.yml'" >> "$dir/node$primary.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do
  curl -s http://127.0.0.1:810$survivor/cluster | grep -q "\"name\": \"node$primary\", \"role\": \"sync_standby\", \"state\": \"\(running\|streaming\)\"" && break
  sleep 1
done
echo "after node$primary came back:"
curl -s http://127.0.0.1:810$survivor/cluster; echo
echo "the service's log lines at warn or above:"
grep -E '"level":(40|50|60)' "$dir/server.log" | cut -c1-300 | head -20 || true
exit $status
