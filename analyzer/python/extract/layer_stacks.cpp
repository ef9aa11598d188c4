#include "python/extract/layer_stacks.h"

#include "core/identifier.h"

#include "python/extract/local_values.h"
#include "python/extract/shape_steps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace cudnnlint::python {

namespace {

// Bounds on the work one stack costs: statements run (loop iterations count each time), items of a
// sequence, nested calls of project functions, expression depth.
constexpr int kMaxStatements = 2048;
constexpr std::size_t kMaxItems = 256;
constexpr int kMaxCallDepth = 3;
constexpr int kMaxDepth = 32;
// Values nest (`[[0] * 256] * 256`) and are copied: a value holds at most this many values in all,
// nested ones included, so that a hostile file cannot make the reader build millions of them.
constexpr std::size_t kMaxWeight = 4096;

// An abstract value: what one run of the code that builds a stack gives a name.
struct Abs {
  enum class Kind { Unknown, Number, Text, Bool, None, Sequence, Dictionary, Layer, Class } kind = Kind::Unknown;
  ConstantValue number;       // Number
  bool integer = false;       // Number: written as an integer literal, or a range's (isinstance(v, int))
  std::string text;           // Text
  bool truth = false;         // Bool
  std::vector<Abs> items;     // Sequence: a list, a tuple, a range, a stack of layers
  std::size_t weight = 1;     // this value and every value it holds, nested ones included
  // Layer: a call the reader does not model, with the names it fixed. Dictionary: a module-level
  // dictionary literal (construction) and its scope, taken apart by a subscript. Class: a class
  // of the module (class_definition), which a call of the name builds.
  BoundLayer layer;

  static Abs of_number(ConstantValue v) {
    Abs a;
    a.kind = Kind::Number;
    a.number = std::move(v);
    return a;
  }
  static Abs of_bool(bool b) {
    Abs a;
    a.kind = Kind::Bool;
    a.truth = b;
    return a;
  }
  bool known() const { return kind != Kind::Unknown; }
  // Appends `item` to a Sequence; false (and the item left out) when the whole would hold more
  // than kMaxItems items or kMaxWeight values.
  bool push(Abs item) {
    if (items.size() >= kMaxItems || weight + item.weight > kMaxWeight) return false;
    weight += item.weight;
    items.push_back(std::move(item));
    return true;
  }
};

// The truth of a value, when it is known.
std::optional<bool> truth_of(const Abs& a) {
  switch (a.kind) {
    case Abs::Kind::Number: return a.number.value != 0.0;
    case Abs::Kind::Text: return !a.text.empty();
    case Abs::Kind::Bool: return a.truth;
    case Abs::Kind::None: return false;
    case Abs::Kind::Sequence: return !a.items.empty();
    default: return std::nullopt;
  }
}

// Python's == on the values the reader models; nullopt when it cannot tell.
std::optional<bool> equal(const Abs& a, const Abs& b) {
  using K = Abs::Kind;
  if (a.kind == K::Unknown || b.kind == K::Unknown || a.kind == K::Layer || b.kind == K::Layer ||
      a.kind == K::Dictionary || b.kind == K::Dictionary || a.kind == K::Class || b.kind == K::Class)
    return std::nullopt;
  const bool a_num = a.kind == K::Number || a.kind == K::Bool, b_num = b.kind == K::Number || b.kind == K::Bool;
  if (a_num && b_num)
    return (a.kind == K::Bool ? double(a.truth) : a.number.value) == (b.kind == K::Bool ? double(b.truth) : b.number.value);
  if (a.kind != b.kind) return false;  // "M" == 64, None == 3
  if (a.kind == K::Text) return a.text == b.text;
  if (a.kind == K::None) return true;
  if (a.items.size() != b.items.size()) return false;
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    const auto same = equal(a.items[i], b.items[i]);
    if (!same || !*same) return same;
  }
  return true;
}

class StackReader {
 public:
  StackReader(Resolver& r, const InitSeed* seed) : r_(r), g_(Grammar::get()), seed_(seed) {}

  // What `construction` evaluates to where it is written, after the statements before it in its
  // function (or module) have run; with `until`, a name bound to it is followed through the
  // statements after it, up to the one holding `until` (or the block's end when `until` is null
  // and `through_block`).
  Abs read(TSNode construction, TSNode until, bool through_block) {
    std::vector<Level> levels;  // the function's body (or the module) first, the construction's block last
    Frame frame{r_.scope(), {}};
    if (!enclosing_statement(construction, levels)) {
      frames_.push_back(&frame);
      Abs out = eval(construction, 0);
      frames_.pop_back();
      return out;
    }
    // The names are read in the scope of the function (or module) whose statements run.
    const TSNode outermost = levels.front().block;
    const Scope* owner = is(outermost, g_.module) ? r_.scope_of_module() : r_.scope_of(ts_node_parent(outermost));
    if (owner == nullptr) return {};
    frame.scope = owner;
    if (seed_ != nullptr && seed_->numbers != nullptr && seed_->numbers->scope == owner) {
      for (const auto& [name, value] : seed_->numbers->values) frame.set(name, Abs::of_number(value));
      seed_arguments(frame);
    }
    Resolver::ScopeVisit in_owner(r_, owner);
    frames_.push_back(&frame);
    // The statements before each `with` block on the way in, run as the function runs them.
    for (std::size_t level = 0; level + 1 < levels.size(); ++level) {
      bool reached = false;
      for (const TSNode before : named_children(levels[level].block)) {
        if (ts_node_eq(before, levels[level].statement)) {
          reached = true;
          break;
        }
        if (run_statement(before, 0) != Flow::Normal) break;
      }
      if (!reached) {
        frames_.pop_back();
        return {};
      }
    }
    const TSNode statement = levels.back().statement;
    const std::vector<TSNode> statements = named_children(levels.back().block);
    std::size_t at = 0;
    for (; at < statements.size() && !ts_node_eq(statements[at], statement); ++at)
      if (run_statement(statements[at], 0) != Flow::Normal) break;
    Abs out;
    if (at == statements.size() || !ts_node_eq(statements[at], statement)) {
      frames_.pop_back();
      return out;
    }
    const std::string_view name = assigned_name(statement, construction);
    if (name.empty() || (ts_node_is_null(until) && !through_block)) {
      out = eval(construction, 0);
    } else {
      run_statement(statement, 0);
      for (++at; at < statements.size(); ++at) {
        if (!ts_node_is_null(until) && ts_node_start_byte(statements[at]) <= ts_node_start_byte(until) &&
            ts_node_end_byte(until) <= ts_node_end_byte(statements[at]))
          break;
        if (run_statement(statements[at], 0) != Flow::Normal) break;
      }
      if (const Abs* bound = frame.find(name)) out = *bound;
    }
    frames_.pop_back();
    return out;
  }

