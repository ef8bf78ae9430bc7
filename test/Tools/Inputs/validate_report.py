"""Validates JSON reports against a JSON Schema of docs/schemas
(test/Tools/report-schemas.test).

usage: validate_report.py <schema.json> <report.json>...
Prints "<report>: valid <schema id>" per report; exits 1 at the first
report that does not validate, naming the path and the reason."""

import json
import sys

import jsonschema

with open(sys.argv[1]) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
for path in sys.argv[2:]:
    with open(path) as f:
        report = json.load(f)
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        sys.exit("%s: invalid at /%s: %s" % (
            path, "/".join(str(p) for p in error.path), error.message))
    print("%s: valid %s" % (path.rsplit("/", 1)[-1], schema["$id"]))
