#!/usr/bin/env python3
"""Retires a second through the real server: `--clients` keep-alive clients each remember
`--entries` / `--clients` statements into a scope of their own, then retire every one of them,
each citing its memory's head. With --pg the store is a throwaway PostgreSQL cluster
(scripts/pg-cluster) and the database's CPU per retire is read from /proc around the retires.

    bench/retire_bench.py --binary build/powercontext [--entries 2000] [--clients 4] [--pg]

Fails (exit 1) if a write is refused or a retired entry is still listed. docs/benchmarks.md has
the figures.
"""
import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORDS = "orders importer ledger invoice gateway export nightly backup schema retry budget quota".split()


def post(conn, path, body):
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status != 200:
        raise RuntimeError(f"{path}: {r.status} {data[:300]!r}")
    return json.loads(data)


def cluster_ticks(pg):
    """The cluster's CPU so far, in clock ticks (scripts/pg-cluster cpu)."""
    return int(subprocess.run([os.path.join(ROOT, "scripts", "pg-cluster"), "cpu", pg],
                              check=True, capture_output=True, text=True).stdout)


def run(args, store, pg, work):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    cmd = [args.binary, "--data", os.path.join(work, "data"), "--listen", f"127.0.0.1:{port}"]
    if store:
        cmd += ["--store", store]
    server = subprocess.Popen(cmd + ["serve"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health/ready")
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError("the server did not become ready")
        clients = args.clients
        cites = [[] for _ in range(clients)]
        heads = [0] * clients
        errors = []

        def each(work_of):
            threads = [threading.Thread(target=guarded, args=(work_of, i)) for i in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if errors:
                raise errors[0]

        def guarded(work_of, i):
            try:
                work_of(i)
            except Exception as e:  # reported by each()
                errors.append(e)

        def remember(i):
            conn = http.client.HTTPConnection("127.0.0.1", port)
            for k in range(i, args.entries, clients):
                text = (f"fact {k}: the {WORDS[k % 12]} uses {WORDS[(k * 7) % 12]} with "
                        f"{WORDS[(k * 5) % 12]}, number {k}")
                out = post(conn, "/v1/memory/remember",
                           {"scope_id": f"retire:s{i}", "kind": "fact", "text": text})
                cites[i].append(out["entry"]["citation"])
                heads[i] = out["memory"]["revision"]

        def retire(i):
            conn = http.client.HTTPConnection("127.0.0.1", port)
            for citation in cites[i]:
                citation["memory_ref"]["revision"] = heads[i]
                out = post(conn, "/v1/memory/entries/retire",
                           {"scope_id": f"retire:s{i}", "citation": citation, "reason": "done"})
                heads[i] = out["memory"]["revision"]

        each(remember)
        time.sleep(0.5)
        before = cluster_ticks(pg) if pg else 0
        started = time.monotonic()
        each(retire)
        seconds = time.monotonic() - started
        time.sleep(0.5)  # the WAL writer catches up; its CPU counts
        after = cluster_ticks(pg) if pg else 0
        conn = http.client.HTTPConnection("127.0.0.1", port)
        for i in range(clients):
            conn.request("GET", f"/v1/memory/entries?scope_id=retire:s{i}&limit=5")
            r = conn.getresponse()
            listed = json.loads(r.read())
            if r.status != 200 or listed.get("entries"):
                raise RuntimeError(f"scope retire:s{i} still lists entries: {listed}")
        line = {"store": "postgresql" if pg else "sqlite", "retires": args.entries,
                "clients": clients, "retire_per_s": round(args.entries / seconds)}
        if pg:
            line["db_cpu_ms_per_retire"] = round(
                (after - before) * 1000 / os.sysconf("SC_CLK_TCK") / args.entries, 3)
        print(json.dumps(line))
    finally:
        server.terminate()
        server.wait()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--binary", default=os.path.join(ROOT, "build", "powercontext"))
    p.add_argument("--entries", type=int, default=2000)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--pg", action="store_true", help="a throwaway PostgreSQL cluster as the store")
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="pc-retire-")
    os.chmod(work, 0o755)  # the cluster belongs to the postgres account when run as root
    pg = os.path.join(work, "pg")
    try:
        store = None
        if args.pg:
            store = subprocess.run([os.path.join(ROOT, "scripts", "pg-cluster"), "start", pg],
                                   check=True, capture_output=True, text=True).stdout.strip()
        run(args, store, pg if args.pg else None, work)
    except Exception as e:
        print(f"retire_bench: {e}", file=sys.stderr)
        return 1
    finally:
        if args.pg:
            subprocess.run([os.path.join(ROOT, "scripts", "pg-cluster"), "stop", pg],
                           capture_output=True)
        subprocess.run(["rm", "-rf", work])
    return 0


if __name__ == "__main__":
    sys.exit(main())
