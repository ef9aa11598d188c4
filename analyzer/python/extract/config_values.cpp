#include "python/extract/config_values.h"

#include <cctype>

namespace cudnnlint::python {

namespace {

// Classes whose instances are attribute-style config trees (yacs, detectron2, ml_collections, easydict).
bool is_config_class(std::string_view qualified) {
  const auto dot = qualified.rfind('.');
  const auto leaf = dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
  for (std::string_view name : {"CN", "CfgNode", "ConfigNode", "ConfigDict", "EasyDict", "edict", "AttrDict"})
    if (leaf == name) return true;
  return false;
}

bool config_like_name(std::string_view name) {
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "_c" || lower == "c") return true;
  for (std::string_view word : {"cfg", "conf"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

}  // namespace

void ArgparseExtractor::on_other_call(TSNode call, Resolver& r) {
  const Grammar& g = Grammar::get();
  const TSNode callee = field(call, g.f_function);
  if (!is(callee, g.attribute) || r.text(field(callee, g.f_attribute)) != "add_argument") return;
  const CallArgs args = collect_args(field(call, g.f_arguments), r.source());
  ArgumentFact fact;
  fact.call = r.locate(call);
  std::string positional_name;
  for (const TSNode arg : args.positional) {
    const auto text = string_literal(arg, r.source());
    if (!text) continue;
    if (text->rfind("--", 0) == 0 && fact.flag.empty()) fact.flag = *text;
    else if (text->empty() || text->front() != '-') positional_name = *text;
  }
  for (const auto& [name, value] : args.keywords) {
    if (name == "dest") {
      if (auto dest = string_literal(value, r.source())) fact.dest = *dest;
    } else if (name == "default") {
      fact.default_value = r.evaluate(value);
    } else if (name == "type") {
      fact.type = std::string(r.text(value));
    }
  }
  // argparse: dest is the first long option without its dashes, '-' read as '_'.
  if (fact.dest.empty() && !fact.flag.empty()) {
    fact.dest = fact.flag.substr(2);
    for (char& c : fact.dest)
      if (c == '-') c = '_';
  }
  if (fact.dest.empty()) fact.dest = positional_name;
  if (fact.dest.empty()) return;
  r.out().arguments.push_back(std::move(fact));
}

void ConfigDefaultsExtractor::on_assignment(TSNode assignment, Resolver& r) {
  const Grammar& g = Grammar::get();
  TSNode node = field(assignment, g.f_left);
  const TSNode right = field(assignment, g.f_right);
  if (!is(node, g.attribute) || ts_node_is_null(right) || is(right, g.assignment)) return;
  std::vector<std::string_view> path;
  while (is(node, g.attribute)) {
    path.push_back(r.text(field(node, g.f_attribute)));
    node = field(node, g.f_object);
  }
  if (!is(node, g.identifier)) return;
  const auto root = r.text(node);
  if (root == "self") return;
  bool config = config_like_name(root);
  if (!config) {
    const auto [defining, binding] = r.lookup(root);
    (void)defining;
    if (binding != nullptr && binding->simple() && is(binding->value, g.call))
      if (const auto q = r.qualified_name(field(binding->value, g.f_function))) config = is_config_class(*q);
  }
  if (!config) return;
  ConfigDefaultFact fact;
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    if (!fact.path.empty()) fact.path += '.';
    fact.path += *it;
  }
  fact.where = r.locate(assignment);
  fact.value = r.evaluate(right);
  // Only numbers can settle a read: written, or read from a config file (the project step's).
  if (!fact.value.constant && !(fact.value.ref && fact.value.ref->kind == ValueRef::Kind::ConfigKey)) return;
  r.out().config_defaults.push_back(std::move(fact));
}

}  // namespace cudnnlint::python
