// Values of Python expressions as far as one module can tell.
//  - Constant folding to numbers: literals in every spelling (1e-6, .000001, 1_000, 0x10),
//    unary and binary arithmetic (10**-6, 1/1e6, -1e-5), float()/int(), and names bound once to
//    a constant in an enclosing scope, with where each name was defined (provenance).
//  - References the project step follows (core/facts.h ValueRef): a name imported from another
//    module, a parameter of a module-level function or class, `self.x` set from an __init__
//    parameter, and attribute or subscript chains off a config-like object (`cfg.MODEL.BN_EPS`,
//    `args.bn_eps`, `config["model"]["eps"]`).
#pragma once

#include "core/facts.h"
#include "core/source_file.h"
#include "python/imports.h"
#include "python/scopes.h"

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>
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

// Numbers one reading of a block gives names that no single assignment fixes: a loop variable on
// one iteration (`for c in (64, 128)`), a name reassigned in the loop (`in_channels = c`), a
// parameter bound at a call of the project function that builds a layer (python/extract/
// layer_stacks.h). The folder reads them first, for names that resolve to `scope`.
struct ConstantBindings {
  const Scope* scope = nullptr;
  std::vector<std::pair<std::string_view, ConstantValue>> values;
  const ConstantValue* find(std::string_view name) const {
    for (const auto& [bound, value] : values)
      if (bound == name) return &value;
    return nullptr;
  }
};

// One call, in the module, of a function whose parameter a reader follows: the argument that binds
// it (or the parameter's default), and the scope that argument is read in.
struct CallSite {
  TSNode call{};
  TSNode argument{};
  const Scope* scope = nullptr;
  bool is_default = false;
  // "`x` is images at this call of test_step", for a provenance step at `call`.
  std::string says(std::string_view parameter, std::string_view source) const;
};

// The module's calls by the name their callee is indexed under.
using CallIndex = std::unordered_map<std::string_view, std::vector<TSNode>>;

class ConstantFolder {
 public:
  // The scope a node of the module stands in.
  const Scope* scope_around(TSNode node) const;
  // `Runner().main` (a method of a new instance of a module class, bound to a name): the method's
  // def; null otherwise.
  TSNode bound_method_definition(TSNode value) const;
  // Whether the text may change an item of the object named `name` (`name[k] = v`, `del name[k]`,
  // `name.update(...)`), read from the text so that both parse modes answer alike.
  bool items_may_change(std::string_view name) const;
  // `self.name` read in a method of a class: the class's one assignment of it; null when there is
  // none or several, or when `scope` is no method whose self the object names.
  const SelfAttribute* self_attribute(TSNode attribute, const Scope* scope) const;
  // The same, when that assignment is the only write of `.name` the text holds (no other object's,
  // no subclass's, no setattr): what the attribute holds wherever the instance is used.
  const SelfAttribute* sole_self_attribute(TSNode attribute, const Scope* scope) const;
  // Every call of `function` (a module-level def, a module class's __init__, or a method of one that
  // only its class's methods call, as `self.name(...)`) in the module with what it binds to
  // `parameter`; nullopt when the function's name stands anywhere in the text but at its definition
  // and these calls, when a call sits in a class (a method's: outside its class), binds it through a
  // splat or leaves it without a default, or when there are none or more than kMaxCallSites. Both parse modes see the same
  // calls (python/regions.cpp include_callers keeps them).
  std::optional<std::vector<CallSite>> call_sites(const Scope& function, const Parameter& parameter) const;
  // When `name`, seen from `scope`, is a parameter of a function: the config node every call of that
  // function in the module hands to it (`build(cfg.model)`: the node `model` off `cfg`), following a
  // parameter handed on to the caller's own calls; a caller that nothing in the module calls hands
  // nothing (NoCalls).
  struct HandedNode {
    enum class Kind { NotAParameter, NoCalls, Node, Unknown } kind = Kind::NoCalls;
    std::string root, path;  // of the node, when kind is Node
    bool saw_node = false;   // some call hands a node (Unknown then means that the calls differ)
  };
  HandedNode handed_config_node(std::string_view name, const Scope* scope, int depth = 0) const;
  // Whether the module's text names `function` (a module-level def) only where it defines it: nothing
  // here calls it or passes it on (an entry point, or a wrapper other modules call). Text, so both
  // parse modes agree.
  bool named_only_at_definition(const Scope& function) const;
  // With `imports`, names of module constants fold too (math.inf, np.nan, `from math import inf`),
  // and with `imported_constants` those of the tree's own modules (`from .consts import EPS`); with
  // `config_constants`, a config read (`cfg["data"]["size"]`) folds to the value the config files give.
  ConstantFolder(const NodeLocator& locator, const ScopeTree& scopes, const ImportTable* imports = nullptr,
                 const ImportedConstants* imported_constants = nullptr,
                 const ConfigConstants* config_constants = nullptr)
      : locator_(locator), scopes_(scopes), imports_(imports), imported_constants_(imported_constants),
        config_constants_(config_constants) {}

