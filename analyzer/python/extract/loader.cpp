#include "python/extract/loader.h"
#include "python/extract/tensor_dtype.h"

#include "python/frontend.h"

#include "python/extract/local_values.h"
#include "python/extract/single_sample_consumer.h"

#include "python/regions.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cudnnlint::python {

namespace {

// The method holding `scope`, itself or through the closures it defines (which see its `self`).
const Scope* enclosing_method(const Scope* scope) {
  while (scope != nullptr && scope->kind == Scope::Kind::Function && !scope->is_method()) scope = scope->parent;
  return scope != nullptr && scope->is_method() ? scope : nullptr;
}

// `a // b`, `int(a / b)`, `math.floor(a / b)`: the dividend and the divisor.
struct Division {
  TSNode dividend, divisor, whole;
};

std::optional<Division> division_of(TSNode node, Resolver& r) {
  const Grammar& g = Grammar::get();
  node = strip(node);
  if (is(node, g.binary_operator) && r.text(field(node, g.f_operator)) == "//")
    return Division{field(node, g.f_left), field(node, g.f_right), node};
  if (!is(node, g.call)) return std::nullopt;
  const TSNode callee = field(node, g.f_function);
  if (!r.is_builtin(callee, "int") && qualified(callee, r) != "math.floor") return std::nullopt;
  const CallArgs args = collect_args(field(node, g.f_arguments), r.source());
  if (args.positional.size() != 1 || !args.keywords.empty()) return std::nullopt;
  const TSNode inner = strip(args.positional.front());
  if (is(inner, g.binary_operator) && r.text(field(inner, g.f_operator)) == "/")
    return Division{field(inner, g.f_left), field(inner, g.f_right), node};
  return std::nullopt;
}

// Whether an if (or elif) clause only stops the program when its test holds (`if bs < 1: raise
// ValueError(...)`, after a log line or not): a check that fails earlier, with its own message,
// not one that keeps the loader from failing.
bool only_raises(TSNode clause, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode body = field(clause, g.f_consequence);
  const std::vector<TSNode> statements = named_children(body);
  if (statements.empty() || !r.text(statements.back()).starts_with("raise")) return false;
  return std::none_of(statements.begin(), statements.end(), [&](TSNode statement) {
    return is(statement, g.expression_statement) && !is(ts_node_named_child(statement, 0), g.call);
  });
}

// The checks in `scope` (the function or module the loader is built in) of one of `names`: a
// guard, an if-test or conditional expression that may change what follows (`if world_size >
// batch: batch = world_size`, `bs if bs > 0 else 1`, an early return); an assert or an if that only
// raises makes the program fail anyway, with its own message, so it is no guard.
struct Checks {
  std::string guard;    // may keep the loader from failing
  std::string raising;  // stops the program first, with its own error (an assert, an if that raises)
};

Checks checks_in(const Scope* scope, const std::vector<std::string>& names, Resolver& r) {
  Checks found;
  if (scope == nullptr || ts_node_is_null(scope->node)) return found;
  const Grammar& g = Grammar::get();
  auto mentions = [&](std::string_view text) {
    return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
      if (name.empty()) return false;
      if (name.find_first_of(".[") != std::string::npos) return text.find(name) != std::string_view::npos;
      return mentions_identifier(text, name);
    });
  };
  walk_tree(
      scope->node,
      [&](TSNode node, const TSTreeCursor*) {
        if (!found.guard.empty()) return false;
        const bool clause = is(node, g.if_statement) || is(node, g.elif_clause);
        const bool assertion = std::strcmp(ts_node_type(node), "assert_statement") == 0;
        TSNode test{};
        if (std::strcmp(ts_node_type(node), "conditional_expression") == 0 || assertion) test = node;
        else if (clause) test = field(node, g.f_condition);
        if (ts_node_is_null(test) || !mentions(r.text(test))) return true;
        const std::string text = short_text(clause ? "if " + std::string(r.text(test)) : std::string(r.text(test)));
        if (assertion || (clause && only_raises(node, r))) {
          if (found.raising.empty()) found.raising = text;
          return true;
        }
        found.guard = text;
        return false;
      },
      [](TSNode) {});
  return found;
}

std::string guard_in(const Scope* scope, const std::vector<std::string>& names, Resolver& r) {
  return checks_in(scope, names, r).guard;
}

