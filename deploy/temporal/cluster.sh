#!/usr/bin/env bash
# A Temporal cluster as production runs one, for Ordinal: the Temporal server's four services
# (frontend, history, matching, worker) as separate processes, built from the Go module
# go.temporal.io/server (a pinned release), on a PostgreSQL you give it, with several history shards,
# the schema set up by Temporal's own temporal-sql-tool and the dynamic config Ordinal wants
# (deploy/temporal/dynamicconfig.yaml). Ordinal's tests run against it; it is also a recipe for
# running one yourself (read `start` below for the configuration it writes).
#
#   cluster.sh build                      build the server and temporal-sql-tool into the cache
#                                         (idempotent; a few minutes the first time)
#   cluster.sh start DIR                  set up (or upgrade) the schema of the databases `temporal` and
#                                         `temporal_visibility` and start the four services, with their
#                                         config, logs (DIR/*.log), pids (DIR/*.pid) and ports
#                                         (DIR/ports.env) in DIR; waits until the frontend answers;
#                                         prints the frontend's address on stdout
#   cluster.sh namespace DIR NAME [RETENTION]
#                                         register a namespace (idempotent; retention default 72h) and wait
#                                         until every frontend serves it
#   cluster.sh stop DIR                   stop what `start DIR` started (idempotent)
#   cluster.sh kill DIR SERVICE           SIGKILL one service (fault injection)
#   cluster.sh restart DIR SERVICE        start a killed service again on its ports
#   cluster.sh status DIR                 the services and their pids
#
# Environment:
#   TEMPORAL_DB_HOST TEMPORAL_DB_PORT     the PostgreSQL (default 127.0.0.1:5432); the user must be
#   TEMPORAL_DB_USER TEMPORAL_DB_PASSWORD allowed to create databases (only at the first start)
#   TEMPORAL_SHARDS                       history shards (default 4); fixed for the cluster's life: a
#                                         cluster started on existing databases must use their number
#   TEMPORAL_PORTS                        nine ports for the first start (frontend gRPC, HTTP, membership,
#                                         then gRPC and membership of history, matching, worker); unset:
#                                         free ones picked; kept in DIR/ports.env for later starts
#   TEMPORAL_DYNAMIC_CONFIG               the dynamic config file (default deploy/temporal/dynamicconfig.yaml)
#   ORDINAL_TEMPORAL_CACHE                binaries, default ~/.cache/ordinal/temporal-server-v$V
#   TEMPORAL_CLI                          the temporal CLI, for `namespace` (default `temporal` on PATH)
set -euo pipefail

V=1.32.2
# Temporal 1.32 needs Go >= 1.26.10; the machine's Go fetches this approved toolchain from the module proxy.
GO_TOOLCHAIN=go1.27.3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${ORDINAL_TEMPORAL_CACHE:-$HOME/.cache/ordinal/temporal-server-v$V}
BIN=$CACHE/bin
SERVICES=(history matching frontend worker)   # started in this order, stopped in the reverse one

