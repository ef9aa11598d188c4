#!/usr/bin/env python3
"""Validate rules/api_table.json against rules/api_table.schema.json, plus what a schema cannot say.

Usage: validate_api_table.py TABLE SCHEMA

Beyond the schema (JSON Schema draft 2020-12):
  * strict JSON: no duplicate keys, no NaN/Infinity;
  * every entry's framework is declared under "frameworks";
  * no name is listed twice, across all entries;
  * within an entry, no two roles share a positional index or a keyword;
  * every config_types target names an API of the table.

Prints one line per problem, "TABLE: PATH: message", then "N entries, M problems".
Exit status 0 when clean, 1 on problems (also when jsonschema is missing), 2 on usage error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


# Strict JSON (no duplicate keys, no NaN), read as the KB's validator reads its entries.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "kb"))
from validate import load_json  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    table_path, schema_path = Path(argv[1]), Path(argv[2])
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        print("validate_api_table.py: the Python package 'jsonschema' is not installed (./setup.sh installs it)")
        return 1
    problems: list[str] = []
    table, error, _ = load_json(table_path)
    schema, schema_error, _ = load_json(schema_path)
    if error or schema_error:
        print(f"{table_path if error else schema_path}: $: {error or schema_error}")
        print("0 entries, 1 problems")
        return 1
    for error in sorted(Draft202012Validator(schema).iter_errors(table), key=lambda e: list(e.absolute_path)):
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        problems.append(f"{table_path}: {path}: {error.message}")
    apis = table.get("apis", []) if isinstance(table, dict) else []
    frameworks = table.get("frameworks", {}) if isinstance(table, dict) else {}
    owner: dict[str, int] = {}
    for i, api in enumerate(apis):
        if not isinstance(api, dict):
            continue
        if api.get("framework") not in frameworks:
            problems.append(f"{table_path}: $.apis[{i}].framework: {api.get('framework')!r} is not declared under frameworks")
        for name in api.get("names", []):
            if name in owner:
                problems.append(f"{table_path}: $.apis[{i}].names: {name!r} is already listed in $.apis[{owner[name]}]")
            owner[name] = i
        indices: dict[int, str] = {}
        keywords: dict[str, str] = {}
        for role, arg in (api.get("args") or {}).items():
            if not isinstance(arg, dict):
                continue
            index = arg.get("index")
            if isinstance(index, int):
                if index in indices:
                    problems.append(f"{table_path}: $.apis[{i}].args.{role}: index {index} is also {indices[index]!r}'s")
                indices[index] = role
            keyword = arg.get("name")
            if keyword in keywords:
                problems.append(f"{table_path}: $.apis[{i}].args.{role}: keyword {keyword!r} is also {keywords[keyword]!r}'s")
            keywords[keyword] = role
    for system, types in (table.get("config_types") or {}).items() if isinstance(table, dict) else []:
        for type_name, target in (types or {}).items():
            if target not in owner:
                problems.append(f"{table_path}: $.config_types.{system}.{type_name}: {target!r} is not an API of the table")
    for line in problems:
        print(line)
    print(f"{len(apis)} entries, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
