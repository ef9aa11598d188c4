#include "python/extract/local_values.h"

#include "core/identifier.h"

#include "python/regions.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace cudnnlint::python {

namespace {

constexpr int kMaxDepth = 6;

// The dimensions a tensor factory is given: `(0, 28, 28, 3)`, `[n, 3]`, or `10, 3` as positionals.
std::vector<std::optional<IntegerValue>> dims_of(const CallArgs& args, Resolver& r) {
  const Grammar& g = Grammar::get();
  std::vector<std::optional<IntegerValue>> out;
  TSNode shape{};
  for (const auto& [name, value] : args.keywords)
    if (name == "shape" || name == "size") shape = value;
  if (ts_node_is_null(shape) && !args.positional.empty() && args.first_star != 0) shape = args.positional.front();
  if (ts_node_is_null(shape)) return out;
  shape = strip(shape);
  if (is(shape, g.tuple) || is(shape, g.list)) {
    for (const TSNode child : named_children(shape)) out.push_back(integer_of(child, r));
    return out;
  }
  // `torch.randn(10, 3)`: every positional is a dimension.
  for (std::size_t i = 0; i < args.positional.size(); ++i) {
    if (args.first_star >= 0 && static_cast<int>(i) >= args.first_star) break;
    out.push_back(integer_of(args.positional[i], r));
  }
  return out;
}

bool shape_factory(const std::string& name) {
  return one_of(name, {"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "numpy.zeros",
                       "numpy.ones", "numpy.empty", "numpy.random.rand", "numpy.random.randn", "numpy.random.random",
                       "tensorflow.zeros", "tensorflow.ones", "tensorflow.random.normal", "tensorflow.random.uniform"});
}

}  // namespace

std::string short_text(std::string_view text) {
  // Stops once the cut is certain: called on every node of a nested expression, a copy of the
  // whole text each time made hostile chains (`f()()()...`) quadratic.
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out.push_back(c);
    if (out.size() > 60) break;
  }
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out;
}

TSNode strip(TSNode node) {
  const Grammar& g = Grammar::get();
  while (is(node, g.parenthesized_expression) && ts_node_named_child_count(node) == 1)
    node = ts_node_named_child(node, 0);
  return node;
}

// `ds = ds.map(f)` then `ds = ds.batch(16)`: the value of the assignment to `identifier` in the
// statement just before the use's, in the same block, with nothing between that may rebind it.
namespace {

// What an `if` test is when the code fixes it: `True`, `False`, a name bound once to one of them
// (`FP16 = True`), or a number; nullopt otherwise.
std::optional<bool> constant_test(TSNode test, Resolver& r) {
  const Grammar& g = Grammar::get();
  test = strip(test);
  if (is(test, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(test));
    if (binding != nullptr && binding->simple()) test = strip(binding->value);
  }
  if (is(test, g.true_)) return true;
  if (is(test, g.false_)) return false;
  if (is(test, g.identifier) || is(test, g.integer) || is(test, g.float_))
    if (const auto folded = r.fold(test)) return folded->value != 0.0;
  return std::nullopt;
}

// The value an `if` with no elif or else, whose test the code fixes, leaves bound to `name`: the
// right-hand side of its block's last statement naming `name`, when that is `name = value`; `found`
// false when the block does not run or names `name` nowhere (the search goes on before it).
TSNode branch_assignment(TSNode if_statement, std::string_view name, Resolver& r, bool& found) {
  const Grammar& g = Grammar::get();
  found = true;
  for (const TSNode part : named_children(if_statement))
    if (is(part, g.elif_clause) || is(part, g.else_clause)) return {};
  const auto taken = constant_test(field(if_statement, g.f_condition), r);
  if (!taken) return {};
  if (!*taken) {
    found = false;
    return {};
  }
  TSNode last{};
  for (const TSNode statement : named_children(field(if_statement, g.f_consequence)))
    if (!is(statement, g.comment) && mentions_identifier(r.text(statement), name)) last = statement;
  if (ts_node_is_null(last)) {
    found = false;
    return {};
  }
  const TSNode assignment = is(last, g.expression_statement) ? ts_node_named_child(last, 0) : TSNode{};
  if (is(assignment, g.assignment) && is(field(assignment, g.f_left), g.identifier) &&
      r.text(field(assignment, g.f_left)) == name)
    return field(assignment, g.f_right);
  return {};
}

}  // namespace

// Whether anything under `node` may bind `name` (an assignment, a loop or `with` target, a walrus,
// `del`, `global`): conservatively, any of those whose text names it.
bool may_bind(TSNode node, std::string_view name, Resolver& r) {
  const Grammar& g = Grammar::get();
  bool binds = false;
  walk_tree(
      node,
      [&](TSNode n, const TSTreeCursor*) {
        if (binds) return false;
        if (is(n, g.assignment) || is(n, g.augmented_assignment) || is(n, g.for_statement) ||
            is(n, g.named_expression) || is(n, g.as_pattern)) {
          const TSNode target = is(n, g.as_pattern) ? ts_node_named_child(n, ts_node_named_child_count(n) - 1)
                                                    : field(n, is(n, g.named_expression) ? g.f_name : g.f_left);
          binds = mentions_identifier(r.text(target), name);
        } else if (is(n, g.global_statement) || is(n, g.function_definition) || is(n, g.class_definition)) {
          binds = mentions_identifier(r.text(n), name);
          return false;
        } else if (r.text(n).starts_with("del ")) {
          binds = mentions_identifier(r.text(n), name);
        }
        return !binds;
      },
      [](TSNode) {});
  return binds;
}

// `a = <expr>` (or `a = b = <expr>`) with plain names for targets, none of them `name`, and no
// walrus in <expr>: it binds no other name.
static bool assigns_only_other_names(TSNode assignment, std::string_view name, Resolver& r) {
  const Grammar& g = Grammar::get();
  for (TSNode at = assignment; is(at, g.assignment); at = field(at, g.f_right)) {
    const TSNode left = field(at, g.f_left);
    if (!is(left, g.identifier) || r.text(left) == name) return false;
    const TSNode right = field(at, g.f_right);
    if (!is(right, g.assignment) && r.text(right).find(":=") != std::string_view::npos) return false;
  }
  return true;
}

