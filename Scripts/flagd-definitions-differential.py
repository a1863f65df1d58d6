#!/usr/bin/env python3
"""Generates flag definitions in flagd's format with contexts, and how flagd's own evaluator resolves each.

Usage: flagd-definitions-differential.py COUNT SEED [REFERENCE_FOLDER] > cases.json

For Scripts/check-json-logic-compat.sh: COUNT payloads of flag definitions, each with one flag
whose targeting is drawn from Scripts/flagd-differential.py's rules (fractional, sem_ver,
starts_with, ends_with and the classic operations) or absent, whose variants name some of what
those rules return and are all of one type, with a default variant or none, enabled or
disabled, with metadata at flag and set level, and sometimes a shared evaluator used through
$ref; each evaluated for four contexts. With REFERENCE_FOLDER (../shared/flagd), every
payload of flag definitions in flagd's reference pages is evaluated too, each flag for the
contexts its page's rules read. Each case gives what PyPI's openfeature-flagd-core 2.0.0
resolves: value (or null for the caller's default), variant, reason, error code, metadata.
"""
import importlib.util
import json
import logging
import pathlib
import random
import re
import sys

from openfeature.contrib.tools.flagd.core import FlagdCore
from openfeature.evaluation_context import EvaluationContext
from openfeature.exception import OpenFeatureError

spec = importlib.util.spec_from_file_location("rules", pathlib.Path(__file__).with_name("flagd-differential.py"))
rules = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rules)

NAMES = ["red", "green", "blue", "on", "off", "1", "2.5", "true", "false", "日本", "new", "old"]
DEFAULTS = {"boolean": False, "string": "code-default", "integer": -42, "float": -0.5, "object": {"from": "code"}}
RESOLVE = {"boolean": "resolve_boolean_value", "string": "resolve_string_value", "integer": "resolve_integer_value",
           "float": "resolve_float_value", "object": "resolve_object_value"}


def values_of(kind, rng):
    if kind == "boolean":
        return lambda name: name in ("on", "true", "green", "new") if rng.random() < 0.8 else rng.choice([True, False])
    if kind == "string":
        return lambda name: "value-" + name
    if kind == "integer":
        return lambda name: rng.randrange(-1000, 1000)
    if kind == "float":
        return lambda name: rng.randrange(-1000, 1000) + 0.25
    return lambda name: {"name": name, "weight": rng.randrange(10)}


def resolve(payload, key, kind, context):
    core = FlagdCore()
    core.set_flags(json.loads(json.dumps(payload)))  # flagd-core consumes what it is given
    attributes = {name: value for name, value in context.items() if name != "targetingKey"}
    try:
        details = getattr(core, RESOLVE[kind])(key, DEFAULTS[kind], EvaluationContext(context.get("targetingKey"), attributes))
    except OpenFeatureError as error:
        return {"value": None, "variant": None, "reason": "ERROR", "errorCode": error.error_code.value, "metadata": {}}
    except Exception:  # an OpenFeature client reports any other failure of a provider as GENERAL
        return {"value": None, "variant": None, "reason": "ERROR", "errorCode": "GENERAL", "metadata": {}}
    # The caller's default comes back when no variant was resolved; Stowage gives none, for the caller to fill in.
    value = details.value if details.variant is not None else None
    return {"value": value, "variant": details.variant, "reason": details.reason.value if details.reason else None,
            "errorCode": None, "metadata": dict(details.flag_metadata or {})}