die() { echo "temporal-cluster: $*" >&2; exit 1; }
log() { echo "temporal-cluster: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

cmd_build() {
  [[ -x $BIN/server && -x $BIN/sql ]] && return 0
  command -v go >/dev/null || die "building Temporal needs Go (apt-get install golang)"
  log "building go.temporal.io/server v$V (server and temporal-sql-tool) into $BIN"
  mkdir -p "$BIN"
  GOTOOLCHAIN=$GO_TOOLCHAIN GOBIN="$BIN.tmp" GOFLAGS=-mod=mod \
    go install "go.temporal.io/server/cmd/server@v$V" "go.temporal.io/server/cmd/tools/sql@v$V" >&2 \
    || die "could not build go.temporal.io/server v$V from the Go module proxy"
  mv "$BIN.tmp/server" "$BIN.tmp/sql" "$BIN/" && rmdir "$BIN.tmp"
}

# shellcheck source=../lib/processes.sh
source "$HERE/../lib/processes.sh"

sql_tool() {  # sql_tool DATABASE ARGS...
  local db=$1; shift
  "$BIN/sql" --plugin postgres12 --endpoint "${TEMPORAL_DB_HOST:-127.0.0.1}" --port "${TEMPORAL_DB_PORT:-5432}" \
    --user "${TEMPORAL_DB_USER:-temporal}" --password "${TEMPORAL_DB_PASSWORD:-}" --database "$db" "$@"
}

# Creates the database and its schema's version table when missing, then runs every schema update
# this release has (idempotent: update-schema applies only the versions after the recorded one).
setup_schema() {
  local db=$1 schema=$2 out
  out=$(sql_tool "$db" create-database 2>&1) || grep -q "already exists" <<<"$out" \
    || { echo "$out" >&2; die "cannot create database $db"; }
  out=$(sql_tool "$db" setup-schema -v 0.0 2>&1) || grep -q "already exists" <<<"$out" \
    || { echo "$out" >&2; die "cannot set up the schema of $db"; }
  sql_tool "$db" update-schema --schema-name "postgresql/v12/$schema" >"$DIR/schema-$db.log" 2>&1 \
    || { cat "$DIR/schema-$db.log" >&2; die "cannot update the schema of $db"; }
}

write_config() {
  local db_host=${TEMPORAL_DB_HOST:-127.0.0.1} db_port=${TEMPORAL_DB_PORT:-5432}
  # Every key the services read: a log per service on stderr (DIR/SERVICE.log), no metrics listener,
  # membership over loopback, the SQL stores, and the dynamic config file, re-read every 10 s.
  cat > "$DIR/config.yaml" <<EOF
log:
  stdout: true
  level: warn
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: ${TEMPORAL_SHARDS:-4}
  datastores:
    default:
      sql:
        pluginName: postgres12
        databaseName: temporal
        connectAddr: "$db_host:$db_port"
        connectProtocol: tcp
        user: "${TEMPORAL_DB_USER:-temporal}"
        password: "${TEMPORAL_DB_PASSWORD:-}"
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h
    visibility:
      sql:
        pluginName: postgres12
        databaseName: temporal_visibility
        connectAddr: "$db_host:$db_port"
        connectProtocol: tcp
        user: "${TEMPORAL_DB_USER:-temporal}"
        password: "${TEMPORAL_DB_PASSWORD:-}"
        maxConns: 4
        maxIdleConns: 4
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:
    rpc: {grpcPort: $FRONTEND_PORT, membershipPort: $FRONTEND_MEMBERSHIP_PORT, httpPort: $FRONTEND_HTTP_PORT, bindOnLocalHost: true}
  history:
    rpc: {grpcPort: $HISTORY_PORT, membershipPort: $HISTORY_MEMBERSHIP_PORT, bindOnLocalHost: true}
  matching:
    rpc: {grpcPort: $MATCHING_PORT, membershipPort: $MATCHING_MEMBERSHIP_PORT, bindOnLocalHost: true}
  worker:
    rpc: {grpcPort: $WORKER_PORT, membershipPort: $WORKER_MEMBERSHIP_PORT, bindOnLocalHost: true}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:$FRONTEND_PORT"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "$DIR/dynamicconfig.yaml"
  pollInterval: 10s
EOF
  cp "${TEMPORAL_DYNAMIC_CONFIG:-$HERE/dynamicconfig.yaml}" "$DIR/dynamicconfig.yaml"
}

launch_service() {  # in its own session: a caller's Ctrl-C or exit leaves it be
  [[ -e $DIR/$1.log ]] && cat "$DIR/$1.log" >> "$DIR/$1.log.1"
  setsid "$BIN/server" --config-file "$DIR/config.yaml" --allow-no-auth start --service "$1" \
    >"$DIR/$1.log" 2>&1 </dev/null 9>&- &
  echo $! > "$DIR/$1.pid"
}

# Until the frontend answers and the history service serves: a frontend that is up before its history
# hosts have joined the membership ring answers "Not enough hosts to serve the request"; a lookup of a
# workflow that does not exist goes to a history shard and answers "not found" once they have.
serving() {
  local out
  "${TEMPORAL_CLI:-temporal}" operator cluster health --address "127.0.0.1:$FRONTEND_PORT" >/dev/null 2>&1 || return 1
  out=$("${TEMPORAL_CLI:-temporal}" workflow describe --address "127.0.0.1:$FRONTEND_PORT" -n temporal-system \
    -w cluster-sh-readiness-probe 2>&1) && return 0
  grep -qi "not found" <<<"$out"
}

# Until SERVICE listens on its gRPC port (or exits, which fails the start).
wait_for_port() {
  local port_var; port_var="$(tr '[:lower:]' '[:upper:]' <<<"$1")_PORT"
  local deadline=$((SECONDS + ${TEMPORAL_TIMEOUT:-120}))
  until (exec 3<>"/dev/tcp/127.0.0.1/${!port_var}") 2>/dev/null; do
    running "$DIR" "$1" || { tail -20 "$DIR/$1.log" >&2; die "$1 exited (see $DIR/$1.log)"; }
    ((SECONDS < deadline)) || die "$1 did not listen within ${TEMPORAL_TIMEOUT:-120} s (see $DIR/$1.log)"
    sleep 0.2
  done
}

wait_for_frontend() {
  local deadline=$((SECONDS + ${TEMPORAL_TIMEOUT:-120}))
  until serving; do
    local s
    for s in "${SERVICES[@]}"; do
      running "$DIR" "$s" || { tail -20 "$DIR/$s.log" >&2; die "$s exited (see $DIR/$s.log)"; }
    done
    ((SECONDS < deadline)) || die "the frontend did not answer within ${TEMPORAL_TIMEOUT:-120} s (see $DIR/*.log)"
    sleep 0.5
  done
}

cmd_start() {
  [[ $# -eq 1 ]] || usage
  cmd_build
  mkdir -p "$1"; DIR=$(cd "$1" && pwd -P)
  local s
  for s in "${SERVICES[@]}"; do live_pid "$DIR" "$s" >/dev/null && die "$s already runs in $DIR"; done
  if [[ ! -s $DIR/ports.env ]]; then
    read -r FRONTEND_PORT FRONTEND_HTTP_PORT FRONTEND_MEMBERSHIP_PORT HISTORY_PORT HISTORY_MEMBERSHIP_PORT \
      MATCHING_PORT MATCHING_MEMBERSHIP_PORT WORKER_PORT WORKER_MEMBERSHIP_PORT <<<"${TEMPORAL_PORTS:-$(pick_ports 9)}"
    declare -p FRONTEND_PORT FRONTEND_HTTP_PORT FRONTEND_MEMBERSHIP_PORT HISTORY_PORT HISTORY_MEMBERSHIP_PORT \
      MATCHING_PORT MATCHING_MEMBERSHIP_PORT WORKER_PORT WORKER_MEMBERSHIP_PORT | sed 's/^declare -- //' > "$DIR/ports.env"
  fi
  # shellcheck disable=SC1091
  source "$DIR/ports.env"
  setup_schema temporal temporal
  setup_schema temporal_visibility visibility
  write_config
  # One at a time: each service initializes the cluster's metadata at its start, and four doing it at
  # once on fresh databases raced (a duplicate key, and one service exited).
  for s in "${SERVICES[@]}"; do
    launch_service "$s"
    wait_for_port "$s"
  done
  wait_for_frontend
  log "started (frontend 127.0.0.1:$FRONTEND_PORT, ${TEMPORAL_SHARDS:-4} history shards)"
  echo "127.0.0.1:$FRONTEND_PORT"
}

cmd_namespace() {
  [[ $# -ge 2 ]] || usage
  DIR=$(cd "$1" && pwd -P)
  # shellcheck disable=SC1091
  source "$DIR/ports.env"
  local address=127.0.0.1:$FRONTEND_PORT out
  out=$("${TEMPORAL_CLI:-temporal}" operator namespace create --address "$address" -n "$2" --retention "${3:-72h}" 2>&1) \
    || grep -qi "already" <<<"$out" || { echo "$out" >&2; die "cannot register namespace $2"; }
  # A frontend learns of a new namespace at its next namespace-cache refresh.
  local deadline=$((SECONDS + 60))
  until "${TEMPORAL_CLI:-temporal}" workflow list --address "$address" -n "$2" --limit 1 >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "namespace $2 not served within 60 s"
    sleep 0.5
  done
}

cmd_stop() {
  [[ $# -eq 1 ]] || usage
  [[ -d $1 ]] || return 0
  stop_group "$(cd "$1" && pwd -P)" 200 worker frontend matching history
}

cmd_kill() {
  [[ $# -eq 2 ]] || usage
  kill_one "$(cd "$1" && pwd -P)" "$2"
}

cmd_restart() {
  [[ $# -eq 2 ]] || usage
  DIR=$(cd "$1" && pwd -P)
  live_pid "$DIR" "$2" >/dev/null && { log "$2 is running"; return 0; }
  # shellcheck disable=SC1091
  source "$DIR/ports.env"
  launch_service "$2"
  log "restarted $2"
}

cmd_status() {
  [[ $# -eq 1 ]] || usage
  DIR=$(cd "$1" 2>/dev/null && pwd -P) || die "no such directory: $1"
  local s pid rc=0
  for s in "${SERVICES[@]}"; do
    if pid=$(live_pid "$DIR" "$s"); then echo "$s $pid"; else echo "$s down"; rc=1; fi
  done
  return $rc
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  start) shift; cmd_start "$@" ;;
  namespace) shift; cmd_namespace "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  kill) shift; cmd_kill "$@" ;;
  restart) shift; cmd_restart "$@" ;;
  status) shift; cmd_status "$@" ;;
  *) usage ;;
esac
