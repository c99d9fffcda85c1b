#!/usr/bin/env bash
# Peers side by side: PowerContext against the mem0ai npm package (OSS Memory, infer: false, its
# SQLite vector store) and @modelcontextprotocol/server-memory, one run, same data, same machine,
# the same fake OpenAI-compatible embedding endpoint (build/bench/fake_openai_server, 384-d).
# Adds N items one at a time, then runs M searches; prints a markdown table and writes JSON.
#
#   bench/peers/run.sh [--items 1000] [--queries 100] [--out build/peers.json] [--systems LIST]
#
# Needs build/powercontext and build/bench/fake_openai_server (scripts/build), Node 20 and npm.
# Installs the pinned peers into build/peers-node once (skipped when present). Exits 77 when
# node/npm is missing or the install fails (offline), so a smoke test can skip.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

# Pinned versions of the peers (and of the MCP SDK client the driver uses).
MEM0AI_VERSION=3.3.1
SERVER_MEMORY_VERSION=2026.8.31
MCP_SDK_VERSION=1.32.2
# mem0ai's SQLite store needs better-sqlite3 (a peer dependency, ^12.6.2). v12 builds from
# source with node-gyp when its prebuilt binary (on GitHub) cannot be fetched; v13 fails on Node 20.
BETTER_SQLITE3_VERSION=12.11.1

skip() { echo "bench/peers: SKIP: $*" >&2; exit 77; }

command -v node >/dev/null 2>&1 || skip "node not found"
command -v npm >/dev/null 2>&1 || skip "npm not found"
for bin in build/powercontext build/bench/fake_openai_server; do
  [[ -x "$bin" ]] || { echo "bench/peers: $bin is missing; run scripts/build first" >&2; exit 1; }
done

peers="${PC_PEERS_NODE:-$root/build/peers-node}"   # where the peers are installed
installed() {
  [[ -f "$peers/node_modules/mem0ai/package.json" &&
     -f "$peers/node_modules/@modelcontextprotocol/server-memory/package.json" &&
     -f "$peers/node_modules/@modelcontextprotocol/sdk/package.json" ]] &&
    (cd "$peers" && node -e 'new (require("better-sqlite3"))(":memory:").close()' >/dev/null 2>&1)
}
if ! installed; then
  echo "bench/peers: installing pinned peers into $peers (first run; builds better-sqlite3)..." >&2
  mkdir -p "$peers"
  # allowScripts: npm 11 approves install scripts per package (better-sqlite3 builds its binding).
  [[ -f "$peers/package.json" ]] || echo '{"name": "peers-node", "private": true, "allowScripts": {"better-sqlite3": true}}' \
    >"$peers/package.json"
  # Prebuilt binaries come from GitHub; when that is unreachable, better-sqlite3 builds with
  # node-gyp, which needs the Node headers: use the local ones instead of downloading them.
  [[ -f /usr/include/node/node.h ]] && export npm_config_nodedir=/usr
  if ! (cd "$peers" && npm install --save-exact --no-audit --no-fund \
          "mem0ai@$MEM0AI_VERSION" "@modelcontextprotocol/server-memory@$SERVER_MEMORY_VERSION" \
          "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" "better-sqlite3@$BETTER_SQLITE3_VERSION" >&2) ||
     ! installed; then
    skip "npm install of the peers failed (offline?)"
  fi
fi

scratch="$(mktemp -d /var/tmp/pc-peers.XXXXXX)"
fake_pid=""
cleanup() {
  if [[ -n "$fake_pid" ]]; then
    exec 3>&- || true
    kill "$fake_pid" 2>/dev/null || true
    wait "$fake_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# The fake embedding endpoint serves until its standard input closes: keep a pipe open on fd 3.
mkfifo "$scratch/fake.in"
build/bench/fake_openai_server --dimension 384 <"$scratch/fake.in" >"$scratch/fake.out" 2>"$scratch/fake.err" &
fake_pid=$!
exec 3>"$scratch/fake.in"
fake_url=""
for _ in $(seq 1 100); do
  fake_url="$(head -n 1 "$scratch/fake.out" 2>/dev/null || true)"
  [[ -n "$fake_url" ]] && break
  sleep 0.05
done
[[ -n "$fake_url" ]] || { echo "bench/peers: fake_openai_server did not start" >&2; cat "$scratch/fake.err" >&2; exit 1; }

MEM0_TELEMETRY=false node bench/peers/peers.mjs --fake-url "$fake_url" --scratch "$scratch" \
  --node-modules "$peers/node_modules" --powercontext "$root/build/powercontext" \
  --data "$root/../shared/data" "$@"