  // The layers of a value, flattened: nullopt when any item is not known.
  static std::optional<std::vector<BoundLayer>> layers_of(const Abs& value) {
    std::vector<BoundLayer> out;
    std::vector<const Abs*> pending{&value};
    while (!pending.empty()) {
      const Abs* at = pending.back();
      pending.pop_back();
      if (at->kind == Abs::Kind::Layer) {
        out.push_back(at->layer);
      } else if (at->kind == Abs::Kind::Sequence) {
        for (auto it = at->items.rbegin(); it != at->items.rend(); ++it) pending.push_back(&*it);
      } else {
        return std::nullopt;
      }
      if (out.size() > kMaxItems) return std::nullopt;
    }
    return out;
  }

 private:
  enum class Flow { Normal, Break, Continue, Return, Stop };

  // The names one run of a function (or the module's statements) gives values, in its scope.
  struct Frame {
    const Scope* scope = nullptr;
    std::vector<std::pair<std::string_view, Abs>> names;
    Abs returned = {};
    Abs* find(std::string_view name) {
      for (auto& [bound, value] : names)
        if (bound == name) return &value;
      return nullptr;
    }
    void set(std::string_view name, Abs value) {
      if (Abs* at = find(name)) *at = std::move(value);
      else names.emplace_back(name, std::move(value));
    }
    void forget(std::string_view name) {
      std::erase_if(names, [&](const auto& entry) { return entry.first == name; });
    }
  };

  Frame& frame() { return *frames_.back(); }

  // A block and the statement of it on the way to a construction.
  struct Level {
    TSNode block{};
    TSNode statement{};
  };

  // The statements holding `node`, from a function body's (or the module's) down to the one whose
  // block holds `node` without a compound statement between them, through blocks that run once
  // (a `with`, a re-raising `try`, `for _ in range(1)`: python/syntax.h block_runs_once);
  // false when `node` sits in a loop, a branch or another nested block.
  bool enclosing_statement(TSNode node, std::vector<Level>& levels) const {
    TSNode child = node;
    for (TSNode at = ts_node_parent(node); !ts_node_is_null(at); child = at, at = ts_node_parent(at)) {
      if (is(at, g_.module)) {
        levels.push_back({at, child});
        std::reverse(levels.begin(), levels.end());
        return true;
      }
      if (is(at, g_.block)) {
        const TSNode owner = ts_node_parent(at);
        levels.push_back({at, child});
        if (is(owner, g_.function_definition)) {
          std::reverse(levels.begin(), levels.end());
          return true;
        }
        if (!block_runs_once(at, r_.source()) || levels.size() > 4) return false;
        continue;
      }
      if (is(at, g_.lambda) || is(at, g_.list_comprehension) || is(at, g_.generator_expression)) return false;
    }
    return false;
  }

  // `name = <construction>`: the name; "" otherwise.
  std::string_view assigned_name(TSNode statement, TSNode construction) const {
    if (!is(statement, g_.expression_statement) || ts_node_named_child_count(statement) != 1) return {};
    const TSNode assignment = ts_node_named_child(statement, 0);
    if (!is(assignment, g_.assignment) || !ts_node_eq(strip(field(assignment, g_.f_right)), construction)) return {};
    const TSNode left = field(assignment, g_.f_left);
    return is(left, g_.identifier) ? r_.text(left) : std::string_view{};
  }

  // The numbers the frame holds, for the folder.
  std::shared_ptr<const ConstantBindings> bindings() {
    auto out = std::make_shared<ConstantBindings>();
    out->scope = frame().scope;
    for (const auto& [name, value] : frame().names)
      if (value.kind == Abs::Kind::Number) out->values.emplace_back(name, value.number);
    return out;
  }

  // Forgets every name of the frame that `node` mentions: what a statement the reader does not
  // follow may have changed.
  // Forgets what code the reader does not run (a branch it cannot decide, a loop over an unknown)
  // may change: every name it binds (assignment, loop and `with` targets, a walrus, the object of an
  // attribute or item assignment, `del`, `global`), and every list or dictionary it names (a method
  // or a call may change those). The numbers and strings it only reads stay known.
  void forget_changed_in(TSNode node) {
    if (frame().names.empty()) return;
    walk_tree(
        node,
        [&](TSNode n, const TSTreeCursor*) {
          if (is(n, g_.assignment) || is(n, g_.augmented_assignment) || is(n, g_.for_statement)) {
            forget_names_in(field(n, g_.f_left));
          } else if (is(n, g_.named_expression)) {
            forget_names_in(field(n, g_.f_name));
          } else if (is(n, g_.as_pattern) || is(n, g_.global_statement) || is(n, g_.nonlocal_statement) ||
                     r_.text(n).starts_with("del ") || is(n, g_.function_definition) || is(n, g_.class_definition)) {
            forget_names_in(n);
            return false;
          } else if (is(n, g_.identifier)) {
            if (const Abs* held = frame().find(r_.text(n));
                held != nullptr && (held->kind == Abs::Kind::Sequence || held->kind == Abs::Kind::Dictionary))
              frame().forget(r_.text(n));
          }
          return true;
        },
        [](TSNode) {});
  }

