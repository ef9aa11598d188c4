#include "python/extract/conv_geometry.h"

#include <cmath>

namespace cudnnlint::python {

namespace {

std::optional<IntegerValue> integer_of(TSNode node, Resolver& r) {
  const auto folded = r.fold(node);
  if (!folded || folded->value != std::floor(folded->value) || std::fabs(folded->value) > 9.0e15) return std::nullopt;
  return IntegerValue{static_cast<std::int64_t>(folded->value), std::string(r.text(node)), r.locate(node),
                      folded->provenance};
}

// An int for every axis, or a tuple/list with one per axis; empty when neither.
std::vector<std::optional<IntegerValue>> per_axis(TSNode node, int axes, Resolver& r) {
  const Grammar& g = Grammar::get();
  std::vector<std::optional<IntegerValue>> out;
  // `kernel_size=KERNEL_SIZE` with `KERNEL_SIZE = (3, 3)`: a name bound once to a tuple or list,
  // each value then defined there.
  std::optional<ProvenanceStep> defined;
  if (is(node, g.identifier)) {
    const auto [scope, binding] = r.lookup(r.text(node));
    if (binding != nullptr && binding->simple()) {
      const TSNode value = binding->value;  // `(3, 3)` is a tuple node itself
      if (is(value, g.tuple) || is(value, g.list)) {
        const TSNode statement = binding->assignment();
        defined = ProvenanceStep{r.locate(ts_node_is_null(statement) ? value : statement),
                                 std::string(r.text(node)) + " = " + std::string(r.text(value)) + " is defined here"};
        node = value;
      }
    }
  }
  if (is(node, g.tuple) || is(node, g.list) || is(node, g.parenthesized_expression)) {
    const TSNode inner = is(node, g.parenthesized_expression) ? ts_node_named_child(node, 0) : node;
    if (is(inner, g.tuple) || is(inner, g.list)) {
      for (const TSNode child : named_children(inner)) {
        out.push_back(integer_of(child, r));
        if (out.back() && defined) out.back()->provenance.push_back(*defined);
      }
      if (static_cast<int>(out.size()) != axes) out.clear();
      return out;
    }
  }
  if (auto single = integer_of(node, r)) out.assign(static_cast<std::size_t>(axes), single);
  return out;
}

// The default as a value on every axis.
std::vector<std::optional<IntegerValue>> default_axes(const ApiArg& arg, int axes, const Location& where) {
  if (!arg.default_number) return {};
  const IntegerValue v{static_cast<std::int64_t>(*arg.default_number), "default", where, {}};
  return std::vector<std::optional<IntegerValue>>(static_cast<std::size_t>(axes), v);
}

}  // namespace

ConvGeometryFact conv_geometry_of(const ApiEntry& api, const CallArgs& args, int shift, TSNode site, Resolver& r) {
  ConvGeometryFact fact;
  fact.call = r.locate(site);
  fact.spatial_dims = api.spatial_dims;
  fact.layout = api.layout;
  fact.input_set_by = "the tensor passed at run time";
  const int axes = api.spatial_dims;
  auto bound = [&](std::string_view role) -> std::optional<ArgBinding> {
    const ApiArg* arg = api.arg(role);
    if (arg == nullptr) return std::nullopt;
    return bind_arg(*arg, args, shift);
  };
  auto axes_of = [&](std::string_view role) -> std::vector<std::optional<IntegerValue>> {
    const auto b = bound(role);
    if (!b) return {};
    if (b->source == ArgBinding::Source::Explicit) return per_axis(b->value, axes, r);
    if (b->source == ArgBinding::Source::Default) return default_axes(*api.arg(role), axes, fact.call);
    return {};
  };
  auto scalar_of = [&](std::string_view role) -> std::optional<IntegerValue> {
    const auto b = bound(role);
    if (!b) return std::nullopt;
    if (b->source == ArgBinding::Source::Explicit) return integer_of(b->value, r);
    const ApiArg& arg = *api.arg(role);
    if (b->source == ArgBinding::Source::Default && arg.default_number)
      return IntegerValue{static_cast<std::int64_t>(*arg.default_number), "default", fact.call, {}};
    return std::nullopt;
  };
  fact.in_channels = scalar_of("in_channels");
  fact.out_channels = scalar_of("out_channels");
  fact.groups = scalar_of("groups");
  fact.kernel = axes_of("kernel_size");
  fact.stride = axes_of("stride");
  fact.dilation = axes_of("dilation");
  // Padding: numbers, or a mode ('same' / 'valid', any case).
  if (const auto b = bound("padding")) {
    const ApiArg& arg = *api.arg("padding");
    std::optional<std::string> mode;
    if (b->source == ArgBinding::Source::Explicit) mode = string_literal(b->value, r.source());
    else if (b->source == ArgBinding::Source::Default && !arg.default_text.empty()) mode = arg.default_text;
    if (mode) {
      std::string lower;
      for (char c : *mode) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      fact.padding_mode = lower;
    } else {
      fact.padding = axes_of("padding");
      if (!fact.padding.empty()) fact.padding_mode = "explicit";
    }
  }
  if (const auto b = bound("data_format"); b && b->source == ArgBinding::Source::Explicit) {
    if (const auto format = string_literal(b->value, r.source())) {
      if (*format == "channels_last" || *format == "NHWC" || *format == "NWC" || *format == "NDHWC") fact.layout = "NHWC";
      else if (*format == "channels_first" || *format == "NCHW" || *format == "NCW" || *format == "NCDHW") fact.layout = "NCHW";
    }
  }
  return fact;
}

void ConvGeometryExtractor::on_use(const ApiUse& use, Resolver& r) {
  ConvGeometryFact fact = conv_geometry_of(use.api, use.args, use.shift, use.site, r);
  fact.api = use.qualified;
  fact.spelled_as = use.spelled;
  fact.filter_set_by = fact.params_set_by = use.spelled;
  r.out().conv_geometries.push_back(std::move(fact));
}

}  // namespace cudnnlint::python