ValueSlot slot(SettleableValue& value) {
  return ValueSlot{value.source, value.value, value.ref, value.via, value.location};
}

}  // namespace

bool LoaderExtractor::handles(const ApiEntry& api) const {
  if (api.family == kLoaderFamily) return !api.is_method;
  // TensorFlow's functional convolutions and batch norms: a zero-size input is read at the call.
  return (api.family == kConvolutionFamily || api.family == kNormalizationFamily) && !api.is_class &&
         (api.framework == "tensorflow" || api.framework == "keras");
}

void LoaderExtractor::emit(const ApiUse& use, TSNode receiver, Resolver& r) {
  const Grammar& g = Grammar::get();
  const ApiEntry& api = use.api;
  for (const std::string_view role : {std::string_view("batch_size"), std::string_view("eval_batch_size")}) {
    const ApiArg* arg = api.arg(role);
    if (arg == nullptr) continue;
    const ArgBinding binding = bind_arg(*arg, use.args, use.shift);
    // A keyword-only batch size (Keras's fit, whose namesakes are sklearn's; TrainingArguments) is
    // read only where the call writes it.
    if (!arg->index && !api.from_project && binding.source != ArgBinding::Source::Explicit) continue;
    LoaderFact fact;
    fact.api = api.from_project ? api.underlying : use.qualified;
    fact.spelled_as = api.from_project ? api.underlying_spelled : use.spelled;
    fact.framework = api.framework;
    fact.batch_param = arg->name;
    fact.call = r.locate(use.site);
    fact.origin = use.origin;
    std::vector<std::string> guard_names;
    if (binding.source == ArgBinding::Source::Explicit && is(strip(binding.value), g.none)) {
      fact.batch_none = true;
    } else if (binding.source == ArgBinding::Source::Explicit) {
      TSNode expr = strip(binding.value);
      std::vector<ProvenanceStep> steps;
      if (is(expr, g.identifier)) {
        guard_names.emplace_back(r.text(expr));
        const TSNode value = definition_of(expr, r);
        if (!ts_node_is_null(value) && division_of(value, r)) {
          steps.push_back(defined_here(expr, value, r));
          expr = value;
        }
      }
      if (const auto d = division_of(expr, r)) {
        fact.division = short_text(r.text(d->whole));
        fact.division_location = r.locate(d->whole);
        bind_value(slot(fact.batch), use, {}, ArgBinding{ArgBinding::Source::Explicit, d->dividend}, fact.uses, r);
        bind_value(slot(fact.divisor), use, {}, ArgBinding{ArgBinding::Source::Explicit, d->divisor}, fact.uses, r);
        guard_names.emplace_back(r.text(strip(d->dividend)));
        guard_names.emplace_back(r.text(strip(d->divisor)));
        fact.uses = std::move(steps);
      } else {
        bind_value(slot(fact.batch), use, role, binding, fact.uses, r);
        guard_names.emplace_back(r.text(expr));
      }
      if (!fact.division.empty() || fact.batch.source == ValueSource::NotConstant) {
        Checks checks = checks_in(r.scope(), guard_names, r);
        fact.guard = std::move(checks.guard);
        fact.raising_check = std::move(checks.raising);
      }
    } else {
      bind_value(slot(fact.batch), use, role, binding, fact.uses, r);
    }
    if (api.from_project)
      for (const auto& step : api.forwards) fact.uses.push_back(step);
    if (const ApiArg* drop = api.arg("drop_last")) {
      fact.drop_param = drop->name;
      const ArgBinding b = bind_arg(*drop, use.args, use.shift);
      if (b.source == ArgBinding::Source::Explicit) {
        const TSNode v = strip(b.value);
        if (is(v, g.true_)) fact.drop_last = true;
        else if (is(v, g.false_)) fact.drop_last = false;
        else fact.drop_last = r.evaluator().folder().fold_truth(v, r.scope());  // `drop_last=cfg.drop_last`
        fact.drop_location = r.locate(b.value);
      } else if (b.source == ArgBinding::Source::Default && drop->default_text == "false") {
        fact.drop_last = false;
      }
    }
    std::vector<ProvenanceStep> steps;
    TSNode dataset = receiver;
    if (const ApiArg* data = api.arg("dataset")) {
      const ArgBinding b = bind_arg(*data, use.args, use.shift);
      if (b.source == ArgBinding::Source::Explicit) dataset = b.value;
    }
    // A sampler decides how many samples an epoch draws (`RandomSampler(ds, num_samples=1000)`):
    // the dataset's size is not the loader's then.
    if (const ApiArg* sampler = api.arg("sampler"); sampler != nullptr) {
      const ArgBinding b = bind_arg(*sampler, use.args, use.shift);
      if (b.source != ArgBinding::Source::Default && !is(strip(b.value), g.none)) dataset = TSNode{};
    }
    if (use.args.has_double_star || use.args.first_star >= 0) dataset = TSNode{};
    if (!ts_node_is_null(dataset)) {
      fact.dataset_size = rows_of(dataset, r, steps);
      if (fact.dataset_size) {
        fact.dataset_text = short_text(r.text(dataset));
        fact.dataset_size->provenance.insert(fact.dataset_size->provenance.end(), steps.begin(), steps.end());
      }
    }
    // PyTorch: a model fed by the loader whose batch norm fails on a single-sample batch.
    if (fact.framework == "torch" && fact.dataset_size) {
      const TSNode parent = ts_node_parent(use.site);
      if (is(parent, g.assignment) && is(field(parent, g.f_left), g.identifier))
        find_single_sample_consumer(fact, r.text(field(parent, g.f_left)), r.scope(), r);
      else if (is(parent, g.assignment) && is(field(parent, g.f_left), g.attribute))
        if (const Scope* method = enclosing_method(r.scope()); method != nullptr)
          find_single_sample_consumer_in_class(fact, r.text(field(parent, g.f_left)), *method, r);
    }
    r.out().loaders.push_back(std::move(fact));
  }
}