  void forget_names_in(TSNode node) {
    if (frame().names.empty()) return;
    walk_tree(
        node,
        [&](TSNode n, const TSTreeCursor*) {
          if (is(n, g_.identifier)) frame().forget(r_.text(n));
          return true;
        },
        [](TSNode) {});
  }

  Flow run_block(TSNode block, int depth) {
    if (depth > 8) return Flow::Stop;
    for (const TSNode statement : named_children(block)) {
      const Flow flow = run_statement(statement, depth);
      if (flow != Flow::Normal) return flow;
    }
    return Flow::Normal;
  }

  Flow run_statement(TSNode statement, int depth) {
    if (++statements_run_ > kMaxStatements) return Flow::Stop;
    if (is(statement, g_.comment)) return Flow::Normal;
    if (is(statement, g_.expression_statement)) {
      for (const TSNode expression : named_children(statement)) run_expression_statement(expression);
      return Flow::Normal;
    }
    if (is(statement, g_.for_statement)) return run_for(statement, depth);
    if (is(statement, g_.if_statement)) return run_if(statement, depth);
    if (is(statement, g_.with_statement)) return run_block(field(statement, g_.f_body), depth + 1);
    // A `try` whose handlers only re-raise runs its body, then its else block (one with a finally
    // block is left to the rule below: that block runs on every way out).
    const std::vector<TSNode> clauses = is(statement, g_.try_statement) ? named_children(statement) : std::vector<TSNode>{};
    if (is(statement, g_.try_statement) && block_runs_once(field(statement, g_.f_body), r_.source()) &&
        std::none_of(clauses.begin(), clauses.end(), [&](TSNode clause) { return is(clause, g_.finally_clause); })) {
      const Flow flow = run_block(field(statement, g_.f_body), depth + 1);
      for (const TSNode clause : clauses) {
        if (flow == Flow::Normal && is(clause, g_.else_clause)) {
          const auto parts = named_children(clause);
          if (!parts.empty() && is(parts.back(), g_.block))
            if (const Flow after = run_block(parts.back(), depth + 1); after != Flow::Normal) return after;
        }
      }
      return flow;
    }
    if (is(statement, g_.return_statement)) {
      frame().returned = ts_node_named_child_count(statement) > 0 ? eval(ts_node_named_child(statement, 0), 0) : Abs{};
      return Flow::Return;
    }
    const std::string_view text = r_.text(statement);
    if (text == "pass" || is(statement, g_.import_statement) || is(statement, g_.import_from_statement))
      return Flow::Normal;
    if (text == "break") return Flow::Break;
    if (text == "continue") return Flow::Continue;
    if (is(statement, g_.function_definition) || is(statement, g_.class_definition) ||
        is(statement, g_.decorated_definition)) {
      const TSNode name = field(is(statement, g_.decorated_definition)
                                    ? ts_node_named_child(statement, ts_node_named_child_count(statement) - 1)
                                    : statement,
                                g_.f_name);
      if (!ts_node_is_null(name)) frame().forget(r_.text(name));
      return Flow::Normal;
    }
    // while, try, raise, del, global, match...: whatever they touch is no longer known.
    forget_names_in(statement);
    return Flow::Normal;
  }

  void run_expression_statement(TSNode expression) {
    if (is(expression, g_.assignment)) {
      const TSNode left = field(expression, g_.f_left);
      const TSNode right = field(expression, g_.f_right);
      if (ts_node_is_null(right) || is(strip(right), g_.assignment)) {  // `a = b = ...`, `x: int`
        forget_names_in(expression);
        return;
      }
      assign(left, eval(right, 0));
      return;
    }
    if (is(expression, g_.augmented_assignment)) {
      augmented(expression);
      return;
    }
    if (is(expression, g_.call) && mutation(expression)) return;
    // A call may change the lists it is handed (`f(layers)`) or that it is a method of.
    eval(expression, 0);
    forget_handed_sequences(expression);
  }

  void assign(TSNode left, Abs value) {
    left = strip(left);
    if (is(left, g_.identifier)) {
      if (value.known()) frame().set(r_.text(left), std::move(value));
      else frame().forget(r_.text(left));
      return;
    }
    if (is(left, g_.pattern_list) || is(left, g_.tuple_pattern) || is(left, g_.tuple) || is(left, g_.list_pattern)) {
      const std::vector<TSNode> targets = named_children(left);
      if (value.kind == Abs::Kind::Sequence && value.items.size() == targets.size()) {
        for (std::size_t i = 0; i < targets.size(); ++i) assign(targets[i], value.items[i]);
        return;
      }
    }
    // `layers[0] = ...`, `self.x = ...`, a starred target: the names under it change or are not read.
    if (is(left, g_.subscript)) forget_names_in(left);
    else if (!is(left, g_.attribute)) forget_names_in(left);
  }

  void augmented(TSNode expression) {
    const TSNode left = strip(field(expression, g_.f_left));
    if (!is(left, g_.identifier)) {
      forget_names_in(left);
      return;
    }
    Abs* target = frame().find(r_.text(left));
    if (target == nullptr) return;
    const std::string_view op = r_.text(field(expression, g_.f_operator));
    Abs right = eval(field(expression, g_.f_right), 0);
    if (op == "+=" && target->kind == Abs::Kind::Sequence && right.kind == Abs::Kind::Sequence &&
        target->items.size() + right.items.size() <= kMaxItems) {
      for (Abs& item : right.items)
        if (!target->push(std::move(item))) {
          frame().forget(r_.text(left));
          return;
        }
      return;
    }
    if (target->kind == Abs::Kind::Number && right.kind == Abs::Kind::Number) {
      const double a = target->number.value, b = right.number.value;
      std::optional<double> v;
      if (op == "+=") v = a + b;
      else if (op == "-=") v = a - b;
      else if (op == "*=") v = a * b;
      else if (op == "//=" && b != 0) v = std::floor(a / b);
      if (v) {
        target->number.value = *v;
        target->number.provenance.push_back({r_.locate(expression), std::string(r_.text(expression)) + " runs here"});
        return;
      }
    }
    frame().forget(r_.text(left));
  }

