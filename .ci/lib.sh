# Shell functions shared by the measurement scripts (.ci/pair, .ci/ceiling, .ci/tail,
# .ci/retained, .ci/soak, .ci/startup); each sources it after cd-ing to the repository's root.

# free_port prints a port of 127.0.0.1 that nothing listens on now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_healthy url pid [poll]: returns once url answers 2xx, asking every poll seconds
# (0.1 by default). It fails, saying so, when the server pid has exited or after 60 s,
# rather than measuring on (or waiting for) a server that is not there.
wait_healthy() {
  local url=$1 pid=$2 poll=${3:-0.1} deadline=$((SECONDS + 60))
  until curl -fsS "$url" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= deadline)); then
      echo "$(basename "$0"): $url never answered" >&2
      return 1
    fi
    sleep "$poll"
  done
}

# field name line: the number after " name=" in a line of .ci/pair.lua's "PAIR ..." report.
field() { sed -E "s/.* $1=([0-9.]+).*/\\1/" <<<"$2"; }

# ms us: microseconds (as wrk reports them) in milliseconds, two decimals.
ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