def generated(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        rule, data = rules.pair(rng)
        # Left out: a rule whose result is a number (Python names the variant "1.0" where JavaScript
        # names it "1") and a division (by zero: Python fails where JavaScript gives Infinity, truthy).
        while next(iter(rule)) in ("+", "-", "*", "/") or '"/"' in json.dumps(rule):
            rule, data = rules.pair(rng)
        key = rng.choice(["new-checkout", "flag", "日本-flag"])
        kind = rng.choice(list(DEFAULTS))
        value = values_of(kind, rng)
        names = rng.sample(NAMES, rng.randrange(1, len(NAMES)))
        flag = {"state": "ENABLED" if rng.random() < 0.95 else "DISABLED", "variants": {name: value(name) for name in names}}
        if rng.random() < 0.85:
            flag["defaultVariant"] = rng.choice(names)
        elif rng.random() < 0.5:
            flag["defaultVariant"] = None
        payload = {"flags": {key: flag}}
        if rng.random() < 0.85:
            # flagd-core puts shared evaluators in place with re.sub over JSON text, which fails on a
            # backslash escape (any non-ASCII text): such rules are used inline only.
            if rng.random() < 0.2 and "\\" not in json.dumps(rule):
                payload["$evaluators"] = {"shared": rule}
                flag["targeting"] = {"if": [{"$ref": "shared"}, rng.choice(names), None]} if rng.random() < 0.5 else {"$ref": "shared"}
            else:
                flag["targeting"] = rule
        if rng.random() < 0.3:
            flag["metadata"] = {"version": str(rng.randrange(20)), "owner": "team-" + rng.choice("ab")}
        if rng.random() < 0.3:
            payload["metadata"] = {"flagSetId": "shop", "owner": "platform"}
        contexts = []
        for _ in range(4):
            context = {name: value for name, value in data.items() if name != "$flagd"}
            if rng.random() < 0.5:
                context["targetingKey"] = rules.key(rng)
            if rng.random() < 0.2:
                context.pop("targetingKey", None)
            if '"cat"' in json.dumps(rule):
                # cat of null is "" for Stowage (as in JavaScript) and "None" for Python: a rule that joins gets text.
                context["targetingKey"] = context.get("targetingKey") or rules.key(rng)
                context["email"] = context["email"] if isinstance(context.get("email"), str) else rules.key(rng)
            contexts.append(context)
            data = rules.pair(rng)[1]
        for context in contexts:
            cases.append({"definitions": payload, "flag": key, "context": context, "flagd": resolve(payload, key, kind, context)})
    return cases


def reference(folder):
    """Every payload of flag definitions in the reference pages, each flag for contexts its rules read."""
    cases = []
    for page in sorted(pathlib.Path(folder).glob("*.md")):
        for block in re.findall(r"```jsonc?\n(.*?)```", page.read_text(), re.S):
            text = re.sub(r"^\s*//.*$", "", block, flags=re.M)
            try:
                payload = json.loads(text)
            except json.JSONDecodeError:
                continue
            if not isinstance(payload, dict) or not isinstance(payload.get("flags"), dict):
                continue
            try:
                FlagdCore().set_flags(json.loads(json.dumps(payload)))
            except OpenFeatureError:
                continue  # an example of what flagd refuses
            for key, flag in payload["flags"].items():
                kinds = {type(value).__name__ for value in flag.get("variants", {}).values()}
                kind = {"bool": "boolean", "str": "string", "int": "integer", "float": "float", "dict": "object"}.get(kinds.pop(), "object") if len(kinds) == 1 else "object"
                # Every context has an email: the pages' splits join it with cat, where Python writes null "None".
                for context in ({"email": "noreply@example.com"}, {"targetingKey": "user-1", "email": "ann@example.org"},
                                {"email": "jane@faas.com", "targetingKey": "jane"}, {"version": "2.1.0", "email": "bob@example.com"},
                                {"targetingKey": "5c3d8535-f81a-4478-a6d3-afaa4d51199e", "email": "x@faas.com"}):
                    cases.append({"definitions": payload, "flag": key, "context": context, "flagd": resolve(payload, key, kind, context),
                                  "page": page.name})
    return cases


def main():
    logging.disable(logging.CRITICAL)
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    cases = generated(count, seed)
    if len(sys.argv) > 3:
        found = reference(sys.argv[3])
        if not found:
            sys.exit(f"flagd-definitions-differential.py: no flag definitions found in {sys.argv[3]}")
        cases += found
    json.dump(cases, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