  // `layers.append(x)`, `layers.extend([...])`, `model.add(x)`, `layers.insert(i, x)` on a list
  // the frame holds; true when `call` is one (the list then grows or becomes unknown).
  bool mutation(TSNode call) {
    const TSNode callee = strip(field(call, g_.f_function));
    if (!is(callee, g_.attribute)) return false;
    const TSNode object = strip(field(callee, g_.f_object));
    if (!is(object, g_.identifier)) return false;
    Abs* list = frame().find(r_.text(object));
    if (list == nullptr || list->kind != Abs::Kind::Sequence) return false;
    const std::string_view method = r_.text(field(callee, g_.f_attribute));
    const CallArgs args = collect_args(field(call, g_.f_arguments), r_.source());
    const bool one = args.positional.size() == 1 && args.keywords.empty() && args.first_star < 0;
    const std::string_view name = r_.text(object);
    if ((method == "append" || method == "add") && one) {
      Abs item = eval(args.positional.front(), 0);
      list = frame().find(name);  // eval may have changed the frame
      if (list == nullptr || list->kind != Abs::Kind::Sequence || !item.known() || !list->push(std::move(item)))
        frame().forget(name);
      return true;
    }
    if (method == "extend" && one) {
      Abs items = eval(args.positional.front(), 0);
      list = frame().find(name);
      if (list != nullptr && items.kind == Abs::Kind::Sequence &&
          list->items.size() + items.items.size() <= kMaxItems) {
        for (Abs& item : items.items)
          if (!list->push(std::move(item))) {
            frame().forget(name);
            return true;
          }
      } else {
        frame().forget(name);
      }
      return true;
    }
    // Methods that read a stack or a list without changing its layers.
    for (const char* keeps : {"compile", "fit", "summary", "evaluate", "predict", "save", "count", "index", "to",
                              "cuda", "cpu", "eval", "train", "parameters", "named_parameters", "state_dict"})
      if (method == keeps) return true;
    frame().forget(name);  // insert, pop, remove, reverse, sort, clear, add_module, __setitem__...
    return true;
  }

  void forget_handed_sequences(TSNode expression) {
    walk_tree(
        expression,
        [&](TSNode n, const TSTreeCursor*) {
          if (!is(n, g_.argument_list)) return true;
          for (const TSNode arg : named_children(n)) {
            const TSNode value = is(arg, g_.keyword_argument) ? strip(field(arg, g_.f_value)) : strip(arg);
            if (!is(value, g_.identifier)) continue;
            if (const Abs* held = frame().find(r_.text(value)); held != nullptr && held->kind == Abs::Kind::Sequence)
              frame().forget(r_.text(value));
          }
          return true;
        },
        [](TSNode) {});
  }

  Flow run_for(TSNode statement, int depth) {
    const TSNode body = field(statement, g_.f_body);
    const TSNode left = field(statement, g_.f_left);
    // An else clause runs when the loop did not break: not modelled.
    bool has_else = false;
    for (const TSNode child : named_children(statement)) has_else = has_else || is(child, g_.else_clause);
    Abs iterable = eval(field(statement, g_.f_right), 0);
    if (iterable.kind != Abs::Kind::Sequence || has_else) {
      forget_changed_in(statement);
      return Flow::Normal;
    }
    for (const Abs& item : iterable.items) {
      assign(left, item);
      const Flow flow = run_block(body, depth + 1);
      if (flow == Flow::Break) break;
      if (flow == Flow::Return || flow == Flow::Stop) return flow;
    }
    return Flow::Normal;
  }

  Flow run_if(TSNode statement, int depth) {
    // The branch the known conditions choose: the consequence, an elif's, the else block, or none.
    std::optional<bool> taken = truth_of(eval(field(statement, g_.f_condition), 0));
    if (!taken) {
      forget_changed_in(statement);
      return Flow::Normal;
    }
    if (*taken) return run_block(field(statement, g_.f_consequence), depth + 1);
    for (const TSNode clause : named_children(statement)) {
      if (is(clause, g_.elif_clause)) {
        const auto elif = truth_of(eval(field(clause, g_.f_condition), 0));
        if (!elif) {
          forget_changed_in(statement);
          return Flow::Normal;
        }
        if (*elif) return run_block(field(clause, g_.f_consequence), depth + 1);
      } else if (is(clause, g_.else_clause)) {
        return run_block(field(clause, g_.f_body), depth + 1);
      }
    }
    return Flow::Normal;
  }

