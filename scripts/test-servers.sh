#!/usr/bin/env bash
# Real servers for the integration tests, built from the Go module proxy and cached outside
# the repository by version:
#
#   MinIO    (S3 API)        -> the blob store contract suite (S3_* variables)
#   FerretDB v1, SQLite      -> the read store contract suite (MONGO_URL)
#
# usage: scripts/test-servers.sh build   build missing binaries into the cache
#        scripts/test-servers.sh start   build if needed, start both on free loopback ports
#        scripts/test-servers.sh env     print `export ...` lines for the running servers
#        scripts/test-servers.sh status  show what runs
#        scripts/test-servers.sh stop    stop them and delete their data
#
# Typical use (what .ci/run does):
#   scripts/test-servers.sh start && eval "$(scripts/test-servers.sh env)" && npm test
#   scripts/test-servers.sh stop
#
# Variables: GENSVC_TEST_SERVERS_CACHE (default ~/.cache/gensvc-test-servers),
# GENSVC_TEST_SERVERS_DIR (runtime state, default <repo>/.test-servers), GO (default go).
set -euo pipefail

# Pinned versions. MinIO publishes no semver tags, so the pin is the module proxy's
# pseudo-version of a commit on its master branch (the proxy here refuses RELEASE.* queries).
MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
FERRETDB_MODULE=github.com/FerretDB/FerretDB
FERRETDB_VERSION=v1.24.2

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${GENSVC_TEST_SERVERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gensvc-test-servers}"
STATE="${GENSVC_TEST_SERVERS_DIR:-$ROOT/.test-servers}"
GO="${GO:-go}"

MINIO_BIN="$CACHE/minio-$MINIO_VERSION/minio"
FERRETDB_BIN="$CACHE/ferretdb-$FERRETDB_VERSION/ferretdb"

# Credentials of the throwaway test MinIO (loopback only, data deleted on stop).
S3_ACCESS_KEY=gensvc-test
S3_SECRET_KEY=gensvc-test-secret
S3_BUCKET=gensvc-test

log() { echo "test-servers: $*" >&2; }

# Builds main package `$2` of module $1 at version $3 into file $4. The module's source comes
# from the Go module proxy (`go mod download`) and is built as the main module, with its own
# go.sum. FerretDB reads its version from build/version/version.txt, which release builds
# generate and the module zip lacks (without it the binary panics at start), so it is
# written from the pinned version. The binary is moved into place only when complete, so an
# interrupted build never leaves a broken cache entry.
go_build() {
  local module="$1" pkg="$2" version="$3" out="$4"
  local dir work start
  dir="$(dirname "$out")"
  mkdir -p "$dir"
  work="$(mktemp -d "$dir/.build.XXXXXX")"
  start=$(date +%s)
  log "building $pkg@$version (takes a few minutes the first time)"
  (
    set -euo pipefail
    cd "$work"
    export GOFLAGS="${GOFLAGS:-} -mod=mod" CGO_ENABLED=0 GOTOOLCHAIN=local
    src="$("$GO" mod download -json "$module@$version" | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0,"utf8")).Dir)')"
    cp -R "$src" "$work/src"
    chmod -R u+w "$work/src"
    if [ "$module" = "$FERRETDB_MODULE" ]; then echo "$version" > "$work/src/build/version/version.txt"; fi
    cd "$work/src"
    "$GO" build -trimpath -o "$work/bin" "./${pkg#"$module"}"
    "$work/bin" --version
  ) > "$dir/build.log" 2>&1 || {
    log "build of $pkg@$version FAILED; last lines of $dir/build.log:"
    tail -n 30 "$dir/build.log" >&2
    rm -rf "$work"
    return 1
  }
  mv "$work/bin" "$out"
  rm -rf "$work"
  log "built $out in $(( $(date +%s) - start ))s"
}

