#include "cache/codec.h"

#include "cache/msgpack_bounds.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <stdexcept>

// std::optional as null or the value (nlohmann/json 3.11 has no serializer of its own for it).
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    if (value) j = *value;
    else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& value) {
    if (j.is_null()) value.reset();
    else value = j.get<T>();
  }
};
}  // namespace nlohmann

namespace cudnnlint {

// Field by field, in declaration order. A struct that gains a field must gain it here too: the
// round-trip test (tests/unit/test_cache.cpp) compares every fact family of the fixtures.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Position, line, column, column_utf16, byte_offset)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SourceRange, begin, end)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Location, path, range)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ProvenanceStep, where, what)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ConstantValue, value, spelling, provenance, kind)
// Value and ValueRef hold each other.
void to_json(nlohmann::json& j, const Value& value);
void from_json(const nlohmann::json& j, Value& value);
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ValueRef, kind, target, parameter, index, of_class, default_value, root, spelling,
                                   steps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Value, constant, ref, where, spelling)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LiteralArg, spelling, number, boolean, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IntegerValue, value, spelling, where, provenance)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DescriptorFact, kind, api, call, descriptor, names, values, data_type, format)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ConvGeometryFact, api, spelled_as, call, spatial_dims, in_channels, out_channels,
                                   groups, kernel, stride, padding, dilation, padding_mode, input, dtype, filter_dtype,
                                   compute_type, layout, input_set_by, filter_set_by, params_set_by, input_api)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TensorInputFact, consumer, use, variable, dtype, dtype_spelling, dtype_location,
                                   weight_dtype, weight_dtype_spelling, weight_dtype_location, shape, framework,
                                   tensor_text, steps, consumer_text, conversion_at, conversion_from, conversion_to)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LowPrecisionConstantFact, use, where, value, value_is_default, dtype, expression,
                                   expression_location, reduced_by, reduced_at, operand_steps, api, framework)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SettleableValue, source, value, ref, via, location)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NormalizationFact, api, spelled_as, eps_param, call, eps, origin, literal_args, uses)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(LoaderFact, api, spelled_as, framework, batch_param, call, origin, batch_none, batch,
                                   division, division_location, divisor, guard, raising_check, drop_param, drop_last, drop_location,
                                   dataset_size, dataset_text, single_sample_norm, single_sample_norm_text, feeds,
                                   feeds_text, uses)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ForwardingFact, callable, is_class, api, api_spelled, role, api_parameter,
                                   inherits_signature, parameter, index, default_value, defined, reaches, reaches_text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ArgumentFact, dest, flag, call, default_value, type)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ConfigDefaultFact, path, where, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FileDiagnostic, severity, path, position, message, missing_header,
                                   from_compile_command, include_dir, stand_in)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SuppressionComment, line, rules)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ShapeStep, label, text, where, output, bindings)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ShapeChainFact, framework, model_text, call, source_text, source, source_provenance,
                                   layout, input_spatial, steps, rejected_by, channels, padded_input, kernel_extent,
                                   conv)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SingleSampleCallFact, call, call_text, batch, batch_text, shape, norm, norm_text,
                                   norm_input)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TrackedFlows, shape_chains, dtype_flows)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FileFacts, path, language, module, frameworks, normalizations, loaders,
                                   conv_geometries, descriptors, tensor_inputs, low_precision_constants, shape_chains,
                                   single_sample_calls, forwardings, arguments, config_defaults, suppressions, tracked)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(NotebookPlace, cell, line, end_line, file_line, file_end_line)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RelatedLocation, where, message, notebook)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(FrameworkReplay, framework, probe, expect, input_dtype, weight_dtype, input, kernel,
                                   stride, padding, dilation, out_channels, epsilon, batch_size, dataset_size, drop_last,
                                   optimizer, gpu, assumed)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ReplayConfig, op, expect, api, dtype, layout, input, strides, filter, padding,
                                   stride, dilation, compute_type, epsilon, bn_mode, assumed, unknown, framework)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GpuVerdict, outcome, status, tier, cudnn_version, device, detail, reason, framework,
                                   interpreter)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TextEdit, range, replacement, expected, new_argument)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Fix, description, safe, edits, file_hash)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Finding, rule_id, kb_id, level, location, notebook, message, detail, related,
                                   target_note, line_hash, source_line, replay, gpu_check, fix)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Version, major, minor, patch)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(VersionRange, lower, lower_inclusive, upper, upper_inclusive, text)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Target, cudnn, cudnn_source, frameworks, framework_sources, framework_ranges,
                                   variant)