  Abs eval(TSNode node, int depth) {
    node = strip(node);
    Abs unknown;
    if (ts_node_is_null(node) || depth > kMaxDepth) return unknown;
    if (is(node, g_.identifier)) {
      if (const Abs* held = frame().find(r_.text(node))) return *held;
      return module_value(node, depth);
    }
    if (is(node, g_.string)) {
      if (auto text = string_literal(node, r_.source())) {
        Abs a;
        a.kind = Abs::Kind::Text;
        a.text = std::move(*text);
        return a;
      }
      return unknown;
    }
    if (is(node, g_.true_) || is(node, g_.false_)) return Abs::of_bool(is(node, g_.true_));
    if (is(node, g_.none)) {
      Abs a;
      a.kind = Abs::Kind::None;
      return a;
    }
    if (is(node, g_.list) || is(node, g_.tuple) || is(node, g_.expression_list)) return sequence(named_children(node), depth);
    if (is(node, g_.list_comprehension)) return comprehension(node, depth);
    if (is(node, g_.comparison_operator)) return comparison(node, depth);
    if (is(node, g_.boolean_operator)) {
      const auto left = truth_of(eval(field(node, g_.f_left), depth + 1));
      const bool is_and = r_.text(field(node, g_.f_operator)) == "and";
      if (left && *left != is_and) return Abs::of_bool(*left);  // `False and ...`, `True or ...`
      const auto right = truth_of(eval(field(node, g_.f_right), depth + 1));
      if (!left || !right) return unknown;
      return Abs::of_bool(*right);
    }
    if (r_.text(node).starts_with("not ") && ts_node_named_child_count(node) == 1) {
      const auto inner = truth_of(eval(ts_node_named_child(node, 0), depth + 1));
      return inner ? Abs::of_bool(!*inner) : unknown;
    }
    if (is(node, g_.subscript)) return subscript(node, depth);
    if (is(node, g_.conditional_expression) && ts_node_named_child_count(node) == 3) {
      // `a if condition else b`: the side the condition picks, when the run knows it.
      const auto condition = truth_of(eval(ts_node_named_child(node, 1), depth + 1));
      if (!condition) return unknown;
      return eval(ts_node_named_child(node, *condition ? 0 : 2), depth + 1);
    }
    if (is(node, g_.attribute))
      if (Abs held = class_attribute(node, depth); held.known()) return held;
    if (is(node, g_.binary_operator)) {
      const std::string_view op = r_.text(field(node, g_.f_operator));
      if (op == "+" || op == "*") {
        Abs left = eval(field(node, g_.f_left), depth + 1);
        Abs right = eval(field(node, g_.f_right), depth + 1);
        if (left.kind == Abs::Kind::Sequence && right.kind == Abs::Kind::Sequence && op == "+" &&
            left.items.size() + right.items.size() <= kMaxItems) {
          for (Abs& item : right.items)
            if (!left.push(std::move(item))) return unknown;
          return left;
        }
        if (left.kind == Abs::Kind::Sequence && right.kind == Abs::Kind::Number && op == "*") {
          const double times = right.number.value;
          if (times < 0 || times != std::floor(times) || left.items.size() * static_cast<std::size_t>(times) > kMaxItems)
            return unknown;
          Abs out;
          out.kind = Abs::Kind::Sequence;
          for (int i = 0; i < static_cast<int>(times); ++i)
            for (const Abs& item : left.items)
              if (!out.push(item)) return unknown;
          return out;
        }
      }
    }
    if (is(node, g_.call)) return call(node, depth);
    Abs folded = number(node);
    folded.integer = folded.known() && is(node, g_.integer);
    return folded;
  }

  // A number the folder gives `node`, with the frame's numbers read first.
  Abs number(TSNode node) {
    const auto held = bindings();
    Resolver::BindingsVisit visit(r_, held.get());
    if (auto folded = r_.fold(node)) return Abs::of_number(std::move(*folded));
    return {};
  }

  // A name the frame does not hold: a number the folder knows, or a module-level sequence or
  // string bound once (`cfg = [64, "M", 128]`, `cfgs = {"A": [...]}`), read where it is defined.
  Abs module_value(TSNode identifier, int depth) {
    Abs folded = number(identifier);
    if (folded.known()) return folded;
    const auto [scope, binding] = r_.lookup(r_.text(identifier));
    if (scope != nullptr && scope->kind == Scope::Kind::Module && binding != nullptr && binding->only_definition() &&
        is(binding->definition, g_.class_definition)) {
      Abs a;
      a.kind = Abs::Kind::Class;
      a.layer.class_definition = binding->definition;
      return a;
    }
    if (scope == nullptr || scope->kind != Scope::Kind::Module || binding == nullptr || !binding->simple()) return {};
    const TSNode value = strip(binding->value);
    if (!is(value, g_.list) && !is(value, g_.tuple) && !is(value, g_.string) && !is(value, g_.dictionary)) return {};
    if (is(value, g_.dictionary)) {
      Abs a;
      a.kind = Abs::Kind::Dictionary;
      a.layer.construction = value;
      a.layer.scope = scope;
      return a;
    }
    Frame module{scope, {}};
    frames_.push_back(&module);
    Abs out = eval(value, depth + 1);
    frames_.pop_back();
    return out;
  }

  // `self.cfg` in a method, where the class body binds `cfg` once and no method assigns
  // `self.cfg`: that value, read where the class body defines it.
  Abs class_attribute(TSNode node, int depth) {
    const TSNode object = strip(field(node, g_.f_object));
    const Scope* method = frame().scope;
    if (!is(object, g_.identifier) || method == nullptr || !method->is_method() || method->parameters.empty() ||
        method->parameters.front().kind != Parameter::Kind::Self || r_.text(object) != method->parameters.front().name)
      return {};
    const Scope* class_scope = method->parent;
    const std::string_view name = r_.text(field(node, g_.f_attribute));
    const auto bound = class_scope->bindings.find(name);
    if (bound == class_scope->bindings.end() || !bound->second.simple() || class_scope->self_attributes.count(name) > 0)
      return {};
    Resolver::ScopeVisit in_class(r_, class_scope);
    Frame class_body{class_scope, {}};
    frames_.push_back(&class_body);
    Abs out = eval(bound->second.value, depth + 1);
    frames_.pop_back();
    return out;
  }

