#include "rules/batchnorm/eps_context.h"

#include "rules/replay_configs.h"
#include "rules/rule_memo.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

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
  const ConstantValue& eps = *fact.eps.value;
  const bool attribute = fact.origin == "attribute assignment";
  std::string text = fact.eps_param + (attribute ? " = " : "=") + clipped(eps.spelling, 30);
  if (!is_plain_literal(eps.spelling)) text += " (= " + number(eps.value) + ")";
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

bool clamp_logged(const EpsContext& ctx) { return stored_eps(ctx) <= kClampLogBelow; }

std::string keras_target_note(const Target& target) {
  const auto major = target.keras_major();
  if (!major) return "Keras version unknown";
  // The major comes from a keras pin, else from tensorflow's (TF >= 2.16 ships Keras 3).
  const std::string from = target.frameworks.contains("keras") && target.frameworks.at("keras") ? "keras" : "tensorflow";
  return "Keras " + std::to_string(*major) + target.source_note(from);
}

namespace {

std::optional<EpsContext> derive_eps_context(const NormalizationFact& fact, const RuleInput& input) {
  if (fact.eps.source != ValueSource::Explicit || !fact.eps.value) return std::nullopt;
  const ApiEntry* api = input.table.find(fact.api);
  if (api == nullptr || api->family != kNormalizationFamily) return std::nullopt;
  EpsContext ctx{fact, *api};
  ctx.eps = fact.eps.value->value;
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
  ctx.framework = api->framework;
  if (const FrameworkInfo* framework = input.table.framework(api->framework)) {
    ctx.framework = framework->display;
    const auto pinned = input.target.frameworks.find(api->framework);
    if (pinned != input.target.frameworks.end()) ctx.framework_version = pinned->second;
    if (ctx.framework_version)
      ctx.framework_note = framework->display + " " + ctx.framework_version->str() +
                           input.target.source_note(api->framework);
    else
      ctx.framework_note = framework->display + " version unknown: pass --framework " + api->framework + "=VERSION";
    if (ctx.framework_version)
      for (const EpsRefusal& refusal : api->eps_refusals)
        if (refusal.in_force(*ctx.framework_version)) ctx.refusal = &refusal;
  }
  // The mode of a functional call, when the code states it or the API defaults it (F.batch_norm's
  // training=False); layers switch modes at run time.
  if (const auto it = fact.literal_args.find("training"); it != fact.literal_args.end()) {
    ctx.training = it->second.boolean;
  } else if (const ApiArg* training = api->arg("training"); training && training->has_default) {
    if (training->default_text == "false") ctx.training = false;
    if (training->default_text == "true") ctx.training = true;
  }
  if (ctx.path == CudnnPath::ClampTf) {
    // Which TensorFlow/Keras decides: a Keras 2 pin for Keras layers, else TensorFlow's.
    std::optional<Version> version;
    std::string decided_by;
    const bool keras_layer = api->cudnn_path == CudnnPath::Keras;
    if (const auto keras = input.target.frameworks.find("keras");
        keras_layer && keras != input.target.frameworks.end() && keras->second && keras->second->major == 2 &&
        (keras->second->minor != 0 || keras->second->patch != 0)) {
      version = keras->second;
      decided_by = "Keras " + version->str() + input.target.source_note("keras");
    } else if (const auto tf = input.target.frameworks.find("tensorflow"); tf != input.target.frameworks.end() && tf->second) {
      version = tf->second;
      decided_by = "TensorFlow " + version->str() + input.target.source_note("tensorflow");
    }
    if (!version) {
      ctx.clamp_version_unknown = true;
    } else if (*version >= kTfClampRemoved) {
      ctx.path = CudnnPath::Passthrough;
      ctx.clamp_note = decided_by + " keeps the declared epsilon (the 1.001e-5 clamp is gone since 2.12; measured "
                                    "on TensorFlow 2.12.1-2.21.0)";
    }
  }
  if (ctx.keras_unknown)
    ctx.keras_caveat = " This holds for Keras 2 (tf.keras in TensorFlow <= 2.15, tf_keras); Keras 3 has no fused "
                       "path. Keras version unknown: pass --framework keras=2 or keras=3.";
  return ctx;
}

}  // namespace

const std::optional<EpsContext>& eps_context(const NormalizationFact& fact, const RuleInput& input) {
  if (!input.memo) throw std::logic_error("eps_context is asked outside run_rules (no RuleMemo)");
  const auto [it, fresh] = input.memo->eps_contexts.try_emplace(&fact);
  if (fresh)
    if (auto derived = derive_eps_context(fact, input)) it->second.emplace(std::move(*derived));
  return it->second;
}

std::string refusal_condition(const EpsContext& ctx) {
  return ctx.api.refusal_condition.empty() ? "" : " (" + ctx.api.refusal_condition + ")";
}

namespace {

bool refuses(const EpsContext& ctx, const EpsRefusal& refusal, double eps) {
  return ctx.training == false ? refusal.refuses_in_eval(eps) : refusal.refuses_in_training(eps);
}

std::string where_it_raises(const EpsContext& ctx) {
  return ctx.api.is_class ? "the layer's first forward" : "the call";
}

}  // namespace