namespace cache {

// The identifier filter as raw bytes (MessagePack bin): most of a pack, and mostly zero words
// that an array would spend a byte each on.
void to_json(nlohmann::json& j, const PythonEntry& e) {
  std::vector<std::uint8_t> raw(e.identifiers.size() * sizeof(std::uint64_t));
  if (!raw.empty()) std::memcpy(raw.data(), e.identifiers.data(), raw.size());
  j = nlohmann::json{{"facts", e.facts},
                     {"identifiers", nlohmann::json::binary(std::move(raw))},
                     {"numeric_names", e.numeric_names},
                     {"numeric_aliases", e.numeric_aliases},
                     {"numeric_flags", e.numeric_flags},
                     {"diagnostics", e.diagnostics},
                     {"bytes_read", e.bytes_read},
                     {"bytes_parsed", e.bytes_parsed}};
}

void from_json(const nlohmann::json& j, PythonEntry& e) {
  j.at("facts").get_to(e.facts);
  const auto& raw = j.at("identifiers").get_binary();
  if (raw.size() % sizeof(std::uint64_t) != 0) throw std::runtime_error("bad identifier filter");
  e.identifiers.resize(raw.size() / sizeof(std::uint64_t));
  if (!raw.empty()) std::memcpy(e.identifiers.data(), raw.data(), raw.size());
  j.at("numeric_names").get_to(e.numeric_names);
  j.at("numeric_aliases").get_to(e.numeric_aliases);
  j.at("numeric_flags").get_to(e.numeric_flags);
  j.at("diagnostics").get_to(e.diagnostics);
  j.at("bytes_read").get_to(e.bytes_read);
  j.at("bytes_parsed").get_to(e.bytes_parsed);
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunEntry, findings, diagnostics, files_parsed, bytes_read, bytes_parsed, suppressed,
                                   tracked, project_rounds, project_apis, project_bytes_parsed, dependencies, absent)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CppEntry, facts, stand_ins, text_size, diagnostics, dependencies, absent)

namespace {

template <typename T>
std::string to_bytes(const T& value) {
  const std::vector<std::uint8_t> packed = nlohmann::json::to_msgpack(nlohmann::json(value));
  return std::string(packed.begin(), packed.end());
}

// Deeper than any entry the codec writes (a finding's replay is the deepest, under ten levels).
constexpr std::size_t kMaxEntryDepth = 64;

template <typename T>
std::optional<T> from_bytes(std::string_view bytes) {
  if (!check_msgpack_bounds(bytes, kMaxEntryDepth).empty()) return std::nullopt;
  try {
    const auto j = nlohmann::json::from_msgpack(bytes.begin(), bytes.end());
    return j.get<T>();
  } catch (const std::exception&) {  // nlohmann's, or a malformed part
    return std::nullopt;
  }
}

}  // namespace

std::string encode(const PythonEntry& entry) { return to_bytes(entry); }
std::string encode(const RunEntry& entry) { return to_bytes(entry); }
std::string encode(const FileFacts& facts) { return to_bytes(facts); }
std::optional<PythonEntry> decode_python(std::string_view bytes) { return from_bytes<PythonEntry>(bytes); }
std::optional<RunEntry> decode_run(std::string_view bytes) { return from_bytes<RunEntry>(bytes); }
std::string encode(const CppEntry& entry) { return to_bytes(entry); }
std::optional<CppEntry> decode_cpp(std::string_view bytes) { return from_bytes<CppEntry>(bytes); }

std::string canonical_text(const Target& target) { return nlohmann::json(target).dump(); }

}  // namespace cache
}  // namespace cudnnlint