  // The __init__ parameters the seed's construction binds to a class, a sequence or a string (`block`,
  // `num_blocks` of `ResNet(BasicBlock, [2, 2, 2, 2])`), read where the call is written; the
  // numbers are the seed's already.
  void seed_arguments(Frame& frame) {
    if (ts_node_is_null(seed_->construction)) return;
    const CallArgs args = collect_args(field(seed_->construction, g_.f_arguments), r_.source());
    if (args.first_star >= 0 || args.has_double_star) return;
    const Scope* at_call = r_.scope_around(seed_->construction);
    for (const Parameter& p : frame.scope->parameters) {
      if (p.kind != Parameter::Kind::Normal || frame.find(p.name) != nullptr) continue;
      const TSNode value = argument_for_parameter(args, p);
      if (ts_node_is_null(value)) continue;
      Resolver::ScopeVisit in_caller(r_, at_call);
      Frame caller{at_call, {}};
      frames_.push_back(&caller);
      Abs bound = eval(value, 0);
      frames_.pop_back();
      if (bound.kind != Abs::Kind::Unknown && bound.kind != Abs::Kind::Number) frame.set(p.name, std::move(bound));
    }
  }

  // A call the reader does not model, kept as written with the names the run fixed.
  Abs layer_of(TSNode call, TSNode class_definition = {}) {
    Abs layer;
    layer.kind = Abs::Kind::Layer;
    layer.layer.construction = call;
    layer.layer.scope = frame().scope;
    layer.layer.class_definition = class_definition;
    auto held = bindings();
    if (!held->values.empty()) layer.layer.bindings = std::move(held);
    return layer;
  }

  // `[nn.Conv1d(c, c, 3, dilation=2 ** i) for i in range(levels)]`: one for clause over a sequence
  // the run knows, with a plain loop variable that no enclosing scope binds (the folder reads it
  // from the layer's bindings), and no condition.
  Abs comprehension(TSNode node, int depth) {
    const TSNode body = field(node, g_.f_body);
    std::vector<TSNode> clauses;
    for (const TSNode child : named_children(node))
      if (!ts_node_eq(child, body) && !is(child, g_.comment)) clauses.push_back(child);
    if (ts_node_is_null(body) || clauses.size() != 1 || !is(clauses[0], g_.for_in_clause)) return {};
    const TSNode target = strip(field(clauses[0], g_.f_left));
    if (!is(target, g_.identifier)) return {};
    const std::string_view name = r_.text(target);
    if (frame().find(name) != nullptr || r_.lookup(name).second != nullptr) return {};
    const Abs iterable = eval(field(clauses[0], g_.f_right), depth + 1);
    if (iterable.kind != Abs::Kind::Sequence) return {};
    Abs out;
    out.kind = Abs::Kind::Sequence;
    for (const Abs& item : iterable.items) {
      frame().set(name, item);
      Abs value = eval(body, depth + 1);
      frame().forget(name);
      if (!value.known() || !out.push(std::move(value))) return {};
    }
    return out;
  }

  Abs sequence(const std::vector<TSNode>& items, int depth) {
    Abs out;
    out.kind = Abs::Kind::Sequence;
    for (const TSNode item : items) {
      if (is(item, g_.comment)) continue;
      if (is(item, g_.list_splat)) {
        Abs inner = eval(ts_node_named_child(item, 0), depth + 1);
        if (inner.kind != Abs::Kind::Sequence) return {};
        for (Abs& i : inner.items)
          if (!out.push(std::move(i))) return {};
      } else if (!out.push(eval(item, depth + 1))) {
        return {};
      }
    }
    return out;
  }

  Abs comparison(TSNode node, int depth) {
    // `a == b`, `a != b`, `a < b`... one operator; chains are not read.
    const std::vector<TSNode> operands = named_children(node);
    if (operands.size() != 2) return {};
    const Abs left = eval(operands[0], depth + 1), right = eval(operands[1], depth + 1);
    const std::string_view text = r_.text(node);
    const std::string_view op = text.substr(ts_node_end_byte(operands[0]) - ts_node_start_byte(node),
                                            ts_node_start_byte(operands[1]) - ts_node_end_byte(operands[0]));
    const auto trimmed = [](std::string_view s) {
      while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
      return s;
    }(op);
    if (trimmed == "==" || trimmed == "!=" || trimmed == "is" || trimmed == "is not") {
      const auto same = equal(left, right);
      if (!same) return {};
      return Abs::of_bool((trimmed == "==" || trimmed == "is") ? *same : !*same);
    }
    if (trimmed == "in" || trimmed == "not in") {
      if (right.kind != Abs::Kind::Sequence) return {};
      bool found = false;
      for (const Abs& item : right.items) {
        const auto same = equal(left, item);
        if (!same) return {};
        found = found || *same;
      }
      return Abs::of_bool(trimmed == "in" ? found : !found);
    }
    if (left.kind != Abs::Kind::Number || right.kind != Abs::Kind::Number) return {};
    const double a = left.number.value, b = right.number.value;
    if (trimmed == "<") return Abs::of_bool(a < b);
    if (trimmed == "<=") return Abs::of_bool(a <= b);
    if (trimmed == ">") return Abs::of_bool(a > b);
    if (trimmed == ">=") return Abs::of_bool(a >= b);
    return {};
  }

  Abs subscript(TSNode node, int depth) {
    const Abs value = eval(field(node, g_.f_value), depth + 1);
    const TSNode key_node = strip(field(node, g_.f_subscript));
    if (value.kind == Abs::Kind::Dictionary) {
      // cfgs["A"]: a module-level dictionary literal with string keys.
      const Abs key = eval(key_node, depth + 1);
      if (key.kind != Abs::Kind::Text) return {};
      for (const TSNode pair : named_children(value.layer.construction)) {
        if (!is(pair, g_.pair)) return {};  // a **splat: the keys are not all written
        const auto written = string_literal(strip(field(pair, g_.f_key)), r_.source());
        if (!written) return {};
        if (*written != key.text) continue;
        Frame module{value.layer.scope, {}};
        frames_.push_back(&module);
        Abs out = eval(field(pair, g_.f_value), depth + 1);
        frames_.pop_back();
        return out;
      }
      return {};
    }
    if (value.kind != Abs::Kind::Sequence) return {};
    const Abs key = eval(key_node, depth + 1);
    if (key.kind != Abs::Kind::Number || key.number.value != std::floor(key.number.value)) return {};
    auto index = static_cast<long long>(key.number.value);
    const auto size = static_cast<long long>(value.items.size());
    if (index < 0) index += size;
    if (index < 0 || index >= size) return {};
    return value.items[static_cast<std::size_t>(index)];
  }

