#include "core/finding.h"

namespace cudnnlint {

const char* level_name(Level level) {
  switch (level) {
    case Level::Note: return "note";
    case Level::Warning: return "warning";
    case Level::Error: return "error";
  }
  return "warning";
}

std::optional<Level> parse_level(std::string_view text) {
  if (text == "note") return Level::Note;
  if (text == "warning") return Level::Warning;
  if (text == "error") return Level::Error;
  return std::nullopt;
}

namespace {

template <class Enum>
struct Spelling {
  Enum value;
  std::string_view name;
};

// The one table per enum: name_of and parse below both read it.
constexpr Spelling<ReplayOp> kReplayOpNames[] = {
    {ReplayOp::None, ""},
    {ReplayOp::TensorDescriptor, "tensor-descriptor"},
    {ReplayOp::FilterDescriptor, "filter-descriptor"},
    {ReplayOp::ConvolutionDescriptor, "convolution-descriptor"},
    {ReplayOp::Convolution, "convolution"},
    {ReplayOp::Batchnorm, "batchnorm"},
};
constexpr Spelling<Expectation> kExpectationNames[] = {
    {Expectation::None, ""},
    {Expectation::BadParam, "CUDNN_STATUS_BAD_PARAM"},
    {Expectation::NonFiniteOutput, "non-finite output"},
};

constexpr Spelling<FrameworkName> kFrameworkNames[] = {
    {FrameworkName::None, ""},
    {FrameworkName::Torch, "torch"},
    {FrameworkName::TensorFlow, "tensorflow"},
};
constexpr Spelling<FrameworkProbe> kFrameworkProbeNames[] = {
    {FrameworkProbe::None, ""},
    {FrameworkProbe::ConvInput, "conv-input"},
    {FrameworkProbe::BatchNormInput, "batchnorm-input"},
    {FrameworkProbe::BatchNormEps, "batchnorm-eps"},
    {FrameworkProbe::PoolInput, "pool-input"},
    {FrameworkProbe::LoaderBatch, "loader-batch"},
    {FrameworkProbe::KerasFit, "keras-fit"},
    {FrameworkProbe::KerasPredictEmpty, "keras-predict-empty"},
    {FrameworkProbe::ZeroBatchConv, "zero-batch-conv"},
    {FrameworkProbe::LastBatchIntoBatchNorm, "last-batch-into-batchnorm"},
    {FrameworkProbe::HalfEpsilon, "half-epsilon"},
    {FrameworkProbe::OptimizerHalfEpsilon, "optimizer-half-epsilon"},
};
constexpr Spelling<FrameworkExpect> kFrameworkExpectNames[] = {
    {FrameworkExpect::None, ""},
    {FrameworkExpect::Raises, "raises"},
    {FrameworkExpect::Fails, "raises or non-finite output"},
    {FrameworkExpect::NonFinite, "non-finite output"},
    {FrameworkExpect::NoBatches, "no batches"},
};

template <class Enum, std::size_t N>
std::string_view name_of(const Spelling<Enum> (&table)[N], Enum value) {
  for (const auto& row : table)
    if (row.value == value) return row.name;
  return "";
}

template <class Enum, std::size_t N>
std::optional<Enum> parse(const Spelling<Enum> (&table)[N], std::string_view text) {
  for (const auto& row : table)
    if (row.name == text) return row.value;
  return std::nullopt;
}

}  // namespace

std::string_view replay_op_name(ReplayOp op) { return name_of(kReplayOpNames, op); }
std::optional<ReplayOp> parse_replay_op(std::string_view text) { return parse(kReplayOpNames, text); }
std::string_view expectation_name(Expectation expect) { return name_of(kExpectationNames, expect); }
std::optional<Expectation> parse_expectation(std::string_view text) { return parse(kExpectationNames, text); }

std::string_view framework_name(FrameworkName framework) { return name_of(kFrameworkNames, framework); }
std::optional<FrameworkName> parse_framework_name(std::string_view text) { return parse(kFrameworkNames, text); }
std::string_view framework_probe_name(FrameworkProbe probe) { return name_of(kFrameworkProbeNames, probe); }
std::optional<FrameworkProbe> parse_framework_probe(std::string_view text) { return parse(kFrameworkProbeNames, text); }
std::string_view framework_expect_name(FrameworkExpect expect) { return name_of(kFrameworkExpectNames, expect); }
std::optional<FrameworkExpect> parse_framework_expect(std::string_view text) {
  return parse(kFrameworkExpectNames, text);
}

const char* outcome_name(GpuVerdict::Outcome outcome) {
  switch (outcome) {
    case GpuVerdict::Outcome::Confirmed: return "confirmed";
    case GpuVerdict::Outcome::NotReproduced: return "not reproduced";
    case GpuVerdict::Outcome::Skipped: return "skipped";
  }
  return "skipped";
}

std::string clipped(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (++chars > max_chars) return std::string(text.substr(0, i)) + "…";
  }
  return std::string(text);
}

std::string full_message(const Finding& finding) {
  return finding.detail.empty() ? finding.message : finding.message + ". " + finding.detail;
}

}  // namespace cudnnlint
