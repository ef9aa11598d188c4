// Import and alias resolution for one Python module: which local name stands for which
// fully qualified module or object (`import torch.nn as nn` binds nn -> torch.nn).
#pragma once

#include "python/syntax.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cudnnlint::python {

struct Scope;

// Where a module sits in its project, so that relative imports can be made absolute.
struct ModuleContext {
  std::string name;         // "pkg.sub.mod"; "" when unknown (relative imports are then ignored)
  bool is_package = false;  // an __init__.py: `from . import x` starts at the module itself
};

// `from ..a import b` seen from `context`: the absolute module ("pkg.a"), or "" when it climbs
// above the top package or the module's name is unknown.
std::string absolute_module(const ModuleContext& context, int level, std::string_view relative);

// Imports bind names in the scope that holds them: a function-local `from .a import EPS` is not
// the module's EPS.
class ImportTable {
 public:
  explicit ImportTable(ModuleContext context = {}) : context_(std::move(context)) {}
  // Records the bindings one import_statement or import_from_statement node makes in `scope`.
  // `star_candidates` are the qualified names a `from M import *` may bind (API names).
  void add_statement(TSNode statement, std::string_view source, const std::vector<std::string>& star_candidates,
                     const Scope* scope);

  void bind(const Scope* scope, std::string local, std::string qualified);
  // The qualified name an import in `scope` binds to `local`, if any.
  std::optional<std::string_view> lookup(std::string_view local, const Scope* scope) const;
  // Whether `scope` binds `local` by `times` imports, all of one module (`import torch` and `import
  // torch.nn` both bind `torch` to torch).
  bool imported_alike(std::string_view local, const Scope* scope, std::uint32_t times) const;
  // Modules imported with `from M import *` (absolute names).
  const std::vector<std::string>& star_modules() const { return star_modules_; }

 private:
  ModuleContext context_;
  struct Bound {
    const Scope* scope;
    std::string qualified;
    std::uint32_t times = 1;  // imports binding the name in the scope
    bool same = true;         // all of them to `qualified`
  };
  std::unordered_map<std::string, std::vector<Bound>> bindings_;
  std::vector<std::string> star_modules_;
};

// The modules an import line of `source` may load, read from its text (no parse): `import a.b`
// gives "a" and "a.b"; `from .c import d, e` gives "pkg.c", "pkg.c.d" and "pkg.c.e" (d may be a
// submodule). In order of appearance, without repeats. Imports anywhere count (inside a def
// too): this decides which files to read, and reading one more is harmless.
std::vector<std::string> imported_module_candidates(std::string_view source, const ModuleContext& context);

// What a module's text may bind to a number at module level (at column 0, or in a module-level
// statement's block such as `try:`; not in a def or a class), read by the first pass of every file
// so that the project step knows, without reading a file again, which modules may export a
// constant another module imports.
struct NumericBindings {
  // Names bound to a numeric expression: `EPS = 1e-5`, `N: int = 64`, `EPS = float("1e-8")`.
  std::vector<std::string> numbers;
  // Names bound to a name, an attribute or a subscript, with its last name or key: `EPS = MM_EPS`,
  // `EPS = consts.MM_EPS`, `EPS = args.eps`, `EPS = cfg["model"]["eps"]` give (EPS, MM_EPS), (EPS,
  // MM_EPS), (EPS, eps), (EPS, eps). A number where that leaf is one (the project step decides).
  std::vector<std::pair<std::string, std::string>> aliases;
  // Where an alias reads an args-like object: the dests of the module's `add_argument` calls whose
  // default is a number.
  std::vector<std::string> flags;
};
NumericBindings numeric_bindings(std::string_view text);

// "torch . nn" (dotted_name text may hold spaces or comments) -> "torch.nn".
std::string normalize_dotted(std::string_view text);

}  // namespace cudnnlint::python
