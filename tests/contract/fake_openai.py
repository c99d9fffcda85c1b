"""A fake OpenAI-compatible model server on 127.0.0.1 for the contract test.

POST /v1/chat/completions answers scripted JSON content with a `usage` field
{prompt_tokens, completion_tokens, total_tokens} whose numbers differ per call, and remembers every
call, so the test can add up what the server should report in GET /v1/stats.
POST /v1/embeddings answers deterministic vectors with usage too (not used by the default setup).

Which answer a chat request gets is decided from the user message the server sent (JSON):
  - memory extraction (docs/extraction.md): {"sources": [{"id": "S1", ...}], "entries": [...]};
    the answer adds one `fact` entry per source, its text being the source's first line, with that
    source as evidence;
  - handoff drafting (the server's handoff prompt): {"objective", "evidence": [{"id": "C1", ...}],
    "max_bytes"}; the answer is a draft citing those ids (see _handoff_answer);
  - anything else gets an answer no caller can use (kind "unrecognized").
A test can also queue explicit answers with `script()`.
"""

import hashlib
import http.server
import json
import math
import threading


# What the drafting answer says; the test checks that the draft carries exactly this.
HANDOFF_STATE_TEXT = "The client was regenerated and its diff inspected."
HANDOFF_NEXT_TEXT = "Run the contract tests."
HANDOFF_OMISSION_TEXT = "The test output of the last run was not captured."


def _first_line(text):
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return str(text).strip()


def _labels(node, out):
    """Evidence labels such as "S1"/"E1"/"C1" given to the model, in document order."""
    if isinstance(node, dict):
        ident = node.get("id")
        if isinstance(ident, str) and 1 < len(ident) <= 8 and ident[0].isalpha() and ident[1:].isdigit():
            out.append(ident)
        for v in node.values():
            _labels(v, out)
    elif isinstance(node, list):
        for v in node:
            _labels(v, out)
    return out


class Call:
    def __init__(self, kind, request, content, prompt_tokens, completion_tokens):
        self.kind = kind  # "extraction", "handoff", "scripted" or "embedding"
        self.request = request
        self.content = content
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens


class FakeOpenAI:
    def __init__(self):
        self._lock = threading.Lock()
        self._calls = []
        self._scripted = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "malformed JSON"}})
                    return
                path = self.path.split("?")[0].rstrip("/")
                if path.endswith("/chat/completions"):
                    self._send(200, fake._chat(body))
                elif path.endswith("/embeddings"):
                    self._send(200, fake._embeddings(body))
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self):
        self._server.shutdown()
        self._server.server_close()

    # --- what the test reads -------------------------------------------------------------------
    def script(self, *contents):
        """Queue exact answer contents for the next chat requests, in order."""
        with self._lock:
            self._scripted.extend(contents)

    def calls(self):
        with self._lock:
            return list(self._calls)

    def mark(self):
        with self._lock:
            return len(self._calls)

    def since(self, mark):
        with self._lock:
            return list(self._calls[mark:])

    # --- answers ---------------------------------------------------------------------------------
    def _chat(self, body):
        messages = body.get("messages") or []
        user = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), "")
        try:
            user_json = json.loads(user) if isinstance(user, str) else user
        except ValueError:
            user_json = None
        with self._lock:
            scripted = self._scripted.pop(0) if self._scripted else None
        if scripted is not None:
            kind, content = "scripted", scripted
        elif isinstance(user_json, dict) and "evidence" in user_json and "objective" in user_json:
            kind, content = "handoff", self._handoff_answer(user_json)
        elif isinstance(user_json, dict) and "date" in user_json and "sources" in user_json:
            kind, content = "review", self._review_answer(user_json)
        elif isinstance(user_json, dict) and "origin" in user_json and "artifacts" in user_json:
            kind, content = "skill", self._skill_answer(user_json)
        elif isinstance(user_json, dict) and "artifacts" in user_json and "sources" in user_json:
            kind, content = "experience", self._experience_answer(user_json)
        elif isinstance(user_json, dict) and "sources" in user_json and "entries" in user_json:
            kind, content = "extraction", self._extraction_answer(user_json)
        else:
            kind, content = "unrecognized", json.dumps({"error": "the fake model did not recognize this request"})
        request_bytes = len(json.dumps(body))
        with self._lock:
            n = len(self._calls) + 1
            # Different, easy-to-sum numbers per call: what the server must add up in its stats.
            prompt_tokens = request_bytes // 4 + 100 * n + 7
            completion_tokens = len(content) // 4 + 10 * n + 3
            self._calls.append(Call(kind, body, content, prompt_tokens, completion_tokens))
        return {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }

    @staticmethod
    def _review_answer(user_json):
        """The daily review (prompts/review_v1.md): one experience from the first source, and a
        tomorrow note citing the last one."""
        sources = user_json.get("sources") or []
        if not sources:
            return json.dumps({"experiences": []})
        first, last = sources[0], sources[-1]
        return json.dumps({
            "experiences": [{"situation": "reviewing " + _first_line(first.get("text", "")),
                             "action": "kept what the work records showed",
                             "outcome": "the day's lessons are in the inbox",
                             "lesson": "review the day's records before the next session",
                             "evidence": [first.get("id")]}],
            "tomorrow": {"text": "Start from: " + _first_line(last.get("text", "")), "evidence": [last.get("id")]}})

    @staticmethod
    def _experience_answer(user_json):
        """Generating an Experience (prompts/experience_v1.md): a lesson from the first source, or
        {"experience": null} when the caller cited no source (only entries or artifacts)."""
        sources = user_json.get("sources") or []
        if not sources:
            return json.dumps({"experience": None})
        return json.dumps({"experience": {
            "situation": "working on " + _first_line(sources[0].get("text", "")),
            "action": "read the cited records before changing anything",
            "outcome": "the change matched what the records said",
            "lesson": "cite the exact records a lesson comes from"}})

    @staticmethod
    def _skill_answer(user_json):
        """Generating a managed Skill (prompts/skill_v1.md): a procedure named after the first
        record shown (a source, else an artifact), or {"skill": null} when nothing was shown."""
        records = (user_json.get("sources") or []) + (user_json.get("artifacts") or [])
        if not records:
            return json.dumps({"skill": None})
        text = str(records[0].get("text", ""))
        described = [l[len("description:"):].strip() for l in text.splitlines() if l.startswith("description:")]
        first = (described[0] if described else _first_line(text)).rstrip(".") or "the record"
        return json.dumps({"skill": {
            "name": "follow-the-records",
            "description": "Use when a task repeats " + first[:160] + "; produces the change the records describe.",
            "instructions": "1. Read the cited records (" + user_json.get("origin", "") + ").\n"
                            "2. Make the change they describe.\n3. Run the checks below; stop if one fails.",
            "validation": ["the project's tests pass", "the change cites its records"]}})

    @staticmethod
    def _extraction_answer(user_json):
        operations = []
        sources = (user_json or {}).get("sources") or []
        for source in sources:
            text = _first_line(source.get("text", ""))
            if text:
                operations.append({"op": "add", "kind": "fact", "text": text, "evidence": [source.get("id")]})
        return json.dumps({"operations": operations})

    @staticmethod
    def _handoff_answer(request, schema=None):
        """The drafting answer the server's handoff prompt asks for:
            {"state": [{"text", "evidence": ["C1", ...]}], "disposition": "continuable|blocked|complete",
             "next_action": {"text", "evidence": [...]} | null, "omissions": [{"text", "evidence": "C4" | null}]}
        where C1, C2 ... are the ids of the request's "evidence" items. The first statement cites every
        evidence item (so the test can check that each id maps back to its exact citation), the next
        action the first one, and the one omission the last one.
        """
        ids = [e.get("id") for e in (request.get("evidence") or []) if isinstance(e, dict)] \
            if isinstance(request, dict) else []
        ids = [i for i in ids if isinstance(i, str)] or _labels(request, [])[:1] or ["C1"]
        return json.dumps({
            "state": [{"text": HANDOFF_STATE_TEXT, "evidence": ids[:32]}],
            "disposition": "continuable",
            "next_action": {"text": HANDOFF_NEXT_TEXT, "evidence": ids[:1]},
            "omissions": [{"text": HANDOFF_OMISSION_TEXT, "evidence": ids[-1]}],
        })

    def _embeddings(self, body):
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        data = []
        tokens = 0
        for i, text in enumerate(inputs or []):
            vec = [0.0] * 64
            for word in str(text).lower().split():
                h = hashlib.sha256(word.encode()).digest()
                vec[h[0] % 64] += 1.0 if h[1] & 1 else -1.0
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            data.append({"object": "embedding", "index": i, "embedding": [x / norm for x in vec]})
            tokens += len(str(text).split()) + 1
        with self._lock:
            self._calls.append(Call("embedding", body, "", tokens, 0))
        return {"object": "list", "data": data, "model": body.get("model", "fake-embed"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}