  Abs call(TSNode node, int depth) {
    const TSNode callee = strip(field(node, g_.f_function));
    const CallArgs args = collect_args(field(node, g_.f_arguments), r_.source());
    Abs unknown;
    if (is(callee, g_.identifier)) {
      const std::string_view name = r_.text(callee);
      if ((name == "range" || name == "len" || name == "isinstance" || name == "list" || name == "tuple" ||
           name == "reversed" || name == "enumerate" || name == "zip") &&
          r_.is_builtin(callee, name))
        return builtin(name, args, depth);
    }
    const std::string qualified_name = qualified(callee, r_);
    const std::string framework = framework_of_sequential(qualified_name);
    if (!framework.empty() || qualified_name == "torch.nn.ModuleList") {
      if (!args.keywords.empty()) return unknown;  // an OrderedDict's names, Keras's name=
      if (framework == "keras") return args.positional.empty() ? sequence({}, depth) : eval(args.positional[0], depth + 1);
      if (qualified_name == "torch.nn.ModuleList")
        return args.positional.empty() ? sequence({}, depth) : eval(args.positional[0], depth + 1);
      // `nn.Sequential(a, *layers, b)`: a splat's items spliced in (collect_args keeps the splat).
      return sequence(args.positional, depth);
    }
    // `block(...)` with `block` bound to a class of the module: that class built.
    if (is(callee, g_.identifier))
      if (const Abs* held = frame().find(r_.text(callee)); held != nullptr && held->kind == Abs::Kind::Class)
        return layer_of(node, held->layer.class_definition);
    if (Abs returned = project_call(node, callee, args, depth); returned.known()) return returned;
    // A layer, or a call the reader does not model: kept as written, with the names it fixed.
    return layer_of(node);
  }

  Abs builtin(std::string_view name, const CallArgs& args, int depth) {
    Abs unknown;
    if (args.first_star >= 0 || !args.keywords.empty()) return unknown;
    std::vector<Abs> values;
    for (const TSNode arg : args.positional) values.push_back(eval(arg, depth + 1));
    if (name == "range") {
      double start = 0, stop = 0, step = 1;
      for (const Abs& v : values)
        if (v.kind != Abs::Kind::Number || v.number.value != std::floor(v.number.value)) return unknown;
      if (values.size() == 1) stop = values[0].number.value;
      else if (values.size() == 2 || values.size() == 3) {
        start = values[0].number.value;
        stop = values[1].number.value;
        if (values.size() == 3) step = values[2].number.value;
      } else {
        return unknown;
      }
      if (step == 0) return unknown;
      Abs out;
      out.kind = Abs::Kind::Sequence;
      for (double v = start; step > 0 ? v < stop : v > stop; v += step) {
        Abs number = Abs::of_number(ConstantValue{v, std::to_string(static_cast<long long>(v)), {}});
        number.integer = true;
        if (!out.push(std::move(number))) return unknown;
      }
      return out;
    }
    if (values.size() != (name == "isinstance" || name == "zip" ? 2u : 1u)) return unknown;
    if (name == "len") {
      if (values[0].kind != Abs::Kind::Sequence) return unknown;
      const double n = static_cast<double>(values[0].items.size());
      return Abs::of_number(ConstantValue{n, std::to_string(values[0].items.size()), {}});
    }
    if (name == "list" || name == "tuple") return values[0].kind == Abs::Kind::Sequence ? values[0] : unknown;
    if (name == "reversed") {
      if (values[0].kind != Abs::Kind::Sequence) return unknown;
      std::reverse(values[0].items.begin(), values[0].items.end());
      return values[0];
    }
    if (name == "enumerate" || name == "zip") {
      if (values[0].kind != Abs::Kind::Sequence || (name == "zip" && values[1].kind != Abs::Kind::Sequence))
        return unknown;
      Abs out;
      out.kind = Abs::Kind::Sequence;
      const std::size_t n = name == "zip" ? std::min(values[0].items.size(), values[1].items.size()) : values[0].items.size();
      for (std::size_t i = 0; i < n; ++i) {
        Abs pair;
        pair.kind = Abs::Kind::Sequence;
        const bool pushed = name == "enumerate"
                                ? pair.push(Abs::of_number(ConstantValue{static_cast<double>(i), std::to_string(i), {}})) &&
                                      pair.push(values[0].items[i])
                                : pair.push(values[0].items[i]) && pair.push(values[1].items[i]);
        if (!pushed || !out.push(std::move(pair))) return unknown;
      }
      return out;
    }
    // isinstance(v, int / str / tuple / list / float)
    const std::string_view type = r_.text(strip(args.positional[1]));
    const Abs& v = values[0];
    if (!v.known() || v.kind == Abs::Kind::Layer) return unknown;
    if (type == "str") return Abs::of_bool(v.kind == Abs::Kind::Text);
    if (type == "int") {
      if (v.kind == Abs::Kind::Number && !v.integer) return unknown;  // 3.0, or a fold of unknown spelling
      return Abs::of_bool(v.kind == Abs::Kind::Bool || v.kind == Abs::Kind::Number);
    }
    if (type == "list" || type == "tuple" || type == "(list, tuple)" || type == "(tuple, list)")
      return v.kind == Abs::Kind::Sequence ? unknown : Abs::of_bool(false);  // which of the two: not kept
    return unknown;
  }

