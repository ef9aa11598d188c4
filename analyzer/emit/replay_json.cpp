#include "emit/replay_json.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>

namespace cudnnlint {

namespace {

// A float that JSON can hold as it is: a number, or "nan", "inf", "-inf" (JSON has no NaN).
nlohmann::json float_to_json(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

std::optional<double> float_from_json(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

nlohmann::json framework_to_json(const FrameworkReplay& f) {
  nlohmann::json j = {{"framework", framework_name(f.framework)},
                      {"probe", framework_probe_name(f.probe)},
                      {"expect", framework_expect_name(f.expect)}};
  if (f.input_dtype != DType::Unknown) j["inputDtype"] = dtype_name(f.input_dtype);
  if (f.weight_dtype != DType::Unknown) j["weightDtype"] = dtype_name(f.weight_dtype);
  auto put_list = [&](const char* key, const std::vector<std::int64_t>& values) {
    if (!values.empty()) j[key] = values;
  };
  put_list("input", f.input);
  put_list("kernel", f.kernel);
  put_list("stride", f.stride);
  put_list("padding", f.padding);
  put_list("dilation", f.dilation);
  if (f.out_channels != 0) j["outChannels"] = f.out_channels;
  if (f.epsilon) j["epsilon"] = float_to_json(*f.epsilon);
  if (f.batch_size) j["batchSize"] = *f.batch_size;
  if (f.dataset_size) j["datasetSize"] = *f.dataset_size;
  if (f.drop_last) j["dropLast"] = true;
  if (!f.optimizer.empty()) j["optimizer"] = f.optimizer;
  if (f.gpu) j["gpu"] = true;
  if (!f.assumed.empty()) j["assumed"] = f.assumed;
  return j;
}

// A hostile or newer report: whatever does not read back as this build writes it leaves the
// case without a probe (nothing to run), never a half-read one.
FrameworkReplay framework_from_json(const nlohmann::json& j) {
  FrameworkReplay f;
  if (!j.is_object()) return f;
  auto text = [&](const char* key) { return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : ""; };
  const auto framework = parse_framework_name(text("framework"));
  const auto probe = parse_framework_probe(text("probe"));
  const auto expect = parse_framework_expect(text("expect"));
  if (!framework || !probe || !expect) return f;
  bool ok = true;
  auto integer = [&](const nlohmann::json& item) -> std::optional<std::int64_t> {
    if (!item.is_number_integer()) return std::nullopt;
    if (item.is_number_unsigned() && item.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int32_t>::max()})
      return std::nullopt;
    const auto value = item.get<std::int64_t>();
    if (value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max())
      return std::nullopt;
    return value;
  };
  auto get_list = [&](const char* key, std::vector<std::int64_t>& out) {
    if (!j.contains(key)) return;
    if (!j.at(key).is_array() || j.at(key).size() > 8) {
      ok = false;
      return;
    }
    for (const auto& item : j.at(key)) {
      const auto value = integer(item);
      if (!value) ok = false;
      else out.push_back(*value);
    }
  };
  auto get_int = [&](const char* key, std::optional<std::int64_t>& out) {
    if (!j.contains(key)) return;
    out = integer(j.at(key));
    if (!out) ok = false;
  };
  f.input_dtype = dtype_from_name(text("inputDtype"));
  f.weight_dtype = dtype_from_name(text("weightDtype"));
  get_list("input", f.input);
  get_list("kernel", f.kernel);
  get_list("stride", f.stride);
  get_list("padding", f.padding);
  get_list("dilation", f.dilation);
  std::optional<std::int64_t> out_channels;
  get_int("outChannels", out_channels);
  f.out_channels = out_channels.value_or(0);
  if (j.contains("epsilon")) {
    f.epsilon = float_from_json(j.at("epsilon"));
    if (!f.epsilon) ok = false;
  }
  get_int("batchSize", f.batch_size);
  get_int("datasetSize", f.dataset_size);
  f.drop_last = j.contains("dropLast") && j.at("dropLast").is_boolean() && j.at("dropLast").get<bool>();
  f.optimizer = text("optimizer");
  f.gpu = j.contains("gpu") && j.at("gpu").is_boolean() && j.at("gpu").get<bool>();
  if (j.contains("assumed") && j.at("assumed").is_array())
    for (const auto& item : j.at("assumed"))
      if (item.is_string()) f.assumed.push_back(item.get<std::string>());
  if (!ok) return FrameworkReplay{};
  f.framework = *framework;
  f.probe = *probe;
  f.expect = *expect;
  return f;
}

}  // namespace

nlohmann::json replay_to_json(const ReplayConfig& r) {
  nlohmann::json j = nlohmann::json::object();
  auto put = [&](const char* key, const std::string& value) {
    if (!value.empty()) j[key] = value;
  };
  auto put_list = [&](const char* key, const std::vector<std::int64_t>& values) {
    if (!values.empty()) j[key] = values;
  };
  put("op", std::string(replay_op_name(r.op)));
  put("expect", std::string(expectation_name(r.expect)));
  put("api", r.api);
  put("dtype", std::string(dtype_name(r.dtype)));
  put("layout", r.layout);
  put_list("input", r.input);
  put_list("strides", r.strides);
  put_list("filter", r.filter);
  put_list("padding", r.padding);
  put_list("stride", r.stride);
  put_list("dilation", r.dilation);
  put("computeType", std::string(dtype_name(r.compute_type)));
  if (r.epsilon) j["epsilon"] = *r.epsilon;
  put("bnMode", r.bn_mode);
  if (!r.assumed.empty()) j["assumed"] = r.assumed;
  put("notReplayable", r.unknown);
  if (r.framework.replayable()) j["framework"] = framework_to_json(r.framework);
  return j;
}

ReplayConfig replay_from_json(const nlohmann::json& j) {
  ReplayConfig r;
  auto get = [&](const char* key, std::string& out) {
    if (j.contains(key)) out = j.at(key).get<std::string>();
  };
  // cuDNN takes these as int: a value that is not an integer in int's range (2^63, 1e300, 1.5)
  // cannot be replayed as written, and a saturated or truncated stand-in would "confirm" a
  // configuration the code never had. Such a replay is not replayable, with the reason.
  std::string bad_value;
  auto get_list = [&](const char* key, std::vector<std::int64_t>& out) {
    if (!j.contains(key)) return;
    const auto& list = j.at(key);
    if (!list.is_array()) {
      bad_value = std::string(key) + " is not a list";
      return;
    }
    for (const auto& item : list) {
      const bool integer = item.is_number_integer() ||
                           (item.is_number_float() && std::nearbyint(item.get<double>()) == item.get<double>());
      const double value = item.is_number() ? item.get<double>() : 0.0;
      if (!integer || value < std::numeric_limits<std::int32_t>::min() || value > std::numeric_limits<std::int32_t>::max() ||
          (item.is_number_unsigned() && item.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int32_t>::max()})) {
        if (bad_value.empty()) bad_value = std::string(key) + " holds " + item.dump() + ", not an int cuDNN takes";
        return;
      }
      out.push_back(static_cast<std::int64_t>(value));
    }
  };
  std::string op, expect;
  get("op", op);
  get("expect", expect);
  // A spelling this build does not know (a newer tool's SARIF, a hand edit) is nothing to replay.
  if (const auto known = parse_replay_op(op)) r.op = *known;
  else bad_value = "op \"" + op + "\" is not an operation gpu_check replays";
  if (const auto known = parse_expectation(expect)) r.expect = *known;
  else if (bad_value.empty()) bad_value = "expect \"" + expect + "\" is not an outcome gpu_check judges";
  get("api", r.api);
  std::string dtype, compute_type;
  get("dtype", dtype);
  r.dtype = dtype_from_name(dtype);
  get("layout", r.layout);
  get_list("input", r.input);
  get_list("strides", r.strides);
  get_list("filter", r.filter);
  get_list("padding", r.padding);
  get_list("stride", r.stride);
  get_list("dilation", r.dilation);
  get("computeType", compute_type);
  r.compute_type = dtype_from_name(compute_type);
  if (j.contains("epsilon")) r.epsilon = j.at("epsilon").get<double>();
  get("bnMode", r.bn_mode);
  if (j.contains("assumed")) r.assumed = j.at("assumed").get<std::vector<std::string>>();
  get("notReplayable", r.unknown);
  if (j.contains("framework")) r.framework = framework_from_json(j.at("framework"));
  if (r.unknown.empty() && !bad_value.empty()) r.unknown = "the replay's " + bad_value + ": not replayed";
  // Descriptor and convolution replays need their dimensions: none given is nothing to replay.
  const bool needs_input = r.op == ReplayOp::TensorDescriptor || r.op == ReplayOp::Convolution || r.op == ReplayOp::Batchnorm;
  if (r.unknown.empty() && needs_input && j.contains("input") && r.input.empty())
    r.unknown = "the replay's input is empty: not replayed";
  if (r.unknown.empty() && r.epsilon && !std::isfinite(*r.epsilon))
    r.unknown = "the replay's epsilon is not finite: not replayed";
  return r;
}

nlohmann::json verdict_to_json(const GpuVerdict& v) {
  nlohmann::json j = {{"outcome", outcome_name(v.outcome)}, {"detail", v.detail}};
  if (!v.reason.empty()) j["reason"] = v.reason;
  if (!v.status.empty()) j["status"] = v.status;
  if (!v.tier.empty()) j["tier"] = v.tier;
  if (!v.cudnn_version.empty()) j["cudnnVersion"] = v.cudnn_version;
  j["device"] = v.device.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.device);
  if (!v.framework.empty()) j["framework"] = v.framework;
  if (!v.interpreter.empty()) j["interpreter"] = v.interpreter;
  return j;
}

