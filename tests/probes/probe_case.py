"""One probe case as a JSON line: its result, or the exception it raised (a refusal is a result)."""
import json


def case(name, fn):
    row = {"case": name}
    try:
        row["result"] = fn()
    except Exception as exc:
        lines = str(exc).splitlines() or [""]
        row["error"] = f"{type(exc).__name__}: {lines[0][:220]}"
    print(json.dumps(row), flush=True)
