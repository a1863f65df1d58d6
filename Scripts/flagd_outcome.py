"""What flagd's own evaluator makes of a targeting rule, for the scripts that compare Stowage with it.

PyPI's openfeature-flagd-core (2.0.0) is flagd's evaluator in Python: its targeting runs
panzi-json-logic with flagd's operators added. `outcome` is one of {"result": value},
{"notJSON": text} for a number JSON can not hold, or {"error": text}, as
StowageJSONLogicCompat reads them.
"""
import json

from json_logic import jsonLogic
from openfeature.contrib.tools.flagd.core.targeting.targeting import OPERATORS


def outcome(rule, data):
    try:
        value = jsonLogic(rule, data, OPERATORS)
    except Exception as error:  # any failure of the evaluator is the case's outcome
        return {"error": f"{type(error).__name__}: {error}"}
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return {"notJSON": repr(value)}
    return {"result": value}
