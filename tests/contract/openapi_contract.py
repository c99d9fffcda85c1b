"""The published OpenAPI 3.0 document as JSON Schema validators, one per request body and response.

OpenAPI 3.0 schemas are close to JSON Schema Draft 4/5, with three differences handled here:
  - `nullable: true` allows null: the schema becomes {"anyOf": [<schema without nullable>,
    {"type": "null"}]}; on a `$ref` (`memory: {$ref: ..., nullable: true}`) the referenced schema is
    wrapped the same way (a `$ref`'s other siblings are ignored, as OpenAPI 3.0 says);
  - `#/components/...` references are inlined, so each validator is self-contained (and the same
    code runs with Debian's python3-jsonschema 4.10 and newer releases);
  - `discriminator` is dropped: the `oneOf` branches it names differ in their `kind` enums anyway.
`additionalProperties: false` stays as written: a field the spec does not name fails validation.
`format: date` and `format: date-time` are checked (RFC 3339).
"""

import datetime
import re

import jsonschema
import yaml

_DROPPED = {"nullable", "discriminator", "example", "examples", "xml", "externalDocs", "deprecated"}
_SCHEMA_MAPS = {"properties", "patternProperties"}
_SCHEMA_LISTS = {"allOf", "anyOf", "oneOf"}
_SCHEMA_VALUES = {"items", "additionalProperties", "not"}

_DATE_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _format_checker():
    checker = jsonschema.FormatChecker()

    @checker.checks("date-time", raises=ValueError)
    def _date_time(value):
        if not isinstance(value, str):
            return True
        if not _DATE_TIME.match(value):
            raise ValueError(f"{value!r} is not an RFC 3339 date-time")
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00")
                                        .replace("t", "T"))
        return True

    @checker.checks("date", raises=ValueError)
    def _date(value):
        if not isinstance(value, str):
            return True
        if not _DATE.match(value):
            raise ValueError(f"{value!r} is not an RFC 3339 full-date")
        datetime.date.fromisoformat(value)
        return True

    return checker


class SpecError(Exception):
    pass


class Operation:
    def __init__(self, method, path, node, contract):
        self.method = method.upper()
        self.path = path
        self.operation_id = node.get("operationId", f"{method} {path}")
        self._node = node
        self._contract = contract
        self.responses = {}
        for status, response in node.get("responses", {}).items():
            self.responses[str(status)] = contract.deref(response)
        self.parameters = [contract.deref(p) for p in node.get("parameters", [])]
        body = node.get("requestBody")
        self.request_schema = None
        if body is not None:
            body = contract.deref(body)
            schema = body.get("content", {}).get("application/json", {}).get("schema")
            if schema is not None:
                self.request_schema = contract.validator(schema)

    def response_validator(self, status):
        """The validator for a response with this status, or None if the status is undocumented."""
        response = self.responses.get(str(status))
        if response is None:
            return None
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        return self._contract.validator(schema if schema is not None else {})

    def response_content_types(self, status):
        """The media types the spec documents for a response with this status."""
        response = self.responses.get(str(status)) or {}
        return set(response.get("content", {}).keys())

    def response_headers(self, status):
        response = self.responses.get(str(status)) or {}
        return {name: self._contract.deref(h) for name, h in response.get("headers", {}).items()}

    def query_errors(self, query):
        """Messages for query parameters that the operation's `parameters` refuse."""
        errors = []
        for p in self.parameters:
            if p.get("in") != "query":
                continue
            name = p["name"]
            if name not in query:
                if p.get("required"):
                    errors.append(f"query parameter {name!r} is required")
                continue
            v = self._contract.validator(p.get("schema", {}))
            for e in v.iter_errors(query[name]):
                errors.append(f"query parameter {name!r}: {e.message}")
        known = {p["name"] for p in self.parameters if p.get("in") == "query"}
        for name in query:
            if name not in known:
                errors.append(f"query parameter {name!r} is not in the spec")
        return errors


class Contract:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.doc = yaml.safe_load(f)
        if not str(self.doc.get("openapi", "")).startswith("3.0"):
            raise SpecError(f"{path}: expected an OpenAPI 3.0 document, got openapi={self.doc.get('openapi')!r}")
        self.path = path
        self.version = self.doc.get("info", {}).get("version")
        self._format_checker = _format_checker()
        self._converted = {}
        self.operations = {}
        for p, item in self.doc.get("paths", {}).items():
            for method, node in item.items():
                if method.lower() in ("get", "post", "put", "patch", "delete", "head", "options"):
                    self.operations[(method.upper(), p)] = Operation(method, p, node, self)

    def operation(self, method, path):
        op = self.operations.get((method.upper(), path))
        if op is None:
            raise SpecError(f"{method} {path} is not an operation of the spec")
        return op

    def pointer(self, ref):
        if not ref.startswith("#/"):
            raise SpecError(f"only local references are supported, got {ref!r}")
        node = self.doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise SpecError(f"unresolvable reference {ref!r}")
            node = node[part]
        return node

    def deref(self, node):
        seen = set()
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                raise SpecError(f"reference cycle at {ref!r}")
            seen.add(ref)
            node = self.pointer(ref)
        return node

    def schema(self, name):
        """The converted JSON Schema of #/components/schemas/<name>."""
        return self.to_json_schema({"$ref": f"#/components/schemas/{name}"})

    def validator(self, openapi_schema):
        return jsonschema.Draft7Validator(self.to_json_schema(openapi_schema),
                                          format_checker=self._format_checker)

    def to_json_schema(self, node, stack=()):
        if isinstance(node, list):
            return [self.to_json_schema(x, stack) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            ref = node["$ref"]
            if ref in stack:
                raise SpecError(f"recursive schema at {ref!r}: cannot inline")
            if ref not in self._converted:
                self._converted[ref] = self.to_json_schema(self.pointer(ref), stack + (ref,))
            inner = self._converted[ref]
            return {"anyOf": [inner, {"type": "null"}]} if node.get("nullable") is True else inner
        out = {}
        for key, value in node.items():
            if key in _DROPPED:
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                out[key] = {k: self.to_json_schema(v, stack) for k, v in value.items()}
            elif key in _SCHEMA_LISTS and isinstance(value, list):
                out[key] = [self.to_json_schema(v, stack) for v in value]
            elif key in _SCHEMA_VALUES and isinstance(value, dict):
                out[key] = self.to_json_schema(value, stack)
            else:
                out[key] = value  # type, enum, required, pattern, limits, default, description ...
        if node.get("nullable") is True:
            return {"anyOf": [out, {"type": "null"}]}
        return out


def describe_errors(validator, instance, limit=3):
    """Up to `limit` readable validation errors ('' when valid)."""
    errors = sorted(validator.iter_errors(instance), key=lambda e: (len(list(e.absolute_path)), str(e.message)))
    if not errors:
        return ""
    lines = []
    for e in errors[:limit]:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        best = jsonschema.exceptions.best_match([e])
        message = best.message if best is not None else e.message
        if len(message) > 300:
            message = message[:300] + "…"
        lines.append(f"at {where}: {message}")
    if len(errors) > limit:
        lines.append(f"(+{len(errors) - limit} more)")
    return "; ".join(lines)