  // Folds `expression` as seen from `scope`; nullopt when it is not a compile-time number.
  // `shadowed` names are bound by an enclosing lambda or comprehension at the use site.
  std::optional<ConstantValue> fold(TSNode expression, const Scope* scope,
                                    std::span<const std::string_view> shadowed = {}) const;
  // The truth of a flag the code fixes: `True`, `False` or a number, written or reached as fold
  // reaches numbers (a constant, a config class's attribute, a call's argument); nullopt otherwise.
  std::optional<bool> fold_truth(TSNode expression, const Scope* scope) const;
  // While one lives, a parameter that is not an operand of arithmetic does not fold through the
  // calls of its function: the value is an API argument with a role (an eps, a batch size), which
  // the project step follows call by call across modules as a ForwardingFact (bind_value).
  class ParametersForwarded {
   public:
    ParametersForwarded(const ConstantFolder& folder, TSNode argument)
        : folder_(folder), saved_(folder.forwarded_), saved_argument_(folder.forwarded_argument_) {
      folder_.forwarded_ = true;
      folder_.forwarded_argument_ = argument;
    }
    ~ParametersForwarded() {
      folder_.forwarded_ = saved_;
      folder_.forwarded_argument_ = saved_argument_;
    }
    ParametersForwarded(const ParametersForwarded&) = delete;
    ParametersForwarded& operator=(const ParametersForwarded&) = delete;

   private:
    const ConstantFolder& folder_;
    bool saved_;
    TSNode saved_argument_;
  };
  // While one lives, `read` itself does not fold from the config files: an argument that is a config
  // read as a whole is the project step's to settle, at the config line, once per config file that
  // sets it (ValueEvaluator::evaluate). Config reads inside it still fold.
  class ConfigReadSettledLater {
   public:
    ConfigReadSettledLater(const ConstantFolder& folder, TSNode read)
        : folder_(folder), saved_(folder.settled_later_) {
      folder_.settled_later_ = read;
    }
    ~ConfigReadSettledLater() { folder_.settled_later_ = saved_; }
    ConfigReadSettledLater(const ConfigReadSettledLater&) = delete;
    ConfigReadSettledLater& operator=(const ConfigReadSettledLater&) = delete;

   private:
    const ConstantFolder& folder_;
    TSNode saved_;
  };
  // The bindings read first while set (null: none); Resolver::BindingsVisit sets them for a while.
  const ConstantBindings* bindings() const { return bindings_; }
  void set_bindings(const ConstantBindings* bindings) const { bindings_ = bindings; }

