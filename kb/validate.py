#!/usr/bin/env python3
"""Validate the cudnnlint knowledge base.

Usage: validate.py KB_DIR

Checks every KB_DIR/*/*.json against KB_DIR/schema.json (JSON Schema draft 2020-12), then the
rules a schema cannot express:
  * the file is strict JSON (UTF-8, no duplicate keys, no NaN/Infinity);
  * id == "<folder>/<file stem>" and domain == "<folder>";
  * ids are unique;
  * every id named in transition_graph exists in the KB (and is not the entry itself);
  * every rate (confidence, fix_success_rate, dead_ends[].fail_rate, workarounds[].success_rate)
    is a number in [0, 1];
  * workarounds_zh / dead_ends_zh, when not empty, have one item per English item;
  * regex compiles and, when not empty, matches the entry's signature;
  * the file can be embedded by analyzer/embed_files.cmake (no raw-string delimiter clash).

Prints one line per problem, "FILE: JSON_PATH: message", then "N entries, M problems".
Exit status: 0 when there is no problem, 1 otherwise (also when jsonschema is missing), 2 on usage error.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

EMBED_DELIMITER = ')cudnnlint_embed"'
RATE_FIELDS_TOP = ("confidence", "fix_success_rate")


# The team's own notes and machines, which a KB text must not cite.
INTERNAL_REFERENCE = re.compile(r"shared/(?:research|seeds|repro|tools)/|\bseed 0\d\d\b|project machine", re.I)


def _load_jsonschema():
    try:
        import jsonschema  # noqa: F401
        from jsonschema import Draft202012Validator
    except ImportError:
        print(
            "validate.py: the Python package 'jsonschema' is not installed; "
            "run: pip install -r requirements.txt (from the repository root)",
            file=sys.stderr,
        )
        sys.exit(1)
    return Draft202012Validator


class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def load_json(path: Path):
    """Strict JSON load; returns (document, error message or None)."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 ({exc})", ""
    except OSError as exc:
        return None, f"cannot read ({exc.strerror})", ""
    try:
        doc = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", text
    except ValueError as exc:
        return None, f"invalid JSON: {exc}", text
    return doc, None, text


