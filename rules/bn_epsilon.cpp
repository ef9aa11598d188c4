// The batch-norm epsilon rules. Which verdict applies depends on how the framework hands
// epsilon to cuDNN (the API table's cudnn_path) and on the target's cuDNN and Keras versions.
// Facts (shared/research/cudnn-facts.md):
//  - CUDNN_BN_MIN_EPSILON was 1e-5 up to cuDNN 7.4 and is 0.0 since 7.5.0; eps below it is BAD_PARAM.
//  - PyTorch never passes eps < CUDNN_BN_MIN_EPSILON to cuDNN: it silently uses its native kernel.
//  - TF fused batch norm (and Keras 2's fused BatchNormalization) raise eps < 1.001e-5 to 1.001e-5.
//  - float32(1e-5) = 9.99999975e-06 < 1e-5: frameworks that store eps as float fall under the old floor.
#include "rules/api_table.h"
#include "rules/replay_configs.h"
#include "rules/rule.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

namespace cudnnlint {

namespace {

constexpr double kOldCudnnFloor = 1e-5;      // CUDNN_BN_MIN_EPSILON before cuDNN 7.5.0
constexpr double kTfFusedFloor = 1.001e-5;   // TF's min_epsilon in fused_batch_norm
constexpr Version kFloorLowered{7, 5, 0};

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

double stored(double value, EpsStorage storage) {
  return storage == EpsStorage::Float32 ? static_cast<double>(static_cast<float>(value)) : value;
}

// A plain numeric literal needs no "(= value)" after it.
bool is_plain_literal(const std::string& spelling) {
  if (spelling.empty()) return false;
  for (char c : spelling)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '-' ||
          c == '+' || c == '_'))
      return false;
  return true;
}

// "eps=1e-6" or "eps=EPS (= 1e-06)" or "m.eps = 1e-6".
std::string describe_eps(const NormalizationFact& fact) {
  const ConstantValue& eps = *fact.eps;
  const bool attribute = fact.origin == "attribute assignment";
  std::string text = fact.eps_param + (attribute ? " = " : "=") + eps.spelling;
  if (!is_plain_literal(eps.spelling)) text += " (= " + number(eps.value) + ")";
  return text;
}

struct Verdict {
  const RuleInfo* rule = nullptr;
  Level level = Level::Warning;
  std::string message;
  std::string target_note;
};

enum class KerasPath { Clamped, NotClamped, Unknown };

// Whether a Keras BatchNormalization call takes TF's fused (clamping) path.
KerasPath keras_path(const NormalizationFact& fact, const Target& target) {
  const auto fused = fact.literal_args.find("fused");
  if (fused != fact.literal_args.end() && fused->second.boolean == false) return KerasPath::NotClamped;
  // renorm, virtual_batch_size and adjustment rule the fused kernel out (keras v2.15 _fused_can_be_used).
  const auto renorm = fact.literal_args.find("renorm");
  if (renorm != fact.literal_args.end() && renorm->second.boolean == true) return KerasPath::NotClamped;
  for (const char* name : {"virtual_batch_size", "adjustment"}) {
    const auto it = fact.literal_args.find(name);
    if (it != fact.literal_args.end() && it->second.spelling != "None") return KerasPath::NotClamped;
  }
  const auto major = target.keras_major();
  if (!major) return KerasPath::Unknown;
  return *major >= 3 ? KerasPath::NotClamped : KerasPath::Clamped;
}

std::string keras_target_note(const Target& target) {
  const auto major = target.keras_major();
  if (!major) return "Keras version unknown";
  return "Keras " + std::to_string(*major) + (target.frameworks_source.empty() ? "" : " (" + target.frameworks_source + ")");
}

