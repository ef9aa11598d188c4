#!/usr/bin/env python3
"""Scaffold a new rule: its code, its registry row, a KB stub, a fixture.

Usage:
  rules/scaffold.py RULE_ID FAMILY KB_ID LEVEL SUMMARY [--fixture py|cpp] [--root DIR]

  RULE_ID   kebab-case, stable: "loader-batch-size-zero"
  FAMILY    the folder under rules/ ("batchnorm", "loader", "dtype", "conv", "cudnn")
  KB_ID     "<domain>/<slug>": the KB entry the rule links to ("pytorch/dataloader-batch-size-zero");
            written as a stub when it does not exist yet
  LEVEL     Note, Warning or Error (the default level)
  SUMMARY   one line for `cudnnlint rules`, the README and SARIF

Writes, under --root (default: the repository holding this script):
  rules/FAMILY/RULE_ID.cpp        check_<Name>(): walks the facts; the condition is yours to write
  rules/rules.def                 one row appended (the typed id, the registry, the declaration)
  kb/DOMAIN/SLUG.json             a stub that passes kb/schema.json, marked ai_generated with a
                                  TODO in every text: replace it with the measured, cited entry
  tests/fixtures/rules/RULE_ID.py (or .cpp) with an `# expect:` line to fill in

The message snapshot (tests/snapshots/rules/RULE_ID.txt) is written by the first test run, which
fails until you read it and commit it. Nothing is overwritten: an existing file is an error.
Exit status 0 on success, 1 when something exists already or an argument is malformed, 2 on usage.
"""

from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path

RULE_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")
FAMILY = re.compile(r"^[a-z][a-z0-9_]*$")
KB_ID = re.compile(r"^[a-z0-9]+/[a-z0-9][a-z0-9-]*$")
LEVELS = ("Note", "Warning", "Error")


def camel(rule_id: str) -> str:
    return "".join(part.capitalize() for part in rule_id.split("-"))


def rule_source(rule_id: str, name: str, summary: str) -> str:
    return f"""// {rule_id}: {summary}
// TODO: say what the framework or cuDNN does, with the version measured and the KB entry.
#include "rules/rule.h"

namespace cudnnlint {{

void check_{name}(const RuleInput& input, std::vector<Finding>& out) {{
  (void)input;
  (void)out;
  // TODO: for each fact this rule reads (input.facts.<kind>), decide, then
  //   Finding finding = make_finding(RuleId::{name}, <location>);
  //   finding.message = "...";  // what will happen, on which framework and version
  //   finding.target_note = "...";
  //   out.push_back(std::move(finding));
}}

}}  // namespace cudnnlint
"""


def registry_row(rule_id: str, name: str, family: str, kb_id: str, level: str, summary: str) -> str:
    return (f"CUDNNLINT_RULE({name}, \"{rule_id}\", {family}, \"{kb_id}\", {level},\n"
            f"               {json.dumps(summary)})\n")


def kb_stub(kb_id: str, rule_id: str, summary: str) -> dict:
    domain = kb_id.split("/")[0]
    today = datetime.date.today().isoformat()
    todo = f"TODO ({rule_id}): {summary}"
    return {
        "id": kb_id,
        "signature": todo,
        "signature_zh": "TODO",
        "regex": "",
        "domain": domain,
        "category": "todo",
        "subcategory": None,
        "root_cause": "TODO: the mechanism, measured on the real framework or cuDNN, with versions.",
        "root_cause_type": "user_config",
        "root_cause_zh": "TODO",
        "versions": [],
        "os_specific": {},
        "dead_ends": [],
        "dead_ends_zh": [],
        "workarounds": [],
        "workarounds_zh": [],
        "transition_graph": {"leads_to": [], "preceded_by": [], "frequently_confused_with": []},
        "official_doc_url": None,
        "official_doc_section": None,
        "error_code": None,
        "verification_tier": "ai_generated",
        "confidence": 0.0,
        "fix_success_rate": 0.0,
        "resolvable": "unknown",
        "first_seen": today,
        "last_confirmed": today,
        "last_updated": today,
        "evidence_count": 0,
        "tags": [domain, "todo"],
        "locale": "en",
        "aliases": [],
        "sources": [{"title": "TODO: cite the source of every claim", "url": None,
                     "claim": "TODO: what the source establishes", "evidence": "unconfirmed"}],
    }


def fixture(rule_id: str, kind: str) -> str:
    if kind == "cpp":
        return (f"// {rule_id}: TODO one line on what this fixture shows.\n"
                f"// Mark each line that must give a finding with a trailing comment: expect: {rule_id}\n")
    return (f"# {rule_id}: TODO one line on what this fixture shows.\n"
            f"# Mark each line that must give a finding with a trailing comment: expect: {rule_id}\n")


def main(argv: list[str]) -> int:
    args = list(argv[1:])
    root = Path(__file__).resolve().parent.parent
    kind = "py"
    for flag in ("--root", "--fixture"):
        if flag in args:
            at = args.index(flag)
            if at + 1 >= len(args):
                print(__doc__, file=sys.stderr)
                return 2
            value = args[at + 1]
            del args[at:at + 2]
            if flag == "--root":
                root = Path(value)
            else:
                kind = value
    if len(args) != 5 or kind not in ("py", "cpp"):
        print(__doc__, file=sys.stderr)
        return 2
    rule_id, family, kb_id, level, summary = args
    problems = []
    if not RULE_ID.match(rule_id):
        problems.append(f"rule id {rule_id!r} is not kebab-case with at least two words")
    if not FAMILY.match(family):
        problems.append(f"family {family!r} is not a folder name")
    if not KB_ID.match(kb_id):
        problems.append(f"KB id {kb_id!r} is not domain/slug")
    if level not in LEVELS:
        problems.append(f"level {level!r} is not one of {', '.join(LEVELS)}")
    if not summary.strip() or "\n" in summary:
        problems.append("the summary must be one non-empty line")
    registry = root / "rules" / "rules.def"
    if not registry.exists():
        problems.append(f"{registry} does not exist (--root must be the repository)")
    elif f'"{rule_id}"' in registry.read_text(encoding="utf-8"):
        problems.append(f"{rule_id} is already in rules/rules.def")
    name = camel(rule_id)
    code = root / "rules" / family / f"{rule_id}.cpp"
    kb = root / "kb" / (kb_id + ".json")
    fixture_path = root / "tests" / "fixtures" / "rules" / f"{rule_id}.{kind}"
    for path in (code, fixture_path):
        if path.exists():
            problems.append(f"{path} exists already")
    if problems:
        for problem in problems:
            print(f"scaffold.py: {problem}", file=sys.stderr)
        return 1
    code.parent.mkdir(parents=True, exist_ok=True)
    code.write_text(rule_source(rule_id, name, summary), encoding="utf-8")
    with registry.open("a", encoding="utf-8") as out:
        out.write(registry_row(rule_id, name, family, kb_id, level, summary))
    written = [code, registry]
    if not kb.exists():
        kb.parent.mkdir(parents=True, exist_ok=True)
        kb.write_text(json.dumps(kb_stub(kb_id, rule_id, summary), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(kb)
    fixture_path.parent.mkdir(parents=True, exist_ok=True)
    fixture_path.write_text(fixture(rule_id, kind), encoding="utf-8")
    written.append(fixture_path)
    for path in written:
        print(f"scaffold.py: wrote {path}")
    print("scaffold.py: next: write the check, the fixture's cases and the KB entry; then ./test.sh writes the "
          "snapshot (the run fails until you read and commit it)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