Refusal refusal_state(const EpsContext& ctx, double eps) {
  if (ctx.refusal == nullptr || !refuses(ctx, *ctx.refusal, eps)) return Refusal::None;
  return ctx.training.has_value() || ctx.refusal->refuses_in_eval(eps) ? Refusal::Always : Refusal::InTraining;
}

std::string refusal_summary(const EpsContext& ctx, double eps) {
  std::vector<const EpsRefusal*> applying;
  for (const EpsRefusal& refusal : ctx.api.eps_refusals)
    if (refuses(ctx, refusal, eps)) applying.push_back(&refusal);
  if (applying.empty()) return "";
  const std::string& error = applying.front()->error;
  std::string text = ctx.framework + " >= " + applying.front()->from.str() + " refuses it with a " +
                     error.substr(0, error.find(':')) + " at " + where_it_raises(ctx);
  std::string modes;
  for (const EpsRefusal* refusal : applying)
    if (!ctx.training.has_value() && !refusal->refuses_in_eval(eps))
      modes += (modes.empty() ? "" : "; ") + (">= " + refusal->from.str() + ": in training mode only");
  if (!modes.empty()) text += " (" + modes + ")";
  // Versions after the last refusing one that let it through (F.batch_norm eval, eps = 0, >= 2.12).
  for (const EpsRefusal& refusal : ctx.api.eps_refusals)
    if (refusal.from > applying.back()->from && !refuses(ctx, refusal, eps))
      text += "; " + ctx.framework + " >= " + refusal.from.str() + " lets it through";
  return text + refusal_condition(ctx);
}

std::string refusal_in_force(const EpsContext& ctx, double eps) {
  const Refusal state = refusal_state(ctx, eps);
  if (state == Refusal::None) return "";
  return ctx.framework + " " + ctx.framework_version->str() + " refuses it" +
         (state == Refusal::InTraining ? " in training mode" : "") + ": " + where_it_raises(ctx) + " raises " +
         ctx.refusal->error + refusal_condition(ctx);
}

namespace {

// A number literal as Python writes it, optionally negative: `1e-6`, `-1e-5`, `0`, `0.`, `.5`, `1_0.0`.
bool is_number_literal(std::string_view text) {
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  while (i < text.size() && text[i] == ' ') ++i;
  bool digits = false;
  const auto run = [&] {
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
      digits = true;
      ++i;
    }
  };
  run();
  if (i < text.size() && text[i] == '.') {
    ++i;
    run();
  }
  if (!digits) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const std::size_t exponent = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == exponent) return false;
  }
  return i == text.size();
}

// The KB's workaround as an edit: the smallest epsilon that is safe for the target, written over
// the literal at the call. 1.001e-5 (TensorFlow's own floor) for TensorFlow and Keras, and where the
// framework stores eps as float32, hands it on as stored and the cuDNN may be older than 7.5
// (float32(1e-5) < 1e-5); 1e-5 elsewhere, Paddle included (its clamp_cudnn_min comparison allows
// FLT_EPSILON below 1e-5). Only for an inline literal in Python: a named constant may serve other calls.
std::optional<Fix> safe_eps_fix(const EpsContext& ctx) {
  const NormalizationFact& fact = ctx.fact;
  if (!fact.eps.location || !fact.eps.value || !fact.eps.value->provenance.empty() || !fact.eps.location->path.ends_with(".py"))
    return std::nullopt;
  if (!is_number_literal(fact.eps.value->spelling)) return std::nullopt;
  const bool tensorflow = ctx.api.framework == "tensorflow" || ctx.api.framework == "keras" ||
                          ctx.path == CudnnPath::ClampTf;
  const bool float32_floor = ctx.api.eps_storage == EpsStorage::Float32 && ctx.path != CudnnPath::ClampCudnnMin &&
                             (!ctx.cudnn_known || ctx.old_cudnn);
  const bool tf_floor = tensorflow || float32_floor;
  const double value = tf_floor ? kTfFusedFloor : kOldCudnnFloor;
  if (std::isfinite(ctx.eps) && ctx.eps >= value) return std::nullopt;
  const std::string text = tf_floor ? "1.001e-5" : "1e-5";
  Fix fix;
  fix.description = "set " + fact.eps_param + "=" + text + (tf_floor && tensorflow ? " (TensorFlow's fused floor)" : "");
  fix.edits.push_back({fact.eps.location->range, text, fact.eps.value->spelling, false});
  return fix;
}

// "batch-norm eps=0 in nn.BatchNorm2d", the value said the way each rule's summary does.
std::string headline_subject(RuleId rule, const EpsContext& ctx) {
  // A C++ API by its last name, the one the line calls (`cudnn_frontend::...::set_epsilon`: set_epsilon).
  const std::size_t scope = ctx.layer.rfind("::");
  const std::string layer = clipped(scope == std::string::npos ? ctx.layer : ctx.layer.substr(scope + 2), 34);
  const std::string where = "batch-norm " + ctx.what + " in " + layer;
  switch (rule) {
    case RuleId::BnEpsNegative: return where + " is negative";
    case RuleId::BnEpsNotFinite: return where + " is " + (std::isnan(ctx.eps) ? "NaN" : "infinite");
    default: return where;
  }
}