std::optional<Verdict> judge(const NormalizationFact& fact, const NormalizationApi& api, const Target& target) {
  const double eps = fact.eps->value;
  const std::string what = describe_eps(fact);
  const std::string layer = fact.spelled_as.empty() ? api.canonical : fact.spelled_as;
  const bool cudnn_known = target.cudnn.has_value();
  const bool old_cudnn = cudnn_known && *target.cudnn < kFloorLowered;
  KerasPath keras = KerasPath::NotClamped;
  CudnnPath path = api.cudnn_path;
  if (path == CudnnPath::Keras) {
    keras = keras_path(fact, target);
    path = keras == KerasPath::NotClamped ? CudnnPath::None : CudnnPath::ClampTf;
  }
  const bool keras_unknown = api.cudnn_path == CudnnPath::Keras && keras == KerasPath::Unknown;
  const std::string keras_caveat =
      keras_unknown ? " This holds for Keras 2 (tf.keras in TensorFlow <= 2.15); Keras 3 does not clamp. "
                      "Keras version unknown: pass --framework keras=2 or keras=3."
                    : "";

  if (eps < 0) {
    Verdict v{find_rule("bn-eps-negative"), Level::Error, "", ""};
    std::string why;
    switch (path) {
      case CudnnPath::Passthrough:
        why = "cuDNN rejects it with CUDNN_STATUS_BAD_PARAM on every version (epsilon must be >= CUDNN_BN_MIN_EPSILON)";
        break;
      case CudnnPath::FallbackNative:
        why = "PyTorch sends eps below CUDNN_BN_MIN_EPSILON to its native kernel, where var + eps < 0 in "
              "low-variance channels gives NaN";
        break;
      case CudnnPath::ClampTf:
        why = "TensorFlow's fused batch norm silently replaces it with 1.001e-5, so the layer computes with another "
              "epsilon than declared; unfused paths give rsqrt(var + eps) = NaN in low-variance channels" +
              keras_caveat;
        break;
      case CudnnPath::ClampCudnnMin:
        why = "Paddle raises it to CUDNN_BN_MIN_EPSILON (0.0 on cuDNN >= 7.5, so eps = 0) with a log line";
        break;
      case CudnnPath::Keras:
      case CudnnPath::None:
        why = "rsqrt(var + eps) is NaN in every channel whose variance is below |eps|";
        break;
      case CudnnPath::Graph:
        why = "the cuDNN graph API documents no minimum epsilon (whether it rejects a negative one is "
              "unconfirmed); if it runs, rsqrt(var + eps) is NaN in every channel whose variance is below |eps|";
        break;
    }
    v.message = "negative batch-norm epsilon " + what + " in " + layer + ": " + why;
    v.target_note = "every cuDNN version";
    return v;
  }

  if (path == CudnnPath::ClampTf && eps < kTfFusedFloor) {
    Verdict v{find_rule("bn-eps-silently-clamped"), Level::Warning, "", keras_target_note(target)};
    if (api.cudnn_path != CudnnPath::Keras) v.target_note = "TensorFlow fused batch norm (all versions)";
    // Raising 1e-5 to 1.001e-5 changes eps by 0.1%: worth knowing, not worth failing a build.
    if (eps > 0 && kTfFusedFloor / eps < 1.01) v.level = Level::Note;
    // Keras 2 picks the fused kernel only for 4-D/5-D inputs (convolutional feature maps); the
    // input rank is a run-time fact, so the message states the condition instead of assuming it.
    const std::string where = api.cudnn_path == CudnnPath::Keras
                                  ? " when the layer runs on TensorFlow's fused kernel (Keras 2 does so by default "
                                    "for 4-D and 5-D inputs, i.e. after convolutions)"
                                  : " by TensorFlow's fused batch norm";
    v.message = what + " in " + layer + " is silently raised to 1.001e-5" + where +
                ": the model computes with another epsilon than it declares (exports and ports of its weights "
                "disagree)" + (eps == 0 ? "; eps=0 would otherwise turn zero-variance channels into NaN" : "") +
                "; pass fused=False to keep it." + keras_caveat;
    return v;
  }

  if (eps == 0) {
    Verdict v{find_rule("bn-eps-zero"), Level::Warning, "", target.describe_cudnn()};
    std::string why = "a channel with zero variance (constant input, zero padding, dead activations) computes "
                      "1/sqrt(0) = inf and then NaN";
    if (path == CudnnPath::FallbackNative) {
      if (old_cudnn) {
        v.level = Level::Note;
        why = "with cuDNN < 7.5 PyTorch uses its native kernel, which maps 1/sqrt(0) to 0, so zero-variance "
              "channels silently output the bias";
      } else {
        why += "; PyTorch hands eps=0 to cuDNN (0 >= CUDNN_BN_MIN_EPSILON since cuDNN 7.5), whose kernel has no "
               "zero guard";
      }
    } else if (path == CudnnPath::Passthrough && old_cudnn) {
      v = Verdict{find_rule("bn-eps-below-cudnn-min"), Level::Error, "", target.describe_cudnn()};
      v.message = what + " in " + layer + " is below CUDNN_BN_MIN_EPSILON (1e-5 before cuDNN 7.5): "
                  "CUDNN_STATUS_BAD_PARAM";
      return v;
    }
    if (path == CudnnPath::None) v.target_note = "any version (" + layer + " does not call cuDNN batch norm)";
    v.message = "batch-norm " + what + " in " + layer + ": " + why;
    return v;
  }

  const double effective = stored(eps, api.eps_storage);
  if (effective >= kOldCudnnFloor) return std::nullopt;
  const std::string float_trap =
      (eps >= kOldCudnnFloor) ? " (it is stored as float32: float32(" + number(eps) + ") = " + number(effective) +
                                    " < 1e-5)"
                              : "";
  switch (path) {
    case CudnnPath::Passthrough: {
      if (cudnn_known && !old_cudnn) return std::nullopt;
      Verdict v{find_rule("bn-eps-below-cudnn-min"), old_cudnn ? Level::Error : Level::Warning, "",
                target.describe_cudnn()};
      v.message = what + " in " + layer + " is below 1e-5" + float_trap + " and reaches cuDNN unchanged: ";
      v.message += old_cudnn ? "this cuDNN rejects it with CUDNN_STATUS_BAD_PARAM (CUDNN_BN_MIN_EPSILON is 1e-5 "
                               "before 7.5)"
                             : "cuDNN < 7.5 rejects it with CUDNN_STATUS_BAD_PARAM; 7.5 and later accept it. "
                               "cuDNN version unknown: pass --cudnn-version";
      return v;
    }
    case CudnnPath::FallbackNative: {
      if (!old_cudnn) return std::nullopt;
      Verdict v{find_rule("bn-eps-below-cudnn-min"), Level::Note, "", target.describe_cudnn()};
      v.message = what + " in " + layer + " is below CUDNN_BN_MIN_EPSILON (1e-5 before cuDNN 7.5): PyTorch "
                  "silently runs its native batch-norm kernel instead of cuDNN (no error, slower)";
      return v;
    }
    case CudnnPath::ClampCudnnMin: {
      if (!old_cudnn) return std::nullopt;
      Verdict v{find_rule("bn-eps-below-cudnn-min"), Level::Warning, "", target.describe_cudnn()};
      v.message = what + " in " + layer + " is below 1e-5" + float_trap + ": Paddle raises it to "
                  "CUDNN_BN_MIN_EPSILON (1e-5 before cuDNN 7.5) with a log line, so the model computes with "
                  "another epsilon than it declares";
      return v;
    }
    case CudnnPath::ClampTf:
    case CudnnPath::Keras:
    case CudnnPath::None:
    case CudnnPath::Graph:  // cudnn-frontend needs cuDNN 8 or later: the old 1e-5 floor never applies
      return std::nullopt;
  }
  return std::nullopt;
}

