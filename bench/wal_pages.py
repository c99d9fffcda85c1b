#!/usr/bin/env python3
"""Which B-trees a remember writes: the pages of SQLite's write-ahead log, by table and index.

    python3 bench/wal_pages.py [--binary build/powercontext] [--fill 2000] [--clients 16]
                               [--each 12]

Starts the real server on a fresh data directory, fills one scope with --fill remembers (common
words), and restarts it (a clean close checkpoints, so the log starts empty). Then --clients
keep-alive clients send --each remembers at once, and the server is killed (SIGKILL), which leaves
the log as it is. Each frame of the log is one page written by a commit; the frames of the current
log generation are read from its header, and each page is named by SQLite's `dbstat` table over a
copy of the database with the log applied. Prints the frames per commit, per remember, and which
table or index each page belongs to (leaf or interior). Standard library only.
"""
import argparse
import collections
import http.client
import json
import os
import random
import shutil
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time

WORDS = ("importer orders cents schema migration csv rows decimal validator client deploy release "
         "config cache queue worker retry token budget latency index shard replica backup restore "
         "audit metric alert trace span").split()


def statement(rnd):
    return " ".join(rnd.choice(WORDS) for _ in range(10)) + " " + str(rnd.randrange(10**9))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(binary, data, port):
    p = subprocess.Popen([binary, "serve", "--data", data, "--listen", f"127.0.0.1:{port}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/health/ready")
            if c.getresponse().status == 200:
                return p
        except OSError:
            pass
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    sys.exit("wal_pages: the server did not become ready")


def remember(conn, text):
    conn.request("POST", "/v1/memory/remember",
                 json.dumps({"scope_id": "project:walpages", "kind": "fact", "text": text}),
                 {"content-type": "application/json"})
    res = conn.getresponse()
    body = res.read()
    if res.status != 200:
        raise RuntimeError(f"remember answered {res.status}: {body[:200]!r}")


def read_log(path):
    """The (page number, commit size) of each frame of the log's current generation."""
    data = open(path, "rb").read()
    if len(data) < 32:
        return []
    _, _, page_size, _, salt1, salt2, _, _ = struct.unpack(">8I", data[:32])
    frames, off = [], 32
    while off + 24 + page_size <= len(data):
        page, commit, s1, s2, _, _ = struct.unpack(">6I", data[off:off + 24])
        if (s1, s2) != (salt1, salt2):
            break  # an older generation's frame, overwritten only in part
        frames.append((page, commit))
        off += 24 + page_size
    return frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="build/powercontext")
    ap.add_argument("--fill", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--each", type=int, default=12)
    a = ap.parse_args()
    if a.fill < 0 or a.clients < 1 or a.each < 1:
        sys.exit("wal_pages: --fill must be >= 0, --clients and --each >= 1")
    if not os.access(a.binary, os.X_OK):
        sys.exit(f"wal_pages: no server binary at {a.binary}")
    work = tempfile.mkdtemp(prefix="pc-walpages-")
    try:
        data = os.path.join(work, "data")
        rnd = random.Random(7)
        port = free_port()
        p = serve(a.binary, data, port)
        conn = http.client.HTTPConnection("127.0.0.1", port)
        for _ in range(a.fill):
            remember(conn, statement(rnd))
        p.terminate()
        p.wait()

        p = serve(a.binary, data, port)
        texts = [[statement(rnd) for _ in range(a.each)] for _ in range(a.clients)]
        errors = []

        def client(mine):
            try:
                c = http.client.HTTPConnection("127.0.0.1", port)
                for t in mine:
                    remember(c, t)
            except Exception as e:  # reported below; the count of remembers would be wrong
                errors.append(e)

        threads = [threading.Thread(target=client, args=(t,)) for t in texts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(0.2)  # let the last group's sync finish
        p.kill()
        p.wait()
        if errors:
            sys.exit(f"wal_pages: {errors[0]}")

        db_path = os.path.join(data, "powercontext.db")
        copy = os.path.join(work, "copy.db")
        shutil.copy(db_path, copy)
        shutil.copy(db_path + "-wal", copy + "-wal")
        frames = read_log(copy + "-wal")
        db = sqlite3.connect(copy)
        owner = {page: (name, kind)
                 for name, page, kind in db.execute("SELECT name, pageno, pagetype FROM dbstat")}
        commits, current = [], []
        for page, commit in frames:
            current.append(page)
            if commit:
                commits.append(current)
                current = []
        writes = a.clients * a.each
        if not commits:
            sys.exit("wal_pages: the log holds no commit (was it checkpointed?)")
        sizes = sorted(len(c) for c in commits)
        print(f"{len(frames)} pages in {len(commits)} commits for {writes} remembers "
              f"(and any upkeep): {len(frames) / writes:.1f} pages a remember, "
              f"{sizes[len(sizes) // 2]} a commit (median; {sizes[0]}-{sizes[-1]})")
        tally = collections.Counter(owner.get(p, ("(new or free page)", "")) for c in commits
                                    for p in c)
        total = sum(tally.values())
        print("| table or index | page | pages | share | per remember |")
        print("|---|---|---|---|---|")
        for (name, kind), n in tally.most_common():
            print(f"| {name} | {kind} | {n} | {100 * n / total:.1f}% | {n / writes:.2f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