build() {
  local failed=0
  [ -x "$MINIO_BIN" ] || go_build "$MINIO_MODULE" "$MINIO_MODULE" "$MINIO_VERSION" "$MINIO_BIN" || failed=1
  [ -x "$FERRETDB_BIN" ] || go_build "$FERRETDB_MODULE" "$FERRETDB_MODULE/cmd/ferretdb" "$FERRETDB_VERSION" "$FERRETDB_BIN" || failed=1
  return $failed
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

# Waits until a TCP port accepts connections (or the process died).
wait_port() {
  local name="$1" port="$2" pid="$3" log="$4" i
  for i in $(seq 1 300); do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "$name exited during start; last lines of $log:"
      tail -n 30 "$log" >&2
      return 1
    fi
    if node -e "const c=require('net').connect($port,'127.0.0.1');c.on('connect',()=>process.exit(0));c.on('error',()=>process.exit(1))"; then
      return 0
    fi
    sleep 0.2
  done
  log "$name did not listen on 127.0.0.1:$port within 60s; see $log"
  return 1
}

running() {
  [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null
}

start_minio() {
  local port console
  port=$(free_port)
  console=$(free_port)
  mkdir -p "$STATE/minio-data"
  MINIO_ROOT_USER="$S3_ACCESS_KEY" MINIO_ROOT_PASSWORD="$S3_SECRET_KEY" MINIO_BROWSER=off \
    MINIO_UPDATE=off MINIO_CI_CD=1 \
    nohup "$MINIO_BIN" server --quiet --address "127.0.0.1:$port" --console-address "127.0.0.1:$console" \
    "$STATE/minio-data" > "$STATE/minio.log" 2>&1 &
  echo $! > "$STATE/minio.pid"
  wait_port minio "$port" "$!" "$STATE/minio.log"
  # MinIO answers on the port a moment before it serves requests.
  for _ in $(seq 1 100); do
    node -e "fetch('http://127.0.0.1:$port/minio/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" && break
    sleep 0.2
  done
  {
    echo "export S3_ENDPOINT=http://127.0.0.1:$port"
    echo "export S3_ACCESS_KEY=$S3_ACCESS_KEY"
    echo "export S3_SECRET_KEY=$S3_SECRET_KEY"
    echo "export S3_BUCKET=$S3_BUCKET"
    echo "export S3_REGION=us-east-1"
  } > "$STATE/minio.env"
  log "MinIO $MINIO_VERSION on 127.0.0.1:$port"
}

start_ferretdb() {
  local port
  port=$(free_port)
  mkdir -p "$STATE/ferretdb-data"
  nohup "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$STATE/ferretdb-data/" \
    --listen-addr="127.0.0.1:$port" --state-dir="$STATE/ferretdb-data" \
    --debug-addr=- --telemetry=disable --log-level=warn \
    > "$STATE/ferretdb.log" 2>&1 &
  echo $! > "$STATE/ferretdb.pid"
  wait_port ferretdb "$port" "$!" "$STATE/ferretdb.log"
  echo "export MONGO_URL=mongodb://127.0.0.1:$port/" > "$STATE/ferretdb.env"
  log "FerretDB $FERRETDB_VERSION (SQLite backend) on 127.0.0.1:$port"
}

start() {
  build || { log "cannot start: a build failed (see above)"; return 1; }
  mkdir -p "$STATE"
  running minio || start_minio
  running ferretdb || start_ferretdb
}

stop_one() {
  local name="$1" pid i
  if [ -f "$STATE/$name.pid" ]; then
    pid="$(cat "$STATE/$name.pid")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      log "stopped $name"
    fi
    rm -f "$STATE/$name.pid" "$STATE/$name.env"
  fi
  rm -rf "${STATE:?}/$name-data"
}

stop() {
  stop_one minio
  stop_one ferretdb
}

env_out() {
  local name
  for name in minio ferretdb; do
    if running "$name" && [ -f "$STATE/$name.env" ]; then cat "$STATE/$name.env"; fi
  done
}

status() {
  local name
  for name in minio ferretdb; do
    if running "$name"; then echo "$name: running (pid $(cat "$STATE/$name.pid"))"; else echo "$name: stopped"; fi
  done
  echo "minio binary:    $MINIO_BIN $([ -x "$MINIO_BIN" ] && echo '(built)' || echo '(missing)')"
  echo "ferretdb binary: $FERRETDB_BIN $([ -x "$FERRETDB_BIN" ] && echo '(built)' || echo '(missing)')"
}

case "${1:-}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  env) env_out ;;
  status) status ;;
  *) echo "usage: $0 build|start|stop|env|status" >&2; exit 2 ;;
esac