TSNode previous_assignment(TSNode identifier, Resolver& r, Unpacked* unpacked, bool values_only) {
  const Grammar& g = Grammar::get();
  const std::string_view name = r.text(identifier);
  TSNode statement = identifier;
  while (!ts_node_is_null(statement) && !ts_node_is_null(ts_node_parent(statement)) &&
         !is(ts_node_parent(statement), g.block) && !is(ts_node_parent(statement), g.module))
    statement = ts_node_parent(statement);
  for (int level = 0; level < 8 && !ts_node_is_null(statement); ++level) {
    for (TSNode before = ts_node_prev_named_sibling(statement); !ts_node_is_null(before);
         before = ts_node_prev_named_sibling(before)) {
      if (is(before, g.comment)) continue;
      const TSNode assignment = is(before, g.expression_statement) ? ts_node_named_child(before, 0) : TSNode{};
      if (is(assignment, g.assignment) && is(field(assignment, g.f_left), g.identifier) &&
          r.text(field(assignment, g.f_left)) == name)
        return field(assignment, g.f_right);
      if (unpacked != nullptr && is(assignment, g.assignment)) {
        const TSNode left = field(assignment, g.f_left);
        if (is(left, g.pattern_list) || is(left, g.tuple_pattern)) {
          const std::vector<TSNode> names = named_children(left);
          for (std::size_t i = 0; i < names.size(); ++i)
            if (is(names[i], g.identifier) && r.text(names[i]) == name) {
              if (!std::all_of(names.begin(), names.end(), [&](TSNode n) { return is(n, g.identifier); })) return {};
              *unpacked = Unpacked{i, names.size()};
              return field(assignment, g.f_right);
            }
        }
      }
      // `if FP16: x = x.half()`, with FP16 fixed: the branch the code takes.
      if (is(before, g.if_statement) && mentions_identifier(r.text(before), name)) {
        bool found = false;
        const TSNode value = branch_assignment(before, name, r, found);
        if (found) return value;
        continue;
      }
      if (values_only && is(assignment, g.assignment) && assigns_only_other_names(assignment, name, r)) continue;
      // Anything else that may bind the name (a loop, a branch, a `with ... as`) ends the search.
      if (mentions_identifier(r.text(before), name)) return {};
    }
    // The block's start: the statement holding it (a loop, a `with`, a branch), when nothing in it
    // binds the name (a loop's later statements run before its next round), is searched from.
    const TSNode block = ts_node_parent(statement);
    if (ts_node_is_null(block) || !is(block, g.block)) return {};
    TSNode outer = ts_node_parent(block);
    while (!ts_node_is_null(outer) && (is(outer, g.else_clause) || is(outer, g.elif_clause) ||
                                       is(outer, g.except_clause) || is(outer, g.finally_clause)))
      outer = ts_node_parent(outer);
    if (ts_node_is_null(outer) || is(outer, g.function_definition) || is(outer, g.class_definition) ||
        is(outer, g.lambda) || may_bind(outer, name, r))
      return {};
    statement = outer;
  }
  return {};
}

