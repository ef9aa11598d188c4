"""Source-to-source transforms of a Python fixture for the metamorphic harness (issue 34).

Each transform takes a `Source` (the fixture's text, parsed) and the lines of its expected findings
(`sites`), and returns either a `Variant` -- the new text, a line map (old line -> new line), what it
did to each site, and any extra files to write beside the variant -- or a `Skip` saying why it does
not apply. Transforms are generic: they know where the findings are (their lines), never which
rule they are. The spelling and layer transforms know framework APIs: by their qualified names
through the module's imports, and, for argument positions, from rules/api_table.json.

Edits are textual and keep every original line (indentation added, text spliced, lines inserted or
moved as blocks), so a finding on a line can be followed through `line_map`. `ast` is used only to
find statements, functions and literals; nothing is rebuilt with `ast.unparse`.
"""
from __future__ import annotations

import ast
import io
import json
import pathlib
import re
import symtable
import tokenize
from collections import defaultdict
from dataclasses import dataclass, field

# ----------------------------------------------------------------------------------------------
# Data


@dataclass
class Variant:
    text: str
    line_map: dict            # original line -> new line (every original line is kept)
    touched: dict             # site line -> None when the transform changed its surroundings, else why not
    extra_files: dict = field(default_factory=dict)   # file name -> text, written beside the variant
    also_at: dict = field(default_factory=dict)       # site line -> {new lines}: other places the finding may
    #                                                   point to (a hoisted parameter default, where the
    #                                                   README says a default's finding points)
    edited: set = field(default_factory=set)          # original lines whose text (not just indentation) changed
    also_in: dict = field(default_factory=dict)       # site line -> {(file name, line)}: the finding may point
    #                                                   into a file written beside the variant (a config key)
    runtime: dict = field(default_factory=dict)       # site line -> why its value is now a run-time choice
    #                                                   (a flag's default, a config file): see run.py's EXEMPT
    notebook: str | None = None                       # the .ipynb file written in place of `text` (whose lines
    #                                                   are then the code cells read as one module)
    cell_starts: dict = field(default_factory=dict)   # notebook: cell number -> the module line before its first


@dataclass
class Skip:
    reason: str


class Source:
    """A fixture's text with what the transforms read from it."""

    def __init__(self, text: str, name: str = "<fixture>"):
        self.text = text
        self.name = name
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.tree = ast.parse(text)
        self.parent = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        self.string_interior = _string_interior_lines(self.tokens)

    # byte offset (what ast gives) -> character offset on a line
    def char_col(self, line: int, byte_col: int) -> int:
        return len(self.lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _string_interior_lines(tokens):
    """Lines that begin inside a multi-line string: indenting them would change the string."""
    interior = set()
    fstring_starts = []
    fs_start = getattr(tokenize, "FSTRING_START", None)
    fs_end = getattr(tokenize, "FSTRING_END", None)
    for tok in tokens:
        if tok.type == tokenize.STRING and tok.start[0] < tok.end[0]:
            interior.update(range(tok.start[0] + 1, tok.end[0] + 1))
        elif fs_start is not None and tok.type == fs_start:
            fstring_starts.append(tok.start[0])
        elif fs_end is not None and tok.type == fs_end and fstring_starts:
            start = fstring_starts.pop()
            interior.update(range(start + 1, tok.end[0] + 1))
    return interior


# ----------------------------------------------------------------------------------------------
# The line editor: per-line indentation, character edits and inserted lines, rendered in the
# original order or in an explicit one; the line map falls out of the rendering.


class Tagged(str):
    """An inserted line that the rendering locates (`Editor.tags`): where a finding may also point."""

    def __new__(cls, text, tag):
        obj = super().__new__(cls, text)
        obj.tag = tag
        return obj


class Editor:
    def __init__(self, src: Source):
        self.src = src
        self.indent = defaultdict(int)        # line -> spaces added
        self.char_edits = defaultdict(list)   # line -> [(start_char, end_char, text)]
        self.before = defaultdict(list)       # line -> lines inserted before it (absolute indentation)
        self.after = defaultdict(list)        # line -> lines inserted after it
        self.tags = defaultdict(set)          # tag -> new lines of the Tagged lines carrying it (after render)

    def text_of(self, n):
        text = self.src.lines[n - 1]
        for start, end, new in sorted(self.char_edits[n], key=lambda e: (e[0], e[1]), reverse=True):
            text = text[:start] + new + text[end:]
        return text

    def render(self, order=None):
        """order: items, each an original line number (int), (line, extra_indent), or a str (a new line)."""
        if order is None:
            order = range(1, len(self.src.lines) + 1)
        out, line_map = [], {}
        self.tags = defaultdict(set)

        def emit(t, pad=""):
            if isinstance(t, Tagged):
                self.tags[t.tag].add(len(out) + 1)
            out.append(pad + t if t.strip() else str(t))

        for item in order:
            if isinstance(item, str):
                emit(item)
                continue
            n, extra = item if isinstance(item, tuple) else (item, 0)
            pad = " " * max(extra, 0)
            for t in self.before[n]:
                emit(t, pad)
            text = self.text_of(n)
            k = self.indent[n] + extra
            if k and text.strip() and n not in self.src.string_interior:
                if k > 0:
                    text = " " * k + text
                else:   # dedent: at most the spaces the line has (inside brackets indentation is free)
                    lead = len(text) - len(text.lstrip(" "))
                    text = text[min(-k, lead):]
            out.append(text)
            line_map[n] = len(out)
            for t in self.after[n]:
                emit(t, pad)
        return "\n".join(out) + "\n", line_map


# ----------------------------------------------------------------------------------------------
# Reading the module


def stmt_start(node):
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])


def is_docstring(node, index):
    return index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
STRUCTURAL = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def is_module_code(node, index):
    """A top-level statement that is code: not an import, a definition or the docstring."""
    return not isinstance(node, STRUCTURAL) and not is_docstring(node, index)


def header_end(src: Source):
    """Last line of the leading docstring / imports (0 when the module starts with something else)."""
    end = 0
    for i, node in enumerate(src.tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or is_docstring(node, i):
            end = node.end_lineno
        else:
            break
    return end


def insert_at_header(ed: Editor, lines):
    """Insert new module-level lines after the docstring and the leading imports."""
    end = header_end(ed.src)
    if end:
        ed.after[end].extend([""] + lines)
    else:
        body = ed.src.tree.body
        if not body:
            return False
        ed.before[stmt_start(body[0])][:0] = lines + [""]
    return True


def top_level_of(src: Source, line: int):
    for i, node in enumerate(src.tree.body):
        if stmt_start(node) <= line <= node.end_lineno:
            return i, node
    return None, None


def body_start(func):
    return stmt_start(func.body[0])


def innermost_function(src: Source, line: int):
    """The innermost def whose body holds `line` (a def's signature belongs to the scope around it)."""
    best = None

    def visit(node):
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if not hasattr(child, "lineno") or not (stmt_start(child) <= line <= (child.end_lineno or child.lineno)):
                continue
            if isinstance(child, FUNCS) and body_start(child) <= line:
                best = child
            visit(child)

    visit(src.tree)
    return best


def module_runs(src: Source):
    """Maximal runs of consecutive top-level code statements: [(first_index, last_index)]."""
    runs, current = [], None
    for i, node in enumerate(src.tree.body):
        if is_module_code(node, i):
            current = [i, i] if current is None else [current[0], i]
        else:
            if current:
                runs.append(tuple(current))
            current = None
    if current:
        runs.append(tuple(current))
    return runs


def binds_torch(src: Source):
    for node in src.tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (alias.asname or alias.name.split(".")[0]) == "torch":
                    return True
        if isinstance(node, ast.ImportFrom):
            if any((a.asname or a.name) == "torch" for a in node.names):
                return True
    return False


def _names_at_module_scope(node):
    """Names a top-level statement reads or binds in the module's own scope (not in nested scopes)."""
    loads, binds = set(), set()

    def visit(n):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            binds.add(n.name)
            for d in n.decorator_list:
                visit(d)
            if isinstance(n, ast.ClassDef):
                for b in n.bases + [k.value for k in n.keywords]:
                    visit(b)
            else:
                for d in n.args.defaults + [d for d in n.args.kw_defaults if d is not None]:
                    visit(d)
            return  # bodies are scopes of their own: read through symtable
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return  # own scopes (symtable)
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else binds).add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                binds.add(a.asname or a.name.split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            binds.add(n.name)
        elif isinstance(n, ast.NamedExpr):
            binds.add(n.target.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            binds.update(n.names)
        for c in ast.iter_child_nodes(n):
            visit(c)

    visit(node)
    return loads, binds


def _globals_of_nested_scopes(src: Source):
    """Per top-level statement index: module names read or bound from inside its nested scopes."""
    result = defaultdict(set)
    table = symtable.symtable(src.text, src.name, "exec")

    def globals_in(t, acc):
        for sym in t.get_symbols():
            if sym.is_global() or sym.is_declared_global():
                acc.add(sym.get_name())
        for child in t.get_children():
            globals_in(child, acc)

    for child in table.get_children():
        index, _ = top_level_of(src, child.get_lineno())
        if index is not None:
            globals_in(child, result[index])
    return result


def split_module(src: Source):
    """(kept, moved) top-level statement indices for moving module code into a function.

    Imports, definitions and the docstring stay at module level, and so does any code statement
    whose names they need (or that rebinds a name they bind): moved into a function those names
    would become its locals and the definitions would no longer see them."""
    body = src.tree.body
    nested = _globals_of_nested_scopes(src)
    loads, binds = {}, {}
    for i, node in enumerate(body):
        loads[i], binds[i] = _names_at_module_scope(node)
        loads[i] |= nested[i]
    kept = {i for i, node in enumerate(body) if not is_module_code(node, i)}
    for i, node in enumerate(body):
        if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(node)) and i not in kept \
                and not isinstance(node, STRUCTURAL):
            kept.add(i)
    changed = True
    while changed:
        changed = False
        need = set().union(*(loads[i] | binds[i] for i in kept)) if kept else set()
        for i in range(len(body)):
            if i not in kept and binds[i] & need:
                kept.add(i)
                changed = True
    moved = [i for i in range(len(body)) if i not in kept]
    return sorted(kept), moved


def _segments(src: Source):
    """Per top-level statement: (first_line, last_line), the lines before it since the previous one
    included (its comments travel with it); plus the lines before the first and after the last."""
    body = src.tree.body
    segs, prev_end = [], 0
    for node in body:
        start = prev_end + 1
        segs.append((start, node.end_lineno))
        prev_end = node.end_lineno
    return segs, prev_end


def _numeric(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex)) \
        and not isinstance(node.value, bool)


