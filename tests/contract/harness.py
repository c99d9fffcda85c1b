"""Server processes, a client that validates every exchange against the spec, coverage, steps."""

import http.client
import json
import re
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
import traceback
import urllib.parse

from openapi_contract import describe_errors

VERBOSE = os.environ.get("PC_CONTRACT_VERBOSE") == "1"


class ContractFailure(AssertionError):
    """The server broke the contract (a wrong status, a body the spec refuses, a wrong value)."""


class Blocked(Exception):
    """A step could not run because an earlier step, which it needs, failed."""


class TestBug(Exception):
    """The test itself is wrong (e.g. it was about to send a spec-invalid request by accident)."""


def check(condition, message):
    if not condition:
        raise ContractFailure(message)


def check_eq(actual, expected, what):
    if actual != expected:
        raise ContractFailure(f"{what}: expected {_short(expected)}, got {_short(actual)}")


def _short(value, limit=400):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} chars)"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------------------------------
# Coverage: operation -> statuses seen, and whether it ever answered a success that passed.


class Coverage:
    def __init__(self, operation_ids):
        self.required = list(operation_ids)
        self.seen = {op: {} for op in operation_ids}  # op -> {status: count}
        self.passed_success = {op: 0 for op in operation_ids}
        self.first_problem = {}  # op -> first failure message

    def record(self, op_id, status):
        self.seen.setdefault(op_id, {})
        self.seen[op_id][status] = self.seen[op_id].get(status, 0) + 1

    def record_success(self, op_id):
        self.passed_success[op_id] = self.passed_success.get(op_id, 0) + 1

    def record_problem(self, op_id, message):
        self.first_problem.setdefault(op_id, message)

    def table(self):
        rows = [("operation", "statuses seen (count)", "passing success")]
        for op in self.required:
            statuses = ", ".join(f"{s}×{n}" for s, n in sorted(self.seen.get(op, {}).items())) or "never called"
            rows.append((op, statuses, "yes" if self.passed_success.get(op) else "NO"))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(r)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines)

    def missing(self):
        return [op for op in self.required if not self.passed_success.get(op)]


# --------------------------------------------------------------------------------------------------
# The server under test.


def postgres_base():
    """The test cluster's URL when the suite runs against PostgreSQL (POWERCONTEXT_TEST_STORE=
    postgresql, as ctest's pg:api_contract sets it; scripts/with-pg gives POWERCONTEXT_TEST_PG),
    else None (SQLite in each server's data directory)."""
    if os.environ.get("POWERCONTEXT_TEST_STORE") != "postgresql":
        return None
    return os.environ.get("POWERCONTEXT_TEST_PG") or None


class PgSchema:
    """A fresh schema on the test cluster for one server, dropped by drop(); its URL carries the
    search_path, as tests/test_util's TempPgSchema does for the C++ suites."""

    def __init__(self, base, label):
        self.base = base
        self.name = f"contract_{label.lower()}_{os.getpid()}_{random.randrange(1 << 30)}"
        self._psql(f"CREATE SCHEMA {self.name}")
        self.url = base + ("&" if "?" in base else "?") + "options=-csearch_path%3D" + self.name

    def _psql(self, sql):
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", self.base, "-c", sql], check=True,
                       stdout=subprocess.DEVNULL)

    def drop(self):
        self._psql(f"DROP SCHEMA IF EXISTS {self.name} CASCADE")


class Server:
    def __init__(self, binary, name, env):
        self.binary = binary
        self.name = name
        self.extra_env = env
        self.proc = None
        self.port = None
        self.data_dir = None
        self.log_path = None
        self.log_file = None
        self.pg = None  # its schema, when the suite runs against PostgreSQL

    def start(self, timeout=30.0):
        self.data_dir = tempfile.mkdtemp(prefix=f"pc-contract-{self.name}-")
        base = postgres_base()
        if base and self.pg is None:
            self.pg = PgSchema(base, self.name)
        self.log_path = os.path.join(self.data_dir, "server.log")
        for attempt in range(3):
            self.port = free_port()
            env = {k: v for k, v in os.environ.items() if not k.startswith("POWERCONTEXT_")}
            env.update({
                "POWERCONTEXT_DATA": os.path.join(self.data_dir, "data"),
                "POWERCONTEXT_LISTEN": f"127.0.0.1:{self.port}",
                "POWERCONTEXT_DURABILITY": "normal",
            })
            env.update(self.extra_env)
            if self.pg is not None:
                env["POWERCONTEXT_STORE"] = self.pg.url
            self.log_file = open(self.log_path, "ab")
            self.proc = subprocess.Popen([self.binary, "serve"], env=env, stdin=subprocess.DEVNULL,
                                         stdout=self.log_file, stderr=subprocess.STDOUT)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                    conn.request("GET", "/health/live")
                    conn.getresponse().read()
                    conn.close()
                    return  # it answers HTTP; whether /health/live is right is a step of its own
                except OSError:
                    time.sleep(0.05)
            if self.proc.poll() is None:
                self.stop()
                raise RuntimeError(f"server {self.name} did not answer HTTP within {timeout:.0f} s; "
                                   f"log:\n{self.log_tail()}")
            self.log_file.close()
            log = self.log_tail()
            if "address" in log.lower() and "use" in log.lower() and attempt < 2:
                continue  # the free port was taken in between: try another
            raise RuntimeError(f"server {self.name} exited with {self.proc.returncode} at start-up; "
                               f"log:\n{log}")

    def log_tail(self, lines=30):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self):
        """SIGTERM, then SIGKILL after 10 s; the exit status (None if it had to be killed)."""
        status = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                status = self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        elif self.proc is not None:
            status = self.proc.returncode
        if self.log_file is not None and not self.log_file.closed:
            self.log_file.close()
        return status

    def cleanup(self):
        if self.data_dir and os.environ.get("PC_CONTRACT_KEEP") != "1":
            shutil.rmtree(self.data_dir, ignore_errors=True)
        if self.pg is not None and os.environ.get("PC_CONTRACT_KEEP") != "1":
            self.pg.drop()
            self.pg = None


