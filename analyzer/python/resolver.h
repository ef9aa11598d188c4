// The generic half of the Python front-end: one walk over a module that resolves what each
// call names (imports, aliases, local definitions, functools.partial, subclasses, base-class
// __init__, isinstance / type() guards, constructed instances) and binds arguments the way
// Python does. It knows no rule family: every resolved use of an API-table entry goes to the
// extractors (python/extract/), which turn it into facts.
#pragma once

#include "core/api_table.h"
#include "core/facts.h"
#include "python/const_eval.h"
#include "python/imports.h"
#include "python/regions.h"
#include "python/scopes.h"
#include "python/syntax.h"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cudnnlint::python {

// The arguments of one call, split the way Python binds them.
struct CallArgs {
  std::vector<TSNode> positional;
  std::vector<std::pair<std::string_view, TSNode>> keywords;
  int first_star = -1;  // index in `positional` where a *args splat sits, -1 when none
  bool has_double_star = false;
};

CallArgs collect_args(TSNode argument_list, std::string_view source);

// The argument a call binds to a project function's parameter (by keyword, else by position);
// null when none, or when a splat hides which one.
TSNode argument_for_parameter(const CallArgs& args, const Parameter& parameter);

struct ArgBinding {
  enum class Source { Explicit, Default, Unresolvable } source = Source::Default;
  TSNode value{};
};

// Binds one of an API's arguments. `shift` counts leading positional arguments that are not the
// API's own (the `self` of `Base.__init__(self, ...)`); a negative shift counts positionals a
// partial bound before these arguments.
ArgBinding bind_arg(const ApiArg& arg, const CallArgs& args, int shift);

// One resolved use of an API-table entry.
struct ApiUse {
  const ApiEntry& api;
  std::string qualified;   // the name the code reaches (torch.nn.BatchNorm2d, pkg.blocks.conv_bn)
  std::string spelled;     // how the code names it ("nn.BatchNorm2d", "BN", "super().__init__")
  TSNode site{};           // the call, the functools.partial call, or the assignment
  const CallArgs& args;    // as the API sees them (a partial's bound arguments first)
  int shift = 0;
  std::string origin;      // "call", "functools.partial", "call through functools.partial",
                           // "super().__init__", "base-class __init__"
  TSNode partial{};        // for calls through a partial: the functools.partial call
  const CallArgs* own_args = nullptr;  // for calls through a partial: the call's own arguments
  int own_shift = 0;
};

class Resolver;

// What an extractor declares about the code it reads, beyond the API table's words for its family
// (python/relevance.h assembles these for the first pass, the region planner and the parts key).
struct ExtractorRelevance {
  std::vector<std::string> words;               // more words that make code relevant on their own
  std::vector<WordPair> pairs;                  // words that matter only together, with their scopes
  std::vector<std::string> quoted;              // strings the first pass finds on their own
  std::vector<std::string> framework_markers;   // modules whose files `framework_words` count in
  std::vector<std::string> framework_words;
  // What the extractor reads from the module's whole text rather than from its tree (python/
  // frontend.h whole_text_features): whether TensorFlow or Keras is imported at module level, the
  // spellings whose presence counts, those whose lines count, and the line starts whose lines count.
  bool reads_framework_import = false;
  std::vector<std::string> whole_text_words;
  std::vector<std::string> whole_text_lines;
  std::vector<std::string> whole_text_line_starts;
};

