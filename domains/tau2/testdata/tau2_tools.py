#!/usr/bin/env python3
"""Prints the tools array tau2-bench shows the agent for a domain, built the
way tau2's Tool.parse_data / openai_schema build it (a pydantic model made
from the method's signature, parameter descriptions from its Google-style
docstring, the description being the short description, a blank line and
the long one), plus "x-kind" from the @is_tool type.

  tau2_tools.py ORACLE_PY DOMAIN [--no-docs]

Needs pydantic 2 and docstring_parser (the package tau2 itself uses);
with --no-docs, only pydantic: descriptions are left out.
"""
import importlib.util
import inspect
import json
import sys
from typing import Any

from pydantic import Field, create_model


class _NoDocs:
    short_description = long_description = None
    params = []


def main(oracle_path, domain, docs=True):
    if docs:
        from docstring_parser import parse
    else:
        def parse(_):
            return _NoDocs()
    spec = importlib.util.spec_from_file_location("tau2_oracle", oracle_path)
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    _, tools_cls = oracle._load(domain)
    out = []
    # tau2 lists a toolkit's tools in the order the class defines them.
    for name, fn in tools_cls.__dict__.items():
        if not hasattr(fn, "__tool_type__"):
            continue
        bound = getattr(tools_cls(None), name)
        sig = inspect.signature(bound)
        doc = parse(bound.__doc__ or "")
        doc_params = {p.arg_name: p for p in doc.params}
        fields = {}
        for pname, p in sig.parameters.items():
            default = ... if p.default is p.empty else p.default
            anno = Any if p.annotation is p.empty else p.annotation
            if pname in doc_params:
                default = Field(default, description=doc_params[pname].description)
            fields[pname] = (anno, default)
        params = create_model("parameters", **fields)
        short, long = doc.short_description or "", doc.long_description or ""
        desc = short + "\n\n" + long if long else (short or name)
        if not docs:
            desc = ""
        out.append({
            "type": "function",
            "function": {
                "name": name,
                "description": desc,
                "x-kind": fn.__tool_type__.value,
                "parameters": params.model_json_schema(),
            },
        })
    json.dump(out, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--no-docs" not in sys.argv[3:])
