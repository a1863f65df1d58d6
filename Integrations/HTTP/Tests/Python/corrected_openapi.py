"""Writes OFREP's OpenAPI description (from ../shared/ofrep) with the two
corrections its response schemas need to be satisfiable, for schemathesis.

As published, `evaluationSuccess` is `oneOf` six flag shapes, and no
response can match exactly one of them:
- `codeDefaultFlag` is `{"properties": {}}`, which every object matches, so
  `{"value": true}` matches both `booleanFlag` and `codeDefaultFlag`; here it
  matches only an object without `value`, as its description says.
- `floatFlag` is `{"type": "number"}`, which every integer matches too, so
  `{"value": 10}` matches both `integerFlag` and `floatFlag`; here it
  matches only a number that is not an integer.
And one deviation of Stowage's is written in, so that the check holds it to
everything else: `context` and its `targetingKey` are optional, as flagd has
them and as OpenFeature's Python provider sends them (`{}` without a
context). Nothing else is changed. The corrected file goes to a temporary folder; the
project keeps no copy of the description.

Usage: python3 corrected_openapi.py SHARED_OFREP_DIR OUTPUT_FILE
"""

import sys

import yaml


def corrected(description):
    schemas = description["components"]["schemas"]
    code_default = schemas["codeDefaultFlag"]
    assert code_default.get("properties") == {}, "codeDefaultFlag changed upstream: review the correction"
    code_default["not"] = {"required": ["value"]}
    float_value = schemas["floatFlag"]["properties"]["value"]
    assert float_value.get("type") == "number", "floatFlag changed upstream: review the correction"
    float_value["not"] = {"type": "integer"}
    for request in ("evaluationRequest", "bulkEvaluationRequest"):
        schemas[request].pop("required")
    schemas["context"].pop("required")
    return description


def main():
    source, output = sys.argv[1], sys.argv[2]
    with open(f"{source}/openapi.yaml") as file:
        description = yaml.safe_load(file)
    with open(output, "w") as file:
        yaml.safe_dump(corrected(description), file, sort_keys=False)


if __name__ == "__main__":
    main()