def numeric_literals_on_line(src: Source, line: int):
    """Numeric literals (with their sign) written on `line`, left to right: call arguments, operands,
    assigned values. Literals in f-strings, match patterns and annotations are left alone."""
    if not hasattr(src, "literals_by_line"):
        src.literals_by_line = defaultdict(list)
        for node in ast.walk(src.tree):
            if _numeric(node) or (isinstance(node, ast.UnaryOp) and _numeric(node.operand)):
                src.literals_by_line[node.lineno].append(node)
    found = []
    for node in src.literals_by_line.get(line, ()):
        target = None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) and _numeric(node.operand):
            target = node
        elif _numeric(node):
            parent = src.parent.get(node)
            if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, (ast.USub, ast.UAdd)):
                continue
            target = node
        if target is None or target.lineno != line or target.end_lineno != line:
            continue
        skip, child, up = False, target, src.parent.get(target)
        while up is not None:
            if isinstance(up, (ast.JoinedStr, ast.MatchValue)) or (
                    isinstance(up, (ast.arg, ast.AnnAssign)) and getattr(up, "annotation", None) is child) or (
                    isinstance(up, FUNCS) and up.returns is child):
                skip = True
                break
            child, up = up, src.parent.get(up)
        if not skip:
            found.append(target)
    found.sort(key=lambda n: n.col_offset)
    return found


def literal_text(src: Source, node):
    line = src.lines[node.lineno - 1]
    a, b = src.char_col(node.lineno, node.col_offset), src.char_col(node.lineno, node.end_col_offset)
    return a, b, line[a:b]


def enclosing_function_of(src: Source, node):
    """The def whose body evaluates `node` (None at module level or in a class body)."""
    child, up = node, src.parent.get(node)
    while up is not None:
        if isinstance(up, FUNCS) and child in up.body:
            return up
        if isinstance(up, ast.ClassDef) and child in up.body:
            return None
        child, up = up, src.parent.get(up)
    return None


def fresh(src: Source, base):
    name, k = base, 1
    while re.search(r"\b%s\b" % re.escape(name), src.text):
        name, k = f"{base}{k}", k + 1
    return name


def _variant(ed: Editor, touched, order=None, **kw):
    text, line_map = ed.render(order)
    return Variant(text, line_map, touched, edited={n for n, e in ed.char_edits.items() if e}, **kw)


# ----------------------------------------------------------------------------------------------
# (0) The control: the fixture as it is (checks that batching the variants changes nothing).


def identity(src, sites, **_):
    return Variant(src.text if src.text.endswith("\n") else src.text + "\n",
                   {n: n for n in range(1, len(src.lines) + 1)}, {s: None for s in sites})


# ----------------------------------------------------------------------------------------------
# (1) Scope: module code moved into a function / a method / a nested function; functions moved
# into a method of a plain class / their body into a nested function.


def _move_module_code(src, sites, wrapper, ed=None):
    ed = ed or Editor(src)
    body = src.tree.body
    if not body:
        return None, {}, "empty module"
    starts = [stmt_start(n) for n in body]
    if any(starts[k + 1] <= body[k].end_lineno for k in range(len(body) - 1)):
        return ed, {}, "two top-level statements share a line"
    kept, moved = split_module(src)
    if not moved:
        return ed, {}, "no module-level code to move (only imports and definitions, or code they need)"
    segs, last = _segments(src)
    names = {"function": fresh(src, "mm_module_code"), "method": fresh(src, "MMModuleCode"),
             "outer": fresh(src, "mm_outer"), "inner": fresh(src, "mm_inner")}
    order = []
    for i in kept:
        order.extend(range(segs[i][0], segs[i][1] + 1))
    order.extend(range(last + 1, len(src.lines) + 1))
    depth = 4 if wrapper == "function" else 8
    if wrapper == "function":
        order += ["", "", f"def {names['function']}():"]
    elif wrapper == "method":
        order += ["", "", f"class {names['method']}:", "    def run(self):"]
    else:
        order += ["", "", f"def {names['outer']}():", f"    def {names['inner']}():"]
    for i in moved:
        order.extend((n, depth) for n in range(segs[i][0], segs[i][1] + 1))
    if wrapper == "function":
        order += ["", "", f"{names['function']}()"]
    elif wrapper == "method":
        order += ["", "", f"{names['method']}().run()"]
    else:
        order += [f"    return {names['inner']}()", "", "", f"{names['outer']}()"]
    touched = {}
    moved_set = set(moved)
    for s in sites:
        i, node = top_level_of(src, s)
        if i in moved_set:
            touched[s] = None
        elif node is not None and is_module_code(node, i):
            touched[s] = "module code that definitions kept at module level need"
        else:
            touched[s] = "inside an import, a definition or a class kept at module level"
    return ed, {"order": order, "touched": touched}, None


def into_function(src, sites, **_):
    """Module code moved into a function, called at the module's end."""
    ed, plan, why = _move_module_code(src, sites, "function")
    if why:
        return Skip(why)
    return _variant(ed, plan["touched"], plan["order"])


def _function_to_method(src, ed, func):
    """A top-level def made a method of a plain class, the module name rebound to the bound method."""
    holder = fresh(src, "MMHolder_" + func.name)
    start = stmt_start(func)
    ed.before[start].append(f"class {holder}:")
    for n in range(start, func.end_lineno + 1):
        ed.indent[n] += 4
    line = src.lines[func.lineno - 1]
    m = re.compile(r"\bdef\s+%s\s*\(" % re.escape(func.name)).search(line, src.char_col(func.lineno, func.col_offset))
    if not m:
        return False
    rest = line[m.end():]
    ed.char_edits[func.lineno].append((m.end(), m.end(), "self" if rest.lstrip().startswith(")") else "self, "))
    ed.after[func.end_lineno].append(f"{func.name} = {holder}().{func.name}")
    return True


def into_method(src, sites, **_):
    """Module code moved into a method of a plain class (called at the end); each top-level function
    holding a site made a method of a plain class of its own, its name rebound to the bound method."""
    ed = Editor(src)
    touched = {}
    converted = set()
    for s in sites:
        i, node = top_level_of(src, s)
        if isinstance(node, FUNCS) and body_start(node) <= s:
            if i not in converted:
                if not _function_to_method(src, ed, node):
                    continue
                converted.add(i)
            touched[s] = None
    _, plan, why = _move_module_code(src, sites, "method", ed)
    for s in sites:
        if s not in touched:
            if isinstance(top_level_of(src, s)[1], ast.ClassDef):
                touched[s] = "in a class already (a method or a class body)"
            else:
                touched[s] = why or plan["touched"][s]
    if not any(t is None for t in touched.values()):
        return Skip("no site in module code or a top-level function" + (f" ({why})" if why else ""))
    return _variant(ed, touched, None if why else plan["order"])


