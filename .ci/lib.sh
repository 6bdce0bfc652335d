# Shell functions shared by the scripts of .ci; each sources it after cd-ing to the
# repository's root.

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

# field name line: the number after " name=" in a line of .ci/pair.lua's "PAIR ..." or
# .ci/mix.lua's "MIX ..." report.
field() { sed -E "s/.* $1=([0-9.]+).*/\\1/" <<<"$2"; }

# ms us: microseconds (as wrk reports them) in milliseconds, two decimals.
ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }

# pair_request token: exports the adjustment .ci/pair.lua sends (PAIR_BODY, PAIR_HEADERS),
# with the headers an SDK sends, token in the Authorization header.
pair_request() {
  export PAIR_BODY='{"gratuity_amount":"250"}'
  export PAIR_HEADERS="Authorization: Bearer $1
X-GP-Version: 2021-03-22
Content-Type: application/json"
}

# pair_wrk url conns: .ci/pair.lua's load on LOAD_CPU, WARMUP seconds unmeasured (when
# above 0), then DURATION seconds; prints wrk's "PAIR ..." line, nothing if wrk failed.
pair_wrk() {
  if ((WARMUP > 0)); then
    taskset -c "$LOAD_CPU" wrk -t1 -c"$2" -d"${WARMUP}s" -s .ci/pair.lua "$1" >/dev/null 2>&1 || true
  fi
  taskset -c "$LOAD_CPU" wrk -t1 -c"$2" -d"${DURATION}s" --timeout 10s -s .ci/pair.lua "$1" 2>&1 | grep '^PAIR ' || true
}

# token_body nonce: the default app's /accesstoken body, its secret SHA-512 of nonce and key.
token_body() {
  local secret
  secret=$(printf '%s' "${1}SandboxAppKey001" | sha512sum | cut -d' ' -f1)
  printf '{"app_id":"SandboxPartnerAppId0000000000001","nonce":"%s","secret":"%s","grant_type":"client_credentials"}' \
    "$1" "$secret"
}

# token_of: the token in the /accesstoken answer on stdin; nothing when it holds none.
token_of() { sed -n 's/.*"token":"\([^"]*\)".*/\1/p'; }

# access_token base nonce: a token from base/accesstoken for token_body; nothing if refused.
access_token() {
  curl -s "$1/accesstoken" -H 'Content-Type: application/json' -d "$(token_body "$2")" | token_of
}

# build_image image [version]: builds the checkout as image, version git describe's by default.
build_image() {
  DOCKER_BUILDKIT=0 docker build --network host -q \
    --build-arg GOPROXY="$(go env GOPROXY)" \
    --build-arg VERSION="${2:-$(git describe --always --dirty 2>/dev/null || echo dev)}" \
    -t "$1" . >/dev/null
}

# rss_kib pid [field]: the process's VmRSS (or field, VmHWM for the peak) in KiB.
rss_kib() { awk -v f="${2:-VmRSS}:" '$1 == f { print $2 }' "/proc/$1/status"; }

# mix_token base: exports what .ci/mix.lua authenticates with: MIX_TOKEN_BODY, the
# default app's /accesstoken body, and MIX_TOKEN, a token from base for it.
mix_token() {
  export MIX_TOKEN_BODY MIX_TOKEN
  MIX_TOKEN_BODY=$(token_body "mix-$$-$RANDOM")
  MIX_TOKEN=$(curl -s "$1/accesstoken" -H 'Content-Type: application/json' -d "$MIX_TOKEN_BODY" | token_of)
  [[ -n $MIX_TOKEN ]] || { echo "$(basename "$0"): no token from $1" >&2; return 1; }
}

# mix_requests n conns url [wrk args...]: .ci/mix.lua's load (MIX) until n answers,
# then wrk is interrupted, which prints its report; at most an hour.
mix_requests() {
  local n=$1 conns=$2 url=$3 done pid
  shift 3
  done=$(mktemp -u)
  MIX_REQUESTS=$n MIX_DONE_FILE=$done wrk -t1 -c"$conns" -d1h --timeout 10s -s .ci/mix.lua "$@" "$url" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null && [[ ! -e $done ]]; do sleep 0.2; done
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" || true
  rm -f "$done"
}

# notify_listener port file: starts a listener for status_url notifications on
# 127.0.0.1:port, answering 200 and adding a byte to file per notification (its size
# is the count), and prints its pid.
notify_listener() {
  python3 - "$1" "$2" >/dev/null 2>&1 <<'PY' &
import http.server, sys
port, path = int(sys.argv[1]), sys.argv[2]
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        with open(path, "a") as f:
            f.write(".")
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), Hook).serve_forever()
PY
  echo $!
}

# goroutines base admin_token: the goroutine count of a sandbox run with --pprof.
goroutines() {
  curl -s -H "Authorization: Bearer $2" "$1/_sandbox/debug/pprof/goroutine?debug=1" | awk 'NR == 1 { print $NF }'
}
