#!/usr/bin/env python3
"""Evaluates every case of json-logic/compat-tables' suites with flagd's own evaluator.

Usage: json-logic-oracle.py SUITES_FOLDER > oracle.json

PyPI's openfeature-flagd-core (2.0.0) is flagd's evaluator in Python: its targeting runs
panzi-json-logic with flagd's operators added. This prints, for each case of each file the
suites' index.json lists (in order, headings skipped), what that evaluator gives:
{"result": value}, {"notJSON": text} for a number JSON can not hold, or {"error": text}.
Scripts/check-json-logic-compat.sh hands it to the StowageJSONLogicCompat check.
"""
import json
import os
import sys

from flagd_outcome import outcome


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, "index.json")) as index:
        files = json.load(index)
    results = {}
    for name in files:
        with open(os.path.join(folder, name)) as suite:
            cases = [case for case in json.load(suite) if isinstance(case, dict) and "rule" in case]
        results[name] = [outcome(case["rule"], case.get("data")) for case in cases]
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