def _assigned_params(func):
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    if func.args.vararg:
        params.add(func.args.vararg.arg)
    if func.args.kwarg:
        params.add(func.args.kwarg.arg)
    assigned = set()

    def visit(n):
        for c in ast.iter_child_nodes(n):
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                assigned.add(c.name)
                continue
            if isinstance(c, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                continue
            if isinstance(c, ast.Name) and not isinstance(c.ctx, ast.Load):
                assigned.add(c.id)
            elif isinstance(c, (ast.Import, ast.ImportFrom)):
                assigned.update(a.asname or a.name.split(".")[0] for a in c.names)
            elif isinstance(c, ast.ExceptHandler) and c.name:
                assigned.add(c.name)
            elif isinstance(c, ast.NamedExpr):
                assigned.add(c.target.id)
            visit(c)

    for stmt in func.body:
        visit(ast.Module(body=[stmt], type_ignores=[]))
    return sorted(params & assigned)


def _uses_zero_arg_super(func):
    for n in ast.walk(ast.Module(body=func.body, type_ignores=[])):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" and not n.args:
            return True
        if isinstance(n, ast.Name) and n.id == "__class__":
            return True
    return False


def _wrap_regions(src, sites, allow_functions=True, allow_module=True):
    """Per site, the block to wrap: the body of the innermost def holding it, or the run of module code
    holding it. Returns ({key: (kind, node_or_run)}, {site: key or reason})."""
    regions, of_site = {}, {}
    runs = module_runs(src)
    for s in sites:
        func = innermost_function(src, s)
        if func is not None:
            if not allow_functions:
                of_site[s] = "inside a function (this wrapper guards module code)"
                continue
            if body_start(func) == func.lineno:
                of_site[s] = "the function's body is on its def line"
                continue
            key = (body_start(func), func.end_lineno)
            regions[key] = ("func", func)
            of_site[s] = key
            continue
        i, node = top_level_of(src, s)
        if node is None or not is_module_code(node, i):
            of_site[s] = "not in module code or a function body (a class body, an import)"
            continue
        if not allow_module:
            of_site[s] = "module code"
            continue
        run = next(r for r in runs if r[0] <= i <= r[1])
        key = (stmt_start(src.tree.body[run[0]]), src.tree.body[run[1]].end_lineno)
        regions[key] = ("run", run)
        of_site[s] = key
    # a region inside another is covered by it
    keys = sorted(regions)
    outer = {}
    for k in keys:
        holder = next((o for o in keys if o != k and o[0] <= k[0] and k[1] <= o[1]), None)
        outer[k] = holder
    for k in keys:
        top = k
        while outer.get(top):
            top = outer[top]
        outer[k] = top
    final = {k: regions[k] for k in keys if outer[k] == k}
    for s, k in of_site.items():
        if isinstance(k, tuple):
            of_site[s] = outer[k]
    return final, of_site


def into_nested_function(src, sites, **_):
    """Module code moved into a function nested in another (both called at the end); the body of each
    def holding a site moved into a function nested in it (`return inner()`), the parameters it
    rebinds declared nonlocal."""
    ed = Editor(src)
    regions, of_site = _wrap_regions(src, sites, allow_module=False)
    touched, done = {}, set()
    for s, k in of_site.items():
        if not isinstance(k, tuple):
            continue
        func = regions[k][1]
        if isinstance(func, ast.AsyncFunctionDef):
            touched[s] = "async def: the nested function would have to be awaited"
            continue
        if _uses_zero_arg_super(func):
            touched[s] = "zero-argument super() needs the method's own frame"
            continue
        touched[s] = None
        if k in done:
            continue
        done.add(k)
        inner = fresh(src, "mm_inner")
        first = body_start(func)
        pad = " " * (len(src.lines[first - 1]) - len(src.lines[first - 1].lstrip()))
        ed.before[first].append(pad + f"def {inner}():")
        rebound = _assigned_params(func)
        if rebound:
            ed.before[first].append(pad + "    nonlocal " + ", ".join(rebound))
        for n in range(first, func.end_lineno + 1):
            ed.indent[n] += 4
        ed.after[func.end_lineno].append(pad + f"return {inner}()")
    _, plan, why = _move_module_code(src, sites, "nested", ed)
    for s in sites:
        if s not in touched:
            touched[s] = plan["touched"][s] if not why else (why if of_site[s] == "module code" else of_site[s])
    if not any(t is None for t in touched.values()):
        return Skip("no site in module code or a function body" + (f" ({why})" if why else ""))
    return _variant(ed, touched, None if why else plan["order"])


# ----------------------------------------------------------------------------------------------
# (2) Wrappers: the block holding the site (a def's body, or the run of module code) wrapped.


def _wrap(src, sites, head, tail=(), allow_functions=True, allow_module=True):
    ed = Editor(src)
    regions, of_site = _wrap_regions(src, sites, allow_functions, allow_module)
    if not regions:
        reasons = sorted({r for r in of_site.values() if isinstance(r, str)})
        return Skip("no site in a wrappable block: " + "; ".join(reasons))
    for (start, end), (kind, _) in regions.items():
        pad = " " * (len(src.lines[start - 1]) - len(src.lines[start - 1].lstrip()))
        ed.before[start].append(pad + head)
        for n in range(start, end + 1):
            ed.indent[n] += 4
        ed.after[end].extend(pad + t for t in tail)
    touched = {s: (None if isinstance(k, tuple) else k) for s, k in of_site.items()}
    return _variant(ed, touched)


def with_no_grad(src, sites, **_):
    """`with torch.no_grad():` around the block holding the site (only where the file binds `torch`)."""
    if not binds_torch(src):
        return Skip("the file does not import torch")
    return _wrap(src, sites, "with torch.no_grad():")


def try_except_raise(src, sites, **_):
    """`try: ... except Exception: raise` around the block holding the site."""
    return _wrap(src, sites, "try:", ("except Exception:", "    raise"))


def if_main(src, sites, **_):
    """`if __name__ == "__main__":` around the run of module code holding the site."""
    return _wrap(src, sites, 'if __name__ == "__main__":', allow_functions=False)


def for_range_one(src, sites, **_):
    """`for _ in range(1):` around the block holding the site."""
    return _wrap(src, sites, "for _ in range(1):")


# ----------------------------------------------------------------------------------------------
# (3) Literals hoisted: every numeric literal written on a site's line.


def _literals(src, sites):
    """{site: [(node, start_char, end_char, text)]}, with a reason for sites that have none."""
    found, touched = {}, {}
    for s in sites:
        lits = [(n, *literal_text(src, n)) for n in numeric_literals_on_line(src, s)]
        if lits:
            found[s] = lits
        else:
            touched[s] = "no numeric literal on the flagged line"
    return found, touched


def _hoist(src, sites, spell_use, base="MM_C", refuse=None):
    """Replace the literals of the flagged lines by names: (editor, [(name, literal text, site)], touched),
    or a Skip. `refuse(text)` names why a literal cannot go where this hoist puts it (None: it can)."""
    ed = Editor(src)
    found, touched = _literals(src, sites)
    if not found:
        return Skip("no numeric literal on any flagged line")
    defs = []
    for s, lits in sorted(found.items()):
        why = None
        for k, (node, a, b, text) in enumerate(lits):
            why = refuse(text) if refuse else None
            if why:
                continue
            name = fresh(src, f"{base}{s}_{k}")
            defs.append((name, text, s))
            ed.char_edits[s].append((a, b, spell_use(name)))
        touched[s] = None if ed.char_edits[s] else why
    if not defs:
        return Skip("no literal on a flagged line can be hoisted there")
    return ed, defs, touched


def hoist_module_constant(src, sites, **_):
    """Each numeric literal on a flagged line hoisted into a module constant (after the imports)."""
    hoisted = _hoist(src, sites, lambda n: n)
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    if not insert_at_header(ed, [f"{n} = {t}" for n, t, _ in defs]):
        return Skip("empty module")
    return _variant(ed, touched)


def _consts_file(defs):
    return '"""Constants hoisted by the metamorphic harness."""\n' + "".join(f"{n} = {t}\n" for n, t, _ in defs)


def hoist_imported_name(src, sites, module="consts", package=False, **_):
    """Each numeric literal on a flagged line hoisted into a constant of a second module, written beside
    the variant, imported by name (`from consts import X`; `from .consts import X` in a package)."""
    hoisted = _hoist(src, sites, lambda n: n)
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    if not insert_at_header(ed, [f"from {'.' if package else ''}{module} import " + ", ".join(n for n, _, _ in defs)]):
        return Skip("empty module")
    return _variant(ed, touched, extra_files={module + ".py": _consts_file(defs)})


def hoist_module_attribute(src, sites, module="consts", package=False, **_):
    """Each numeric literal on a flagged line hoisted into a constant of a second module, written beside
    the variant, read as a module attribute (`import consts; consts.X`; `from . import consts` in a
    package)."""
    hoisted = _hoist(src, sites, lambda n: f"{module}.{n}")
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    if not insert_at_header(ed, [f"from . import {module}" if package else f"import {module}"]):
        return Skip("empty module")
    return _variant(ed, touched, extra_files={module + ".py": _consts_file(defs)})


def _param_insertion(src, func):
    """(line, char, prefix, suffix) where a new defaulted parameter goes in `func`'s signature."""
    toks = src.tokens
    def_line = func.lineno
    def_col = src.char_col(func.lineno, func.col_offset)
    i = next(k for k, t in enumerate(toks) if t.type == tokenize.NAME and t.string == "def"
             and (t.start[0], t.start[1]) >= (def_line, def_col))
    while not (toks[i].type == tokenize.OP and toks[i].string == "("):
        i += 1
    depth, j, star2 = 0, i, None
    while True:
        t = toks[j]
        if t.type == tokenize.OP and t.string in "([{":
            depth += 1
        elif t.type == tokenize.OP and t.string in ")]}":
            depth -= 1
            if depth == 0:
                break
        elif t.type == tokenize.OP and t.string == "**" and depth == 1:
            star2 = t
        j += 1
    if star2 is not None and func.args.kwarg is not None:
        return star2.start[0], star2.start[1], "", ", "
    k = j - 1
    while toks[k].type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
        k -= 1
    prev = toks[k]
    close = toks[j]
    if prev.type == tokenize.OP and prev.string == "(":
        return close.start[0], close.start[1], "", ""
    if prev.type == tokenize.OP and prev.string == ",":
        return close.start[0], close.start[1], " ", ""
    return close.start[0], close.start[1], ", ", ""


def _caller(src, func):
    """Lines of a function that calls `func` without the new parameters (so that the default is used):
    `def mm_call_f(x): return f(x)` beside a function, `def mm_call_m(self, x): return self.m(x)` beside
    a method. None for dunder methods: their callers are the class's own spellings (`Cls(...)`)."""
    in_class = isinstance(src.parent.get(func), ast.ClassDef)
    if in_class and func.name.startswith("__") and func.name.endswith("__"):
        return []
    a = func.args
    positional = a.posonlyargs + a.args
    required = positional[:len(positional) - len(a.defaults)]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)
    params, args = [], []
    if in_class and not static and required:
        required = required[1:]
    for p in required:
        params.append(p.arg)
        args.append(p.arg)
    if a.vararg:
        params.append("*" + a.vararg.arg)
        args.append("*" + a.vararg.arg)
    elif any(d is None for d in a.kw_defaults):
        params.append("*")
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        if d is None:
            params.append(p.arg)
            args.append(f"{p.arg}={p.arg}")
    if a.kwarg:
        params.append("**" + a.kwarg.arg)
        args.append("**" + a.kwarg.arg)
    name = fresh(src, "mm_call_" + func.name)
    pad = " " * src.char_col(func.lineno, func.col_offset)
    target = f"self.{func.name}" if in_class else func.name
    self_param = ["self"] if in_class else []
    return ["", pad + f"def {name}({', '.join(self_param + params)}):",
            pad + f"    return {target}({', '.join(args)})"]