// One per rule family (python/extract/): turns resolved uses into facts.
class Extractor {
 public:
  virtual ~Extractor() = default;
  virtual bool handles(const ApiEntry& api) const = 0;
  virtual void on_use(const ApiUse& use, Resolver& resolver) = 0;
  // `obj.attr = value` where obj is known to be an instance of `api`.
  virtual void on_instance_write(const ApiEntry& api, const std::string& qualified, const std::string& spelled,
                                 TSNode assignment, TSNode value, Resolver& resolver) {
    (void)api, (void)qualified, (void)spelled, (void)assignment, (void)value, (void)resolver;
  }
  // A call the API table does not know (argparse's add_argument, mmcv's dict(type=...)).
  virtual void on_other_call(TSNode call, Resolver& resolver) { (void)call, (void)resolver; }
  // A dictionary display `{...}`.
  virtual void on_dictionary(TSNode dictionary, Resolver& resolver) { (void)dictionary, (void)resolver; }
  // A binary operator (`x + 1e-8`, `a / (b + eps)`), or an augmented assignment (`d += eps`: its
  // operator is spelled "+=").
  virtual void on_binary_operator(TSNode op, Resolver& resolver) { (void)op, (void)resolver; }
  // Any assignment statement (yacs-style `_C.MODEL.X = value`).
  virtual void on_assignment(TSNode assignment, Resolver& resolver) { (void)assignment, (void)resolver; }
  virtual void finish(Resolver& resolver) { (void)resolver; }
};

class Resolver {
 public:
  Resolver(const NodeLocator& locator, const ScopeTree& scopes, const ImportTable& imports, const ApiTable& table,
           std::string module, std::span<const std::string> framework_roots, FileFacts& out,
           const ImportedConstants* imported_constants = nullptr,
           const ConfigConstants* config_constants = nullptr);

  // Walks the module (what `region` keeps of it), handing every resolved use to the
  // extractors that handle it.
  void run(TSNode root, std::span<Extractor* const> extractors, RegionFilter region = {});

  // ---- for extractors -------------------------------------------------------------------
  const NodeLocator& locator() const { return locator_; }
  std::string_view source() const { return source_; }
  std::string_view text(TSNode node) const { return node_text(node, source_); }
  Location locate(TSNode node) const { return locator_.locate(node); }
  const ApiTable& table() const { return table_; }
  const std::string& module() const { return module_; }
  FileFacts& out() { return out_; }
  // The scope of the def, class or module the walk stands in.
  const Scope* scope() const { return scope_stack_.back(); }
  // The scope names at `at` are looked up from: scope(), except that a lambda or comprehension
  // in a class body does not see the class's names (all but a comprehension's first iterable).
  const Scope* name_scope(TSNode at) const;
  // The scope a def or class statement opens (null when it opens none).
  const Scope* scope_of(TSNode definition) const { return scopes_.scope_of(definition); }
  const Scope* scope_of_module() const { return &scopes_.module(); }
  // `Runner().main` (a method of a new instance of a module class, bound to a name): the method's
  // def; null otherwise.
  TSNode bound_method_definition(TSNode value) const;
  // The scope a node of the module stands in (its def's, lambda's or class's; else the module's).
  const Scope* scope_around(TSNode node) const { return evaluator_.folder().scope_around(node); }
  // Reads expressions as if the walk stood inside another scope (a model class's __init__ and
  // forward, read from a call of the class elsewhere in the module) while the guard lives: scope()
  // is that one, and the lambdas and comprehensions around the walk no longer shadow names.
  class ScopeVisit {
   public:
    ScopeVisit(Resolver& r, const Scope* scope) : r_(r) {
      r_.scope_stack_.push_back(scope);
      shadowed_.swap(r_.shadowed_);
      nested_.swap(r_.nested_);
    }
    ~ScopeVisit() {
      r_.scope_stack_.pop_back();
      shadowed_.swap(r_.shadowed_);
      nested_.swap(r_.nested_);
    }
    ScopeVisit(const ScopeVisit&) = delete;
    ScopeVisit& operator=(const ScopeVisit&) = delete;

   private:
    Resolver& r_;
    std::vector<std::string_view> shadowed_;
    std::vector<TSNode> nested_;
  };
  // Folds names to the numbers `bindings` gives them (a loop variable on one iteration, a helper's
  // parameter bound at its call) while the guard lives, before their scope's own bindings.
  class BindingsVisit {
   public:
    BindingsVisit(Resolver& r, const ConstantBindings* bindings)
        : folder_(r.evaluator_.folder()), saved_(folder_.bindings()) {
      folder_.set_bindings(bindings);
    }
    ~BindingsVisit() { folder_.set_bindings(saved_); }
    BindingsVisit(const BindingsVisit&) = delete;
    BindingsVisit& operator=(const BindingsVisit&) = delete;

