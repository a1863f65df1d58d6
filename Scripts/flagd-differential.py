#!/usr/bin/env python3
"""Generates targeting rules and contexts, and what flagd's own evaluator makes of each.

Usage: flagd-differential.py COUNT SEED > pairs.json

For Scripts/check-flagd-differential.sh: COUNT (rule, data) pairs drawn from templates that
exercise flagd's operations (fractional, shorthand and explicit, sem_ver, starts_with,
ends_with) and the classic ones they are combined with (var, comparisons, arithmetic, if,
and, or, in, cat), with the outcome PyPI's openfeature-flagd-core 2.0.0 gives:
{"result": value}, {"notJSON": text} or {"error": text}. The same seed gives the same pairs.

Left out, because Stowage deliberately follows JavaScript there (see the JsonLogic check):
booleans and null in cat (so the cat template always has a targeting key) and in text
comparisons (a boolean needle of in, a null or boolean inside a list), % of negative
numbers, === and !== between a boolean and a number, numbers in cat or in that Python writes
with 15 digits where JavaScript writes 17, and an explicit null as the second operand of -
(Python reads it as absent, and negates the first). Also left out: a fractional weight written
with a decimal point (50.0), which Stowage reads as the whole number it is and flagd's Python
evaluator refuses (JSON does not tell them apart for Stowage).
"""
import json
import logging
import random
import sys

from flagd_outcome import outcome

WORDS = ["", "a", "alice", "bob@example.com", "ünïcödé", "日本", "🙂x", "10", "2.5", " 7 ", "-3", "1e3", "true", "null", "abc"]
VERSIONS = ["1.0.0", "v1.2.3", "2", "2.1", "V3.0.0-beta.1", "1.2.3-alpha", "1.2.3-alpha.10", "1.2.3-alpha.9", "1.2.3+build.5",
            "1.2.3-rc.1+build", "01.2.3", "1.2", "1.2.3.4", "x.y.z", "", "0.0.0", "10.20.30", "1.0.0-0", "1.0.0-a-b"]
SEMVER_OPS = ["=", "!=", "<", "<=", ">", ">=", "^", "~", "=="]


def number(rng):
    return rng.choice([0, 1, -1, 2, 7, 10, 100, 0.5, 1.25, -2.5, 3.0, 1e3, 2**31, 2**53])


def primitive(rng):
    kind = rng.randrange(5)
    if kind == 0:
        return number(rng)
    if kind == 1:
        return rng.choice(WORDS)
    if kind == 2:
        return rng.choice([True, False])
    if kind == 3:
        return None
    # No null or boolean inside a list: Python writes them "null" and "True" where JavaScript writes "" and "true".
    elements = (primitive(rng) for _ in range(rng.randrange(3)))
    # Nor a whole number written as a decimal (3.0): a list first argument of fractional is read as a variant and weight.
    return [element for element in elements if element is not None and not isinstance(element, bool)
            and not (isinstance(element, float) and element.is_integer())] if rng.random() < 0.5 else number(rng)


def variant(rng):
    return rng.choice(["red", "green", "blue", "on", "off", 1, 2.5, True, False, None, "日本"])


def fractions(rng):
    return [[variant(rng), rng.choice([0, 1, 5, 10, 25, 33, 50, 100, -5, 1000, 2**31])] if rng.random() < 0.9 else [variant(rng)]
            for _ in range(rng.randrange(1, 5))]


def key(rng):
    return rng.choice(WORDS[1:] + ["user-%d" % rng.randrange(100000), "%032x" % rng.getrandbits(128)])


def pair(rng):
    kind = rng.randrange(9)
    data = {"$flagd": {"flagKey": rng.choice(["new-checkout", "flag", "", "日本-flag"])}}
    if rng.random() < 0.9:
        data["targetingKey"] = key(rng)
    data["email"] = key(rng) if rng.random() < 0.9 else primitive(rng)
    data["tier"] = rng.choice(["gold", "silver", None, 3])
    data["version"] = rng.choice(VERSIONS)
    data["age"] = number(rng)
    if kind == 0:
        rule = {"fractional": fractions(rng)}
    elif kind == 1:
        rule = {"fractional": [{"var": "email"}] + fractions(rng)}
    elif kind == 2:
        data["targetingKey"] = key(rng)
        rule = {"fractional": [{"cat": [{"var": "$flagd.flagKey"}, {"var": "targetingKey"}]}] + fractions(rng)}
    elif kind == 3:
        rule = {"fractional": [rng.choice([number(rng), [key(rng), rng.choice([1, 7, 100])], {"var": "age"}, key(rng)])] + fractions(rng)}
    elif kind == 4:
        rule = {"sem_ver": [rng.choice([{"var": "version"}, rng.choice(VERSIONS)]), rng.choice(SEMVER_OPS), rng.choice(VERSIONS)]}
    elif kind == 5:
        rule = {rng.choice(["starts_with", "ends_with"]): [rng.choice([{"var": "email"}, primitive(rng)]), rng.choice(["", "a", "bob", ".com", "日", 1])]}
    elif kind == 6:
        op = rng.choice(["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "!", "!!", "in"])
        second = rng.choice([primitive(rng), {"var": "age"}, {"var": "tier"}])
        if op == "-" and (second is None or second == {"var": "tier"}):
            second = {"var": "age"}
        first = primitive(rng)
        if op == "in" and isinstance(first, bool):
            first = str(first).lower()  # Python writes True as "True"
        rule = {op: [first, second]}
    elif kind == 7:
        rule = {"if": [{"in": [{"var": "tier"}, ["gold", "silver"]]}, {"fractional": fractions(rng)},
                       {"sem_ver": [{"var": "version"}, ">=", "1.2.0"]}, "new", "old"]}
    else:
        rule = {rng.choice(["and", "or"]): [{"starts_with": [{"var": "email"}, "a"]}, {">": [{"var": "age"}, number(rng)]},
                                             {"var": "tier"}]}
    return rule, data


def main():
    logging.disable(logging.CRITICAL)  # the evaluator logs each rule it can not apply; the outcome says so
    count, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        rule, data = pair(rng)
        pairs.append({"rule": rule, "data": data, "flagd": outcome(rule, data)})
    json.dump(pairs, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
