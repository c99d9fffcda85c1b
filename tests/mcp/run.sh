#!/usr/bin/env bash
# MCP through the official client: the SDK test (stdio and streamable HTTP) and the conformance
# scenarios server-initialize, ping, tools-list, dns-rebinding-protection against a real server.
#   tests/mcp/run.sh POWERCONTEXT_BIN NODE_DIR
# Exits 77 (skipped) when the npm packages are not installed (scripts/install-mcp-client).
set -euo pipefail
bin=$1
node_dir=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null || [ ! -d "$node_dir/node_modules/@modelcontextprotocol/sdk" ]; then
  echo "skipped: node or the MCP SDK is missing (run scripts/install-mcp-client)"
  exit 77
fi
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin" serve --data "$work/served" --listen "127.0.0.1:$port" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null && break
  sleep 0.1
done
node "$here/sdk_client.mjs" "$node_dir/node_modules" "$bin" "$work/stdio" "http://127.0.0.1:$port"
for scenario in server-initialize ping tools-list dns-rebinding-protection; do
  out=$(node "$node_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
        --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" 2>&1) || true
  echo "$out" | tail -2
  grep -q " 0 failed" <<<"$out" || { echo "conformance $scenario failed:"; echo "$out"; exit 1; }
done