 private:
  std::optional<ConstantValue> fold_at_depth(TSNode expression, const Scope* scope, int depth,
                                             std::span<const std::string_view> shadowed) const;
  std::optional<ConstantValue> module_constant(TSNode node, const Scope* scope,
                                              std::span<const std::string_view> shadowed) const;
  // `object.key` (item: `object["key"]`) where `object` names a class with that class attribute, an
  // instance made without arguments of such a class, a dict built from a display or dict(key=...),
  // a module-level object whose attribute one assignment sets, or a parameter that every call of
  // its function in the module binds to one of these with one value.
  std::optional<ConstantValue> member(TSNode object, std::string_view key, bool item, const Scope* scope, int depth,
                                      std::span<const std::string_view> shadowed) const;
  std::optional<ConstantValue> class_attribute(const Scope* class_scope, std::string_view key, int depth) const;
  // A config read (`cfg.data.size`, `cfg["data"]["size"]`) whose key path the config files give one value.
  std::optional<ConstantValue> config_constant(TSNode node, const Scope* scope,
                                               std::span<const std::string_view> shadowed) const;
  // `return parser.parse_args(...)` as the function's last statement (or its closure's, returned):
  // that call; null otherwise.
  TSNode returned_parse_args(TSNode function, int depth = 0) const;
  std::optional<ConstantValue> argparse_default(TSNode parse_call, const Scope* defining, std::string_view key,
                                                int depth) const;
  std::optional<ConstantValue> init_attribute(const Scope& class_scope, TSNode construction, std::string_view key,
                                              int depth) const;
  std::optional<ConstantValue> fold_extremum(TSNode call, const Scope* scope, int depth,
                                            std::span<const std::string_view> shadowed) const;
  std::optional<ConstantValue> self_class_attribute(const Scope& class_scope, std::string_view key, int depth) const;
  std::optional<ConstantValue> instance_member(const Binding& class_binding, TSNode arguments, std::string_view key,
                                               int depth) const;
  // The qualified name an import binds to `node` (`SimpleNamespace`, `types.SimpleNamespace`).
  std::optional<std::string> imported_qualified(TSNode node, const Scope* scope) const;
  // How a class made of fields (a @dataclass, a NamedTuple: the API table's config_objects) takes
  // them from its construction's arguments; NotAFieldClass for any other class, a large one or one
  // with methods.
  enum class FieldPositions { NotAFieldClass, ByKeyword, ByPositionOrKeyword };
  FieldPositions field_class_kind(const Scope& class_scope) const;
  // What the construction `call` of such a class gives the field `key`: its argument by keyword or
  // position, else the field's default.
  std::optional<ConstantValue> field_member(const Scope& class_scope, FieldPositions positions, TSNode call,
                                            std::string_view key, int depth) const;
  // What a namespace construction (`SimpleNamespace(bn_eps=...)`, `EasyDict({...})`, its class
  // `qualified`) gives `key`, read as an attribute or (`item`) a subscript.
  std::optional<ConstantValue> namespace_member(TSNode call, std::string_view qualified, std::string_view key,
                                                bool item, int depth) const;
  // `argument` of the construction `call`, folded where the call stands, with a step saying that the
  // call "sets `what` to" it.
  std::optional<ConstantValue> constructor_argument(TSNode call, TSNode argument, const std::string& what,
                                                    int depth) const;
  // The value a dict display or dict(...) gives `key` (`found`), with where it is defined.
  std::optional<ConstantValue> keyed_value(std::optional<TSNode> found, TSNode name, const Binding& binding,
                                           std::string_view key, const Scope* defining, int depth) const;
  std::optional<ConstantValue> object_member(TSNode name, const Binding& binding, const Scope* defining,
                                             std::string_view key, bool item, int depth) const;
  // What `read` makes of the argument each call of `function` in the module binds to `parameter`,
  // when every call gives the same number; nullopt when any call is not read, or when the
  // function's name stands anywhere in the text but at its definition and these calls.
  std::optional<ConstantValue> at_call_sites(
      const Scope& function, const Parameter& parameter, int depth,
      const std::function<std::optional<ConstantValue>(TSNode, const Scope*, int)>& read) const;
  // The calls in the module whose callee is the plain name `name` (indexed on first use).
  const std::vector<TSNode>& calls_named(std::string_view name) const;
  // The calls `self.name(...)` in the module (indexed on first use).
  const std::vector<TSNode>& self_calls_named(std::string_view name) const;
  // The calls `name.method(...)` in the module on a plain name other than `self`, and the calls
  // `Name(...).method(...)`, by method.
  const std::vector<TSNode>& instance_calls_named(std::string_view method) const;
  std::optional<std::vector<CallSite>> method_call_sites(const Scope& method, const Parameter& parameter) const;
  const NodeLocator& locator_;
  const ScopeTree& scopes_;
  const ImportTable* imports_ = nullptr;
  const ImportedConstants* imported_constants_ = nullptr;
  const ConfigConstants* config_constants_ = nullptr;
  mutable TSNode settled_later_{};  // ConfigReadSettledLater's read
  mutable bool truth_values_ = false;  // while fold_truth runs: True and False fold to 1 and 0
  mutable const ConstantBindings* bindings_ = nullptr;
  mutable std::optional<CallIndex> calls_, self_calls_, instance_calls_;
  // The module's text with its comments blanked (a comment naming a function calls nothing).
  std::string_view code_text() const;
  mutable std::optional<std::string> code_text_;
  // Whether the text calls setattr or vars, or reaches a __dict__ (read once per module).
  bool attributes_written_dynamically() const;
  mutable std::optional<bool> dynamic_attribute_writes_;
  mutable bool forwarded_ = false;
  mutable TSNode forwarded_argument_{};  // the argument bind_value evaluates, while forwarded_
};