// The prefilter counts method words (`batch`, `fit`) and `zeros` only in files importing TensorFlow
// or Keras when the module loads (engine/python_pass.cpp); what they lead to here follows the same
// rule, so that a region parse and a full parse agree.
bool LoaderExtractor::tensorflow_file(Resolver& r) {
  if (!tensorflow_file_) tensorflow_file_ = imports_at_module_level(r.source(), {"tensorflow", "keras", "tf_keras"});
  return *tensorflow_file_;
}

void LoaderExtractor::on_use(const ApiUse& use, Resolver& r) {
  if (use.api.family == kLoaderFamily) {
    if (!ts_node_is_null(use.partial) || use.origin == "functools.partial") return;  // not a loader's construction
    emit(use, {}, r);
    return;
  }
  // tf.nn.conv2d(x, ...), tf.nn.batch_normalization(x, ...): the input is the first argument.
  if (tensorflow_file(r) && !use.args.positional.empty() && use.args.first_star != 0)
    zero_size_input(use.qualified, use.api.framework, use.args.positional.front(), r);
}

void LoaderExtractor::zero_size_input(const std::string& consumer, const std::string& framework, TSNode argument,
                                      Resolver& r, std::optional<ProvenanceStep> through) {
  const Grammar& g = Grammar::get();
  std::string text;
  const auto shape = literal_shape(argument, r, text);
  if (shape.empty() || !shape.front() || shape.front()->value != 0) return;
  TensorInputFact fact;
  fact.consumer = consumer;
  fact.use = r.locate(argument);
  if (is(strip(argument), g.identifier)) fact.variable = std::string(r.text(strip(argument)));
  // `model.predict(x) if len(x) else None`, `if x.shape[0]: conv(x)`: the code checks the batch.
  if (!fact.variable.empty() && !guard_in(r.scope(), {fact.variable}, r).empty()) return;
  fact.shape = shape;
  fact.framework = framework;
  fact.tensor_text = text;
  if (through) fact.steps.push_back(std::move(*through));
  r.out().tensor_inputs.push_back(std::move(fact));
}