def hoist_parameter_default(src, sites, **_):
    """Each numeric literal on a flagged line, inside a def, hoisted into a new defaulted parameter of
    that def (`mm_p=1e-8`), and a function added beside it that calls it without that parameter
    (`def mm_call_f(x): return f(x)`; for a method, a method calling `self.m(x)`; none for dunder
    methods, which the class's instantiations call). Per the README a default's finding points at the
    default: that line is accepted as well as the use."""
    ed = Editor(src)
    found, touched = _literals(src, sites)
    per_func = defaultdict(list)
    sites_of_func = defaultdict(set)
    for s, lits in sorted(found.items()):
        kept = []
        for k, (node, a, b, text) in enumerate(lits):
            func = enclosing_function_of(src, node)
            if func is None:
                continue
            kept.append((func, node, a, b, text, k))
        if not kept:
            touched[s] = "the flagged line is not inside a function body"
            continue
        for func, node, a, b, text, k in kept:
            name = fresh(src, f"mm_p{s}_{k}")
            ed.char_edits[s].append((a, b, name))
            per_func[id(func)].append((func, name, text))
            sites_of_func[id(func)].add(s)
        touched[s] = None
    if not per_func:
        return Skip("no numeric literal inside a function body on any flagged line")
    also = {}
    default_lines = {}
    for key, items in per_func.items():
        func = items[0][0]
        line, col, prefix, suffix = _param_insertion(src, func)
        params = ", ".join(f"{n}={t}" for _, n, t in items)
        ed.char_edits[line].append((col, col, prefix + params + suffix))
        ed.after[func.end_lineno].extend(_caller(src, func))
        for s in sites_of_func[key]:
            default_lines.setdefault(s, set()).add(line)
    text, line_map = ed.render()
    for s, lines in default_lines.items():
        also[s] = {line_map[n] for n in lines}
    return Variant(text, line_map, touched, also_at=also, edited={n for n, e in ed.char_edits.items() if e})


def _literal_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None


def hoist_argparse_default(src, sites, **_):
    """Each numeric literal on a flagged line made the default of a command-line flag
    (`parser.add_argument("--mm-c14-0", type=float, default=1e-9)`, `args = parser.parse_args()`) and
    read as `args.mm_c14_0`. The parser is built after the imports. A flag can override the default,
    so the value becomes a run-time choice (`Variant.runtime`); the finding may point at the default."""
    args = fresh(src, "args")
    hoisted = _hoist(src, sites, lambda n: f"{args}.{n}", base="mm_c")
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    parser = fresh(src, "parser")
    lines = ["import argparse", "", f"{parser} = argparse.ArgumentParser()"]
    for name, text, s in defs:
        kind = type(_literal_value(text)).__name__
        flag = "--" + name.replace("_", "-")
        lines.append(Tagged(f'{parser}.add_argument("{flag}", type={kind}, default={text})', s))
    lines.append(f"{args} = {parser}.parse_args()")
    if not insert_at_header(ed, lines):
        return Skip("empty module")
    text, line_map = ed.render()
    runtime = {s: "the value is now a command-line flag's default, which a run can override"
               for s, t in touched.items() if t is None}
    return Variant(text, line_map, touched, also_at={s: set(ed.tags[s]) for s in runtime},
                   edited={n for n, e in ed.char_edits.items() if e}, runtime=runtime)


def yaml_scalar(text):
    """The YAML spelling PyYAML (YAML 1.1) reads back as the Python literal `text`, or None."""
    value = _literal_value(text)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return str(value)
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    mantissa, _, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"           # PyYAML reads 1e-09 as a string: a float needs the dot
    if exponent and exponent[0] not in "+-":
        exponent = "+" + exponent  # ... and a signed exponent
    return mantissa + ("e" + exponent if exponent else "")


def hoist_yaml_config(src, sites, uid=0, **_):
    """Each numeric literal on a flagged line moved into a `mm_v<uid>.yaml` beside the variant, loaded with
    `cfg = yaml.safe_load(open(<beside this file>/mm_v<uid>.yaml))` after the imports and read as
    `cfg["mm_v<uid>"]["c14_0"]` (the analyzer documents `cfg["model"]["bn_eps"]` and ties a value to
    code by its key path: the first key is unique across the batch). Floats are written as YAML 1.1
    floats (`1.0e-09`), which PyYAML reads as numbers. The config a run loads is a run-time choice
    (`Variant.runtime`); the finding may point at the config line (`also_in`)."""
    cfg = fresh(src, "cfg")
    top = f"mm_v{uid}"
    hoisted = _hoist(src, sites, lambda n: f'{cfg}["{top}"]["{n}"]', base="c",
                     refuse=lambda t: None if yaml_scalar(t) else "a literal YAML has no number for")
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    # One file per variant module (`mm_v12.yaml`): two modules of a value project in one folder must
    # not overwrite each other's config.
    file_name = f"{top}.yaml"
    config = ["# Values hoisted by the metamorphic harness.", f"{top}:"]
    also_in = defaultdict(set)
    for name, text, s in defs:
        config.append(f"  {name}: {yaml_scalar(text)}")
        also_in[s].add((file_name, len(config)))
    lines = ["import os", "", "import yaml", "",
             f'{cfg} = yaml.safe_load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "{file_name}")))']
    if not insert_at_header(ed, lines):
        return Skip("empty module")
    text, line_map = ed.render()
    runtime = {s: "the value now comes from a config file, and which one a run loads is a run-time choice"
               for s, t in touched.items() if t is None}
    return Variant(text, line_map, touched, extra_files={file_name: "\n".join(config) + "\n"},
                   also_in=dict(also_in), edited={n for n, e in ed.char_edits.items() if e}, runtime=runtime)


# ----------------------------------------------------------------------------------------------
# Readers shared by the transforms below: what the module's imports bind, what a call is.


def _top_imports(src):
    """Import statements at module level, also inside a module-level try/if."""
    out = []

    def visit(stmts):
        for n in stmts:
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                out.append(n)
            elif isinstance(n, ast.Try):
                visit(n.body)
                for h in n.handlers:
                    visit(h.body)
                visit(n.orelse)
                visit(n.finalbody)
            elif isinstance(n, ast.If):
                visit(n.body)
                visit(n.orelse)

    visit(src.tree.body)
    return out


def import_names(src):
    """name -> the qualified name a module-level import binds it to."""
    names = {}
    for node in _top_imports(src):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    names[a.asname] = a.name
                else:
                    root = a.name.split(".")[0]
                    names[root] = root
        elif node.level == 0 and node.module:
            for a in node.names:
                if a.name != "*":
                    names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def qualname(node, names):
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        base = qualname(node.value, names)
        return f"{base}.{node.attr}" if base else None
    return None


def bindings(src, name):
    """Every node that binds (or declares global/nonlocal) `name`, in any scope."""
    if not hasattr(src, "bindings_of"):
        src.bindings_of = {}
    if name not in src.bindings_of:
        src.bindings_of[name] = _bindings(src, name)
    return src.bindings_of[name]


def _bindings(src, name):
    found = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            found.append(node)
        elif isinstance(node, ast.arg) and node.arg == name:
            found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            found.append(node)
        elif isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name:
            found.append(node)
        elif isinstance(node, ast.ExceptHandler) and node.name == name:
            found.append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            found.append(node)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == name:
            found.append(node)
    return found


def binds_in(src, scope, name):
    """Whether `name` is bound in `scope` itself (a def, a lambda or the module)."""
    return any(scope_of(src, b) is scope for b in bindings(src, name)
               if not isinstance(b, (ast.Global, ast.Nonlocal)))


def resolves_to(src, node, name):
    """The scope (a def or the module) whose binding of `name` a load at `node` reads: the innermost
    enclosing def or lambda that binds it (class bodies are skipped: nothing here binds in them), else
    the module."""
    scope = scope_of(src, node)
    while scope is not src.tree:
        if not isinstance(scope, ast.ClassDef) and binds_in(src, scope, name):
            return scope
        scope = scope_of(src, scope)
    return src.tree


def statement_of(src, node):
    """The innermost statement holding `node`."""
    while node is not None and not isinstance(node, ast.stmt):
        node = src.parent.get(node)
    return node


def scope_of(src, node):
    """The innermost def or class holding `node` (the Module at module level)."""
    up = src.parent.get(node)
    while up is not None and not isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
        up = src.parent.get(up)
    return up if up is not None else src.tree


def top_statement(src, node):
    while src.parent.get(node) is not None and not isinstance(src.parent.get(node), ast.Module):
        node = src.parent.get(node)
    return node