std::string dtype_of(const NormalizationFact& fact) {
  const auto it = fact.literal_args.find("dtype");
  if (it == fact.literal_args.end() || !it->second.text) return "";
  const std::string& text = *it->second.text;
  const auto dot = text.rfind('.');
  return dot == std::string::npos ? text : text.substr(dot + 1);
}

}  // namespace

void check_bn_epsilon(const FileFacts& facts, const Target& target, std::vector<Finding>& out) {
  const ApiTable& table = ApiTable::builtin();
  for (const NormalizationFact& fact : facts.normalizations) {
    if (fact.eps_source != EpsSource::Explicit || !fact.eps) continue;
    const NormalizationApi* api = table.find(fact.api);
    if (api == nullptr) continue;
    auto verdict = judge(fact, *api, target);
    if (!verdict || verdict->rule == nullptr) continue;
    Finding finding = make_finding(*verdict->rule, fact.eps_location.value_or(fact.call));
    finding.level = verdict->level;  // the BN rules' level depends on the target
    finding.message = std::move(verdict->message);
    finding.target_note = std::move(verdict->target_note);
    for (const auto& step : fact.eps->provenance) finding.related.push_back({step.where, step.what});
    for (const auto& use : fact.uses) finding.related.push_back({use.where, use.what});
    finding.replay = batchnorm_replay(fact.eps->value, dtype_of(fact));
    if (finding.rule_id == "bn-eps-zero") {
      finding.replay.expect = "non-finite output";
    } else if (finding.rule_id == "bn-eps-silently-clamped") {
      finding.replay.unknown = "TensorFlow raises epsilon to 1.001e-5 before cuDNN sees it: there is no cuDNN "
                               "failure to replay";
    } else {
      finding.replay.expect = "CUDNN_STATUS_BAD_PARAM";  // negative: every cuDNN; below 1e-5: cuDNN < 7.5
    }
    out.push_back(std::move(finding));
  }
}

}  // namespace cudnnlint