def _short(value, limit=120):
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_rate(value) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0.0 <= value <= 1.0
    )


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: validate.py KB_DIR", file=sys.stderr)
        return 2
    kb_dir = Path(argv[1])
    if not kb_dir.is_dir():
        print(f"validate.py: {kb_dir} is not a directory", file=sys.stderr)
        return 2

    validator_cls = _load_jsonschema()
    problems: list[str] = []

    def problem(file, json_path, message):
        problems.append(f"{file}: {json_path}: {message}")

    schema_path = kb_dir / "schema.json"
    schema, err, _ = load_json(schema_path)
    if err is not None:
        problem(schema_path, "$", err)
        for line in problems:
            print(line)
        print(f"0 entries, {len(problems)} problems")
        return 1
    try:
        validator_cls.check_schema(schema)
    except Exception as exc:  # jsonschema.SchemaError
        problem(schema_path, "$", f"not a valid draft 2020-12 schema: {getattr(exc, 'message', exc)}")
        for line in problems:
            print(line)
        print(f"0 entries, {len(problems)} problems")
        return 1
    validator = validator_cls(schema)

    # Files one level too deep are not embedded by the build (it globs kb/*/*.json).
    for stray in sorted(kb_dir.glob("*/*/**/*.json")):
        problem(stray, "$", "KB entries must be at KB_DIR/<domain>/<name>.json; cudnnlint does not load deeper files")

    files = sorted(p for p in kb_dir.glob("*/*.json") if p.is_file())
    entries: dict[str, tuple[Path, dict]] = {}  # id -> (file, doc)
    for path in files:
        doc, err, text = load_json(path)
        if err is not None:
            problem(path, "$", err)
            continue
        if EMBED_DELIMITER in text:
            problem(path, "$", f"contains {EMBED_DELIMITER!r}, which breaks embedding into the binary")
        if not isinstance(doc, dict):
            problem(path, "$", "top level must be a JSON object")
            continue

        reported_paths = set()
        errors = sorted(validator.iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message))
        for error in errors:
            reported_paths.add(error.json_path)
            message = error.message
            if error.validator == "pattern" and error.validator_value == "\\S":
                message = "must not be empty or blank"
            if len(message) > 300:
                message = message[:297] + "..."
            problem(path, error.json_path, message)

        folder, stem = path.parent.name, path.stem
        expected_id = f"{folder}/{stem}"
        entry_id = doc.get("id")
        if entry_id != expected_id:
            problem(path, "$.id", f"id {_short(entry_id)} must be {expected_id!r} (folder/file stem)")
        if "domain" in doc and doc.get("domain") != folder:
            problem(path, "$.domain", f"domain {_short(doc.get('domain'))} must equal the folder name {folder!r}")

        if isinstance(entry_id, str):
            if entry_id in entries:
                problem(path, "$.id", f"duplicate id {entry_id!r} (also in {entries[entry_id][0]})")
            else:
                entries[entry_id] = (path, doc)

        # Rates: explicit check (the schema has the same bounds; do not report twice).
        rate_paths = [(f"$.{name}", doc.get(name), name in doc) for name in RATE_FIELDS_TOP]
        for list_name, field in (("dead_ends", "fail_rate"), ("workarounds", "success_rate")):
            items = doc.get(list_name)
            if isinstance(items, list):
                for i, item in enumerate(items):
                    if isinstance(item, dict):
                        rate_paths.append((f"$.{list_name}[{i}].{field}", item.get(field), field in item))
        for json_path, value, present in rate_paths:
            if present and not _is_rate(value) and json_path not in reported_paths:
                problem(path, json_path, f"rate {_short(value)} must be a number in [0, 1]")

        # Translations line up with their English lists.
        for zh_name, en_name in (("workarounds_zh", "workarounds"), ("dead_ends_zh", "dead_ends")):
            zh, en = doc.get(zh_name), doc.get(en_name)
            if isinstance(zh, list) and isinstance(en, list) and zh and len(zh) != len(en):
                problem(path, f"$.{zh_name}", f"has {len(zh)} items but {en_name} has {len(en)}")

        # The entries are read by users: no text may point at this team's own notes or machines,
        # which a user cannot open (a source is public, or a measurement said in full).
        def internal_mentions(value, json_path):
            if isinstance(value, dict):
                for key, item in value.items():
                    yield from internal_mentions(item, f"{json_path}.{key}")
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    yield from internal_mentions(item, f"{json_path}[{i}]")
            elif isinstance(value, str):
                found = INTERNAL_REFERENCE.search(value)
                if found:
                    yield json_path, found.group(0)
        for json_path, mention in internal_mentions(doc, "$"):
            problem(path, json_path, f"cites {mention!r}, which users cannot read: cite the public source")

        # The regex compiles and matches the signature it describes.
        regex, signature = doc.get("regex"), doc.get("signature")
        if isinstance(regex, str) and regex:
            try:
                compiled = re.compile(regex)
            except re.error as exc:
                problem(path, "$.regex", f"does not compile: {exc}")
            else:
                if isinstance(signature, str) and not compiled.search(signature):
                    problem(path, "$.regex", "does not match the entry's own signature")

    # Cross-entry links. A file whose id is wrong still answers to its path-derived id, so that
    # one wrong id is reported once, not again at every link to it.
    known_ids = set(entries) | {f"{p.parent.name}/{p.stem}" for p in files}
    for entry_id, (path, doc) in entries.items():
        graph = doc.get("transition_graph")
        if not isinstance(graph, dict):
            continue
        for edge in ("leads_to", "preceded_by", "frequently_confused_with"):
            targets = graph.get(edge)
            if not isinstance(targets, list):
                continue
            for i, target in enumerate(targets):
                if not isinstance(target, str):
                    continue  # reported by the schema
                if target == entry_id:
                    problem(path, f"$.transition_graph.{edge}[{i}]", "entry links to itself")
                elif target not in known_ids:
                    problem(path, f"$.transition_graph.{edge}[{i}]", f"unknown KB id {target!r}")

    for line in problems:
        print(line)
    print(f"{len(files)} entries, {len(problems)} problems")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