def alone_on_its_lines(src, stmt):
    """No other statement shares the statement's first or last line."""
    first = src.lines[stmt.lineno - 1][:src.char_col(stmt.lineno, stmt.col_offset)]
    last = src.lines[stmt.end_lineno - 1][src.char_col(stmt.end_lineno, stmt.end_col_offset):]
    return not first.strip() and (not last.strip() or last.strip().startswith("#"))


def _sites_in(sites, first, last):
    return {s for s in sites if first <= s <= last}


def _touched_by_scope(src, sites, edited_nodes, why):
    """A site is touched when the innermost def holding it (module code: the module) holds an edit."""
    scopes = set()
    for node in edited_nodes:
        f = innermost_function(src, node.lineno)
        scopes.add(id(f) if f is not None else None)
    touched = {}
    for s in sites:
        f = innermost_function(src, s)
        touched[s] = None if (id(f) if f is not None else None) in scopes else why
    return touched


def _node_span(src, node):
    """(line, start char, end char) of a node written on one line, else None."""
    if node.lineno != node.end_lineno:
        return None
    return node.lineno, src.char_col(node.lineno, node.col_offset), src.char_col(node.lineno, node.end_col_offset)


# ----------------------------------------------------------------------------------------------
# (1) Layers built in `__init__` of an nn.Module / keras.Model subclass and applied in forward/call.

TORCH_CONVERSIONS = {"half", "float", "double", "bfloat16", "cuda", "cpu", "to", "eval", "train"}
TORCH_MODULE_USES = TORCH_CONVERSIONS | {"parameters", "named_parameters", "modules", "children", "zero_grad",
                                         "requires_grad_"}
NOT_LAYERS = {"Module", "Parameter", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Input",
              "InputLayer"}
KERAS_LAYER = re.compile(r"^(?:tensorflow\.)?(?:keras|tf_keras)\.(?:layers\.)?[A-Z]\w*$")


def layer_constructor(call, names):
    """(framework, qualified name) when `call` builds a PyTorch or Keras layer or model (for PyTorch,
    possibly followed by conversions: `nn.Linear(4, 2).half()`), else None."""
    node = call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in TORCH_CONVERSIONS and isinstance(node.func.value, ast.Call):
        node = node.func.value
    if not isinstance(node, ast.Call):
        return None
    q = qualname(node.func, names)
    if not q or q.rsplit(".", 1)[-1] in NOT_LAYERS or not q.rsplit(".", 1)[-1][:1].isupper():
        return None
    if q.startswith("torch.nn.") and q.count(".") == 2:
        return "torch", q
    if KERAS_LAYER.match(q) and node is call:
        return "keras", q
    return None


def _base_class(names, framework, layer):
    """How this module spells torch.nn.Module / the keras.Model of the layer's own Keras."""
    local = {}
    for name, q in names.items():
        local.setdefault(q, name)
    if framework == "torch":
        if "torch.nn" in local:
            return local["torch.nn"] + ".Module"
        return local["torch"] + ".nn.Module" if "torch" in local else None
    if layer.startswith("tensorflow."):
        if "tensorflow.keras" in local:
            return local["tensorflow.keras"] + ".Model"
        return local["tensorflow"] + ".keras.Model" if "tensorflow" in local else None
    return local["keras"] + ".Model" if "keras" in local else None


def _function_locals(src, func):
    """Names local to `func` or free in it (bound by an enclosing def), from symtable."""
    if func is None:
        return set()
    if not hasattr(src, "symtable"):
        src.symtable = symtable.symtable(src.text, src.name, "exec")
    table = src.symtable

    def find(t):
        if t.get_type() == "function" and t.get_name() == func.name and t.get_lineno() in (func.lineno, stmt_start(func)):
            return t
        for c in t.get_children():
            hit = find(c)
            if hit is not None:
                return hit
        return None

    t = find(table)
    if t is None:
        return None
    return {s.get_name() for s in t.get_symbols() if s.is_local() or s.is_parameter() or s.is_free()}


def _loads(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _uses_of(src, name, scope):
    """Loads of `name` that read its binding in `scope` (a def, or the module), with the kind of each use."""
    uses = []
    for n in ast.walk(scope):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) \
                and resolves_to(src, n, name) is scope:
            up = src.parent.get(n)
            if isinstance(up, ast.Call) and up.func is n:
                uses.append(("call", up))
            elif isinstance(up, ast.Attribute) and isinstance(src.parent.get(up), ast.Call) \
                    and src.parent.get(up).func is up:
                uses.append(("." + up.attr, src.parent.get(up)))
            else:
                uses.append(("other", n))
    return uses


def into_module_class(src, sites, **_):
    """A PyTorch or Keras layer (or model) that the code builds, moved into the `__init__` of an
    `nn.Module` / `keras.Model` subclass whose `forward` / `call` applies it; the code builds that class
    where it built the layer. `model = nn.Sequential(...)` (any statement lines) becomes
    `self.model = nn.Sequential(...)` in `class MMNet_model(nn.Module)` (a module-level class written
    before the top-level statement that held it) and `model = MMNet_model()` in its place; a layer
    built and applied in one expression (`nn.Conv2d(3, 8, 5)(x)`, on one line) becomes
    `MMNet_...()(x)`, the constructor copied into `__init__`. Only where the layer is built from
    module-level names (not a function's locals), its name is bound once and used only by calls (and,
    for PyTorch, `.parameters()`, `.half()`, `.eval()` and such, which the wrapper forwards to it).
    The finding may also point at the new `__init__` line or at the application in forward."""
    names = import_names(src)
    wraps = []          # dicts
    why_not = {}
    used_names = set()

    def class_name(base):
        name, k = fresh(src, base), 1
        while name in used_names:
            name, k = fresh(src, f"{base}{k}"), k + 1
        used_names.add(name)
        return name

    for stmt in ast.walk(src.tree):
        # `T = <layer>(...)`
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call):
            built = layer_constructor(stmt.value, names)
            if not built:
                continue
            target = stmt.targets[0].id
            lines = (stmt_start(stmt), stmt.end_lineno)
            scope = scope_of(src, stmt)
            if isinstance(scope, (ast.ClassDef, ast.Lambda)):
                why_not[lines] = "a layer built in a class body"
                continue
            func = scope if isinstance(scope, FUNCS) else None
            local = _function_locals(src, func)
            if local is None or _loads(stmt.value) & local:
                why_not[lines] = "the layer is built from a function's local values"
                continue
            if not alone_on_its_lines(src, stmt) or any(n in src.string_interior for n in range(*lines)):
                why_not[lines] = "the statement shares a line with another"
                continue
            mine = [b for b in bindings(src, target) if scope_of(src, b) is scope]
            if len(mine) != 1 or any(isinstance(b, (ast.Global, ast.Nonlocal)) for b in mine):
                why_not[lines] = f"{target} is bound more than once in its scope"
                continue
            uses = _uses_of(src, target, scope)
            allowed = {"call"} | ({"." + m for m in TORCH_MODULE_USES} if built[0] == "torch" else set())
            if any(kind not in allowed for kind, _ in uses):
                why_not[lines] = f"{target} is used otherwise than called"
                continue
            calls = [node for kind, node in uses if kind == "call"]
            one_arg = all(len(c.args) == 1 and not c.keywords and not isinstance(c.args[0], ast.Starred) for c in calls)
            if built[0] == "keras" and not one_arg:
                why_not[lines] = "a Keras layer applied to other than one input"
                continue
            base = _base_class(names, *built)
            if base is None:
                why_not[lines] = "the module does not import the framework's Module/Model class"
                continue
            wraps.append({"kind": "statement", "stmt": stmt, "target": target, "base": base,
                          "framework": built[0], "one_arg": one_arg, "lines": lines,
                          "top": stmt_start(top_statement(src, stmt)),
                          "use_lines": [(stmt_start(statement_of(src, c)), statement_of(src, c).end_lineno)
                                        for _, c in uses]})
        # `<layer>(...)(x)`, the constructor on one line
        elif isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Call):
            ctor = stmt.func
            built = layer_constructor(ctor, names)
            if not built or _node_span(src, ctor) is None:
                continue
            holder = statement_of(src, stmt)
            scope = scope_of(src, stmt)
            if isinstance(scope, (ast.ClassDef, ast.Lambda)):
                continue
            func = scope if isinstance(scope, FUNCS) else None
            local = _function_locals(src, func)
            if local is None or _loads(ctor) & local:
                why_not[(ctor.lineno, ctor.lineno)] = "the layer is built from a function's local values"
                continue
            one_arg = len(stmt.args) == 1 and not stmt.keywords and not isinstance(stmt.args[0], ast.Starred)
            if built[0] == "keras" and not one_arg:
                continue
            base = _base_class(names, *built)
            if base is None:
                continue
            wraps.append({"kind": "inline", "ctor": ctor, "base": base, "framework": built[0], "one_arg": one_arg,
                          "lines": (ctor.lineno, ctor.lineno), "top": stmt_start(top_statement(src, holder)),
                          "use_lines": [(stmt_start(holder), holder.end_lineno)]})
    moved_lines = [w["lines"] for w in wraps if w["kind"] == "statement"]
    wraps = [w for w in wraps if w["kind"] == "statement"
             or not any(a <= w["lines"][0] <= b for a, b in moved_lines)]
    if not wraps:
        reasons = sorted(set(why_not.values()))
        return Skip("builds no PyTorch or Keras layer that can move into a Module/Model"
                    + (": " + "; ".join(reasons) if reasons else ""))

    ed = Editor(src)
    blocks = defaultdict(list)     # original line -> items of the classes written before it
    moved = {}                     # original line of a moved statement -> replacement line (its first) or None
    touched = {s: "no layer built or applied in the flagged statement" for s in sites}
    tag_of_site = defaultdict(set)
    for k, w in enumerate(sorted(wraps, key=lambda w: w["lines"])):
        attr = w["target"] if w["kind"] == "statement" else "layer"
        cls = class_name(f"MMNet_{attr}")
        method = "forward" if w["framework"] == "torch" else "call"
        sig, arg = ("x", "x") if w["one_arg"] else ("*args, **kwargs", "*args, **kwargs")
        init_tag, apply_tag = ("init", k), ("apply", k)
        items = ["", f"class {cls}({w['base']}):", "    def __init__(self):", "        super().__init__()"]
        if w["kind"] == "statement":
            stmt = w["stmt"]
            first, last = w["lines"]
            indent = len(src.lines[first - 1]) - len(src.lines[first - 1].lstrip())
            items.extend((n, 8 - indent) for n in range(first, last + 1))
            col = src.char_col(stmt.targets[0].lineno, stmt.targets[0].col_offset)
            ed.char_edits[stmt.targets[0].lineno].append((col, col, "self."))
            for n in range(first, last + 1):
                moved[n] = None
            moved[first] = " " * indent + f"{w['target']} = {cls}()"
        else:
            line, a, b = _node_span(src, w["ctor"])
            items.append(Tagged(f"        self.layer = {src.lines[line - 1][a:b]}", init_tag))
            ed.char_edits[line].append((a, b, f"{cls}()"))
        items += ["", f"    def {method}(self, {sig}):", Tagged(f"        return self.{attr}({arg})", apply_tag), "", ""]
        blocks[w["top"]].append(items)
        for s in _sites_in(sites, *w["lines"]):
            touched[s] = None
            tag_of_site[s] |= {init_tag, apply_tag}
        for first, last in w["use_lines"]:
            for s in _sites_in(sites, first, last):
                touched[s] = None
                tag_of_site[s].add(apply_tag)
    order = []
    for n in range(1, len(src.lines) + 1):
        for items in blocks.get(n, []):
            order.extend(items)
        if n in moved:
            if moved[n] is not None:
                order.append(moved[n])
            continue
        order.append(n)
    text, line_map = ed.render(order)
    also = {s: {line for tag in tags for line in ed.tags[tag]} for s, tags in tag_of_site.items()}
    return Variant(text, line_map, touched, also_at=also, edited={n for n, e in ed.char_edits.items() if e})


