"""Transforms of a C/C++ rule fixture for the metamorphic harness (issue 34).

Only the transforms that apply to C++ as naturally as to Python, under the same names where they mean
the same: the control, the file's code wrapped in a namespace, a function's body moved into a static
helper that the function calls, a numeric literal hoisted into a `constexpr` constant, and an unrelated
function added before the code. The wrappers of Python (`with`, `try`, loops) and its spellings (imports,
keyword arguments, chains) have no C++ counterpart in these fixtures.

There is no C++ parser here: the fixtures are small, and the edits lean on their layout (top-level
functions start at column 0 and end with `}` at column 0, preprocessor lines before the code). Every
edit keeps each original line, as the Python transforms do, and returns a transforms.Variant.
"""
from __future__ import annotations

import re

from transforms import Editor, Skip, Variant

NUMBER = re.compile(r"(?<![\w.])(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fFlLuU]*(?![\w.])")
FUNCTION_HEAD = re.compile(r"^(?P<ret>[A-Za-z_][\w:<>,&*\s]*?[\s&*])(?P<name>[A-Za-z_]\w*)\s*\((?P<rest>.*)$")


class CppSource:
    def __init__(self, text: str, name: str = "<fixture>"):
        self.text = text
        self.name = name
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.string_interior = set()


def _code_part(line):
    """The line up to its `//` comment (string literals kept whole)."""
    out, quote, i = [], None, 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                out.append(line[i:i + 2])
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


def _preamble_end(src):
    """The last line of the leading comments, blank lines and preprocessor lines."""
    end = 0
    for n, line in enumerate(src.lines, start=1):
        s = line.strip()
        if not s or s.startswith("//") or s.startswith("#"):
            if s.startswith("#"):
                end = n
            continue
        break
    return end


def _functions(src):
    """Top-level function definitions: (first line, line of `{`, last line, name, head text)."""
    found, n = [], 0
    lines = src.lines
    while n < len(lines):
        line = lines[n]
        m = FUNCTION_HEAD.match(line)
        if m and not line.startswith((" ", "\t", "#", "/")) and not line.rstrip().endswith(";"):
            head_end = n
            while head_end < len(lines) and "{" not in _code_part(lines[head_end]):
                if _code_part(lines[head_end]).rstrip().endswith(";"):
                    head_end = None
                    break
                head_end += 1
            if head_end is not None and head_end < len(lines):
                close = next((k for k in range(head_end + 1, len(lines)) if lines[k].startswith("}")), None)
                if close is not None and _code_part(lines[head_end]).rstrip().endswith("{"):
                    head = " ".join(_code_part(lines[k]).strip() for k in range(n, head_end + 1))
                    found.append((n + 1, head_end + 1, close + 1, m.group("name"), head[:head.rindex("{")].strip()))
                    n = close + 1
                    continue
        n += 1
    return found


def _parameter_names(head):
    inside = head[head.index("(") + 1:head.rindex(")")]
    params, depth, cur = [], 0, ""
    for c in inside:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        params.append(cur)
    names = []
    for p in params:
        p = p.split("=")[0].strip()
        if p in ("", "void"):
            continue
        m = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\])?$", p)
        if not m:
            return None
        names.append(m.group(1))
    return names


def identity(src, sites, **_):
    return Variant(src.text if src.text.endswith("\n") else src.text + "\n",
                   {n: n for n in range(1, len(src.lines) + 1)}, {s: None for s in sites})


def into_namespace(src, sites, **_):
    """Everything after the includes wrapped in `namespace mm_ns { ... }`."""
    end = _preamble_end(src)
    if end >= len(src.lines):
        return Skip("no code after the preprocessor lines")
    ed = Editor(src)
    ed.after[end].extend(["", "namespace mm_ns {"])
    ed.after[len(src.lines)].extend(["", "}  // namespace mm_ns"])
    return Variant(*ed.render(), {s: (None if s > end else "a preprocessor line") for s in sites})


def into_helper_function(src, sites, **_):
    """Each top-level function holding a site renamed to a `static` helper (`f_mm_impl`), and `f`
    defined after it with the same signature, calling the helper with its parameters."""
    ed = Editor(src)
    touched = {s: "not in a top-level function body" for s in sites}
    for first, brace, last, name, head in _functions(src):
        mine = {s for s in sites if brace < s < last}
        if not mine:
            continue
        params = _parameter_names(head)
        if params is None or name == "main":
            continue
        line = src.lines[first - 1]
        m = re.search(r"\b%s\s*\(" % re.escape(name), line)
        if not m:
            continue
        helper = name + "_mm_impl"
        ed.char_edits[first].append((m.start(), m.start() + len(name), helper))
        ed.char_edits[first].append((0, 0, "static "))
        ed.after[last].extend(["", head + " {", f"  return {helper}({', '.join(params)});", "}"])
        for s in mine:
            touched[s] = None
    if not any(t is None for t in touched.values()):
        return Skip("no site in a top-level function")
    text, line_map = ed.render()
    return Variant(text, line_map, touched, edited={n for n, e in ed.char_edits.items() if e})


def hoist_module_constant(src, sites, **_):
    """Each numeric literal on a flagged line hoisted into `constexpr auto MM_C<line>_<k> = <literal>;`
    after the includes (its type is the literal's)."""
    ed = Editor(src)
    touched, defs = {}, []
    end = _preamble_end(src)
    for s in sorted(sites):
        if s <= end:
            touched[s] = "a preprocessor line"
            continue
        line = src.lines[s - 1]
        code = _code_part(line)
        hits = list(NUMBER.finditer(code))
        if not hits:
            touched[s] = "no numeric literal on the flagged line"
            continue
        for k, m in enumerate(hits):
            name = f"MM_C{s}_{k}"
            defs.append(f"constexpr auto {name} = {m.group(0)};")
            ed.char_edits[s].append((m.start(), m.end(), name))
        touched[s] = None
    if not defs:
        return Skip("no numeric literal on any flagged line")
    ed.after[end].extend([""] + defs)
    text, line_map = ed.render()
    return Variant(text, line_map, touched, edited={n for n, e in ed.char_edits.items() if e})


def prepend_long_function(src, sites, **_):
    """An unrelated function of sixty statements after the includes."""
    end = _preamble_end(src)
    body = ["", "static int mm_unrelated_bookkeeping(const int* values, int n) {", "  int total = 0;", "  int count = 0;"]
    for k in range(1, 57):
        body.append(f"  if (n > {k}) total += values[{k % 7}] * {k};" if k % 5 else f"  count += n + {k};")
    body += ["  return total + count;", "}"]
    ed = Editor(src)
    ed.after[end].extend(body)
    return Variant(*ed.render(), {s: (None if s > end else "a preprocessor line") for s in sites})


TRANSFORMS = {
    "identity": identity,
    "into_namespace": into_namespace,
    "into_helper_function": into_helper_function,
    "hoist_module_constant": hoist_module_constant,
    "prepend_long_function": prepend_long_function,
}