  // The function a call names: a function of the module (or one the call's scope sees), a method
  // bound to a module-level name, or a method of the class whose method the frame runs, called on
  // its `self` (`self._make_layer(...)`);
  // with the scope its definition stands in. Null when neither, or defined more than once.
  std::pair<TSNode, const Scope*> called_function(TSNode callee, bool& through_self) {
    through_self = false;
    const Scope* scope = nullptr;
    const Binding* binding = nullptr;
    if (is(callee, g_.identifier)) {
      std::tie(scope, binding) = r_.lookup(r_.text(callee));
      // `create_head = Holder().create_head`: a method bound to a module-level name.
      if (scope != nullptr && scope->kind == Scope::Kind::Module && binding != nullptr && binding->simple())
        if (const TSNode method = r_.bound_method_definition(binding->value); !ts_node_is_null(method)) {
          through_self = true;
          const Scope* method_scope = r_.scope_of(method);
          return {method, method_scope == nullptr ? nullptr : method_scope->parent};
        }
    } else if (is(callee, g_.attribute)) {
      const Scope* method = frames_.empty() ? nullptr : frame().scope;
      const TSNode object = strip(field(callee, g_.f_object));
      if (method == nullptr || !method->is_method() || method->parameters.empty() ||
          method->parameters.front().kind != Parameter::Kind::Self || !is(object, g_.identifier) ||
          r_.text(object) != method->parameters.front().name)
        return {};
      scope = method->parent;
      const auto found = scope->bindings.find(r_.text(field(callee, g_.f_attribute)));
      binding = found == scope->bindings.end() ? nullptr : &found->second;
      through_self = true;
    }
    if (scope == nullptr || binding == nullptr || !binding->only_definition() ||
        !is(binding->definition, g_.function_definition))  // a class, or a decorated def
      return {};
    return {binding->definition, scope};
  }

  // A call of a function of this module (a module-level one, or a method through `self`): its body
  // run with its parameters bound to the call's arguments (and its defaults), to its return.
  // Unknown when not one, or too deep.
  Abs project_call(TSNode node, TSNode callee, const CallArgs& args, int depth) {
    Abs unknown;
    if (call_depth_ >= kMaxCallDepth || args.first_star >= 0 || args.has_double_star) return unknown;
    bool through_self = false;
    const auto [definition, scope] = called_function(callee, through_self);
    if (ts_node_is_null(definition)) return unknown;
    const Scope* function = r_.scope_of(definition);
    if (function == nullptr || function->has_var_args || function->has_var_keywords) return unknown;
    Frame callee_frame{function, {}};
    for (const Parameter& p : function->parameters) {
      if (p.kind == Parameter::Kind::Self && through_self) continue;  // `self`: its attributes are not read
      if (p.kind != Parameter::Kind::Normal) return unknown;
      const TSNode value = argument_for_parameter(args, p);
      Abs bound;
      if (!ts_node_is_null(value)) {
        bound = eval(value, depth + 1);
      } else if (!ts_node_is_null(p.default_value)) {
        Resolver::ScopeVisit at_definition(r_, scope);
        Frame defaults{scope, {}};
        frames_.push_back(&defaults);
        bound = eval(p.default_value, depth + 1);
        frames_.pop_back();
      }
      if (bound.known()) {
        if (bound.kind == Abs::Kind::Number)
          bound.number.provenance.push_back(
              {r_.locate(ts_node_is_null(value) ? p.default_value : value),
               std::string(p.name) + " = " + std::string(r_.text(ts_node_is_null(value) ? p.default_value : value)) +
                   (ts_node_is_null(value) ? " is its default" : " is bound at this call")});
        callee_frame.set(p.name, std::move(bound));
      }
    }
    (void)node;
    ++call_depth_;
    Resolver::ScopeVisit in_function(r_, function);
    frames_.push_back(&callee_frame);
    const Flow flow = run_block(field(definition, g_.f_body), 0);
    frames_.pop_back();
    --call_depth_;
    if (flow != Flow::Return) return unknown;
    return callee_frame.returned;
  }

  Resolver& r_;
  const Grammar& g_;
  const InitSeed* seed_ = nullptr;
  std::vector<Frame*> frames_;
  int statements_run_ = 0;
  int call_depth_ = 0;
};

}  // namespace

std::optional<std::vector<BoundLayer>> stack_layers(TSNode construction, Resolver& r, TSNode until, bool through_block,
                                                    const InitSeed* seed) {
  StackReader reader(r, seed);
  const Abs value = reader.read(strip(construction), until, through_block);
  return StackReader::layers_of(value);
}

std::optional<std::vector<BoundLayer>> unpacked_stack_layers(TSNode construction, std::size_t element,
                                                             std::size_t elements, Resolver& r,
                                                             const InitSeed* seed) {
  StackReader reader(r, seed);
  const Abs value = reader.read(strip(construction), {}, false);
  // Python unpacks any sequence of the right length; one of another length raises.
  if (value.kind != Abs::Kind::Sequence || value.items.size() != elements || element >= elements) return std::nullopt;
  return StackReader::layers_of(value.items[element]);
}

std::string bindings_text(const BoundLayer& layer, std::string_view text) {
  if (!layer.bindings) return {};
  std::string out;
  for (const auto& [name, value] : layer.bindings->values) {
    // Only the names the layer's text reads, as whole words.
    bool read = false;
    for (std::size_t at = text.find(name); at != std::string_view::npos && !read; at = text.find(name, at + 1)) {
      read = (at == 0 || !is_identifier_char(text[at - 1])) &&
             (at + name.size() == text.size() || !is_identifier_char(text[at + name.size()]));
    }
    if (!read) continue;
    if (!out.empty()) out += ", ";
    const double v = value.value;
    char buffer[32];
    if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
    else std::snprintf(buffer, sizeof buffer, "%g", v);
    out += std::string(name) + " = " + buffer;
  }
  return out;
}

}  // namespace cudnnlint::python
