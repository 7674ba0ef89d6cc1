#!/usr/bin/env bash
# Prometheus's own lint on a running service's /metrics: the built service (node dist/server/main.js) against the
# mongod emulator, a few requests so every series is exposed, then `promtool check metrics` on the scrape.
# Needs promtool on PATH (Debian's prometheus package) and a build (npm run build).
set -euo pipefail
cd "$(dirname "$0")/.."

free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
wait_for() { for _ in $(seq 1 100); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "no answer from $1" >&2; return 1; }

mongo_port=$(free_port)
api_port=$(free_port)
metrics_port=$(free_port)
token=promtool-check-token
pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait' EXIT

tools/mongod-emulator/bin/mongod --port "$mongo_port" >/dev/null &
pids+=($!)
MONGODB_URI="mongodb://127.0.0.1:$mongo_port/plantstore" API_TOKENS=$token HOST=127.0.0.1 PORT=$api_port \
  METRICS_PORT=$metrics_port LOG_LEVEL=warn node dist/server/main.js &
pids+=($!)
wait_for "http://127.0.0.1:$api_port/readyz"

api=(-fsS -o /dev/null -H "Authorization: Bearer $token")
curl "${api[@]}" -H 'Content-Type: application/json' -d '{"id": 42, "name": "Monstera"}' "http://127.0.0.1:$api_port/plants"
curl "${api[@]}" "http://127.0.0.1:$api_port/plants/42"
curl "${api[@]}" "http://127.0.0.1:$api_port/trpc/listPlants?input=%7B%7D"

mkdir -p test-artifacts
curl -fsS "http://127.0.0.1:$metrics_port/metrics" > test-artifacts/metrics.txt
promtool check metrics < test-artifacts/metrics.txt
echo "promtool check metrics: $(grep -c '^# TYPE' test-artifacts/metrics.txt) metric families, no problem"
