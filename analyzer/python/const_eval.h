// Constant folding of Python expressions to numbers: literals in every spelling (1e-6,
// .000001, 1_000, 0x10), unary and binary arithmetic (10**-6, 1/1e6, -1e-5), and names
// bound once to a constant in an enclosing scope. The result records where each name it
// read was defined (provenance).
#pragma once

#include "core/facts.h"
#include "core/source_file.h"
#include "python/scopes.h"

#include <optional>
#include <span>
#include <string_view>

namespace cudnnlint::python {

// Maps tree nodes to user-facing locations. The tree was parsed from the file's text after
// any byte-order mark; `base` re-adds that offset.
struct NodeLocator {
  const SourceFile& file;
  std::string_view source;  // file.text() after the BOM
  std::size_t base = 0;

  Location locate(TSNode node) const {
    return Location{file.path(), file.range(ts_node_start_byte(node) + base, ts_node_end_byte(node) + base)};
  }
};

class ConstantFolder {
 public:
  ConstantFolder(const NodeLocator& locator, const ScopeTree& scopes) : locator_(locator), scopes_(scopes) {}

  // Folds `expression` as seen from `scope`; nullopt when it is not a compile-time number.
  // `shadowed` names are bound by an enclosing lambda or comprehension at the use site.
  std::optional<ConstantValue> fold(TSNode expression, const Scope* scope,
                                    std::span<const std::string_view> shadowed = {}) const;

 private:
  std::optional<ConstantValue> fold_at_depth(TSNode expression, const Scope* scope, int depth,
                                             std::span<const std::string_view> shadowed) const;
  const NodeLocator& locator_;
  const ScopeTree& scopes_;
};

// Parses a Python integer or float literal's text; nullopt for imaginary or malformed ones.
std::optional<double> parse_python_number(std::string_view literal);

}  // namespace cudnnlint::python