nlohmann::json summary_to_json(const GpuCheckSummary& s) {
  return {{"cudnnVersion", s.cudnn_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.cudnn_version)},
          {"cudnnLibrary", s.cudnn_library},
          {"device", s.device.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.device)},
          {"descriptorTier", s.descriptor_tier},
          {"executionTier", s.execution_tier},
          {"confirmed", s.confirmed},
          {"notReproduced", s.not_reproduced},
          {"skipped", s.skipped},
          {"frameworkTier", s.framework_tier},
          {"seconds", s.seconds}};
}

std::string verdict_line(const GpuVerdict& v) {
  std::string line = outcome_name(v.outcome);
  line += ": ";
  if (v.outcome == GpuVerdict::Outcome::Skipped) return line + (v.reason.empty() ? v.detail : v.reason);
  if (v.tier == "framework") return line + v.status;  // "torch 2.11.0 (CPU) raises ValueError: ..."
  const bool nonfinite_expected = v.detail.find("NaN/Inf") != std::string::npos && v.status == "CUDNN_STATUS_SUCCESS";
  line += nonfinite_expected && v.outcome == GpuVerdict::Outcome::Confirmed ? "NaN/Inf output with " + v.status : v.status;
  line += " (cuDNN " + v.cudnn_version + ", " + v.tier + " tier";
  if (!v.device.empty()) line += ", " + v.device;
  line += ")";
  return line;
}

std::string summary_line(const GpuCheckSummary& s) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", s.seconds);
  std::string line = "gpu_check: " + std::to_string(s.confirmed) + " confirmed, " + std::to_string(s.not_reproduced) +
                     " not reproduced, " + std::to_string(s.skipped) + " skipped in " + seconds + " s; descriptor tier " +
                     s.descriptor_tier;
  if (!s.cudnn_version.empty()) line += " (cuDNN " + s.cudnn_version + ", " + s.cudnn_library + ")";
  line += "; execution tier " + s.execution_tier;
  if (!s.device.empty() && s.execution_tier == "ran") line += " (" + s.device + ")";
  if (!s.framework_tier.empty()) line += "; framework tier " + s.framework_tier;
  return line;
}

}  // namespace cudnnlint
