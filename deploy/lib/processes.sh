# Shell functions deploy/kube/control-plane.sh and deploy/temporal/cluster.sh share (sourced by both).

# live_pid DIR NAME: the pid in DIR/NAME.pid while that process runs and its command line names DIR.
live_pid() {
  local dir=$1 name=$2 pid
  [[ -s $dir/$name.pid ]] || return 1
  pid=$(<"$dir/$name.pid")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/" || return 1
  echo "$pid"
}

# running DIR NAME: the process this invocation launched as NAME (pid in DIR/NAME.pid) is still there.
# Not live_pid: just after the fork, before the exec, its command line is still the launching script's
# (which names DIR without the trailing slash), and a start took it for a process that had exited.
running() {
  local pid
  pid=$(<"$1/$2.pid") && [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null
}

# Free ports on 127.0.0.1, taken below the kernel's ephemeral range (where outgoing connections
# take their source ports) and held open together until all are chosen, so they are distinct.
# Another process could still take one before the component binds it: start then fails clearly.
pick_ports() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1]); held = []
lo = int(open('/proc/sys/net/ipv4/ip_local_port_range').read().split()[0])
hi = min(lo, 32768) - 1
while len(held) < n:
    p = random.randint(20000, hi)
    s = socket.socket()
    try:
        s.bind(('127.0.0.1', p)); held.append(s)
    except OSError:
        s.close()
print(' '.join(str(s.getsockname()[1]) for s in held))
PY
}

# stop_group DIR GRACE NAME...: SIGTERM to each NAME running in DIR at once, SIGKILL to those still up
# GRACE tenths of a second later; removes their pid files. The caller defines log.
stop_group() {
  local dir=$1 grace=$2 n pid w; shift 2
  local -A pids=()
  for n in "$@"; do
    if pid=$(live_pid "$dir" "$n"); then pids[$n]=$pid; kill -TERM "$pid" 2>/dev/null || true; fi
  done
  for ((w = 0; w < grace; w++)); do
    for n in "${!pids[@]}"; do kill -0 "${pids[$n]}" 2>/dev/null || { log "stopped $n (${pids[$n]})"; unset "pids[$n]"; }; done
    (( ${#pids[@]} )) || break
    sleep 0.1
  done
  for n in "${!pids[@]}"; do
    log "$n (${pids[$n]}) still up $((grace / 10)) s after SIGTERM; SIGKILL"
    kill -KILL "${pids[$n]}" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "${pids[$n]}" 2>/dev/null || break; sleep 0.1; done
  done
  for n in "$@"; do rm -f "$dir/$n.pid"; done
}

# kill_one DIR NAME: SIGKILL, as a crash (its state stays in DIR); waits up to 5 s for it to go.
kill_one() {
  local pid
  pid=$(live_pid "$1" "$2") || die "$2 is not running in $1"
  kill -KILL "$pid"
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  log "killed $2 ($pid)"
}