void LoaderExtractor::on_other_call(TSNode call, Resolver& r) {
  // A PyTorch model run on a batch of one in training mode (python/extract/single_sample_consumer.h),
  // in a file that names a batch norm at all.
  if (!names_batch_norm_) names_batch_norm_ = r.source().find("BatchNorm") != std::string_view::npos;
  if (*names_batch_norm_) find_single_sample_call(call, r);
  // Every case below is TensorFlow's or Keras's (a method API, `predict`, a layer called on a
  // tensor): in a file that imports neither, no call is one.
  if (!tensorflow_file(r)) return;
  const Grammar& g = Grammar::get();
  const TSNode callee = field(call, g.f_function);
  if (is(callee, g.attribute)) {
    const std::string method(r.text(field(callee, g.f_attribute)));
    for (const auto& [leaf, api] : methods_) {
      if (leaf != method) continue;
      if (api->framework != "tensorflow" && api->framework != "keras") continue;
      const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
      // Named as its class's method ("Dataset.batch", "Model.fit"): the receiver may be a whole pipeline.
      const std::string owner = api->canonical.substr(0, api->canonical.rfind('.'));
      const std::string owner_leaf = owner.substr(owner.rfind('.') + 1);
      const ApiUse use{*api, owner + "." + leaf, owner_leaf + "." + leaf, call, args, 0, "method call"};
      emit(use, api->framework == "tensorflow" ? field(callee, g.f_object) : TSNode{}, r);
      break;
    }
    // model.predict(x): Keras splits x into batches; zero samples leave it nothing to predict.
    if (method == "predict") {
      const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
      if (!args.positional.empty() && args.first_star != 0)
        zero_size_input("keras.Model.predict", "keras", args.positional.front(), r);
    }
    return;
  }
  // A layer called on a tensor: `Conv2D(32, 3)(x)`, or `conv = Conv2D(32, 3)` then `conv(x)`.
  TSNode construction = strip(callee);
  if (is(construction, g.identifier)) construction = strip(definition_of(construction, r));
  if (!is(construction, g.call)) return;
  // A Keras model class of the module whose `call` runs its input through a convolution or batch
  // norm first: `MyNet()(tf.zeros([0, 4, 4, 8]))`.
  if (const TSNode model = field(construction, g.f_function); is(model, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(model));
    if (binding != nullptr && binding->only_definition() && is(binding->definition, g.class_definition)) {
      const auto first = first_layer_of_model_class(binding->definition, r);
      const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
      if (first && (first->framework == "keras" || first->framework == "tensorflow") && !args.positional.empty() &&
          args.first_star != 0)
        zero_size_input(first->api, first->framework, args.positional.front(), r,
                        ProvenanceStep{r.locate(first->built), std::string(r.text(model)) + " runs its input through " +
                                                                   short_text(r.text(first->built)) + " first"});
      return;
    }
  }
  const std::string layer = qualified(field(construction, g.f_function), r);
  const ApiEntry* api = r.table().find(layer);
  if (api == nullptr || !api->is_class || (api->framework != "keras" && api->framework != "tensorflow") ||
      (api->family != kConvolutionFamily && api->family != kNormalizationFamily))
    return;
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  if (!args.positional.empty() && args.first_star != 0) zero_size_input(layer, api->framework, args.positional.front(), r);
}

ExtractorRelevance LoaderExtractor::relevance(const ApiTable& table) {
  ExtractorRelevance out;
  out.framework_markers = {"tensorflow", "keras", "tf_keras"};
  for (const auto& [method, api] : table.methods_of(kLoaderFamily)) out.framework_words.push_back(method);
  out.framework_words.emplace_back("zeros");
  out.reads_framework_import = true;  // a TensorFlow import at module level
  // A Keras model class building a convolution or batch norm stands for that layer where its name
  // is used with a zero-size tensor (`Stem()(tf.zeros([0, 8, 8, 3]))`): the class is read too.
  std::vector<std::string> keras_layers;
  for (const std::string_view family : {kConvolutionFamily, kNormalizationFamily})
    for (const std::string& name : table.names_of(family))
      if (const ApiEntry* api = table.find(name);
          api != nullptr && api->is_class && (api->framework == "keras" || api->framework == "tensorflow"))
        keras_layers.push_back(name.substr(name.rfind('.') + 1));
  std::sort(keras_layers.begin(), keras_layers.end());
  keras_layers.erase(std::unique(keras_layers.begin(), keras_layers.end()), keras_layers.end());
  out.pairs.push_back({.first = {"zeros"}, .second = std::move(keras_layers), .second_classes = true,
                       .second_only_through_classes = true});
  // A PyTorch model run on a batch of one (`net(torch.randn(1, 8))`, `net(preprocess(img).unsqueeze(0))`):
  // a class or a stack building a batch norm stands for it where used (find_single_sample_call).
  out.pairs.push_back({.first = {"randn", "rand", "zeros", "ones", "empty", "unsqueeze"},
                       .second = {"BatchNorm1d", "BatchNorm2d", "LazyBatchNorm1d", "LazyBatchNorm2d"},
                       .second_classes = true, .init_counts = false});
  return out;
}

}  // namespace cudnnlint::python
