#!/usr/bin/env python3
"""Validates databases with tau2's own data model, as oracle.py loads it.

  tau2_dump.py ORACLE_PY DOMAIN < dbs.json

dbs.json is a JSON list of raw databases; prints a JSON list with, for
each, {"ok": true, "dump": DB.model_validate(raw).model_dump()} or
{"ok": false, "error": str(exception)}.
"""
import importlib.util
import json
import sys


def main(oracle_path, domain):
    spec = importlib.util.spec_from_file_location("tau2_oracle", oracle_path)
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    db_cls, _ = oracle._load(domain)
    out = []
    for raw in json.load(sys.stdin):
        try:
            out.append({"ok": True, "dump": db_cls.model_validate(raw).model_dump()})
        except Exception as e:  # pydantic's ValidationError, or anything else
            out.append({"ok": False, "error": str(e)})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