// Folds to a number where possible, else finds the reference a value stands for.
class ValueEvaluator {
 public:
  ValueEvaluator(const NodeLocator& locator, const ScopeTree& scopes, const ImportTable& imports,
                 std::string module, std::span<const std::string> framework_roots,
                 const ImportedConstants* imported_constants = nullptr,
                 const ConfigConstants* config_constants = nullptr)
      : locator_(locator), scopes_(scopes), imports_(imports),
        folder_(locator, scopes, &imports, imported_constants, config_constants),
        module_(std::move(module)), framework_roots_(framework_roots) {}

  const ConstantFolder& folder() const { return folder_; }
  std::optional<ConstantValue> fold(TSNode expression, const Scope* scope,
                                    std::span<const std::string_view> shadowed = {}) const {
    return folder_.fold(expression, scope, shadowed);
  }
  // The value of `expression` at a use in `scope`.
  Value evaluate(TSNode expression, const Scope* scope, std::span<const std::string_view> shadowed = {}) const;

  // The qualified name a project callable is known by: "pkg.mod.fn" for a module-level def,
  // "pkg.mod.Cls" for a module-level class (whose __init__ binds a call's arguments). "" otherwise.
  std::string callable_name(const Scope& function) const;

 private:
  std::optional<ValueRef> reference(TSNode expression, const Scope* scope, std::span<const std::string_view> shadowed,
                                    int depth, std::vector<ProvenanceStep>& steps) const;
  std::optional<ValueRef> parameter_ref(const Scope& function, const Parameter& parameter, int depth) const;
  const SelfAttribute* self_attribute(TSNode attribute, const Scope* scope) const;
  // What an import binds to `name` as seen from `scope`: the defining scope's import, or a
  // module-level one (a star import) when no scope binds the name. nullopt when the name is
  // not bound only by an import.
  std::optional<std::string_view> imported(std::string_view name, const Scope* scope) const;
  std::optional<ValueRef> self_attribute_ref(TSNode attribute, const Scope* scope, int depth,
                                             std::vector<ProvenanceStep>& steps) const;
  std::optional<ValueRef> config_ref(TSNode expression, const Scope* scope, bool imported_root = false) const;
  const NodeLocator& locator_;
  const ScopeTree& scopes_;
  const ImportTable& imports_;
  ConstantFolder folder_;
  std::string module_;
  std::span<const std::string> framework_roots_;
};

// Parses a Python integer or float literal's text; nullopt for imaginary or malformed ones.
std::optional<double> parse_python_number(std::string_view literal);
// What Python's float() makes of a string's content: nan, inf, a decimal; nullopt where it raises.
std::optional<double> parse_python_float_string(std::string_view text);

// The text of a plain string literal without prefix and quotes; nullopt for f-strings,
// concatenations and escapes the analyser does not decode.
std::optional<std::string> string_literal(TSNode node, std::string_view source);

}  // namespace cudnnlint::python
