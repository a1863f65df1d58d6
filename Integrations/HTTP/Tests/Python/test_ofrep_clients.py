"""OpenFeature's Python SDK, with its OFREP provider, reading Stowage's flags
from a fleet of two Stowage servers on one PostgreSQL namespace; flagd's own
evaluator (openfeature-flagd-core) is the referee of every evaluation.

It starts both servers (the StowageHTTPFleetServer executable given as the
first argument) against the PostgreSQL server whose STOWAGE_POSTGRES_*
variables Integrations/Postgres/Scripts/postgres.sh sets, then checks that:
- booleans, strings, integers, floats and objects reach the SDK, targeted by
  the context it sends, with the value, variant and reason flagd's evaluator
  gives for the same definitions and context;
- an unknown flag, a type the flag is not, and a missing token reach the SDK
  as OpenFeature's errors, with the caller's default;
- a change made through the second server, and an operator's UPDATE in psql,
  reach the first server's event stream as a refetchEvaluation event, after
  which the SDK reads the new value, without a restart;
- schemathesis finds every response of the first server within OFREP's
  OpenAPI description (the second argument, the folder of ../shared/ofrep,
  corrected as corrected_openapi.py says), for generated and malformed
  requests alike, STOWAGE_SCHEMATHESIS_EXAMPLES of them per operation.
"""

import hashlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid

import requests
import tempfile
from openfeature import api
from openfeature.contrib.provider.ofrep import OFREPProvider
from openfeature.contrib.tools.flagd.core import FlagdCore
from openfeature.evaluation_context import EvaluationContext
from openfeature.flag_evaluation import ErrorCode, Reason

from checks import check, finish

TOKEN = uuid.uuid4().hex + uuid.uuid4().hex
NAMESPACE = "ofrep-" + uuid.uuid4().hex[:12]

DEFINITIONS = {
    "flags": {
        "new-checkout": {
            "state": "ENABLED",
            "variants": {"on": True, "off": False},
            "defaultVariant": "off",
            "targeting": {"if": [{"in": [{"var": "tenant"}, ["acme", "globex"]]}, "on", None]},
            "metadata": {"owner": "checkout-team"},
        },
        "banner": {
            "state": "ENABLED",
            "variants": {"plain": "Welcome", "sale": "Spring sale: 20% off"},
            "defaultVariant": "plain",
            "targeting": {"if": [{"ends_with": [{"var": "email"}, "@example.com"]}, "sale", "plain"]},
        },
        "rate-limit": {
            "state": "ENABLED",
            "variants": {"low": 10, "high": 1000},
            "defaultVariant": "low",
            "targeting": {"fractional": [["high", 50], ["low", 50]]},
        },
        "ratio": {
            "state": "ENABLED",
            "variants": {"half": 0.5, "most": 0.75},
            "defaultVariant": "half",
            "targeting": {"if": [{">=": [{"var": "age"}, 18]}, "most", "half"]},
        },
        "theme": {
            "state": "ENABLED",
            "variants": {"dark": {"background": "#000", "contrast": 1.5}, "light": {"background": "#fff", "contrast": 1.0}},
            "defaultVariant": "light",
            "targeting": {"if": [{"==": [{"var": "plan"}, "pro"]}, "dark", None]},
        },
    },
    "metadata": {"flagSetId": "shop"},
}

CONTEXTS = [
    EvaluationContext("user-1", {"tenant": "acme", "email": "a@example.com", "age": 30, "plan": "pro"}),
    EvaluationContext("user-2", {"tenant": "initech", "email": "b@elsewhere.org", "age": 12, "plan": "free"}),
    EvaluationContext("user-3", {"tenant": "globex"}),
    EvaluationContext("user-4", {}),
    EvaluationContext("user-5", {"plan": "pro", "age": 18}),
]

KINDS = {
    "new-checkout": ("boolean", False),
    "banner": ("string", "code default"),
    "rate-limit": ("integer", -1),
    "ratio": ("float", -1.0),
    "theme": ("object", {}),
}