# --------------------------------------------------------------------------------------------------
# The validating client.


class Reply:
    def __init__(self, status, headers, raw):
        self.status = status
        self.headers = headers  # lower-cased names
        self.raw = raw
        self.text = raw.decode("utf-8", errors="replace")
        try:
            self.json = json.loads(self.text) if raw else None
            self.is_json = bool(raw)
        except ValueError:
            self.json = None
            self.is_json = False

    def __getitem__(self, key):
        if not isinstance(self.json, dict) or key not in self.json:
            raise ContractFailure(f"the answer has no field {key!r}: {_short(self.text)}")
        return self.json[key]

    def get(self, key, default=None):
        return self.json.get(key, default) if isinstance(self.json, dict) else default


NO_BODY = object()


class Client:
    """One server's client. `call` validates both sides of every exchange against the spec."""

    def __init__(self, server, contract, coverage, notes, token=None):
        self.server = server
        self.contract = contract
        self.coverage = coverage
        self.notes = notes  # set of non-fatal observations, reported at the end
        self.token = token  # sent as `Authorization: Bearer …` when set

    def call(self, method, path, body=NO_BODY, *, expect, code=None, query=None, bad=None, raw=None):
        """Send one request and check the answer.

        bad=None        the request must be valid per the spec (else the test is wrong: TestBug);
        bad="schema"    a deliberate bad request that the spec's request schema refuses (checked);
        bad="semantic"  valid per the schema, refused by a documented rule (e.g. a scp_ scope id);
        raw=bytes       send these bytes as the body (malformed JSON); implies a deliberate bad request.
        The answer's status must be documented for the operation, its body must validate against the
        schema of that status, and it must be `expect` (or one of a tuple of statuses), with the error
        code `code` when it is an error and `code` is given.
        """
        op = self.contract.operation(method, path)
        label = f"{method} {path} ({op.operation_id})"
        expected = expect if isinstance(expect, tuple) else (expect,)
        for e in expected:
            if str(e) not in op.responses:
                raise TestBug(f"{label}: the test expects {e}, which the spec does not document")
        if raw is None and body is not NO_BODY and op.request_schema is not None:
            problems = describe_errors(op.request_schema, body)
            if bad is None and problems:
                raise TestBug(f"{label}: the test was about to send a spec-invalid request: {problems}")
            if bad == "schema" and not problems:
                raise TestBug(f"{label}: this deliberate bad request is valid per the spec: {_short(body)}")
            if bad == "semantic" and problems:
                raise TestBug(f"{label}: this request should be schema-valid: {problems}")
        if query is not None:
            problems = op.query_errors(query)
            if bad is None and problems:
                raise TestBug(f"{label}: spec-invalid query {query}: {problems}")
            if bad == "schema" and not problems:
                raise TestBug(f"{label}: this deliberate bad query is valid per the spec: {query}")

        target = path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        payload = None
        if raw is not None:
            payload = raw
        elif body is not NO_BODY:
            payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        if payload is not None:
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            conn.request(method, target, body=payload, headers=headers)
            resp = conn.getresponse()
            reply = Reply(resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read())
        except OSError as e:
            raise ContractFailure(f"{label}: no answer from server {self.server.name} ({e}); "
                                  f"server log:\n{self.server.log_tail()}")
        finally:
            conn.close()
        if VERBOSE:
            print(f"    [{self.server.name}] {method} {target} {_short(payload.decode('utf-8', 'replace') if payload else '')}"
                  f"\n      -> {reply.status} {_short(reply.text)}")

        self.coverage.record(op.operation_id, reply.status)
        try:
            self._check_reply(op, label, reply, expected, code)
            if reply.status == 404 and method == "POST" and op.request_schema is not None:
                self._check_route_exists(op, label, path)
        except ContractFailure as e:
            self.coverage.record_problem(op.operation_id, str(e))
            raise
        if 200 <= reply.status < 300:
            self.coverage.record_success(op.operation_id)
        return reply

    def _check_route_exists(self, op, label, path):
        """A 404 proves nothing if the route is missing: an empty object must answer 422 there."""
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            conn.request("POST", path, body=b"{}", headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            status, text = resp.status, resp.read().decode("utf-8", "replace")
        finally:
            conn.close()
        if status != 422:
            raise ContractFailure(f"{label}: the expected 404 does not show that the operation exists: "
                                  f"an empty object sent there answers {status}, not 422: {_short(text)}")

    def _check_reply(self, op, label, reply, expected, code):
        validator = op.response_validator(reply.status)
        if reply.status not in expected:
            undocumented = "" if validator is not None else \
                f" (undocumented status; the spec documents {', '.join(sorted(op.responses))})"
            raise ContractFailure(f"{label}: expected HTTP {' or '.join(map(str, expected))}, got {reply.status}"
                                  f"{undocumented}: {_short(reply.text)}")
        ctype = reply.headers.get("content-type", "")
        media = ctype.split(";")[0].strip()
        if media != "application/json" and media in op.response_content_types(reply.status):
            # A documented non-JSON body (a Handoff Report's text/markdown): UTF-8 text.
            try:
                reply.raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ContractFailure(f"{label}: the {media} body is not UTF-8")
        elif media != "application/json":
            raise ContractFailure(f"{label}: Content-Type {ctype!r}, expected application/json")
        elif not reply.is_json:
            raise ContractFailure(f"{label}: the body is not JSON: {_short(reply.text)}")
        else:
            problems = describe_errors(validator, reply.json)
            if problems:
                raise ContractFailure(f"{label}: the HTTP {reply.status} body breaks the spec's schema: "
                                      f"{problems}; body: {_short(reply.text)}")
        for name, header in op.response_headers(reply.status).items():
            pattern = (header.get("schema") or {}).get("pattern")
            value = reply.headers.get(name.lower())
            if pattern and value is not None and not re.match(pattern, value):
                raise ContractFailure(f"{label}: header {name}: {value!r} does not match {pattern!r}")
            enum = (header.get("schema") or {}).get("enum")
            if enum and value is not None and value not in enum:
                raise ContractFailure(f"{label}: header {name}: {value!r} is not one of {enum}")
        if "X-PowerContext-Request-ID" in op.response_headers(reply.status) and \
                not reply.headers.get("x-powercontext-request-id"):
            raise ContractFailure(f"{label}: no X-PowerContext-Request-ID header (the spec documents it on "
                                  f"HTTP {reply.status}; RFC 0046 calls it always available)")
        if reply.status == 401 and not reply.headers.get("www-authenticate", "").lower().startswith("bearer"):
            raise ContractFailure(f"{label}: a 401 without the spec's `WWW-Authenticate: Bearer` challenge")
        if code is not None and reply.status >= 400:
            actual = (reply.json.get("error") or {}).get("code") if isinstance(reply.json, dict) else None
            if actual != code:
                raise ContractFailure(f"{label}: expected error code {code!r}, got {actual!r}: {_short(reply.text)}")


# --------------------------------------------------------------------------------------------------
# Steps.


class Story:
    """Named steps run in order; a failing step is reported and the story goes on."""

    def __init__(self):
        self.steps = []
        self.state = {}
        self.results = []  # (name, outcome, message)

    def step(self, name):
        def register(fn):
            self.steps.append((name, fn))
            return fn
        return register

    def add(self, name, fn):
        self.steps.append((name, fn))

    def need(self, key, from_step):
        if key not in self.state:
            raise Blocked(f"needs {key!r} from step '{from_step}', which did not complete")
        return self.state[key]

    def run(self):
        for name, fn in self.steps:
            try:
                fn()
                outcome, message = "PASS", ""
            except ContractFailure as e:
                outcome, message = "FAIL", str(e)
            except Blocked as e:
                outcome, message = "BLOCKED", str(e)
            except TestBug as e:
                outcome, message = "TESTBUG", str(e)
            except Exception:  # a crash in the test or a totally unexpected answer
                outcome, message = "ERROR", traceback.format_exc(limit=6)
            self.results.append((name, outcome, message))
            line = f"[{outcome:7}] {name}"
            if message:
                first, *rest = message.splitlines() or [""]
                line += f"\n          {first}"
                for extra in rest[:12]:
                    line += f"\n          {extra}"
            print(line, flush=True)
        return self.results
