#include "rules/batchnorm/eps_context.h"

#include "rules/replay_configs.h"

#include <cctype>
#include <cstdio>

namespace cudnnlint::batchnorm {

namespace {

// A plain numeric literal needs no "(= value)" after it.
bool is_plain_literal(const std::string& spelling) {
  if (spelling.empty()) return false;
  for (char c : spelling)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '-' ||
          c == '+' || c == '_'))
      return false;
  return true;
}

// "eps=1e-6", "eps=EPS (= 1e-06)", "m.eps = 1e-6", "eps=args.bn_eps (= 1e-06, the default of --bn-eps ...)".
std::string describe_eps(const NormalizationFact& fact) {
  const ConstantValue& eps = *fact.eps;
  const bool attribute = fact.origin == "attribute assignment";
  std::string text = fact.eps_param + (attribute ? " = " : "=") + eps.spelling;
  std::string notes;
  if (!is_plain_literal(eps.spelling)) notes = "= " + number(eps.value);
  if (!fact.eps_via.empty()) notes += (notes.empty() ? "" : ", ") + fact.eps_via;
  if (!notes.empty()) text += " (" + notes + ")";
  return text;
}

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

std::string dtype_of(const NormalizationFact& fact) {
  const auto it = fact.literal_args.find("dtype");
  if (it == fact.literal_args.end() || !it->second.text) return "";
  return *it->second.text;
}

}  // namespace

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

double stored_eps(const EpsContext& ctx) {
  return ctx.api.eps_storage == EpsStorage::Float32 ? static_cast<double>(static_cast<float>(ctx.eps)) : ctx.eps;
}

std::string keras_target_note(const Target& target) {
  const auto major = target.keras_major();
  if (!major) return "Keras version unknown";
  return "Keras " + std::to_string(*major) +
         (target.frameworks_source.empty() ? "" : " (" + target.frameworks_source + ")");
}

std::optional<EpsContext> eps_context(const NormalizationFact& fact, const RuleInput& input) {
  if (fact.eps_source != EpsSource::Explicit || !fact.eps) return std::nullopt;
  const ApiEntry* api = input.table.find(fact.api);
  if (api == nullptr || api->family != kNormalizationFamily) return std::nullopt;
  EpsContext ctx{fact, *api};
  ctx.eps = fact.eps->value;
  ctx.what = describe_eps(fact);
  ctx.layer = fact.spelled_as.empty() ? api->canonical : fact.spelled_as;
  ctx.cudnn_known = input.target.cudnn.has_value();
  ctx.old_cudnn = ctx.cudnn_known && *input.target.cudnn < kFloorLowered;
  ctx.path = api->cudnn_path;
  if (ctx.path == CudnnPath::Keras) {
    const KerasPath keras = keras_path(fact, input.target);
    ctx.path = keras == KerasPath::NotClamped ? CudnnPath::None : CudnnPath::ClampTf;
    ctx.keras_unknown = keras == KerasPath::Unknown;
  }
  if (ctx.keras_unknown)
    ctx.keras_caveat = " This holds for Keras 2 (tf.keras in TensorFlow <= 2.15); Keras 3 does not clamp. "
                       "Keras version unknown: pass --framework keras=2 or keras=3.";
  return ctx;
}

void add_eps_finding(const EpsContext& ctx, RuleId rule, Level level, std::string message, std::string target_note,
                     std::vector<Finding>& out) {
  const NormalizationFact& fact = ctx.fact;
  Finding finding = make_finding(rule, fact.eps_location.value_or(fact.call));
  finding.level = level;  // the batch-norm rules' level depends on the target
  finding.message = std::move(message);
  finding.target_note = std::move(target_note);
  for (const auto& step : fact.eps->provenance) finding.related.push_back({step.where, step.what});
  for (const auto& use : fact.uses) finding.related.push_back({use.where, use.what});
  finding.replay = batchnorm_replay(ctx.eps, dtype_from_spelling(dtype_of(fact)));
  if (rule == RuleId::BnEpsZero) {
    finding.replay.expect = "non-finite output";
  } else if (rule == RuleId::BnEpsSilentlyClamped) {
    finding.replay.unknown = "TensorFlow raises epsilon to 1.001e-5 before cuDNN sees it: there is no cuDNN "
                             "failure to replay";
  } else {
    finding.replay.expect = "CUDNN_STATUS_BAD_PARAM";  // negative: every cuDNN; below 1e-5: cuDNN < 7.5
  }
  out.push_back(std::move(finding));
}

}  // namespace cudnnlint::batchnorm
