// Name bindings per Python scope (module, class body, function, lambda), collected in one
// pass before facts are extracted, so a use can find the single assignment that defines a
// name wherever in the module it is written.
#pragma once

#include "python/imports.h"
#include "python/syntax.h"

#include <cstdint>
#include <deque>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cudnnlint::python {

struct Binding {
  std::uint32_t count = 0;  // how many times the scope binds the name (assignments, params, imports, ...)
  TSNode target{};          // the identifier of the first simple `name = value` assignment
  TSNode value{};           // its right-hand side; null when the first binding was not a simple assignment
  TSNode definition{};      // the def / class statement when that is the first binding
  int parameter = -1;       // index into the function scope's `parameters` when a parameter binds it
  bool simple() const { return count == 1 && !ts_node_is_null(value); }
  bool only_definition() const { return count == 1 && !ts_node_is_null(definition); }
  bool only_parameter() const { return count == 1 && parameter >= 0; }
  // The assignment a simple binding comes from (through an unpacking: `a, b = 1, 2`); null if none.
  TSNode assignment() const;
};

// One parameter of a def, as a call binds it.
struct Parameter {
  std::string_view name;
  int index = -1;           // position among the call's arguments, self excluded; -1 keyword-only
  TSNode default_value{};   // null when it has none
  enum class Kind { Normal, Self, VarArgs, VarKeywords } kind = Kind::Normal;
};

// `self.x = value` inside a method of a class.
struct SelfAttribute {
  std::uint32_t count = 0;  // assignments to self.x in all methods
  TSNode value{};           // the first one's right-hand side
  const struct Scope* method = nullptr;  // the method holding it (or the closure of a method that writes it)
};

struct Scope {
  enum class Kind { Module, Class, Function };
  Kind kind = Kind::Module;
  const Scope* parent = nullptr;
  TSNode node{};
  std::string_view name;    // the def's or class's name ("" for the module)
  std::unordered_map<std::string_view, Binding> bindings;
  std::vector<Parameter> parameters;  // functions: in order
  bool has_var_args = false, has_var_keywords = false;
  std::unordered_map<std::string_view, SelfAttribute> self_attributes;  // classes
  bool is_method() const { return kind == Kind::Function && parent != nullptr && parent->kind == Kind::Class; }
};

struct ClassInfo {
  TSNode node{};
  std::string_view name;
  TSNode superclasses{};  // argument_list or null
  const Scope* scope = nullptr;
};

class ScopeTree {
 public:
  // Walks the module once (what `region` keeps of it): scopes, bindings, imports and class
  // definitions.
  void build(TSNode root, std::string_view source, ImportTable& imports,
             const std::vector<std::string>& star_candidates, RegionFilter region = {});

  const Scope& module() const { return scopes_.front(); }
  // Module-level names bound by definitions that were not parsed (see python/regions.h).
  void add_module_bindings(std::span<const std::string_view> names);
  // The scope a function_definition, lambda or class_definition node opens.
  const Scope* scope_of(TSNode definition) const;
  // The binding of `name` visible from `from`, following Python's rule that class bodies are
  // not visible from nested functions. Returns {nullptr, nullptr} when no scope binds it.
  std::pair<const Scope*, const Binding*> lookup(const Scope* from, std::string_view name) const;
  const std::vector<ClassInfo>& classes() const { return classes_; }
  const ClassInfo* module_class(std::string_view name) const;

 private:
  Scope& open(Scope::Kind kind, TSNode node, Scope* parent);
  void bind_target(Scope& scope, TSNode target, std::string_view source, int depth = 0);
  bool bind_unpacked(Scope& scope, TSNode left, TSNode right, std::string_view source);
  void bind_parameters(Scope& scope, TSNode parameters, std::string_view source);
  void note_self_attribute(Scope& method, TSNode target, TSNode value, std::string_view source);
  void note_self_targets(Scope& method, TSNode target, TSNode value, std::string_view source);
  // Walrus targets anywhere in `expression` (`if (eps := ...)` binds eps in the scope).
  void bind_walrus(Scope& scope, TSNode expression, std::string_view source);
  // Every name in a match statement's case pattern.
  void bind_pattern_names(Scope& scope, TSNode pattern, std::string_view source);
  std::deque<Scope> scopes_;
  std::unordered_map<std::uint64_t, Scope*> by_node_;
  std::vector<ClassInfo> classes_;
};

}  // namespace cudnnlint::python
