#!/usr/bin/env bash
# The web console in headless Chromium (tests/console/console_test.mjs) against a real server.
#   tests/console/run.sh POWERCONTEXT_BIN NODE_DIR [SCREENSHOT_DIR]
# Exits 77 (skipped) when node, puppeteer-core (scripts/install-console-test) or chromium is missing.
set -euo pipefail
bin=$1
node_dir=$2
shots=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v node >/dev/null || [ ! -d "$node_dir/node_modules/puppeteer-core" ] || ! command -v chromium >/dev/null; then
  echo "skipped: node, puppeteer-core or chromium is missing (run scripts/install-console-test)"
  exit 77
fi
work=$(mktemp -d)
# The model: the fake OpenAI-compatible server of the contract tests (extraction, the daily review).
python3 -u -c '
import sys, time
sys.path.insert(0, sys.argv[1])
from fake_openai import FakeOpenAI
fake = FakeOpenAI()
print(fake.base_url, flush=True)
time.sleep(10**6)
' "$here/../contract" > "$work/model.url" 2>/dev/null &
model=$!
for _ in $(seq 50); do [ -s "$work/model.url" ] && break; sleep 0.1; done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
token="console-test-admin-token-0123456789abcdef"
# One external Skill package under a user root (the Skills page; docs/skills.md).
mkdir -p "$work/skills/friendly-python"
printf -- '---\nname: friendly-python\ndescription: Tidy a Python change before review.\n---\nRun ruff, then the tests.\n' \
  > "$work/skills/friendly-python/SKILL.md"
POWERCONTEXT_SERVER_AUTH_TOKEN=$token "$bin" serve --data "$work/data" --listen "127.0.0.1:$port" \
  --embed-provider hash --extract-provider openai --extract-base-url "$(head -1 "$work/model.url")" \
  --extract-model fake-model --external-skill-roots "user=$work/skills" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server $model 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/health/live" >/dev/null && break
  sleep 0.1
done
HOME=$work SKILLS_ROOT=$work/skills node "$here/console_test.mjs" "$node_dir/node_modules" "http://127.0.0.1:$port" "$token" $shots || {
  echo "--- server log"; tail -20 "$work/server.log"; exit 1; }
