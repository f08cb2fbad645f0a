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
