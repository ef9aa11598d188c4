// What an expression holds where the resolver's walk stands, for the extractors: the assignment
// a name was last given (the scope's single one, or the statement just before the use), a
// tensor's literal shape (`tf.zeros([0, 28, 28, 3])`), how many samples a dataset or a tf.data
// pipeline holds where the code makes it plain (`range(10)`, `TensorDataset(torch.randn(10, 3))`,
// `Subset(ds, range(8))`, `tf.data.Dataset.range(10).map(f)`), and small syntax helpers.
#pragma once

#include "python/resolver.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::python {

// The text on one line, at most 60 characters.
std::string short_text(std::string_view text);
// Without enclosing parentheses.
TSNode strip(TSNode node);
// `ds = ds.map(f)` then `ds = ds.batch(16)`: the value assigned to `identifier` in the statement
// just before the use's, in the same block, with nothing between that may rebind it.
// With `unpacked`, also `a, b = load()`: the right-hand side, and where the name stands in the
// target (`unpacked->position` of `unpacked->arity` plain names).
struct Unpacked {
  std::size_t position = 0;
  std::size_t arity = 0;
};
// With `values_only`, a statement that assigns other plain names (`shortcut = x`, `y = f(x)`) does
// not end the search: for values that reading cannot change (a Keras graph's tensors).
TSNode previous_assignment(TSNode identifier, Resolver& r, Unpacked* unpacked = nullptr, bool values_only = false);
// `train, val = random_split(ds, [99, 1])` (whole sizes, or fractions of a dataset of known size,
// split as torch does): the size of the part `identifier` names; nullopt otherwise.
std::optional<IntegerValue> random_split_part(TSNode identifier, Resolver& r, std::vector<ProvenanceStep>& steps,
                                              int depth);
// The def of `method` in the module class `made_by` names (`Dataset()`'s `__len__`), bound once in
// the class itself; null when `made_by` is no such class or the class defines no such method.
TSNode module_class_method(TSNode made_by, std::string_view method, Resolver& r);
// Whether anything under `node` may bind `name` (an assignment, a loop or `with` target, a walrus,
// `del`, `global`): conservatively, any of those whose text names it.
bool may_bind(TSNode node, std::string_view name, Resolver& r);
// The right-hand side of the assignment that binds `identifier` where the walk stands: the scope's
// single one, else the one just before the use. Null when neither.
TSNode definition_of(TSNode identifier, Resolver& r);
// The definition a call's callee names when it is the one binding of a module-level name and a
// node of `kind` (a class_definition, a function_definition); null otherwise.
TSNode module_definition_called(TSNode call, TSSymbol kind, Resolver& r);
// `ResNet18()` where `def ResNet18(...)` is a function of the module whose body (a docstring
// aside) is one `return <call>`: that call; null otherwise.
TSNode factory_return(TSNode call, Resolver& r);
// "`name = value` is defined here", at the assignment.
ProvenanceStep defined_here(TSNode identifier, TSNode value, Resolver& r);
// The expression folded to a whole number.
std::optional<IntegerValue> integer_of(TSNode node, Resolver& r);
// The qualified name a callee stands for, "" when none.
std::string qualified(TSNode callee, Resolver& r);
bool one_of(const std::string& name, std::initializer_list<const char*> names);
// The literal shape a tensor is built with, through names, `tf.constant(...)` and `.astype(...)`;
// `text` gets the factory call as written. Empty when not a literal-shaped factory.
std::vector<std::optional<IntegerValue>> literal_shape(TSNode node, Resolver& r, std::string& text, int depth = 0);
// How many samples a dataset, a sampler or a tf.data pipeline holds; `steps` gets the names crossed.
std::optional<IntegerValue> rows_of(TSNode node, Resolver& r, std::vector<ProvenanceStep>& steps, int depth = 0);

// A name a `for` loop binds to a batch of a DataLoader over a TensorDataset (`for xb, yb in loader:`,
// `for i, (xb, yb) in enumerate(loader):`), or to a sample of the dataset itself: the dataset's
// tensor at that position (the default collate stacks them), the loader's batch size argument
// (null for the dataset itself), the loop, and the names crossed. For a loader over another
// dataset's call (`torchvision.datasets.MNIST(...)`), the name first of the loop's pair: that call
// in `dataset`, `tensor` null. nullopt when the loop is not one of these, the loader has a
// collate_fn, or the body rebinds the name (with `shape_only`, but for `x = x.to(device)` and the
// other moves and casts that keep its shape).
struct LoopBatch {
  TSNode tensor{};
  TSNode dataset{};
  bool whole_sample = false;  // `for img in loader`: the dataset's whole sample, not item 0 of a pair
  TSNode batch_size{};
  TSNode loop{};
  std::vector<ProvenanceStep> steps;
};
// `whole_samples`: also a loop binding a single name to batches of a DataLoader over a dataset
// class of the project (LoopBatch::whole_sample).
std::optional<LoopBatch> loop_batch(TSNode identifier, Resolver& r, bool shape_only = false, bool whole_samples = false);

// `X = torch.rand(...)`, then `for layer in net: X = layer(X)`: at a use of `identifier` in a for
// loop's body before the body rebinds it, the value the statement just before the loop gives it
// (what the first iteration reads); null otherwise.
TSNode value_before_loop(TSNode identifier, Resolver& r);

// `for layer in net:`: the loop whose target is `identifier` alone, when `identifier` sits in its
// body; null otherwise.
TSNode loop_over(TSNode identifier, Resolver& r);

// Where an extractor keeps one argument's value (a normalization's eps fields, a loader's slot).
struct ValueSlot {
  ValueSource& source;
  std::optional<ConstantValue>& value;
  std::optional<ValueRef>& ref;
  std::string& via;
  std::optional<Location>& location;
};

// Binds the argument of `use` in `role` into `slot`: a written value folded or kept as a reference
// (a project callable's parameter also becomes a ForwardingFact), the API's default, or a project
// callable's default (then the value sits at the default, and `uses` names the call that takes it).
// An empty `role` binds `binding` as written, with no default and no forwarding (a division's operand).
void bind_value(ValueSlot slot, const ApiUse& use, std::string_view role, const ArgBinding& binding,
                std::vector<ProvenanceStep>& uses, Resolver& r);

}  // namespace cudnnlint::python