# ----------------------------------------------------------------------------------------------
# (4) Spellings: keyword and positional arguments (positions from rules/api_table.json), imports.

_API = None


def api_table():
    """(qualified name -> [(parameter, index)], method name -> [(framework, [(parameter, index)])],
    framework -> import roots), from rules/api_table.json: where each argument a rule reads sits."""
    global _API
    if _API is None:
        path = pathlib.Path(__file__).resolve().parents[2] / "rules" / "api_table.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        by_name, methods = {}, defaultdict(list)
        roots = {fw: info.get("roots", [fw]) for fw, info in doc["frameworks"].items()}
        for e in doc["apis"]:
            args = [(a["name"], a["index"]) for a in e.get("args", {}).values() if a.get("index") is not None]
            for n in e["names"]:
                if "::" in n or "." not in n:
                    continue   # C++ names
                if e["kind"] == "method":
                    methods[n.rsplit(".", 1)[1]].append((e["framework"], args))
                else:
                    by_name[n] = args
        _API = (by_name, dict(methods), roots)
    return _API


def _api_args(call, names, imported_roots):
    by_name, methods, roots = api_table()
    q = qualname(call.func, names)
    if q in by_name:
        return by_name[q]
    if isinstance(call.func, ast.Attribute) and call.func.attr in methods:
        for fw, args in methods[call.func.attr]:
            if imported_roots & set(roots.get(fw, [fw])):
                return args
    return None


def _api_calls(src):
    names = import_names(src)
    imported_roots = {q.split(".")[0] for q in names.values()}
    for call in ast.walk(src.tree):
        if not isinstance(call, ast.Call):
            continue
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            continue
        args = _api_args(call, names, imported_roots)
        if args:
            yield call, {n: i for n, i in args}, {i: n for n, i in args}


def _spelling_variant(src, sites, ed, calls, what):
    if not calls:
        return Skip(f"no call of rules/api_table.json {what}")
    touched = {s: "no edited call on the flagged line" for s in sites}
    for call in calls:
        for s in _sites_in(sites, call.lineno, call.end_lineno):
            touched[s] = None
    return _variant(ed, touched)


def keyword_to_positional(src, sites, **_):
    """Every call of an API of rules/api_table.json that passes by keyword an argument whose position
    the table knows, right after the positional ones (`nn.BatchNorm2d(32, eps=1e-6)`), passes it by
    position (`nn.BatchNorm2d(32, 1e-6)`); the next ones too while their positions follow."""
    ed = Editor(src)
    calls = []
    for call, index_of, _ in _api_calls(src):
        n = len(call.args)
        kws = sorted(call.keywords, key=lambda k: (k.lineno, k.col_offset))
        done = False
        for i, kw in enumerate(kws):
            if index_of.get(kw.arg) != n + i or kw.lineno != kw.value.lineno:
                break
            a = src.char_col(kw.lineno, kw.col_offset)
            b = src.char_col(kw.value.lineno, kw.value.col_offset)
            ed.char_edits[kw.lineno].append((a, b, ""))
            done = True
        if done:
            calls.append(call)
    return _spelling_variant(src, sites, ed, calls, "passing by keyword an argument it can pass by position")


def positional_to_keyword(src, sites, **_):
    """Every call of an API of rules/api_table.json whose last positional arguments have names the
    table knows passes them by keyword (`DataLoader(ds, -1)` -> `DataLoader(dataset=ds, batch_size=-1)`),
    from the last one back to the first whose name it does not know."""
    ed = Editor(src)
    calls = []
    for call, _, name_of in _api_calls(src):
        done = False
        for i in range(len(call.args) - 1, -1, -1):
            if i not in name_of:
                break
            arg = call.args[i]
            a = src.char_col(arg.lineno, arg.col_offset)
            ed.char_edits[arg.lineno].append((a, a, name_of[i] + "="))
            done = True
        if done:
            calls.append(call)
    return _spelling_variant(src, sites, ed, calls, "passing by position an argument it can name")


TORCH_ROOTS = {"torch", "torchvision"}


def _import_statements(src):
    """Top-level single-line import statements of torch modules, alone on their lines."""
    for node in src.tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno == node.end_lineno \
                and alone_on_its_lines(src, node):
            module = node.names[0].name if isinstance(node, ast.Import) else (node.module or "")
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            if module.split(".")[0] in TORCH_ROOTS:
                yield node


def _bound_only_here(src, name, node):
    return all(b in node.names for b in bindings(src, name))


def _root_only_imported(src, root):
    """`root` is bound only by imports of `root` itself or its submodules (no alias), so `root.x.y` is it."""
    for b in bindings(src, root):
        if not (isinstance(b, ast.alias) and b.asname is None and b.name.split(".")[0] == root):
            return False
    return True


def _replace_statement(src, ed, node, text):
    a = src.char_col(node.lineno, node.col_offset)
    b = src.char_col(node.lineno, node.end_col_offset)
    ed.char_edits[node.lineno].append((a, b, text))


def _name_loads(src, name):
    return [n for n in ast.walk(src.tree) if isinstance(n, ast.Name) and n.id == name]


def _import_variant(src, sites, ed, edited_nodes, what):
    if not edited_nodes:
        return Skip(f"no torch import {what}")
    touched = {}
    tops = {id(top_statement(src, n)) for n in edited_nodes}
    for s in sites:
        _, top = top_level_of(src, s)
        touched[s] = None if top is not None and id(top) in tops else "nothing the import binds is used in the flagged statement"
    return _variant(ed, touched)


def import_from_form(src, sites, **_):
    """`import torch.nn as nn` -> `from torch import nn` (and `import torch.nn.functional as F` ->
    `from torch.nn import functional as F`): the same module object under the same name."""
    ed = Editor(src)
    edited = []
    for node in _import_statements(src):
        if not isinstance(node, ast.Import) or len(node.names) != 1:
            continue
        alias = node.names[0]
        if not alias.asname or "." not in alias.name:
            continue
        package, _, last = alias.name.rpartition(".")
        _replace_statement(src, ed, node, f"from {package} import {last}" +
                           ("" if alias.asname == last else f" as {alias.asname}"))
        edited.append(node)
        edited.extend(_name_loads(src, alias.asname))
    return _import_variant(src, sites, ed, edited, "of the form `import a.b as c`")


def import_dotted_form(src, sites, **_):
    """Each torch import that binds a short name (`import torch.nn as nn`, `from torch.utils.data import
    DataLoader`) becomes `import torch.nn` / `import torch.utils.data`, and every use of the short name
    the full dotted path (`torch.nn.Conv2d`, `torch.utils.data.DataLoader`). Only where the short name is
    bound by that import alone and `torch` by nothing but imports of torch."""
    ed = Editor(src)
    edited = []
    for node in _import_statements(src):
        if isinstance(node, ast.Import):
            if len(node.names) != 1 or not node.names[0].asname:
                continue
            module = node.names[0].name
            renames = {node.names[0].asname: module}
        else:
            if any(a.name == "*" for a in node.names):
                continue
            module = node.module
            renames = {a.asname or a.name: f"{module}.{a.name}" for a in node.names}
        if not _root_only_imported(src, module.split(".")[0]) \
                or not all(_bound_only_here(src, short, node) for short in renames):
            continue
        uses = [n for short in renames for n in _name_loads(src, short)]
        if any(_node_span(src, n) is None for n in uses):
            continue
        _replace_statement(src, ed, node, f"import {module}")
        for n in uses:
            line, a, b = _node_span(src, n)
            ed.char_edits[line].append((a, b, renames[n.id]))
        edited.append(node)
        edited.extend(uses)
    return _import_variant(src, sites, ed, edited, "binding a short name that a dotted path can replace")


