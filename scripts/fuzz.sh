#!/usr/bin/env bash
# Schemathesis against a live server: builds (unless SKIP_BUILD=1), starts the API on a free
# loopback port with a fresh DATA_DIR, makes an account with credit and an API key through the
# admin CLI, then fuzzes the served /v1/openapi.json with every check, within FUZZ_MAX_TIME
# seconds (default 170). Exits non-zero on any failure, on any Schemathesis error and on any
# error the server logs. Schemathesis (pinned) lives in .venv-tools, created on first use from
# PyPI. One worker by default (FUZZ_WORKERS): more have hit an internal error of Schemathesis
# on Python 3.11. FUZZ_SEED replays a run's generation (each run prints its seed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SCHEMATHESIS_VERSION=4.32.5
venv=.venv-tools
if [ ! -x "$venv/bin/schemathesis" ] || [ "$("$venv/bin/schemathesis" --version 2>/dev/null | awk '{print $NF}')" != "$SCHEMATHESIS_VERSION" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

if [ "${SKIP_BUILD:-}" != 1 ]; then npm run --silent build >&2; fi

data_dir=$(mktemp -d "${TMPDIR:-/tmp}/gensvc-fuzz-XXXXXX")
port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
export DATA_DIR="$data_dir" PORT="$port" HOST=127.0.0.1 LOG_LEVEL=warn RATE_LIMITS=off LOCAL_SUPPLIER_DELAY_MS=200
unset EVENTSTORE_URL MONGO_URL S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET
node dist/apps/api/src/main.js 2> "$data_dir/server.log" &
server_pid=$!
cleanup() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  rm -rf "$data_dir"
}
trap cleanup EXIT

base="http://127.0.0.1:$port"
for _ in $(seq 1 120); do
  if curl -fsS "$base/health/live" > /dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$data_dir/server.log" >&2; echo "the server did not start" >&2; exit 1; fi
  sleep 0.5
done

api_key=$(npm run --silent admin -- account create --name fuzz --credit 100000.00 | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).api_key))")

status=0
"$venv/bin/schemathesis" run "$base/v1/openapi.json" \
  --checks all \
  --header "Authorization: Bearer $api_key" \
  --max-time "${FUZZ_MAX_TIME:-170}" \
  --workers "${FUZZ_WORKERS:-1}" \
  --request-timeout 20 \
  --suppress-health-check too_slow,filter_too_much \
  --seed "${FUZZ_SEED:-$RANDOM}" \
  "$@" || status=$?
if grep -q '"level":\(50\|60\)' "$data_dir/server.log"; then
  echo "the server logged errors while fuzzed:" >&2
  grep '"level":\(50\|60\)' "$data_dir/server.log" | head -20 >&2
  status=1
fi
exit $status
