#!/usr/bin/env bash
# The database's floor for a remember on PostgreSQL (issue 28, item 6: ≤ 0.6 ms of database CPU
# a remember). pgbench writes the rows a remember of one new entry writes, without the server and
# its reads, into the schema the real binary made (`powercontext serve` on a throwaway cluster),
# `--clients` connections each into its own memory, and reads the cluster's CPU from /proc before
# and after each run: database CPU per write, and writes a second.
#
#   bench/pg_floor/run.sh [--rounds 3] [--clients 16] [--seconds 10]
#                         [--variants "empty rows function"] [--binary build/powercontext]
#
# Variants (the .sql files beside this script), run in turn in each round:
#   empty     a transaction that writes nothing, with the same commit (pgbench, protocol, commit)
#   rows      the statements the server pipelines for a remember (rows.sql)
#   function  the same statements in one call of a PL/pgSQL function (setup.sql, function.sql)
# or any pgbench script given by its path (e.g. rows.sql without one statement, to price it).
# Tables grow from run to run (nothing is deleted), as a memory does: compare variants within a
# round. A variant that writes must add one entry a transaction, or the run fails. Exit 77 (a
# skipped test) without PostgreSQL. docs/benchmarks.md has the figures and what they say.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rounds=3 clients=16 seconds=10 variants="empty rows function" binary="$root/build/powercontext"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --variants) variants=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--clients N] [--seconds N] [--variants \"empty rows function\"] [--binary PATH]" >&2
       exit 2 ;;
  esac
done
script_of() { case "$1" in */*) echo "$1" ;; *) echo "$here/$1.sql" ;; esac; }  # a name here, or a path
for v in $variants; do
  [ -f "$(script_of "$v")" ] || { echo "pg_floor: no variant $v ($(script_of "$v"))" >&2; exit 2; }
done
[ -x "$binary" ] || { echo "pg_floor: no binary $binary (build it first)" >&2; exit 2; }
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] && [ -x "$bin/pgbench" ] || { echo "pg_floor: pgbench not found (apt-get install postgresql)" >&2; exit 77; }

work=$(mktemp -d -t pc-pg-floor-XXXXXX)
chmod 755 "$work"  # the cluster belongs to the postgres account when run as root (scripts/pg-cluster)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  "$root/scripts/pg-cluster" stop "$work/pg" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
url=$("$root/scripts/pg-cluster" start "$work/pg")

# The schema, made by the binary itself: serve until ready, then stop.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$binary" --data "$work/data" --store "$url" --listen "127.0.0.1:$port" serve >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 300); do
  curl -sf "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
kill "$server"; wait "$server" 2>/dev/null || true; server=""
psql -q -v ON_ERROR_STOP=1 "$url" -f "$here/setup.sql" >/dev/null

ticks() { "$root/scripts/pg-cluster" cpu "$work/pg"; }  # the cluster's CPU so far
hz=$(getconf CLK_TCK)

entries() { psql -Atq "$url" -c "SELECT count(*) FROM entries"; }

echo "| round | variant | writes/s | database CPU ms a write |"
echo "|---|---|---|---|"
run=0
for round in $(seq "$rounds"); do
  for v in $variants; do
    run=$((run + 1))
    had=$(entries)
    before=$(ticks)
    out=$("$bin/pgbench" -n -M prepared -D k=$((run * 1000000000)) -c "$clients" -j "$clients" -T "$seconds" -f "$(script_of "$v")" "$url" 2>&1) ||
      { echo "$out" >&2; exit 1; }
    sleep 1  # the WAL writer catches up; its CPU counts
    after=$(ticks)
    done_=$(echo "$out" | awk '/number of transactions actually processed/ {print $NF}' | cut -d/ -f1)
    tps=$(echo "$out" | awk '/^tps/ {printf "%.0f", $3}')
    added=$(($(entries) - had))
    if [ "$added" -ne 0 ] && [ "$added" -ne "$done_" ]; then
      echo "pg_floor: $v added $added entries in $done_ transactions" >&2
      exit 1
    fi
    [ "$v" = empty ] || [ "$added" -gt 0 ] || { echo "pg_floor: $v wrote no entry" >&2; exit 1; }
    echo "| $round | $v | $tps | $(python3 -c "print(f'{($after - $before) * 1000 / $hz / $done_:.3f}')") |"
  done
done