def import_name_alias(src, sites, **_):
    """Each attribute read from a torch module imported as a name (`import torch.nn as nn`: `nn.Conv2d`)
    read instead through its own import (`from torch.nn import Conv2d as nn_Conv2d`, written after that
    import line, which stays)."""
    ed = Editor(src)
    edited = []
    taken = set()
    for node in _import_statements(src):
        if not isinstance(node, ast.Import) or len(node.names) != 1 or not node.names[0].asname:
            continue
        short, module = node.names[0].asname, node.names[0].name
        if not _bound_only_here(src, short, node):
            continue
        attrs = [n for n in ast.walk(src.tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                 and n.value.id == short and isinstance(n.ctx, ast.Load) and _node_span(src, n) is not None]
        if not attrs:
            continue
        alias_of = {}
        for attr in sorted({n.attr for n in attrs}):
            name, k = fresh(src, f"{short}_{attr}"), 1
            while name in taken:
                name, k = fresh(src, f"{short}_{attr}{k}"), k + 1
            taken.add(name)
            alias_of[attr] = name
        for n in attrs:
            line, a, b = _node_span(src, n)
            ed.char_edits[line].append((a, b, alias_of[n.attr]))
        ed.after[node.end_lineno].append(f"from {module} import " +
                                         ", ".join(f"{a} as {y}" for a, y in alias_of.items()))
        edited.append(node)
        edited.extend(attrs)
    return _import_variant(src, sites, ed, edited, "of the form `import a.b as c` whose attributes the code reads")


# ----------------------------------------------------------------------------------------------
# (5) Equivalent chains: conversions split or spelled otherwise, an addend spelled `+=` or `x = x + e`.


def chain_split(src, sites, **_):
    """`m = M(...).cuda()` (any conversion of TORCH_CONVERSIONS ending the value, on its last line) ->
    `m = M(...)` and `m = m.cuda()` on a new line after it. The finding may also point at the new line."""
    ed = Editor(src)
    edited, also = [], defaultdict(set)
    for stmt in ast.walk(src.tree):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        value, target = stmt.value, stmt.targets[0].id
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                and value.func.attr in TORCH_CONVERSIONS):
            continue
        inner = value.func.value
        if isinstance(inner, ast.Name) or target in _loads(value) or not alone_on_its_lines(src, stmt):
            continue
        if inner.end_lineno != stmt.end_lineno or value.end_lineno != stmt.end_lineno:
            continue
        line = stmt.end_lineno
        a = src.char_col(line, inner.end_col_offset)
        b = src.char_col(line, value.end_col_offset)
        suffix = src.lines[line - 1][a:b].strip()
        ed.char_edits[line].append((a, b, ""))
        indent = len(src.lines[stmt.lineno - 1]) - len(src.lines[stmt.lineno - 1].lstrip())
        tag = ("split", stmt.lineno)
        ed.after[line].append(Tagged(" " * indent + f"{target} = {target}{suffix}", tag))
        edited.append(stmt)
        for s in _sites_in(sites, stmt.lineno, stmt.end_lineno):
            also[s].add(tag)
    if not edited:
        return Skip("no `m = <expression>.<conversion>(...)`")
    touched = _touched_by_scope(src, sites, edited, "no chain split in the function holding the site")
    text, line_map = ed.render()
    return Variant(text, line_map, touched, also_at={s: {n for t in tags for n in ed.tags[t]} for s, tags in also.items()},
                   edited={n for n, e in ed.char_edits.items() if e})


def module_conversion_spelling(src, sites, **_):
    """A PyTorch module converted in place (`m.half()`, any conversion of TORCH_CONVERSIONS) spelled
    `m = m.half()`, and `m = m.half()` spelled `m.half()`: the same for an nn.Module, whose conversions
    return itself. Only for names every binding of which (in their scope) makes a torch.nn layer."""
    names = import_names(src)
    ed = Editor(src)
    edited = []
    modules = defaultdict(set)    # id(scope) -> names bound to torch.nn layers there
    for stmt in ast.walk(src.tree):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call) and (layer_constructor(stmt.value, names) or ("",))[0] == "torch":
            modules[id(scope_of(src, stmt))].add(stmt.targets[0].id)

    def conversion_of(call, name):
        return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
            and call.func.attr in TORCH_CONVERSIONS and isinstance(call.func.value, ast.Name) \
            and call.func.value.id == name

    for scope_id, scope_names in modules.items():
        for name in scope_names:
            binds = [b for b in bindings(src, name) if id(scope_of(src, b)) == scope_id]
            ok = True
            for b in binds:
                stmt = src.parent.get(b) if isinstance(b, ast.Name) else None
                if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is b and (
                        (layer_constructor(stmt.value, names) or ("",))[0] == "torch" or conversion_of(stmt.value, name))):
                    ok = False
            if not ok:
                continue
            for stmt in ast.walk(src.tree):
                if id(scope_of(src, stmt)) != scope_id or not isinstance(stmt, (ast.Expr, ast.Assign)):
                    continue
                if isinstance(stmt, ast.Expr) and conversion_of(stmt.value, name) and alone_on_its_lines(src, stmt):
                    col = src.char_col(stmt.lineno, stmt.col_offset)
                    ed.char_edits[stmt.lineno].append((col, col, f"{name} = "))
                    edited.append(stmt)
                elif isinstance(stmt, ast.Assign) and conversion_of(stmt.value, name) \
                        and stmt.targets[0].id == name and stmt.lineno == stmt.value.lineno:
                    a = src.char_col(stmt.lineno, stmt.col_offset)
                    b = src.char_col(stmt.lineno, stmt.value.col_offset)
                    ed.char_edits[stmt.lineno].append((a, b, ""))
                    edited.append(stmt)
    if not edited:
        return Skip("no torch.nn module converted as `m.half()` or `m = m.half()`")
    return _variant(ed, _touched_by_scope(src, sites, edited, "no conversion respelled in the function holding the site"))


HALF_METHODS = {"half": "float16", "float": "float32", "double": "float64", "bfloat16": "bfloat16"}
DTYPE_METHOD = {"float16": "half", "half": "half", "float32": "float", "float": "float", "float64": "double",
                "double": "double", "bfloat16": "bfloat16"}


def half_to_dtype(src, sites, **_):
    """In a module that imports torch: `.half()` -> `.to(torch.float16)` (likewise `.float()`, `.double()`,
    `.bfloat16()`) and `.to(torch.float16)` / `.to(dtype=torch.float16)` -> `.half()`: the same
    conversion for a tensor and for a module."""
    names = import_names(src)
    if names.get("torch") != "torch" or not _root_only_imported(src, "torch"):
        return Skip("the module does not bind torch (import torch)")
    ed = Editor(src)
    edited = []
    for call in ast.walk(src.tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        f = call.func
        start = src.char_col(f.end_lineno, f.end_col_offset) - len(f.attr)
        line = f.end_lineno
        if line != call.end_lineno or src.lines[line - 1][start - 1:start] != ".":
            continue
        end = src.char_col(line, call.end_col_offset)
        if f.attr in HALF_METHODS and not call.args and not call.keywords:
            ed.char_edits[line].append((start, end, f"to(torch.{HALF_METHODS[f.attr]})"))
            edited.append(call)
        elif f.attr == "to" and len(call.args) + len(call.keywords) == 1:
            arg = call.args[0] if call.args else (call.keywords[0].value if call.keywords[0].arg == "dtype" else None)
            q = qualname(arg, names) if arg is not None else None
            if q and q.startswith("torch.") and q[6:] in DTYPE_METHOD:
                ed.char_edits[line].append((start, end, f"{DTYPE_METHOD[q[6:]]}()"))
                edited.append(call)
    if not edited:
        return Skip("no .half()/.float()/.double()/.bfloat16() or .to(<torch dtype>)")
    return _variant(ed, _touched_by_scope(src, sites, edited, "no conversion respelled in the function holding the site"))


def swap_dtype_device(src, sites, **_):
    """`.half().cuda()` <-> `.cuda().half()` (a dtype conversion without arguments next to `.cuda(...)`
    or `.cpu()`, on one line): the two commute."""
    ed = Editor(src)
    edited = []
    for outer in ast.walk(src.tree):
        if not (isinstance(outer, ast.Call) and isinstance(outer.func, ast.Attribute)):
            continue
        inner = outer.func.value
        if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)):
            continue
        pair = {inner.func.attr, outer.func.attr}
        dtype, device = pair & set(HALF_METHODS), pair & {"cuda", "cpu"}
        if len(dtype) != 1 or len(device) != 1 or outer.lineno != outer.end_lineno or inner.func.value.end_lineno != outer.lineno:
            continue
        dt_call = inner if inner.func.attr in HALF_METHODS else outer
        if dt_call.args or dt_call.keywords:
            continue
        line = outer.lineno
        text = src.lines[line - 1]
        a = src.char_col(line, inner.func.value.end_col_offset)
        m = src.char_col(line, inner.end_col_offset)
        b = src.char_col(line, outer.end_col_offset)
        ed.char_edits[line].append((a, b, text[m:b] + text[a:m]))
        edited.append(outer)
    if not edited:
        return Skip("no `.half().cuda()` or `.cuda().half()`")
    return _variant(ed, _touched_by_scope(src, sites, edited, "no chain swapped in the function holding the site"))


