#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema file (python3-jsonschema, no network).

Usage: validate_json.py SCHEMA DOCUMENT...   Exit 0 when every document is valid, else 1 with
one line per error: "<document>: <json path>: <message>".
"""

import json
import sys

import jsonschema


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    failed = False
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            failed = True
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            print("%s: %s: %s" % (path, where, error.message))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
