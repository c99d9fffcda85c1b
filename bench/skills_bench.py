#!/usr/bin/env python3
"""What the external Skill registry costs (docs/skills.md): a real `powercontext serve` with one
user root of N packages (a SKILL.md of ~4 KB and a script each), timed over HTTP on loopback:
scan, list (every package re-read and fingerprinted) and resolve (one package). Medians.

    python3 bench/skills_bench.py [--binary build/powercontext] [--packages 200] [--rounds 7]
"""
import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/powercontext")
    ap.add_argument("--packages", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pc-skills-bench-")
    root = os.path.join(work, "skills")
    body = "Step. " * 700
    for i in range(args.packages):
        d = os.path.join(root, f"skill-{i:04d}")
        os.makedirs(os.path.join(d, "scripts"))
        with open(os.path.join(d, "SKILL.md"), "w") as f:
            f.write(f"---\nname: skill-{i:04d}\ndescription: Skill number {i}.\n---\n{body}\n")
        with open(os.path.join(d, "scripts", "run.sh"), "w") as f:
            f.write("echo run\n" * 50)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("POWERCONTEXT_")}
    env.update(POWERCONTEXT_DATA=os.path.join(work, "data"), POWERCONTEXT_LISTEN=f"127.0.0.1:{port}",
               POWERCONTEXT_EXTERNAL_SKILL_ROOTS=f"user={root}", POWERCONTEXT_ACCESS_LOG="off")
    server = subprocess.Popen([args.binary, "serve"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)

    def call(path, request):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        start = time.perf_counter()
        conn.request("POST", path, json.dumps(request), {"Content-Type": "application/json"})
        reply = conn.getresponse()
        data = reply.read()
        elapsed = (time.perf_counter() - start) * 1000
        conn.close()
        if reply.status != 200:
            raise SystemExit(f"{path}: HTTP {reply.status}: {data[:300]!r}")
        return json.loads(data), elapsed

    try:
        for _ in range(200):
            try:
                call("/v1/external-skills/list", {"scope_id": "project:bench"})
                break
            except OSError:
                time.sleep(0.05)
        scope = {"scope_id": "project:bench"}
        scan = [call("/v1/external-skills/scan", scope)[1] for _ in range(args.rounds)]
        listed, _ = call("/v1/external-skills/list", scope)
        assert len(listed["skills"]) == args.packages, len(listed["skills"])
        lists = [call("/v1/external-skills/list", scope)[1] for _ in range(args.rounds)]
        reg = listed["skills"][0]["registration"]
        exact = dict(scope, external_skill_id=reg["external_skill_id"], fingerprint=reg["fingerprint"])
        resolves = [call("/v1/external-skills/resolve", exact)[1] for _ in range(args.rounds * 3)]
        print(f"{args.packages} packages: scan {statistics.median(scan):.2f} ms, "
              f"list {statistics.median(lists):.2f} ms, resolve {statistics.median(resolves):.2f} ms "
              f"(medians of {args.rounds}, {args.rounds}, {args.rounds * 3})")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