// The right-hand side of the assignment that binds `identifier` where the walk stands: the
// scope's single one, else the one just before the use.
std::optional<LoopBatch> loop_batch(TSNode identifier, Resolver& r, bool shape_only, bool whole_samples) {
  const Grammar& g = Grammar::get();
  const std::string_view name = r.text(identifier);
  TSNode loop{};
  for (TSNode at = ts_node_parent(identifier); !ts_node_is_null(at); at = ts_node_parent(at)) {
    if (is(at, g.function_definition) || is(at, g.class_definition) || is(at, g.lambda)) break;
    if (is(at, g.for_statement) && ts_node_start_byte(identifier) >= ts_node_start_byte(field(at, g.f_body))) {
      loop = at;
      break;
    }
  }
  if (ts_node_is_null(loop)) return std::nullopt;
  // The position of the name in the loop's target, through one enumerate().
  TSNode target = strip(field(loop, g.f_left));
  TSNode iterable = strip(field(loop, g.f_right));
  const TSNode iterator = is(iterable, g.call) ? strip(field(iterable, g.f_function)) : TSNode{};
  if (is(iterator, g.identifier) && r.text(iterator) == "enumerate" && r.is_builtin(iterator, "enumerate")) {
    const CallArgs e = collect_args(field(iterable, g.f_arguments), r.source());
    const std::vector<TSNode> parts = named_children(target);
    if (e.positional.size() != 1 || !e.keywords.empty() || parts.size() != 2) return std::nullopt;
    iterable = strip(e.positional.front());
    target = strip(parts[1]);
  }
  const bool single = whole_samples && is(target, g.identifier);
  if (!(is(target, g.pattern_list) || is(target, g.tuple_pattern) || is(target, g.tuple) || single)) return std::nullopt;
  const std::vector<TSNode> names = single ? std::vector<TSNode>{target} : named_children(target);
  std::size_t position = names.size();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (is(names[i], g.identifier) && r.text(names[i]) == name) position = i;
  if (position == names.size()) return std::nullopt;
  // The body must not rebind it (but to move it or cast it, when only its shape is asked for).
  const auto moved = [&](TSNode value) {  // `name.to(device)` and the like
    value = strip(value);
    const TSNode callee = is(value, g.call) ? strip(field(value, g.f_function)) : TSNode{};
    return is(callee, g.attribute) && r.text(strip(field(callee, g.f_object))) == name &&
           one_of(std::string(r.text(field(callee, g.f_attribute))),
                  {"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "contiguous", "detach"});
  };
  // `x = x.to(device)`, or `x, y = x.to(device), y.to(device)`.
  const auto keeps_shape = [&](TSNode assignment) {
    if (!shape_only || !is(assignment, g.assignment)) return false;
    const TSNode left = strip(field(assignment, g.f_left)), right = strip(field(assignment, g.f_right));
    if (is(left, g.identifier)) return moved(right);
    if (!(is(left, g.pattern_list) || is(left, g.tuple_pattern)) || !(is(right, g.expression_list) || is(right, g.tuple)))
      return false;
    const std::vector<TSNode> targets = named_children(left), values = named_children(right);
    if (targets.size() != values.size()) return false;
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (!is(targets[i], g.identifier) || (r.text(targets[i]) == name && !moved(values[i]))) return false;
    return true;
  };
  bool rebound = false;
  walk_tree(
      field(loop, g.f_body),
      [&](TSNode node, const TSTreeCursor*) {
        if (rebound) return false;
        if (keeps_shape(node)) return true;
        if (is(node, g.assignment) || is(node, g.augmented_assignment) || is(node, g.for_statement))
          walk_tree(
              field(node, g.f_left),
              [&](TSNode t, const TSTreeCursor*) {
                if (is(t, g.identifier) && r.text(t) == name) rebound = true;
                return !rebound;
              },
              [](TSNode) {});
        return !rebound;
      },
      [](TSNode) {});
  if (rebound) return std::nullopt;
  // The iterable: a DataLoader over a dataset (default collate), or the dataset.
  LoopBatch out;
  out.loop = loop;
  TSNode source = iterable;
  bool through_loader = false;  // batches, not single samples
  bool through_tf_data = false;  // a tf.data pipeline's methods
  // `ds.shuffle(n).batch(8)`: a tf.data pipeline's methods that keep its elements' types, `batch`
  // stacking them (`map` may change them: not followed).
  const auto peel_pipeline = [&]() -> bool {
    for (int peel = 0; peel < 8 && is(source, g.call); ++peel) {
      const TSNode callee = strip(field(source, g.f_function));
      if (!is(callee, g.attribute) || !qualified(callee, r).empty()) return true;
      const std::string method(r.text(field(callee, g.f_attribute)));
      if (method == "batch") {
        if (through_loader) return false;
        const CallArgs batch = collect_args(field(source, g.f_arguments), r.source());
        out.batch_size = batch.positional.empty() ? TSNode{} : batch.positional[0];
        for (const auto& [key, value] : batch.keywords)
          if (key == "batch_size") out.batch_size = value;
        through_loader = true;
      } else if (!one_of(method, {"shuffle", "prefetch", "cache", "repeat", "take", "skip", "with_options"})) {
        return true;
      }
      through_tf_data = true;
      source = strip(field(callee, g.f_object));
    }
    return true;
  };
  // `DataLoader(dataset, batch_size)`: its batches, stacked samples of the dataset (false: a
  // loader this reading cannot follow).
  const auto open_loader = [&]() -> bool {
    if (!is(source, g.call)) return true;
    const std::string callee = qualified(field(source, g.f_function), r);
    if (!one_of(callee, {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})) return true;
    if (through_loader) return false;
    const CallArgs loader = collect_args(field(source, g.f_arguments), r.source());
    if (loader.first_star >= 0 || loader.has_double_star || loader.positional.size() > 4) return false;
    TSNode dataset{};
    for (const auto& [key, value] : loader.keywords) {
      if (key == "collate_fn") return false;
      if (key == "dataset") dataset = value;
      if (key == "batch_size") out.batch_size = value;
    }
    if (ts_node_is_null(dataset) && !loader.positional.empty()) dataset = loader.positional[0];
    if (ts_node_is_null(out.batch_size) && loader.positional.size() > 1) out.batch_size = loader.positional[1];
    source = strip(dataset);
    through_loader = true;
    return true;
  };
  if (!peel_pipeline() || !open_loader()) return std::nullopt;
  for (int hops = 0; hops < 4 && is(source, g.identifier); ++hops) {
    const TSNode value = strip(definition_of(source, r));
    if (ts_node_is_null(value)) return std::nullopt;
    out.steps.push_back(defined_here(source, value, r));
    source = value;
    if (!peel_pipeline()) return std::nullopt;
    if (is(source, g.identifier)) continue;
    if (!is(source, g.call) || !open_loader()) return std::nullopt;
  }
  if (!is(source, g.call)) return std::nullopt;
  if (through_tf_data) {
    // `tf.data.Dataset.from_tensor_slices((images, labels))`: each element a slice of each array.
    if (qualified(field(source, g.f_function), r) != "tensorflow.data.Dataset.from_tensor_slices") return std::nullopt;
    const CallArgs slices = collect_args(field(source, g.f_arguments), r.source());
    if (slices.first_star >= 0 || !slices.keywords.empty() || slices.positional.size() != 1) return std::nullopt;
    const TSNode arrays = strip(slices.positional[0]);
    if (!is(arrays, g.tuple) || ts_node_named_child_count(arrays) != names.size()) return std::nullopt;
    out.tensor = ts_node_named_child(arrays, static_cast<std::uint32_t>(position));
    out.steps.push_back({r.locate(loop), "`" + std::string(name) + "` is a batch of this loop"});
    return out;
  }
  if (!one_of(qualified(field(source, g.f_function), r),
              {"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})) {
    // Another dataset's samples, (image, target), or whole: the caller reads what the call gives.
    if (!through_loader || through_tf_data || position != 0 || (!single && names.size() != 2)) return std::nullopt;
    out.dataset = source;
    out.whole_sample = single;
    out.steps.push_back({r.locate(loop), "`" + std::string(name) + "` is a batch of this loop"});
    return out;
  }
  // A TensorDataset's sample is a tuple, its batches lists: a single name holds no tensor.
  if (single) return std::nullopt;
  const CallArgs tensors = collect_args(field(source, g.f_arguments), r.source());
  if (tensors.first_star >= 0 || !tensors.keywords.empty() || position >= tensors.positional.size())
    return std::nullopt;
  out.tensor = tensors.positional[position];
  out.steps.push_back({r.locate(loop), "`" + std::string(name) + "` is a batch of this loop"});
  return out;
}

TSNode value_before_loop(TSNode identifier, Resolver& r) {
  const Grammar& g = Grammar::get();
  const std::string_view name = r.text(identifier);
  // The innermost for loop around the use, within the function.
  TSNode loop{}, statement{};
  for (TSNode child = identifier, at = ts_node_parent(identifier); !ts_node_is_null(at);
       child = at, at = ts_node_parent(at)) {
    if (is(at, g.function_definition) || is(at, g.class_definition) || is(at, g.lambda)) return {};
    if (is(at, g.block) && is(ts_node_parent(at), g.for_statement)) {
      loop = ts_node_parent(at);
      statement = child;
      break;
    }
  }
  if (ts_node_is_null(loop)) return {};
  // No statement of the body before the use's binds or mentions it, and the loop's target is not it.
  for (TSNode s = ts_node_prev_named_sibling(statement); !ts_node_is_null(s); s = ts_node_prev_named_sibling(s))
    if (!is(s, g.comment) && r.text(s).find(name) != std::string_view::npos) return {};
  if (r.text(field(loop, g.f_left)).find(name) != std::string_view::npos) return {};
  TSNode before = ts_node_prev_named_sibling(loop);
  while (is(before, g.comment)) before = ts_node_prev_named_sibling(before);
  if (!is(before, g.expression_statement) || ts_node_named_child_count(before) != 1) return {};
  const TSNode bound = ts_node_named_child(before, 0);
  if (!is(bound, g.assignment) || !is(field(bound, g.f_left), g.identifier) || r.text(field(bound, g.f_left)) != name)
    return {};
  return field(bound, g.f_right);
}

TSNode loop_over(TSNode identifier, Resolver& r) {
  const Grammar& g = Grammar::get();
  for (TSNode at = ts_node_parent(identifier); !ts_node_is_null(at); at = ts_node_parent(at)) {
    if (is(at, g.function_definition) || is(at, g.class_definition) || is(at, g.lambda)) return {};
    if (is(at, g.for_statement) && ts_node_start_byte(identifier) >= ts_node_start_byte(field(at, g.f_body))) {
      const TSNode target = field(at, g.f_left);
      return is(target, g.identifier) && r.text(target) == r.text(identifier) ? at : TSNode{};
    }
  }
  return {};
}

TSNode definition_of(TSNode identifier, Resolver& r) {
  if (!is(identifier, Grammar::get().identifier)) return {};
  const auto [scope, binding] = r.lookup(r.text(identifier));
  if (binding == nullptr) return {};
  if (binding->simple()) return binding->value;
  // One binding that is no `name = value` (a parameter, an import, a loop's target, a def): no
  // assignment stands before the use either.
  if (binding->count == 1) return {};
  return previous_assignment(identifier, r);
}

ProvenanceStep defined_here(TSNode identifier, TSNode value, Resolver& r) {
  TSNode statement = ts_node_parent(value);
  if (ts_node_is_null(statement)) statement = value;
  return ProvenanceStep{r.locate(statement),
                        std::string(r.text(identifier)) + " = " + short_text(r.text(value)) + " is defined here"};
}

namespace {

// A count the code computes from the sizes of its data (`int(len(ds) * 0.1)`, `len(samples) // 2`):
// numbers that fold, len() of what rows_of sizes, int(), and + - * / // between them. Bounded in
// depth; nullopt for anything else.
std::optional<double> size_arithmetic(TSNode node, Resolver& r, std::vector<ProvenanceStep>& steps, int depth) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (depth > 6 || ts_node_is_null(node)) return std::nullopt;
  if (const auto folded = r.fold(node)) {
    steps.insert(steps.end(), folded->provenance.begin(), folded->provenance.end());
    return folded->value;
  }
  if (is(node, g.identifier)) {  // `n_val = int(len(ds) * 0.1)`, then `n_val`
    const TSNode value = definition_of(node, r);
    if (ts_node_is_null(value)) return std::nullopt;
    auto computed = size_arithmetic(value, r, steps, depth + 1);
    if (computed) steps.push_back(defined_here(node, value, r));
    return computed;
  }
  if (is(node, g.binary_operator)) {
    const std::string_view op = r.text(field(node, g.f_operator));
    const auto a = size_arithmetic(field(node, g.f_left), r, steps, depth + 1);
    const auto b = a ? size_arithmetic(field(node, g.f_right), r, steps, depth + 1) : std::nullopt;
    if (!b) return std::nullopt;
    if (op == "+") return *a + *b;
    if (op == "-") return *a - *b;
    if (op == "*") return *a * *b;
    if ((op == "/" || op == "//") && *b != 0) return op == "/" ? *a / *b : std::floor(*a / *b);
    return std::nullopt;
  }
  if (!is(node, g.call)) return std::nullopt;
  const TSNode callee = field(node, g.f_function);
  const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
  if (args.positional.size() != 1 || !args.keywords.empty() || args.first_star >= 0 || args.has_double_star)
    return std::nullopt;
  if (r.is_builtin(callee, "len")) {
    const auto rows = rows_of(args.positional[0], r, steps, depth + 1);
    if (rows) steps.push_back({r.locate(node), std::string(r.text(node)) + " is " + std::to_string(rows->value)});
    return rows ? std::optional<double>(static_cast<double>(rows->value)) : std::nullopt;
  }
  if (r.is_builtin(callee, "int")) {
    const auto inner = size_arithmetic(args.positional[0], r, steps, depth + 1);
    return inner && std::isfinite(*inner) ? std::optional<double>(std::trunc(*inner)) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<IntegerValue> integer_of(TSNode node, Resolver& r) {
  const auto folded = r.fold(node);
  if (!folded) {
    // A size computed from the data's: only where the expression names len() (cheap test first).
    if (r.text(node).find("len(") == std::string_view::npos) return std::nullopt;
    thread_local int nesting = 0;  // rows_of reads sizes through integer_of: bounded
    if (nesting >= 3) return std::nullopt;
    ++nesting;
    std::vector<ProvenanceStep> steps;
    const auto computed = size_arithmetic(node, r, steps, 0);
    --nesting;
    if (!computed || *computed != std::floor(*computed) || std::fabs(*computed) > 9.0e15) return std::nullopt;
    return IntegerValue{static_cast<std::int64_t>(*computed), std::string(r.text(node)), r.locate(node), std::move(steps)};
  }
  if (folded->value != std::floor(folded->value) || std::fabs(folded->value) > 9.0e15) return std::nullopt;
  return IntegerValue{static_cast<std::int64_t>(folded->value), std::string(r.text(node)), r.locate(node),
                      folded->provenance};
}

std::string qualified(TSNode callee, Resolver& r) { return r.qualified_name(callee).value_or(""); }

bool one_of(const std::string& name, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; });
}

// The literal shape a tensor is built with, through names bound once, `tf.constant(...)` and
// `.astype(...)`; `text` gets the factory call as written.
std::vector<std::optional<IntegerValue>> literal_shape(TSNode node, Resolver& r, std::string& text, int depth) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (depth > kMaxDepth) return {};
  if (is(node, g.identifier)) {
    const TSNode value = definition_of(node, r);
    return ts_node_is_null(value) ? std::vector<std::optional<IntegerValue>>{} : literal_shape(value, r, text, depth + 1);
  }
  // `torch.rand(n, 3, 32, 32) * 2 - 1`, `x / 255`: arithmetic with a number keeps the shape.
  if (is(node, g.binary_operator)) {
    const std::string_view op = r.text(field(node, g.f_operator));
    if (op != "+" && op != "-" && op != "*" && op != "/") return {};
    const TSNode left = field(node, g.f_left), right = field(node, g.f_right);
    if (r.fold(right)) return literal_shape(left, r, text, depth + 1);
    if (r.fold(left)) return literal_shape(right, r, text, depth + 1);
    return {};
  }
  if (!is(node, g.call)) return {};
  const TSNode callee = field(node, g.f_function);
  const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
  if (is(callee, g.attribute) && one_of(std::string(r.text(field(callee, g.f_attribute))),
                                        {"astype", "float", "double", "half", "long", "to", "cuda", "cpu",
                                         "contiguous", "clone", "detach", "normal_", "uniform_"}))
    return literal_shape(field(callee, g.f_object), r, text, depth + 1);
  const std::string name = qualified(callee, r);
  if (shape_factory(name)) {
    text = short_text(r.text(node));
    return dims_of(args, r);
  }
  // NumPy's factories whose leading arguments are values (`np.random.randint(0, 256, size=(16, 8, 8,
  // 3))`): the shape is `size=` or the last positional, a tuple. (torch.randint's integers meet a
  // dtype error before any size one.)
  if (one_of(name, {"numpy.random.randint", "numpy.random.uniform", "numpy.random.normal"})) {
    TSNode shape{};
    for (const auto& [key, value] : args.keywords)
      if (key == "size") shape = value;
    if (ts_node_is_null(shape) && args.first_star < 0 && !args.positional.empty()) shape = args.positional.back();
    shape = strip(shape);
    if (!is(shape, g.tuple) && !is(shape, g.list)) return {};
    text = short_text(r.text(node));
    std::vector<std::optional<IntegerValue>> out;
    for (const TSNode child : named_children(shape)) out.push_back(integer_of(child, r));
    return out;
  }
  if (one_of(name, {"tensorflow.constant", "tensorflow.convert_to_tensor", "numpy.asarray", "numpy.array",
                    "torch.as_tensor", "torch.from_numpy"}) &&
      !args.positional.empty())
    return literal_shape(args.positional.front(), r, text, depth + 1);
  return {};
}

// How many samples a dataset, a sampler or a tf.data pipeline holds, where the code makes it plain.
// `read` of what every call of `function` in the module hands its `parameter` (`make_dataset(x, y)`
// with `x = np.random.rand(50, 8)`), when all calls agree; each read where its call stands.
template <class Read>
std::optional<IntegerValue> at_every_call(const Scope& function, const Parameter& parameter, Resolver& r,
                                          std::vector<ProvenanceStep>& steps, Read&& read) {
  const auto sites = r.evaluator().folder().call_sites(function, parameter);
  if (!sites || sites->empty()) return std::nullopt;
  std::optional<IntegerValue> agreed;
  std::vector<ProvenanceStep> agreed_steps;
  for (const CallSite& site : *sites) {
    std::vector<ProvenanceStep> here;
    std::optional<IntegerValue> rows;
    {
      Resolver::ScopeVisit at(r, site.scope);
      rows = read(site.argument, here);
    }
    if (!rows || (agreed && rows->value != agreed->value)) return std::nullopt;
    if (!agreed) {
      agreed = std::move(rows);
      agreed_steps = std::move(here);
      agreed_steps.push_back({r.locate(site.call), site.says(parameter.name, r.source())});
    }
  }
  steps.insert(steps.end(), agreed_steps.begin(), agreed_steps.end());
  return agreed;
}

// The rows of a tensor or array handed to TensorDataset or from_tensor_slices: its literal shape's
// first size, a literal nested list's length, torch.arange(n)'s n; for a parameter, what every call
// of its function hands over.
std::optional<IntegerValue> train_test_split_part(TSNode identifier, Resolver& r, std::vector<ProvenanceStep>& steps,
                                                  int depth);

std::optional<IntegerValue> leading_rows(TSNode first, Resolver& r, std::vector<ProvenanceStep>& steps, int depth) {
  const Grammar& g = Grammar::get();
  first = strip(first);
  if (depth > kMaxDepth || ts_node_is_null(first)) return std::nullopt;
  if (is(first, g.identifier))
    if (const auto [scope, binding] = r.lookup(r.text(first));
        binding != nullptr && binding->only_parameter() && scope != nullptr && scope->kind == Scope::Kind::Function)
      return at_every_call(*scope, scope->parameters[static_cast<std::size_t>(binding->parameter)], r, steps,
                           [&](TSNode argument, std::vector<ProvenanceStep>& here) {
                             return leading_rows(argument, r, here, depth + 1);
                           });
  if (is(first, g.identifier))
    if (auto part = train_test_split_part(first, r, steps, depth)) return part;
  std::string text;
  const auto shape = literal_shape(first, r, text);
  if (!shape.empty() && shape.front()) return shape.front();
  // torch.tensor([[...], [...]]) / np.array([...]): the outer list's length.
  if (is(strip(first), g.call)) {
    const TSNode inner_callee = field(strip(first), g.f_function);
    const CallArgs inner = collect_args(field(strip(first), g.f_arguments), r.source());
    const std::string inner_name = qualified(inner_callee, r);
    if (one_of(inner_name, {"torch.tensor", "numpy.array", "tensorflow.constant"}) && !inner.positional.empty() &&
        is(strip(inner.positional.front()), g.list))
      return rows_of(inner.positional.front(), r, steps, depth + 1);
    if (inner_name == "torch.arange" && inner.positional.size() == 1) return integer_of(inner.positional[0], r);
  }
  return std::nullopt;
}

TSNode module_class_method(TSNode made_by, std::string_view method, Resolver& r) {
  const Grammar& g = Grammar::get();
  made_by = strip(made_by);
  if (!is(made_by, g.identifier)) return {};
  const auto [scope, binding] = r.lookup(r.text(made_by));
  if (scope == nullptr || scope->kind != Scope::Kind::Module || binding == nullptr || !binding->only_definition() ||
      !is(binding->definition, g.class_definition))
    return {};
  const Scope* owner = r.scope_of(binding->definition);
  if (owner == nullptr) return {};
  const auto found = owner->bindings.find(method);
  if (found == owner->bindings.end() || !found->second.only_definition() ||
      !is(found->second.definition, g.function_definition))
    return {};
  return found->second.definition;
}

namespace {

// The default of the parameter `name` names, of a special method the runtime calls with no
// argument for it (`__len__` by len()); a null node otherwise.
TSNode runtime_default(TSNode name, const Scope& method, Resolver& r) {
  if (!is(name, Grammar::get().identifier)) return {};
  const auto it = method.bindings.find(r.text(name));
  if (it == method.bindings.end() || !it->second.only_parameter() || it->second.parameter < 0) return {};
  const Parameter& parameter = method.parameters[static_cast<std::size_t>(it->second.parameter)];
  return parameter.kind == Parameter::Kind::Normal ? parameter.default_value : TSNode{};
}

}  // namespace

// `CustomDataset()`, a class of the module whose `__len__` only returns `len(self.samples)` (the
// class's one write of `.samples`, sized by rows_of) or a whole number: that length.
std::optional<IntegerValue> dataset_class_length(TSNode call, Resolver& r, std::vector<ProvenanceStep>& steps,
                                                 int depth) {
  const Grammar& g = Grammar::get();
  const TSNode callee = strip(field(call, g.f_function));
  if (depth > 8) return std::nullopt;
  const TSNode len = module_class_method(callee, "__len__", r);
  if (ts_node_is_null(len)) return std::nullopt;
  const Scope* method = r.scope_of(len);
  // Its one statement, inside a `with`, a re-raising `try` or a closure too (python/syntax.h).
  const std::vector<TSNode> body = function_statements(len, r.source());
  if (method == nullptr || body.size() != 1 || !is(body[0], g.return_statement) || ts_node_named_child_count(body[0]) != 1)
    return std::nullopt;
  const TSNode returned = strip(ts_node_named_child(body[0], 0));
  Resolver::ScopeVisit in_len(r, method);
  std::optional<IntegerValue> size;
  const TSNode len_of = is(returned, g.call) ? field(returned, g.f_function) : TSNode{};
  if (is(len_of, g.identifier) && r.is_builtin(len_of, "len")) {
    const CallArgs of = collect_args(field(returned, g.f_arguments), r.source());
    if (of.positional.size() != 1 || !of.keywords.empty() || !is(strip(of.positional[0]), g.attribute)) return std::nullopt;
    const SelfAttribute* set = r.evaluator().folder().sole_self_attribute(strip(of.positional[0]), method);
    if (set == nullptr || set->method == nullptr) return std::nullopt;
    Resolver::ScopeVisit in_init(r, set->method);
    size = rows_of(set->value, r, steps, depth + 1);
  } else if (const TSNode fixed = runtime_default(returned, *method, r); !ts_node_is_null(fixed)) {
    // `def __len__(self, n=65): return n`: len() passes nothing, so the default.
    Resolver::ScopeVisit at_class(r, method->parent);
    size = integer_of(fixed, r);
  } else {
    size = integer_of(returned, r);
  }
  if (size) steps.push_back({r.locate(call), "len(" + std::string(r.text(callee)) + "()) is " + std::to_string(size->value)});
  return size;
}

namespace {

// The sizes torch.utils.data.random_split gives for `lengths` over `total` samples (torch 2.11.0,
// measured: [0.9, 0.1] of 33 is [30, 3]): whole numbers as they are, when they add up to the
// dataset (else it raises); fractions (adding up to 1) each floored, the samples left over handed
// out one each from the first part on. Empty when neither.
std::vector<std::int64_t> split_sizes(const std::vector<double>& lengths, std::optional<std::int64_t> total) {
  const bool whole = std::all_of(lengths.begin(), lengths.end(), [](double x) { return x >= 0 && x == std::floor(x); });
  std::vector<std::int64_t> sizes;
  if (whole) {
    std::int64_t sum = 0;
    for (const double x : lengths) {
      sizes.push_back(static_cast<std::int64_t>(x));
      sum += sizes.back();
    }
    if (total && sum != *total) return {};
    return sizes;
  }
  double fraction_sum = 0;
  for (const double x : lengths) {
    if (!(x >= 0 && x <= 1)) return {};
    fraction_sum += x;
  }
  if (!total || std::abs(fraction_sum - 1.0) > 1e-9) return {};
  std::int64_t left = *total;
  for (const double x : lengths) {
    sizes.push_back(static_cast<std::int64_t>(std::floor(static_cast<double>(*total) * x)));
    left -= sizes.back();
  }
  for (std::size_t i = 0; left > 0 && !sizes.empty(); i = (i + 1) % sizes.size(), --left) ++sizes[i];
  return sizes;
}

}  // namespace

// `train, val = random_split(ds, [99, 1])` (or fractions of a dataset of known size): the size of
// the part `identifier` names.
std::optional<IntegerValue> random_split_part(TSNode identifier, Resolver& r, std::vector<ProvenanceStep>& steps,
                                              int depth) {
  const Grammar& g = Grammar::get();
  Unpacked unpacked;
  const TSNode value = strip(previous_assignment(identifier, r, &unpacked));
  if (unpacked.arity < 2 || !is(value, g.call) ||
      !one_of(qualified(field(value, g.f_function), r),
              {"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"}))
    return std::nullopt;
  const CallArgs args = collect_args(field(value, g.f_arguments), r.source());
  if (args.first_star >= 0 || args.has_double_star || args.positional.size() < 2) return std::nullopt;
  const TSNode list = strip(args.positional[1]);
  if (!is(list, g.list) && !is(list, g.tuple)) return std::nullopt;
  const std::vector<TSNode> items = named_children(list);
  if (items.size() != unpacked.arity) return std::nullopt;
  std::vector<double> lengths;
  std::vector<ProvenanceStep> length_steps;
  thread_local int nesting = 0;  // a length reads sizes through rows_of, which may come back here: bounded
  if (nesting >= 3) return std::nullopt;
  ++nesting;
  for (const TSNode item : items) {
    // A number, or one computed from the data's size (`[len(ds) - n_val, n_val]`).
    const auto length = size_arithmetic(item, r, length_steps, 0);
    if (!length || !std::isfinite(*length)) break;
    lengths.push_back(*length);
  }
  --nesting;
  if (lengths.size() != items.size()) return std::nullopt;
  std::vector<ProvenanceStep> dataset_steps;
  const auto total = rows_of(args.positional[0], r, dataset_steps, depth + 1);
  const auto sizes = split_sizes(lengths, total ? std::optional<std::int64_t>(total->value) : std::nullopt);
  if (sizes.size() != items.size()) return std::nullopt;
  // Each step once: the lengths and the dataset often read the same definitions.
  auto add_once = [&](const std::vector<ProvenanceStep>& more) {
    for (const ProvenanceStep& step : more)
      if (std::none_of(steps.begin(), steps.end(), [&](const ProvenanceStep& s) {
            return s.what == step.what && s.where.path == step.where.path &&
                   s.where.range.begin.byte_offset == step.where.range.begin.byte_offset;
          }))
        steps.push_back(step);
  };
  if (total) add_once(dataset_steps);
  add_once(length_steps);
  const std::int64_t size = sizes[unpacked.position];
  steps.push_back({r.locate(ts_node_parent(value)), "`" + std::string(r.text(identifier)) + "` is part " +
                                                         std::to_string(unpacked.position + 1) + " of " +
                                                         short_text(r.text(value)) + ": " + std::to_string(size) +
                                                         " samples"});
  return IntegerValue{size, std::string(r.text(identifier)), r.locate(identifier), {}};
}

// `X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.05)`: the size of the part
// `identifier` names, as scikit-learn computes it (1.9.1, measured): a float test_size is
// ceil(test_size * n), a float train_size floor(train_size * n), an int either is itself, the other
// part the rest, and with neither the test part is ceil(0.25 * n).
std::optional<IntegerValue> train_test_split_part(TSNode identifier, Resolver& r, std::vector<ProvenanceStep>& steps,
                                                  int depth) {
  const Grammar& g = Grammar::get();
  Unpacked unpacked;
  const TSNode value = strip(previous_assignment(identifier, r, &unpacked));
  if (unpacked.arity < 2 || unpacked.arity % 2 != 0 || !is(value, g.call) ||
      !one_of(qualified(field(value, g.f_function), r),
              {"sklearn.model_selection.train_test_split", "sklearn.model_selection._split.train_test_split"}))
    return std::nullopt;
  const CallArgs args = collect_args(field(value, g.f_arguments), r.source());
  if (args.first_star >= 0 || args.has_double_star || args.positional.size() * 2 != unpacked.arity) return std::nullopt;
  std::optional<ConstantValue> test_size, train_size;
  for (const auto& [name, argument] : args.keywords) {
    if (name != "test_size" && name != "train_size") continue;
    const auto folded = r.fold(argument);
    if (!folded && r.text(strip(argument)) != "None") return std::nullopt;
    if (folded && !(folded->value > 0 && std::isfinite(folded->value))) return std::nullopt;  // refused
    (name == "test_size" ? test_size : train_size) = folded;
  }
  std::vector<ProvenanceStep> data_steps;
  auto total = leading_rows(args.positional[0], r, data_steps, depth + 1);  // an array's, a tensor's
  if (!total) total = rows_of(args.positional[0], r, data_steps, depth + 1);  // a list's, a dataset's
  if (!total) return std::nullopt;
  const auto n = static_cast<double>(total->value);
  // Nothing given: the unset part fails; a part given as neither a count nor a fraction: unknown.
  bool unknown = false;
  auto part = [&](const std::optional<ConstantValue>& size, bool test) -> std::optional<std::int64_t> {
    if (!size) return std::nullopt;
    const bool count = size->kind == NumberKind::Integer ||
                       (size->kind == NumberKind::Unknown && size->value >= 1 && size->value == std::floor(size->value));
    if (count && size->kind == NumberKind::Unknown) unknown = true;  // an int count, or a float sklearn refuses
    if (count) return static_cast<std::int64_t>(size->value);
    if (size->value >= 1) unknown = true;  // a float of 1 or more: refused
    return static_cast<std::int64_t>(test ? std::ceil(size->value * n) : std::floor(size->value * n));
  };
  if (!test_size && !train_size) test_size = ConstantValue{0.25, {}, {}, NumberKind::Float};
  std::optional<std::int64_t> test = part(test_size, true), train = part(train_size, false);
  if (unknown) return std::nullopt;
  if (!test && train) test = total->value - *train;
  if (!train && test) train = total->value - *test;
  if (!test || !train || *test <= 0 || *train <= 0 || *test + *train > total->value) return std::nullopt;  // raises
  const std::int64_t size = unpacked.position % 2 == 0 ? *train : *test;
  steps.insert(steps.end(), data_steps.begin(), data_steps.end());
  steps.push_back({r.locate(ts_node_parent(value)), "`" + std::string(r.text(identifier)) + "` is the " +
                                                         (unpacked.position % 2 == 0 ? "train" : "test") +
                                                         " part of " + short_text(r.text(value)) + ": " +
                                                         std::to_string(size) + " samples"});
  return IntegerValue{size, std::string(r.text(identifier)), r.locate(identifier), {}};
}

std::optional<IntegerValue> rows_of(TSNode node, Resolver& r, std::vector<ProvenanceStep>& steps, int depth) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (depth > kMaxDepth || ts_node_is_null(node)) return std::nullopt;
  if (is(node, g.identifier)) {
    // A parameter: what its function's calls hand over.
    if (const auto [scope, binding] = r.lookup(r.text(node));
        binding != nullptr && binding->only_parameter() && scope != nullptr && scope->kind == Scope::Kind::Function)
      return at_every_call(*scope, scope->parameters[static_cast<std::size_t>(binding->parameter)], r, steps,
                           [&](TSNode argument, std::vector<ProvenanceStep>& here) {
                             return rows_of(argument, r, here, depth + 1);
                           });
    if (auto split = random_split_part(node, r, steps, depth)) return split;
    if (auto split = train_test_split_part(node, r, steps, depth)) return split;
    const TSNode value = definition_of(node, r);
    if (ts_node_is_null(value)) return std::nullopt;
    // `indices = []` then `indices.append(i)` in a loop: the list's length is a run-time fact.
    if (is(strip(value), g.list) || is(strip(value), g.dictionary) || is(strip(value), g.call)) {
      const auto [scope, binding] = r.lookup(r.text(node));
      const std::string name(r.text(node));
      const std::string_view around = scope != nullptr && !ts_node_is_null(scope->node) ? r.text(scope->node) : r.source();
      for (const char* grows : {".append(", ".extend(", ".insert(", ".update(", ".add("})
        if (around.find(name + grows) != std::string_view::npos) return std::nullopt;
      for (const char* op : {" +=", "+=", "[", " |="})
        for (std::size_t at = around.find(name + op); at != std::string_view::npos; at = around.find(name + op, at + 1))
          if (at == 0 || !(is_identifier_char(around[at - 1]) || around[at - 1] == '.'))
            if (std::string_view(op) != "[" || around.find('=', at) < around.find('\n', at)) return std::nullopt;
    }
    auto rows = rows_of(value, r, steps, depth + 1);
    if (rows) steps.push_back(defined_here(node, value, r));
    return rows;
  }
  if (is(node, g.list) || is(node, g.tuple)) {
    const uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; ++i)
      if (is(ts_node_named_child(node, i), g.list_splat)) return std::nullopt;
    return IntegerValue{n, std::string(r.text(node)), r.locate(node), {}};
  }
  // `[torch.rand(3, 8, 8) for _ in range(10)]`: an item for each round of its one `for` clause
  // (no `if` clause, no nested `for`: body and clause are its only children).
  if (is(node, g.list_comprehension)) {
    if (ts_node_named_child_count(node) != 2 || !is(ts_node_named_child(node, 1), g.for_in_clause)) return std::nullopt;
    return rows_of(field(ts_node_named_child(node, 1), g.f_right), r, steps, depth + 1);
  }
  if (!is(node, g.call)) return std::nullopt;
  const TSNode callee = field(node, g.f_function);
  const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
  if (args.first_star >= 0 || args.has_double_star) return std::nullopt;
  if (auto sized = dataset_class_length(node, r, steps, depth)) return sized;
  auto range_size = [&]() -> std::optional<IntegerValue> {
    if (args.positional.size() == 1) {
      auto n = integer_of(args.positional[0], r);
      if (n && n->value < 0) n->value = 0;
      return n;
    }
    if (args.positional.size() == 2) {
      auto a = integer_of(args.positional[0], r), b = integer_of(args.positional[1], r);
      if (!a || !b) return std::nullopt;
      IntegerValue out = *b;
      out.value = std::max<std::int64_t>(0, b->value - a->value);
      out.spelling = std::string(r.text(node));
      out.where = r.locate(node);
      return out;
    }
    return std::nullopt;
  };
  if (r.is_builtin(callee, "range")) return range_size();
  if ((r.is_builtin(callee, "list") || r.is_builtin(callee, "tuple")) && args.positional.size() == 1)
    return rows_of(args.positional[0], r, steps, depth + 1);
  // tf.data pipelines: methods that keep the number of elements, and take(n).
  if (is(callee, g.attribute)) {
    const std::string method(r.text(field(callee, g.f_attribute)));
    const TSNode object = field(callee, g.f_object);
    if (one_of(method, {"map", "shuffle", "prefetch", "cache", "with_options"}) && qualified(callee, r).empty())
      return rows_of(object, r, steps, depth + 1);
    if (method == "take" && args.positional.size() == 1 && qualified(callee, r).empty()) {
      auto inner = rows_of(object, r, steps, depth + 1);
      auto n = integer_of(args.positional[0], r);
      if (!inner || !n || n->value < 0) return std::nullopt;
      return n->value < inner->value ? n : inner;
    }
  }
  const std::string name = qualified(callee, r);
  if (name == "tensorflow.data.Dataset.range") return range_size();
  if (one_of(name, {"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset",
                    "tensorflow.data.Dataset.from_tensor_slices"}) &&
      !args.positional.empty()) {
    TSNode first = strip(args.positional.front());
    if (is(first, g.tuple) || is(first, g.list)) {
      if (name != "tensorflow.data.Dataset.from_tensor_slices" || ts_node_named_child_count(first) == 0)
        return std::nullopt;
      first = ts_node_named_child(first, 0);  // (features, labels): the features' rows
    }
    return leading_rows(first, r, steps, depth);
  }
  if (one_of(name, {"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})) {
    TSNode indices{};
    if (args.positional.size() >= 2) indices = args.positional[1];
    for (const auto& [kw, value] : args.keywords)
      if (kw == "indices") indices = value;
    return rows_of(indices, r, steps, depth + 1);
  }
  return std::nullopt;
}

void bind_value(ValueSlot slot, const ApiUse& use, std::string_view role, const ArgBinding& binding,
                std::vector<ProvenanceStep>& uses, Resolver& r) {
  const ApiEntry& api = use.api;
  switch (binding.source) {
    case ArgBinding::Source::Explicit: {
      slot.source = ValueSource::Explicit;
      slot.location = r.locate(binding.value);
      Value value;
      {
        const ConstantFolder::ParametersForwarded forwarded(r.evaluator().folder(), binding.value);
        value = r.evaluate(binding.value);
      }
      if (value.constant) {
        slot.value = std::move(value.constant);
      } else {
        slot.source = ValueSource::NotConstant;
        if (!role.empty()) r.note_forwarding(use, role, value, binding.value);
        slot.ref = std::move(value.ref);
      }
      break;
    }
    case ArgBinding::Source::Default: {
      slot.source = ValueSource::Default;
      const ApiArg* arg = role.empty() ? nullptr : api.arg(role);
      if (arg == nullptr) break;
      if (!api.from_project) {
        if (arg->default_number) slot.value = ConstantValue{*arg->default_number, "default", {}};
        break;
      }
      if (!arg->project_default) break;
      // A project callable's default: the finding belongs at the default, and names the call.
      const Value& d = *arg->project_default;
      const std::string call = short_text(r.text(use.site));
      const Location at = r.locate(use.site);
      const auto dot = api.canonical.rfind('.');
      const std::string callable = dot == std::string::npos ? api.canonical : api.canonical.substr(dot + 1);
      slot.location = d.where;
      slot.via = "the default of " + callable + "'s `" + arg->name + "`, used by " + call + " at " + at.path + ":" +
                 std::to_string(at.range.begin.line);
      uses.push_back(ProvenanceStep{at, call + " takes the default of `" + arg->name + "` here"});
      if (d.constant) {
        slot.source = ValueSource::Explicit;
        slot.value = d.constant;
        slot.value->spelling = d.spelling;
      } else if (d.ref) {
        slot.source = ValueSource::NotConstant;
        slot.ref = d.ref;
      }
      break;
    }
    case ArgBinding::Source::Unresolvable:
      slot.source = ValueSource::Unresolvable;
      break;
  }
}

// `ResNet18()` where `def ResNet18(...)` is a function of the module whose body (a docstring
// aside) is one `return <call>`: that call; null otherwise.
TSNode module_definition_called(TSNode call, TSSymbol kind, Resolver& r) {
  const Grammar& g = Grammar::get();
  if (!is(call, g.call)) return {};
  const TSNode callee = strip(field(call, g.f_function));
  if (!is(callee, g.identifier)) return {};
  const auto [scope, binding] = r.lookup(r.text(callee));
  if (scope == nullptr || scope->kind != Scope::Kind::Module || binding == nullptr || !binding->only_definition() ||
      !is(binding->definition, kind))
    return {};
  return binding->definition;
}

TSNode factory_return(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode definition = module_definition_called(call, g.function_definition, r);
  if (ts_node_is_null(definition)) return {};
  TSNode returned{};
  for (const TSNode statement : named_children(field(definition, g.f_body))) {
    if (is(statement, g.comment)) continue;
    if (ts_node_is_null(returned) && is(statement, g.expression_statement) &&
        ts_node_named_child_count(statement) == 1 && is(ts_node_named_child(statement, 0), g.string))
      continue;  // the docstring
    if (!ts_node_is_null(returned) || !is(statement, g.return_statement) || ts_node_named_child_count(statement) != 1)
      return {};
    returned = strip(ts_node_named_child(statement, 0));
  }
  return is(returned, g.call) ? returned : TSNode{};
}

}  // namespace cudnnlint::python