// The framework tier's case: the framework's own batch norm with this epsilon, in training, on a
// constant channel; it raises (a check of its own) or gives NaN/Inf. +inf gives a finite output
// (the layer's bias), and TensorFlow's clamp (<= 2.11) is another rule's claim: neither is replayed.
FrameworkReplay eps_framework_case(const EpsContext& ctx, RuleId rule) {
  const bool claim = rule == RuleId::BnEpsZero || rule == RuleId::BnEpsNegative ||
                     (rule == RuleId::BnEpsNotFinite && std::isnan(ctx.eps));
  const FrameworkName framework = framework_named(ctx.api.framework);
  if (!claim || !ctx.api.framework_replay || framework == FrameworkName::None ||
      (ctx.path == CudnnPath::ClampTf && !ctx.clamp_version_unknown))
    return {};
  FrameworkReplay r = epsilon_case(framework, FrameworkProbe::BatchNormEps, FrameworkExpect::Fails, ctx.eps);
  r.assumed.push_back(framework == FrameworkName::Torch
                          ? "nn.BatchNorm2d(3) in training on zeros of shape [2, 3, 2, 2] (the finding fixes epsilon only)"
                          : "keras.layers.BatchNormalization in training on zeros of shape [2, 2, 2, 3] (the finding "
                            "fixes epsilon only)");
  return r;
}

}  // namespace

void add_eps_finding(const EpsContext& ctx, RuleId rule, Level level, std::string_view consequence, std::string detail,
                     std::string target_note, std::vector<Finding>& out) {
  const NormalizationFact& fact = ctx.fact;
  Finding finding = make_finding(rule, fact.eps.location.value_or(fact.call));
  finding.fix = safe_eps_fix(ctx);
  finding.level = level;  // the batch-norm rules' level depends on the target
  finding.message = headline_subject(rule, ctx) + ": " + std::string(consequence);
  // Where a value that is not written at the call comes from (a default, a config key).
  if (!fact.eps.via.empty()) detail = "The value: " + fact.eps.via + ". " + detail;
  finding.detail = std::move(detail);
  finding.target_note = std::move(target_note);
  for (const auto& step : fact.eps.value->provenance) finding.related.push_back({step.where, step.what});
  for (const auto& use : fact.uses) finding.related.push_back({use.where, use.what});
  finding.replay = batchnorm_replay(ctx.eps, dtype_from_spelling(dtype_of(fact)));
  // The execution tier runs cuDNN's legacy batch norm with this epsilon; a finding whose framework
  // never hands it that epsilon has nothing to replay, and must not be "confirmed" by it.
  std::string no_replay;
  // Below the target's CUDNN_BN_MIN_EPSILON: 1e-5 before cuDNN 7.5, 0 since.
  const bool below_floor = ctx.eps < 0 || (ctx.old_cudnn && stored_eps(ctx) < kOldCudnnFloor);
  if (rule == RuleId::BnEpsSilentlyClamped || (ctx.path == CudnnPath::ClampTf && !ctx.clamp_version_unknown))
    no_replay = "TensorFlow raises epsilon to 1.001e-5 before cuDNN sees it: there is no cuDNN failure to replay";
  else if (ctx.path == CudnnPath::None)
    no_replay = ctx.layer + " does not call cuDNN batch norm: there is no cuDNN call to replay";
  else if (ctx.path == CudnnPath::Graph)
    no_replay = "the execution tier runs cuDNN's legacy batch-norm API, not the graph API this call uses";
  else if (ctx.path == CudnnPath::ClampCudnnMin && below_floor)
    no_replay = "Paddle raises epsilon to CUDNN_BN_MIN_EPSILON before cuDNN sees it";
  else if (ctx.path == CudnnPath::FallbackNative && below_floor)
    no_replay = "PyTorch never hands an epsilon below CUDNN_BN_MIN_EPSILON (" + std::string(ctx.old_cudnn ? "1e-5" : "0") +
                " on this cuDNN) to cuDNN (its native kernel runs, or its own check refuses it first): there is no "
                "cuDNN call to replay";
  else if (refusal_state(ctx, ctx.eps) == Refusal::Always)
    no_replay = refusal_in_force(ctx, ctx.eps) + ", before cuDNN runs";
  if (!std::isfinite(ctx.eps)) {
    // JSON, the replay's format, has no NaN or inf; and the finding needs no GPU to be certain.
    finding.replay.epsilon.reset();
    no_replay = "a NaN or infinite epsilon is not replayed: its result follows from arithmetic alone";
  }
  finding.replay.framework = eps_framework_case(ctx, rule);
  if (!no_replay.empty())
    finding.replay.unknown = std::move(no_replay);
  else if (rule == RuleId::BnEpsZero)
    finding.replay.expect = Expectation::NonFiniteOutput;
  else
    finding.replay.expect = Expectation::BadParam;  // negative: every cuDNN; below 1e-5: cuDNN < 7.5
  out.push_back(std::move(finding));
}

}  // namespace cudnnlint::batchnorm
