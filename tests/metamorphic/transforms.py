"""Source-to-source transforms of a Python fixture for the metamorphic harness (issue 34).

Each transform takes a `Source` (the fixture's text, parsed) and the lines of its expected findings
(`sites`), and returns either a `Variant` -- the new text, a line map (old line -> new line), what it
did to each site, and any extra files to write beside the variant -- or a `Skip` saying why it does
not apply. Transforms are generic: they know where the findings are (their lines), never which
rule they are or what the analyzer looks for.

Edits are textual and keep every original line (indentation added, text spliced, lines inserted or
moved as blocks), so a finding on a line can be followed through `line_map`. `ast` is used only to
find statements, functions and literals; nothing is rebuilt with `ast.unparse`.
"""
from __future__ import annotations

import ast
import io
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


class Editor:
    def __init__(self, src: Source):
        self.src = src
        self.indent = defaultdict(int)        # line -> spaces added
        self.char_edits = defaultdict(list)   # line -> [(start_char, end_char, text)]
        self.before = defaultdict(list)       # line -> lines inserted before it (absolute indentation)
        self.after = defaultdict(list)        # line -> lines inserted after it

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
        for item in order:
            if isinstance(item, str):
                out.append(item)
                continue
            n, extra = item if isinstance(item, tuple) else (item, 0)
            pad = " " * extra
            out.extend(pad + t if t.strip() else t for t in self.before[n])
            text = self.text_of(n)
            k = self.indent[n] + extra
            if k and text.strip() and n not in self.src.string_interior:
                text = " " * k + text
            out.append(text)
            line_map[n] = len(out)
            out.extend(pad + t if t.strip() else t for t in self.after[n])
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
    found = []
    for node in ast.walk(src.tree):
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


def _hoist(src, sites, spell_use):
    """Replace the literals of the flagged lines by names: (editor, [(name, literal text)], touched),
    or a Skip."""
    ed = Editor(src)
    found, touched = _literals(src, sites)
    if not found:
        return Skip("no numeric literal on any flagged line")
    defs = []
    for s, lits in sorted(found.items()):
        for k, (node, a, b, text) in enumerate(lits):
            name = fresh(src, f"MM_C{s}_{k}")
            defs.append((name, text))
            ed.char_edits[s].append((a, b, spell_use(name)))
        touched[s] = None
    return ed, defs, touched


def hoist_module_constant(src, sites, **_):
    """Each numeric literal on a flagged line hoisted into a module constant (after the imports)."""
    hoisted = _hoist(src, sites, lambda n: n)
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    if not insert_at_header(ed, [f"{n} = {t}" for n, t in defs]):
        return Skip("empty module")
    return _variant(ed, touched)


def _consts_file(defs):
    return '"""Constants hoisted by the metamorphic harness."""\n' + "".join(f"{n} = {t}\n" for n, t in defs)


def hoist_imported_name(src, sites, module="consts", **_):
    """Each numeric literal on a flagged line hoisted into a constant of a second module, written beside
    the variant, imported by name (`from consts import X`)."""
    hoisted = _hoist(src, sites, lambda n: n)
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    if not insert_at_header(ed, [f"from {module} import " + ", ".join(n for n, _ in defs)]):
        return Skip("empty module")
    return _variant(ed, touched, extra_files={module + ".py": _consts_file(defs)})


def hoist_module_attribute(src, sites, module="consts", **_):
    """Each numeric literal on a flagged line hoisted into a constant of a second module, written beside
    the variant, read as a module attribute (`import consts; consts.X`)."""
    hoisted = _hoist(src, sites, lambda n: f"{module}.{n}")
    if isinstance(hoisted, Skip):
        return hoisted
    ed, defs, touched = hoisted
    if not insert_at_header(ed, [f"import {module}"]):
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

TRANSFORMS = {
    "identity": identity,
    "into_function": into_function,
    "into_method": into_method,
    "into_nested_function": into_nested_function,
    "with_no_grad": with_no_grad,
    "try_except_raise": try_except_raise,
    "if_main": if_main,
    "for_range_one": for_range_one,
    "hoist_module_constant": hoist_module_constant,
    "hoist_imported_name": hoist_imported_name,
    "hoist_module_attribute": hoist_module_attribute,
    "hoist_parameter_default": hoist_parameter_default,
    "prepend_long_function": prepend_long_function,
    "prepend_unrelated_class": prepend_unrelated_class,
    "module_docstring": module_docstring,
}