   private:
    const ConstantFolder& folder_;
    const ConstantBindings* saved_;
  };
  // The binding of `name` visible where the walk stands.
  std::pair<const Scope*, const Binding*> lookup(std::string_view name) const {
    return scopes_.lookup(name_scope(node_stack_.empty() ? TSNode{} : node_stack_.back()), name);
  }
  // The value of `node` where the walk stands (lambda and comprehension names shadow constants).
  Value evaluate(TSNode node) const { return evaluator_.evaluate(node, name_scope(node), shadowed_); }
  std::optional<ConstantValue> fold(TSNode node) const { return evaluator_.fold(node, name_scope(node), shadowed_); }
  const ValueEvaluator& evaluator() const { return evaluator_; }
  // The fully qualified name an expression stands for (`nn.BatchNorm2d` -> torch.nn.BatchNorm2d,
  // a module-level def or class -> "<module>.<name>").
  std::optional<std::string> qualified_name(TSNode node) const { return qualified_name(node, name_scope(node), 0); }
  // The name of a module-level builtin when it is not shadowed (`dict`, `type`).
  bool is_builtin(TSNode callee, std::string_view name) const;
  LiteralArg literal(TSNode value) const;
  // A ForwardingFact when `value` is a parameter of a project callable that reaches `use`'s API.
  void note_forwarding(const ApiUse& use, std::string_view role, const Value& value, TSNode value_node);

 private:
  struct Resolved {
    const ApiEntry* api = nullptr;
    std::string qualified;
    std::string spelled;
  };
  struct Guard {
    std::string_view name;
    Resolved what;
  };
  struct GuardFrame {
    TSNode block;
    std::size_t pushed;
  };

  bool visit(TSNode node, const TSTreeCursor* cursor);
  void leave(TSNode node);
  bool is_comprehension(TSSymbol sym) const;
  void shadow_identifiers(TSNode node, int depth = 0);
  void shadow_comprehension_targets(TSNode comprehension);
  std::optional<std::string> qualified_name(TSNode node, const Scope* from, int depth) const;
  // What a parameter names when every call in the module passes (or defaults to) the same name.
  std::optional<std::string> parameter_qualified_name(const Scope& function, const Parameter& parameter,
                                                      int depth) const;
  Resolved class_api(TSNode class_node, int depth = 0);
  Resolved resolve_callable(TSNode node);
  void add_guards(TSNode condition, int depth = 0);
  void add_guard(TSNode subject, TSNode classes);
  void dispatch(const ApiUse& use);
  void handle_call(TSNode call);
  void expand_dict_splats(TSNode arguments, CallArgs& args) const;
  void handle_base_init(TSNode call, TSNode object, TSNode arguments);
  void handle_partial(TSNode call, const CallArgs& partial_args);
  bool handle_call_through_partial(TSNode call, TSNode callee, TSNode arguments);
  void remember_construction(TSNode call, Resolved what);
  std::string construction_key(TSNode target) const;
  void handle_assignment(TSNode assignment);
  void note_subclass(TSNode class_node, const Resolved& base);
  void note_alias(TSNode name, TSNode value);

  const NodeLocator& locator_;
  std::string_view source_;
  const ScopeTree& scopes_;
  const ImportTable& imports_;
  const ApiTable& table_;
  std::string module_;
  ValueEvaluator evaluator_;
  FileFacts& out_;
  const Grammar& g_;
  std::span<Extractor* const> extractors_;
  std::vector<const Scope*> scope_stack_;
  std::vector<Resolved> class_stack_;
  std::vector<std::string_view> shadowed_;
  std::vector<TSNode> nested_;  // the lambdas and comprehensions the walk stands in, outermost first
  std::vector<std::size_t> shadow_marks_;
  std::vector<TSNode> node_stack_;
  std::vector<Guard> guards_;
  std::vector<GuardFrame> guard_frames_;
  std::unordered_map<uint32_t, Resolved> class_api_cache_;
  std::unordered_map<std::string, Resolved> constructed_;
};

}  // namespace cudnnlint::python