_NO_SPLIT = (ast.Lambda, ast.IfExp, ast.BoolOp, ast.Compare, ast.ListComp, ast.SetComp, ast.DictComp,
             ast.GeneratorExp, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.JoinedStr)


def _split_addend(src, sites, augmented):
    """The first `<call or arithmetic> + <name or number>` on a flagged line, inside a plain statement,
    computed before that statement into a new variable that then takes the addend (`mm_t += 1e-8` or
    `mm_t = mm_t + 1e-8`); the expression reads the variable. The left side is a fresh value (a call's
    or an operation's result), so adding in place touches nothing else."""
    ed = Editor(src)
    touched = {}
    for s in sites:
        stmt_found = None
        for node in ast.walk(src.tree):
            if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and node.lineno == s == node.end_lineno):
                continue
            if not isinstance(node.left, (ast.Call, ast.BinOp)):
                continue
            right = node.right.operand if isinstance(node.right, ast.UnaryOp) else node.right
            if not (_numeric(right) or isinstance(right, (ast.Name, ast.Attribute))):
                continue
            stmt, up, ok = None, src.parent.get(node), True
            while up is not None and not isinstance(up, ast.stmt):
                if isinstance(up, _NO_SPLIT):
                    ok = False
                up = src.parent.get(up)
            stmt = up
            if not ok or not isinstance(stmt, (ast.Return, ast.Assign, ast.Expr, ast.AugAssign, ast.AnnAssign)) \
                    or not alone_on_its_lines(src, stmt) or isinstance(scope_of(src, stmt), ast.ClassDef):
                continue
            stmt_found = (node, stmt)
            break
        if stmt_found is None:
            touched[s] = "no `<call> + <addend>` on the flagged line in a plain statement"
            continue
        node, stmt = stmt_found
        var = fresh(src, f"mm_t{s}")
        _, a, b = _node_span(src, node)
        text = src.lines[s - 1]
        left = text[a:src.char_col(s, node.left.end_col_offset)]
        right = text[src.char_col(s, node.right.col_offset):b]
        indent = " " * src.char_col(stmt.lineno, stmt.col_offset)
        ed.char_edits[s].append((a, b, var))
        ed.before[stmt_start(stmt)].append(f"{indent}{var} = {left}")
        add = f"{var} += {right}" if augmented else f"{var} = {var} + {right}"
        ed.before[stmt_start(stmt)].append(Tagged(indent + add, s))
        touched[s] = None
    if not any(t is None for t in touched.values()):
        return Skip("no `<call> + <addend>` on a flagged line in a plain statement")
    text, line_map = ed.render()
    return Variant(text, line_map, touched, also_at={s: set(ed.tags[s]) for s, t in touched.items() if t is None},
                   edited={n for n, e in ed.char_edits.items() if e})


def addend_augmented(src, sites, **_):
    """`x / (x.norm() + 1e-8)` -> `mm_t = x.norm()`, `mm_t += 1e-8`, `x / (mm_t)` (see _split_addend)."""
    return _split_addend(src, sites, augmented=True)


def addend_rebound(src, sites, **_):
    """`x / (x.norm() + 1e-8)` -> `mm_t = x.norm()`, `mm_t = mm_t + 1e-8`, `x / (mm_t)`."""
    return _split_addend(src, sites, augmented=False)


# ----------------------------------------------------------------------------------------------
# (6) Unrelated code added before the first statement after the imports.


def _long_function(name):
    body = ["    total = 0", "    count = 0"]
    for k in range(1, 57):
        if k % 7 == 0:
            body.append(f"    if total > {k * 10}:")
            body.append(f"        total -= {k}")
        elif k % 5 == 0:
            body.append(f"    count += len(values) + {k}")
        else:
            body.append(f"    total += {k} * count")
    body.append("    return total, count")
    return ["", f"def {name}(values):", '    """Unrelated bookkeeping, sixty statements long."""'] + body + [""]


def prepend_long_function(src, sites, **_):
    """A 60-statement function that has nothing to do with the fixture, after the imports."""
    ed = Editor(src)
    if not insert_at_header(ed, _long_function(fresh(src, "mm_unrelated_bookkeeping"))):
        return Skip("empty module")
    return _variant(ed, {s: None for s in sites})


def prepend_unrelated_class(src, sites, **_):
    """An unrelated class (a registry with a few methods), after the imports."""
    ed = Editor(src)
    name = fresh(src, "MMUnrelatedRegistry")
    lines = ["", f"class {name}:", '    """Keeps named values."""', "",
             "    def __init__(self):", "        self.items = {}", "        self.order = []", "",
             "    def add(self, key, value):", "        if key not in self.items:",
             "            self.order.append(key)", "        self.items[key] = value", "        return self", "",
             "    def get(self, key, default=None):", "        return self.items.get(key, default)", "",
             "    def __len__(self):", "        return len(self.order)", ""]
    if not insert_at_header(ed, lines):
        return Skip("empty module")
    return _variant(ed, {s: None for s in sites})


def module_docstring(src, sites, **_):
    """A module docstring (four lines) before the first statement."""
    body = src.tree.body
    if not body:
        return Skip("empty module")
    if is_docstring(body[0], 0):
        return Skip("the module already has a docstring")
    ed = Editor(src)
    ed.before[stmt_start(body[0])][:0] = ['"""A module of the metamorphic harness.', "",
                                           "It says what the module is for, over a few lines.", '"""', ""]
    return _variant(ed, {s: None for s in sites})


# ----------------------------------------------------------------------------------------------
# (7) Another kind of file: the module as a Jupyter notebook.


def into_notebook(src, sites, **_):
    """The module as a notebook (nbformat 4, as Jupyter writes it): a Markdown cell, a cell of IPython
    lines (a magic, a shell command), then the module in code cells split where a top-level statement
    follows a blank line, with a Markdown cell before every other one and `%%time` heading the last.
    The variant's text is the module cudnnlint reads from it: each IPython line is `pass`, the `%%time`
    line blank."""
    body = src.tree.body
    if not body:
        return Skip("empty module")
    lines = src.lines
    splits = sorted({stmt_start(node) for node in body[1:]
                     if stmt_start(node) >= 2 and not lines[stmt_start(node) - 2].strip()})
    bounds = [1] + splits + [len(lines) + 1]
    chunks = [lines[bounds[k] - 1:bounds[k + 1] - 1] for k in range(len(bounds) - 1)]
    chunks = [c for c in chunks if c]

    def code(source):
        return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                "source": [line + "\n" for line in source]}

    def markdown(text):
        return {"cell_type": "markdown", "metadata": {}, "source": [text]}

    cells = [markdown("# A notebook of the metamorphic harness"),
             code(["%matplotlib inline", "!pip install -q torch torchvision"])]
    module = ["pass", "pass"]
    cell_starts = {2: 0}
    line_map = {}
    for k, chunk in enumerate(chunks):
        if k % 2 == 1:
            cells.append(markdown(f"## Step {k}"))
        timed = k == len(chunks) - 1 and len(chunks) > 1
        source = (["%%time"] if timed else []) + chunk
        cells.append(code(source))
        cell_starts[len(cells)] = len(module)
        if timed:
            module.append("")
        for line in chunk:
            module.append(line)
            line_map[bounds[0] + len(line_map)] = len(module)
    notebook = {"cells": cells,
                "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
                "nbformat": 4, "nbformat_minor": 5}
    return Variant("\n".join(module) + "\n", line_map, {s: None for s in sites},
                   notebook=json.dumps(notebook, indent=1) + "\n", cell_starts=cell_starts)


# ----------------------------------------------------------------------------------------------

TRANSFORMS = {
    "identity": identity,
    # (1) scope
    "into_function": into_function,
    "into_method": into_method,
    "into_nested_function": into_nested_function,
    "into_module_class": into_module_class,
    # (2) wrappers
    "with_no_grad": with_no_grad,
    "try_except_raise": try_except_raise,
    "if_main": if_main,
    "for_range_one": for_range_one,
    # (3) values from elsewhere
    "hoist_module_constant": hoist_module_constant,
    "hoist_imported_name": hoist_imported_name,
    "hoist_module_attribute": hoist_module_attribute,
    "hoist_parameter_default": hoist_parameter_default,
    "hoist_argparse_default": hoist_argparse_default,
    "hoist_yaml_config": hoist_yaml_config,
    # (4) spellings
    "keyword_to_positional": keyword_to_positional,
    "positional_to_keyword": positional_to_keyword,
    "import_from_form": import_from_form,
    "import_dotted_form": import_dotted_form,
    "import_name_alias": import_name_alias,
    # (5) equivalent chains
    "chain_split": chain_split,
    "module_conversion_spelling": module_conversion_spelling,
    "half_to_dtype": half_to_dtype,
    "swap_dtype_device": swap_dtype_device,
    "addend_augmented": addend_augmented,
    "addend_rebound": addend_rebound,
    # (6) unrelated code
    "prepend_long_function": prepend_long_function,
    "prepend_unrelated_class": prepend_unrelated_class,
    "module_docstring": module_docstring,
    # (7) another kind of file
    "into_notebook": into_notebook,
}
