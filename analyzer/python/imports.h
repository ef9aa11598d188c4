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

class ImportTable {
 public:
  // Records the bindings of one import_statement or import_from_statement node.
  // `star_candidates` are the qualified names a `from M import *` may bind (API names).
  void add_statement(TSNode statement, std::string_view source, const std::vector<std::string>& star_candidates);

  void bind(std::string local, std::string qualified);
  // The qualified name bound to `local`, if any.
  std::optional<std::string_view> lookup(std::string_view local) const;
  // Top-level modules named by any import ("torch", "tensorflow", ...), in first-seen order.
  const std::vector<std::string>& top_modules() const { return top_modules_; }

 private:
  void note_module(std::string_view dotted);
  std::unordered_map<std::string, std::string> bindings_;
  std::vector<std::string> top_modules_;
};

// "torch . nn" (dotted_name text may hold spaces or comments) -> "torch.nn".
std::string normalize_dotted(std::string_view text);

}  // namespace cudnnlint::python
