#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_json_schema.py: validate --bench-json documents against a JSON Schema with the
# jsonschema module. Usage: check_json_schema.py SCHEMA DOC...
# Exit 0 when every document is valid, 1 at the first invalid or unreadable one (with the
# path of the offending value), 2 on a usage or schema error, 77 (skip) without jsonschema.
import json
import sys


def reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def unique_pairs(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def load(path):
    """Strict JSON: no NaN/Infinity literals, no duplicate keys."""
    with open(path, encoding="utf-8") as f:
        return json.load(f, parse_constant=reject_constant, object_pairs_hook=unique_pairs)


def where(error):
    """The JSON path of the offending value, e.g. $.rows[3].metrics."""
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def main(argv):
    if len(argv) < 3:
        print("usage: check_json_schema.py SCHEMA DOC...", file=sys.stderr)
        return 2
    try:
        import jsonschema
    except ImportError:
        print("check_json_schema.py: skipped: the Python module jsonschema is not installed "
              "(Debian: apt install python3-jsonschema)", file=sys.stderr)
        return 77
    try:
        schema = load(argv[1])
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        print(f"{argv[1]}: bad schema: {e}", file=sys.stderr)
        return 2
    validator = cls(schema)
    for path in argv[2:]:
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            print(f"{path}: not a JSON document: {e}", file=sys.stderr)
            return 1
        error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
        if error is not None:
            print(f"{path}: invalid at {where(error)}: {error.message}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