class Server:
    """A StowageHTTPFleetServer process: its port, its input for payloads, its output for answers."""

    def __init__(self, executable):
        environment = dict(os.environ, STOWAGE_HTTP_NAMESPACE=NAMESPACE,
                           STOWAGE_HTTP_TOKEN_SHA256=hashlib.sha256(TOKEN.encode()).hexdigest())
        self.process = subprocess.Popen([executable], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        line = self.next_line(60)
        assert line.startswith("listening on "), line
        self.url = f"http://127.0.0.1:{int(line.split()[-1])}"

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def next_line(self, timeout):
        line = self.lines.get(timeout=timeout)
        if line is None:
            raise RuntimeError("the server ended")
        return line

    def apply(self, payload):
        self.process.stdin.write(json.dumps(payload) + "\n")
        self.process.stdin.flush()
        answer = self.next_line(60)
        assert answer == "applied", answer

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


class EventStream:
    """The blocks of a server's event stream, read on a thread of its own."""

    def __init__(self, url):
        self.response = requests.get(f"{url}/ofrep/v1/events", headers={"Authorization": f"Bearer {TOKEN}"}, stream=True, timeout=60)
        self.response.raise_for_status()
        self.blocks = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        opening = self.blocks.get(timeout=10)
        assert "retry:" in opening, opening

    def _read(self):
        block = []
        try:
            for line in self.response.iter_lines(decode_unicode=True):
                if line == "":
                    self.blocks.put("\n".join(block))
                    block = []
                else:
                    block.append(line)
        except Exception:
            pass

    def drain(self):
        """Forgets the events received so far."""
        while not self.blocks.empty():
            self.blocks.get_nowait()

    def next_event(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            block = self.blocks.get(timeout=max(0.0, deadline - time.monotonic()))
            if any(line.startswith("data:") for line in block.split("\n")):
                return block


def referee(definitions, key, kind, context):
    """What flagd's evaluator gives for the same definitions and context: value, variant, reason."""
    core = FlagdCore()
    core.set_flags(json.loads(json.dumps(definitions)))
    resolve = {"boolean": core.resolve_boolean_value, "string": core.resolve_string_value,
               "integer": core.resolve_integer_value, "float": core.resolve_float_value,
               "object": core.resolve_object_value}[kind]
    details = resolve(key, KINDS[key][1], context)
    # OFREP has no DEFAULT among its reasons: Stowage sends STATIC, a value that does not depend on the context.
    reason = Reason.STATIC if details.reason == Reason.DEFAULT else details.reason
    # flagd gives TARGETING_MATCH for a percentage rollout's variant; Stowage gives OpenFeature's SPLIT.
    if reason == Reason.TARGETING_MATCH and "fractional" in json.dumps(definitions["flags"][key].get("targeting")):
        reason = Reason.SPLIT
    return details.value, details.variant, reason


def refetch_until(stream, evaluate_now, is_new, timeout=10):
    """Evaluates again after each event, as a client of the stream does, until
    the evaluation is the new one or `timeout` seconds pass; returns the last
    evaluation and when it was read. A payload changes several keys (the
    definitions, the time of the update, the flags' plain values), and
    PostgreSQL announces each, so a change comes as several events; the last
    comes after the last key, so a client that refetches after each ends on
    the new evaluation."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            stream.next_event(max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return evaluate_now(), time.monotonic()
        details = evaluate_now()
        if is_new(details):
            return details, time.monotonic()


def evaluate(client, key, context):
    kind, default = KINDS[key]
    method = {"boolean": client.get_boolean_details, "string": client.get_string_details,
              "integer": client.get_integer_details, "float": client.get_float_details,
              "object": client.get_object_details}[kind]
    return method(key, default, context)


def main():
    executable = sys.argv[1]
    first = Server(executable)
    second = Server(executable)
    try:
        stream = EventStream(first.url)
        # The definitions go through the second server; the first hears of them from PostgreSQL.
        second.apply(DEFINITIONS)
        stream.next_event(10)

        api.set_provider(OFREPProvider(first.url, headers_factory=lambda: {"Authorization": f"Bearer {TOKEN}"}))
        client = api.get_client()

        print("Every type, targeted by the context, as flagd's evaluator resolves it:")
        for key, (kind, _) in KINDS.items():
            for context in CONTEXTS:
                details = evaluate(client, key, context)
                expected = referee(DEFINITIONS, key, kind, context)
                got = (details.value, details.variant, details.reason)
                check(details.error_code is None and got == expected,
                      f"{key} for {context.targeting_key} {context.attributes}: {got}, flagd {expected}")
        details = evaluate(client, "new-checkout", CONTEXTS[0])
        check(details.flag_metadata == {"flagSetId": "shop", "owner": "checkout-team"}, f"metadata {details.flag_metadata}")

        print("Errors reach the SDK as OpenFeature's, with the caller's default:")
        missing = client.get_boolean_details("no-such-flag", True, CONTEXTS[0])
        check(missing.value is True and missing.error_code == ErrorCode.FLAG_NOT_FOUND, f"unknown flag: {missing.error_code}")
        mismatch = client.get_string_details("new-checkout", "text", CONTEXTS[0])
        check(mismatch.value == "text" and mismatch.error_code == ErrorCode.TYPE_MISMATCH, f"wrong type: {mismatch.error_code}")
        api.set_provider(OFREPProvider(first.url, headers_factory=lambda: {"Authorization": "Bearer not-the-token"}), domain="intruder")
        refused = api.get_client("intruder").get_boolean_details("new-checkout", False, CONTEXTS[0])
        check(refused.value is False and refused.error_code == ErrorCode.GENERAL and "unauthorized" in (refused.error_message or ""),
              f"wrong token: {refused.error_code} {refused.error_message}")

        print("A change through the second server reaches the first one's clients without a restart:")
        changed = json.loads(json.dumps(DEFINITIONS))
        changed["flags"]["new-checkout"]["targeting"]["if"][0]["in"][1].append("initech")
        before = evaluate(client, "new-checkout", CONTEXTS[1]).value
        stream.drain()
        started = time.monotonic()
        second.apply({"flags": {"new-checkout": changed["flags"]["new-checkout"]}})
        after, heard = refetch_until(stream, lambda: evaluate(client, "new-checkout", CONTEXTS[1]), lambda d: d.value is True)
        check(before is False and after.value is True and after.variant == "on", f"initech: {before} before, {after.value} after")
        print(f"  read {(heard - started) * 1000:.0f} ms after the second server was told (its commit included)")

        print("An operator's UPDATE in psql reaches them too:")
        operator = json.loads(json.dumps(changed))
        operator["flags"]["banner"]["defaultVariant"] = "sale"
        operator["flags"]["banner"].pop("targeting")
        stream.drain()
        started = time.monotonic()
        # psql quotes the variables (:'name'), so the value is never part of the statement's text.
        subprocess.run(
            ["psql", "-v", "ON_ERROR_STOP=1", "-q", "-v", f"namespace={NAMESPACE}", "-v", f"value={json.dumps(operator)}",
             "-v", "key=$flag-configurations"],
            input="UPDATE stowage.entries SET value = :'value' WHERE namespace = :'namespace' AND key = :'key';\n",
            text=True, check=True, env=dict(os.environ, PGHOST=os.environ["STOWAGE_POSTGRES_HOST"], PGPORT=os.environ["STOWAGE_POSTGRES_PORT"],
                                 PGUSER=os.environ["STOWAGE_POSTGRES_USER"], PGPASSWORD=os.environ["STOWAGE_POSTGRES_PASSWORD"],
                                 PGDATABASE=os.environ["STOWAGE_POSTGRES_DATABASE"]))
        expected = referee(operator, "banner", "string", CONTEXTS[1])
        banner, heard = refetch_until(stream, lambda: evaluate(client, "banner", CONTEXTS[1]),
                                      lambda d: (d.value, d.variant, d.reason) == expected)
        check((banner.value, banner.variant, banner.reason) == expected,
              f"banner after the UPDATE: {banner.value!r} {banner.variant} {banner.reason}, flagd {expected}")
        print(f"  read {(heard - started) * 1000:.0f} ms after psql began")

        examples = os.environ.get("STOWAGE_SCHEMATHESIS_EXAMPLES", "200")
        print(f"Schemathesis, {examples} examples per operation, every check, against the corrected description:")
        with tempfile.TemporaryDirectory() as folder:
            description = f"{folder}/openapi.yaml"
            subprocess.run([sys.executable, f"{os.path.dirname(__file__)}/corrected_openapi.py", sys.argv[2], description], check=True)
            run = subprocess.run(
                [os.path.join(os.path.dirname(sys.executable), "schemathesis"), "run", description, "--url", first.url,
                 "-H", f"Authorization: Bearer {TOKEN}", "--checks", "all", "--max-examples", examples, "--workers", "1",
                 "--seed", os.environ.get("STOWAGE_SCHEMATHESIS_SEED", "1")],
                capture_output=True, text=True, cwd=folder)  # its cache stays in the temporary folder
            summary = [line for line in run.stdout.splitlines() if "generated" in line or line.startswith("- ST")]
            if run.returncode != 0:
                print(run.stdout[-6000:])
            check(run.returncode == 0, "schemathesis: " + "; ".join(summary))
    finally:
        first.stop()
        second.stop()
    finish()


if __name__ == "__main__":
    main()
