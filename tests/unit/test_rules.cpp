// Every batch-norm epsilon verdict, per framework and per target. Facts are built directly:
// the rules are language-neutral and must not depend on how a front-end found them.
#include "kb/kb.h"
#include "core/api_table.h"
#include "core/framework_releases.h"
#include "rules/rule.h"

#include <gtest/gtest.h>

namespace cudnnlint {
namespace {

NormalizationFact fact_for(const std::string& api, double eps, std::map<std::string, LiteralArg> literals = {}) {
  NormalizationFact fact;
  fact.api = api;
  fact.spelled_as = api;
  fact.eps_param = ApiTable::builtin().find(api)->eps().name;
  fact.call = Location{"m.py", {{3, 5, 5, 40}, {3, 30, 30, 65}}};
  fact.eps.location = Location{"m.py", {{3, 20, 20, 55}, {3, 24, 24, 59}}};
  fact.eps.source = ValueSource::Explicit;
  fact.eps.value = ConstantValue{eps, "EPS", {ProvenanceStep{Location{"m.py", {{1, 1, 1, 0}, {1, 10, 10, 9}}}, "EPS defined"}}};
  fact.literal_args = std::move(literals);
  return fact;
}

Target target(std::optional<std::string> cudnn, std::map<std::string, std::string> frameworks = {}) {
  Target t;
  if (cudnn) {
    t.cudnn = parse_version(*cudnn);
    t.cudnn_source = "--cudnn-version";
  }
  for (const auto& [name, version] : frameworks) {
    t.frameworks[name] = parse_version(version);
    t.framework_sources[name] = "--framework";
  }
  derive_cudnn(t);  // as the engine does: torch 2.4 -> cuDNN 9.1.0, TensorFlow 2.15 -> 8.9
  return t;
}

std::vector<Finding> judge(const NormalizationFact& fact, const Target& t) {
  FileFacts facts;
  facts.path = "m.py";
  facts.normalizations.push_back(fact);
  std::vector<Finding> findings;
  run_rules(RuleInput{facts, t, ApiTable::builtin()}, findings);
  return findings;
}

struct Expect {
  const char* api;
  double eps;
  std::optional<std::string> cudnn;
  std::map<std::string, std::string> frameworks;
  const char* rule;  // nullptr: no finding
  Level level;
  const char* message_part;
};

class BnEpsilonVerdict : public ::testing::TestWithParam<Expect> {};

TEST_P(BnEpsilonVerdict, Matches) {
  const Expect& e = GetParam();
  const auto findings = judge(fact_for(e.api, e.eps), target(e.cudnn, e.frameworks));
  const std::string context = std::string(e.api) + " eps=" + std::to_string(e.eps) + " cudnn=" + e.cudnn.value_or("?");
  if (e.rule == nullptr) {
    EXPECT_TRUE(findings.empty()) << context << ": " << (findings.empty() ? "" : findings[0].message);
    return;
  }
  ASSERT_EQ(findings.size(), 1u) << context;
  const Finding& f = findings[0];
  EXPECT_EQ(f.rule_id, e.rule) << context << ": " << f.message;
  EXPECT_EQ(f.level, e.level) << context << ": " << f.message;
  EXPECT_NE(full_message(f).find(e.message_part), std::string::npos) << context << ": " << full_message(f);
  EXPECT_NE(kb::find(f.kb_id), nullptr) << f.kb_id;
  EXPECT_EQ(f.location.range.begin.column, 20u);  // points at the epsilon, not the call
  ASSERT_EQ(f.related.size(), 1u);                 // the provenance travels with the finding
  ASSERT_TRUE(f.replay.epsilon.has_value());
  EXPECT_DOUBLE_EQ(*f.replay.epsilon, e.eps);
}

constexpr const char* kTorch = "torch.nn.BatchNorm1d";
constexpr const char* kMxnet = "mxnet.gluon.nn.BatchNorm";
constexpr const char* kKeras = "tensorflow.keras.layers.BatchNormalization";
constexpr const char* kTfFused = "tensorflow.compat.v1.nn.fused_batch_norm";
constexpr const char* kTfRaw = "tensorflow.raw_ops.FusedBatchNorm";
constexpr const char* kPaddle = "paddle.nn.BatchNorm1D";
constexpr const char* kFlax = "flax.linen.BatchNorm";
constexpr const char* kHaiku = "haiku.BatchNorm";
constexpr const char* kCudnnBn = "torch.cudnn_batch_norm";
constexpr const char* kFrozen = "torchvision.ops.FrozenBatchNorm2d";

INSTANTIATE_TEST_SUITE_P(
    PyTorch, BnEpsilonVerdict,
    ::testing::Values(
        Expect{kTorch, -1e-5, std::nullopt, {}, "bn-eps-negative", Level::Error, "native kernel"},
        Expect{kTorch, 0.0, std::nullopt, {}, "bn-eps-zero", Level::Warning, "no zero guard"},
        Expect{kTorch, 0.0, "7.4", {}, "bn-eps-zero", Level::Note, "native kernel"},
        Expect{kTorch, 1e-6, std::nullopt, {}, nullptr, Level::Note, ""},
        Expect{kTorch, 1e-6, "9.1", {}, nullptr, Level::Note, ""},
        Expect{kTorch, 1e-6, "7.4.2", {}, "bn-eps-below-cudnn-min", Level::Note, "silently runs its native"},
        Expect{kTorch, 1e-5, "7.4", {}, nullptr, Level::Note, ""},
        Expect{kCudnnBn, 1e-6, "7.0", {}, "bn-eps-below-cudnn-min", Level::Error, "CUDNN_STATUS_BAD_PARAM"},
        Expect{kFrozen, 1e-6, "7.0", {}, nullptr, Level::Note, ""},
        Expect{kFrozen, 0.0, std::nullopt, {}, "bn-eps-zero", Level::Warning, "1/sqrt(0)"}));

// PyTorch's own eps check in F.batch_norm (2.10, 2.11: eps <= 0; >= 2.12: eps < 0, or 0 in
// training), from each wheel's torch/nn/functional.py and measured on 2.11.0 (H100). Paths below
// F.batch_norm (torch.batch_norm, at::batch_norm, instance norm) have no check.
constexpr const char* kTorchInstance = "torch.nn.InstanceNorm2d";
constexpr const char* kTorchAten = "torch.batch_norm";
constexpr const char* kTorchSync = "torch.nn.SyncBatchNorm";
INSTANTIATE_TEST_SUITE_P(
    PyTorchEpsCheck, BnEpsilonVerdict,
    ::testing::Values(
        Expect{kTorch, -1e-5, std::nullopt, {{"torch", "2.11"}}, "bn-eps-negative", Level::Error,
               "PyTorch 2.11 refuses it: the layer's first forward raises ValueError"},
        Expect{kTorch, -1e-5, std::nullopt, {{"torch", "2.9.1"}}, "bn-eps-negative", Level::Error, "native kernel"},
        Expect{kTorch, -1e-5, std::nullopt, {}, "bn-eps-negative", Level::Error, "PyTorch >= 2.10 refuses it"},
        Expect{kTorch, 0.0, std::nullopt, {{"torch", "2.10"}}, "bn-eps-zero", Level::Error, "eps must be positive"},
        Expect{kTorch, 0.0, std::nullopt, {{"torch", "2.12"}}, "bn-eps-zero", Level::Error,
               "in eval mode eps=0 reaches cuDNN"},
        Expect{kTorch, 0.0, std::nullopt, {{"torch", "2.9.1"}}, "bn-eps-zero", Level::Warning, "no zero guard"},
        Expect{kTorch, 0.0, std::nullopt, {}, "bn-eps-zero", Level::Warning,
               "PyTorch >= 2.10 refuses it with a ValueError at the layer's first forward (>= 2.12: in training "
               "mode only)"},
        Expect{kTorch, 1e-6, std::nullopt, {{"torch", "2.11"}}, nullptr, Level::Note, ""},
        Expect{kTorchInstance, 0.0, std::nullopt, {{"torch", "2.11"}}, "bn-eps-zero", Level::Warning, "no zero guard"},
        Expect{kTorchAten, -1e-5, std::nullopt, {{"torch", "2.11"}}, "bn-eps-negative", Level::Error, "native kernel"},
        Expect{kTorchSync, -1e-5, std::nullopt, {{"torch", "2.11"}}, "bn-eps-negative", Level::Error,
               "(unless it synchronizes statistics across processes (distributed training)); otherwise PyTorch sends "
               "eps below CUDNN_BN_MIN_EPSILON to its native kernel"},
        // cuDNN < 7.5: eps = 0 runs PyTorch's native kernel; the version-dependent refusal is still named.
        Expect{kTorch, 0.0, "7.4", {}, "bn-eps-zero", Level::Note, "PyTorch >= 2.10 refuses it"},
        Expect{kTorch, 0.0, "7.4", {{"torch", "2.12"}}, "bn-eps-zero", Level::Error,
               "in eval mode, with cuDNN < 7.5, PyTorch uses its native kernel"}));

INSTANTIATE_TEST_SUITE_P(
    MXNetPassthrough, BnEpsilonVerdict,
    ::testing::Values(
        Expect{kMxnet, -1e-3, "9.0", {}, "bn-eps-negative", Level::Error, "CUDNN_STATUS_BAD_PARAM on every version"},
        Expect{kMxnet, 1e-6, std::nullopt, {}, "bn-eps-below-cudnn-min", Level::Warning, "cuDNN version unknown"},
        Expect{kMxnet, 1e-6, "7.4", {}, "bn-eps-below-cudnn-min", Level::Error, "this cuDNN rejects it"},
        Expect{kMxnet, 1e-6, "7.5", {}, nullptr, Level::Note, ""},
        Expect{kMxnet, 1e-6, "8.9.5", {}, nullptr, Level::Note, ""},
        Expect{kMxnet, 1e-5, "7.4", {}, nullptr, Level::Note, ""},  // stored as double: exactly the floor
        Expect{kMxnet, 0.0, "7.4", {}, "bn-eps-below-cudnn-min", Level::Error, "CUDNN_STATUS_BAD_PARAM"},
        Expect{kMxnet, 0.0, "9.19", {}, "bn-eps-zero", Level::Warning, "1/sqrt(0)"}));

INSTANTIATE_TEST_SUITE_P(
    TensorFlow, BnEpsilonVerdict,
    ::testing::Values(
        // float32(1e-5) < 1e-5: the float attribute falls under the old floor.
        Expect{kTfRaw, 1e-5, "7.4", {}, "bn-eps-below-cudnn-min", Level::Error, "float32(1e-05)"},
        Expect{kTfRaw, 1.001e-5, "7.4", {}, nullptr, Level::Note, ""},
        // The clamp is TensorFlow <= 2.11's (measured: tests/probes/tf_bn_clamp.py, 2.11.1 clamps,
        // 2.12.1-2.21.0 do not): a note when the version is unknown, nothing from 2.12 on.
        Expect{kTfFused, 1e-6, std::nullopt, {}, "bn-eps-silently-clamped", Level::Note, "TensorFlow <= 2.11"},
        Expect{kTfFused, 1e-6, std::nullopt, {{"tensorflow", "2.11"}}, "bn-eps-silently-clamped", Level::Warning,
               "1.001e-5"},
        Expect{kTfFused, 1e-6, std::nullopt, {{"tensorflow", "2.12"}}, nullptr, Level::Note, ""},
        Expect{kTfFused, 1e-5, std::nullopt, {{"tensorflow", "2.11"}}, "bn-eps-silently-clamped", Level::Note, "1.001e-5"},
        Expect{kTfFused, 0.0, std::nullopt, {{"tensorflow", "2.11"}}, "bn-eps-silently-clamped", Level::Warning,
               "eps=0 would otherwise"},
        Expect{kTfFused, 0.0, std::nullopt, {{"tensorflow", "2.15"}}, "bn-eps-zero", Level::Warning, "1/sqrt(0)"},
        Expect{kTfFused, 1.001e-5, std::nullopt, {}, nullptr, Level::Note, ""},
        Expect{kTfFused, -1.0, std::nullopt, {{"tensorflow", "2.11"}}, "bn-eps-negative", Level::Error,
               "silently replaces it"},
        Expect{kTfFused, -1.0, std::nullopt, {}, "bn-eps-negative", Level::Error, "TensorFlow >= 2.12 keeps it"}));

INSTANTIATE_TEST_SUITE_P(
    Keras, BnEpsilonVerdict,
    ::testing::Values(
        Expect{kKeras, 1e-6, std::nullopt, {}, "bn-eps-silently-clamped", Level::Note, "Keras version unknown"},
        Expect{kKeras, 1e-6, std::nullopt, {{"keras", "2.11"}}, "bn-eps-silently-clamped", Level::Warning,
               "for 4-D and 5-D inputs"},
        Expect{kKeras, 1e-6, std::nullopt, {{"keras", "2.15"}}, nullptr, Level::Note, ""},
        Expect{kKeras, 1e-6, std::nullopt, {{"tensorflow", "2.11"}}, "bn-eps-silently-clamped", Level::Warning,
               "fused kernel"},
        Expect{kKeras, 1e-6, std::nullopt, {{"tensorflow", "2.15"}}, nullptr, Level::Note, ""},
        Expect{kKeras, 1e-6, std::nullopt, {{"keras", "3.6"}}, nullptr, Level::Note, ""},
        Expect{kKeras, 1e-6, std::nullopt, {{"tensorflow", "2.16"}}, nullptr, Level::Note, ""},
        Expect{kKeras, 0.0, std::nullopt, {{"keras", "3"}}, "bn-eps-zero", Level::Warning, "1/sqrt(0)"},
        Expect{kKeras, 0.0, std::nullopt, {{"keras", "2.11"}}, "bn-eps-silently-clamped", Level::Warning, "1.001e-5"},
        Expect{kKeras, -1e-3, std::nullopt, {{"keras", "3"}}, "bn-eps-negative", Level::Error, "NaN"}));

INSTANTIATE_TEST_SUITE_P(
    PaddleFlaxHaiku, BnEpsilonVerdict,
    ::testing::Values(
        Expect{kPaddle, 1e-6, std::nullopt, {}, nullptr, Level::Note, ""},
        Expect{kPaddle, 1e-6, "9.0", {}, nullptr, Level::Note, ""},
        Expect{kPaddle, 1e-6, "7.4", {}, "bn-eps-below-cudnn-min", Level::Warning, "Paddle raises it"},
        Expect{kPaddle, 1e-5, "7.4", {}, nullptr, Level::Note, ""},  // float32(1e-5) is above Paddle's clamp bound
        Expect{kPaddle, -1e-5, std::nullopt, {}, "bn-eps-negative", Level::Error, "Paddle"},
        Expect{kFlax, 1e-6, "7.0", {}, nullptr, Level::Note, ""},
        Expect{kFlax, 0.0, std::nullopt, {}, "bn-eps-zero", Level::Warning, "1/sqrt(0)"},
        Expect{kFlax, -1e-5, std::nullopt, {}, "bn-eps-negative", Level::Error, "NaN"},
        Expect{kHaiku, 1e-8, "7.0", {}, nullptr, Level::Note, ""},
        Expect{kHaiku, 0.0, std::nullopt, {}, "bn-eps-zero", Level::Warning, "1/sqrt(0)"}));

// Keras 2.11 (TensorFlow 2.11) clamps on its fused path; fused=False, renorm and virtual batches avoid it.
TEST(BnEpsilonRules, KerasFusedFalseAndRenormAvoidTheClamp) {
  LiteralArg off;
  off.spelling = "False";
  off.boolean = false;
  EXPECT_TRUE(judge(fact_for(kKeras, 1e-6, {{"fused", off}}), target(std::nullopt, {{"keras", "2.11"}})).empty());
  LiteralArg on;
  on.spelling = "True";
  on.boolean = true;
  EXPECT_TRUE(judge(fact_for(kKeras, 1e-6, {{"renorm", on}}), target(std::nullopt, {{"keras", "2.11"}})).empty());
  LiteralArg vbs;
  vbs.spelling = "8";
  vbs.number = 8;
  EXPECT_TRUE(
      judge(fact_for(kKeras, 1e-6, {{"virtual_batch_size", vbs}}), target(std::nullopt, {{"keras", "2.11"}})).empty());
  EXPECT_EQ(judge(fact_for(kKeras, 1e-6, {{"fused", on}}), target(std::nullopt, {{"keras", "2.11"}})).size(), 1u);
}

TEST(BnEpsilonRules, DefaultsAndNonConstantsNeverFire) {
  NormalizationFact fact = fact_for(kMxnet, 0.0);
  fact.eps.source = ValueSource::Default;
  EXPECT_TRUE(judge(fact, target("7.0")).empty());
  fact.eps.source = ValueSource::NotConstant;
  fact.eps.value.reset();
  EXPECT_TRUE(judge(fact, target("7.0")).empty());
}

// gpu_check replays cuDNN's legacy batch norm with the finding's epsilon: only where the framework
// hands cuDNN that epsilon. Otherwise the finding says why there is nothing to replay.
TEST(BnEpsilonRules, ReplayOnlyWhatTheFrameworkHandsToCudnn) {
  struct Case {
    const char* api;
    double eps;
    std::optional<std::string> cudnn;
    std::map<std::string, std::string> frameworks;
    const char* unknown_part;  // nullptr: replayable
    const char* expect;
  };
  for (const Case& c : {
           Case{kTorch, -1e-5, std::nullopt, {}, "never hands an epsilon below CUDNN_BN_MIN_EPSILON", ""},
           Case{kTorchAten, -1e-5, std::nullopt, {}, "never hands an epsilon below CUDNN_BN_MIN_EPSILON", ""},
           Case{kTorch, 0.0, std::nullopt, {{"torch", "2.11"}}, "PyTorch 2.11 refuses it", ""},
           Case{kTorch, 0.0, std::nullopt, {{"torch", "2.12"}}, nullptr, "non-finite output"},
           Case{kTorch, 0.0, std::nullopt, {}, nullptr, "non-finite output"},
           Case{kFlax, 0.0, std::nullopt, {}, "does not call cuDNN batch norm", ""},
           Case{kPaddle, -1e-5, std::nullopt, {}, "Paddle raises epsilon", ""},
           // Below cuDNN < 7.5's floor PyTorch runs its native kernel and Paddle clamps: cuDNN never sees it.
           Case{kTorch, 1e-6, "7.4", {}, "never hands an epsilon below CUDNN_BN_MIN_EPSILON (1e-5", ""},
           Case{kTorch, 0.0, "7.4", {}, "never hands an epsilon below CUDNN_BN_MIN_EPSILON (1e-5", ""},
           Case{kPaddle, 1e-6, "7.4", {}, "Paddle raises epsilon", ""},
           Case{kTfFused, -1.0, std::nullopt, {{"tensorflow", "2.11"}}, "TensorFlow raises epsilon", ""},
           // An unknown TensorFlow may be >= 2.12, which hands it on: the replay is kept.
           Case{kTfFused, -1.0, std::nullopt, {}, nullptr, "CUDNN_STATUS_BAD_PARAM"},
           Case{kMxnet, -1e-3, std::nullopt, {}, nullptr, "CUDNN_STATUS_BAD_PARAM"},
           Case{kCudnnBn, 1e-6, "7.0", {}, nullptr, "CUDNN_STATUS_BAD_PARAM"},
       }) {
    const auto findings = judge(fact_for(c.api, c.eps), target(c.cudnn, c.frameworks));
    ASSERT_EQ(findings.size(), 1u) << c.api << " " << c.eps;
    const ReplayConfig& replay = findings[0].replay;
    if (c.unknown_part == nullptr) {
      EXPECT_TRUE(replay.unknown.empty()) << c.api << " " << c.eps << ": " << replay.unknown;
      EXPECT_EQ(expectation_name(replay.expect), c.expect) << c.api << " " << c.eps;
    } else {
      EXPECT_NE(replay.unknown.find(c.unknown_part), std::string::npos) << c.api << " " << c.eps << ": " << replay.unknown;
    }
  }
}

// F.batch_norm's mode is visible in the call (training=..., by keyword or position; the default is
// False): PyTorch >= 2.12 lets eps = 0 through in eval mode, so there it is cuDNN's NaN, not a ValueError.
TEST(BnEpsilonRules, FunctionalBatchNormModeDecidesTheRefusal) {
  constexpr const char* kFunctional = "torch.nn.functional.batch_norm";
  LiteralArg training;
  training.spelling = "True";
  training.boolean = true;
  LiteralArg eval;
  eval.spelling = "False";
  eval.boolean = false;
  struct Case {
    std::map<std::string, LiteralArg> literals;
    std::optional<std::string> torch;
    Level level;
    const char* message_part;
    bool replayable;
  };
  for (const Case& c : {
           Case{{{"training", eval}}, "2.12", Level::Warning, "PyTorch hands eps=0 to cuDNN", true},
           Case{{}, "2.12", Level::Warning, "PyTorch hands eps=0 to cuDNN", true},  // training defaults to False
           Case{{{"training", training}}, "2.12", Level::Error, "PyTorch 2.12 refuses it: the call raises ValueError",
                false},
           Case{{{"training", eval}}, "2.11", Level::Error, "PyTorch 2.11 refuses it: the call raises", false},
           Case{{{"training", eval}}, std::nullopt, Level::Warning,
                "PyTorch >= 2.10 refuses it with a ValueError at the call; PyTorch >= 2.12 lets it through", true},
       }) {
    const auto t = c.torch ? target(std::nullopt, {{"torch", *c.torch}}) : target(std::nullopt);
    const auto findings = judge(fact_for(kFunctional, 0.0, c.literals), t);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, c.level) << findings[0].message;
    EXPECT_NE(full_message(findings[0]).find(c.message_part), std::string::npos) << full_message(findings[0]);
    EXPECT_EQ(findings[0].replay.unknown.empty(), c.replayable) << findings[0].replay.unknown;
  }
}

TEST(ApiTable, PyTorchEpsChecksByVersion) {
  const ApiEntry* bn = ApiTable::builtin().find("torch.nn.BatchNorm2d");
  ASSERT_NE(bn, nullptr);
  ASSERT_EQ(bn->eps_refusals.size(), 2u);
  auto in_force = [&](const char* version) -> const EpsRefusal* {
    for (const EpsRefusal& r : bn->eps_refusals)
      if (r.in_force(*parse_version(version))) return &r;
    return nullptr;
  };
  EXPECT_EQ(in_force("2.9.1"), nullptr);
  ASSERT_NE(in_force("2.10"), nullptr);
  EXPECT_TRUE(in_force("2.11.0")->refuses_in_eval(0.0));
  ASSERT_NE(in_force("2.12"), nullptr);
  EXPECT_FALSE(in_force("2.12")->refuses_in_eval(0.0));
  EXPECT_TRUE(in_force("2.15")->refuses_in_eval(-1e-5));
  EXPECT_TRUE(in_force("2.15")->refuses_in_training(0.0));
  EXPECT_FALSE(in_force("2.15")->refuses_in_training(1e-8));
  for (const char* unchecked : {"torch.nn.InstanceNorm2d", "torch.nn.functional.instance_norm", "torch.batch_norm",
                                "at::batch_norm", "torch.nn.LazyInstanceNorm2d"})
    EXPECT_TRUE(ApiTable::builtin().find(unchecked)->eps_refusals.empty()) << unchecked;
  EXPECT_FALSE(ApiTable::builtin().find("torch.nn.SyncBatchNorm")->refusal_condition.empty());
  EXPECT_THROW(ApiTable::parse(R"({"frameworks": {"torch": {"display": "PyTorch", "roots": ["torch"]}}, "apis": [
      {"family": "normalization", "framework": "torch", "kind": "class", "names": ["torch.nn.X"],
       "args": {"eps": {"name": "eps", "index": 1}},
       "normalization": {"eps_storage": "float64", "cudnn_path": "fallback_native",
                         "eps_refusals": [{"from": "2.x", "refuses": "non_positive", "error": "E"}]}}]})"),
               std::runtime_error);
}

TEST(BnEpsilonRules, TargetIsNamedInTheFinding) {
  const auto findings = judge(fact_for(kMxnet, 1e-6), target("7.4"));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].target_note, "cuDNN 7.4 (--cudnn-version)");
  EXPECT_EQ(findings[0].kb_id, "cuda/cudnn-bn-epsilon-too-small");
}

TEST(RuleRegistry, EveryRuleHasAKbEntry) {
  ASSERT_EQ(all_rules().size(), 22u);
  for (const RuleInfo& rule : all_rules()) {
    EXPECT_NE(kb::find(rule.kb_id), nullptr) << rule.id;
    EXPECT_EQ(find_rule(rule.id), &rule);
  }
  EXPECT_EQ(find_rule("no-such-rule"), nullptr);
}

TEST(ApiTable, ArgumentPositionsFromTheResearch) {
  const ApiTable& table = ApiTable::builtin();
  EXPECT_EQ(table.find("torch.nn.BatchNorm2d")->eps().index, 1);
  EXPECT_EQ(table.find("torch.nn.LazyBatchNorm2d")->eps().index, 0);
  EXPECT_EQ(table.find("keras.layers.BatchNormalization")->eps().index, 2);
  EXPECT_EQ(table.find("torch.nn.functional.batch_norm")->eps().index, 7);
  EXPECT_EQ(table.find("torch.batch_norm")->eps().index, 7);
  EXPECT_EQ(table.find("haiku.BatchNorm")->eps().index, 3);
  EXPECT_EQ(table.find("flax.linen.BatchNorm")->eps().index, 3);
  EXPECT_FALSE(table.find("flax.nnx.BatchNorm")->eps().index.has_value());
  EXPECT_EQ(table.find("paddle.nn.BatchNorm")->eps().index, 4);
  EXPECT_EQ(table.find("tensorflow.nn.batch_normalization")->eps().name, "variance_epsilon");
  EXPECT_EQ(table.find("torch.nn.LayerNorm"), nullptr);
  EXPECT_THROW(ApiTable::parse("{\"frameworks\": {}, \"apis\": [{}]}"), std::runtime_error);
  // Convolutions: PyTorch's positional order and Keras's names.
  EXPECT_EQ(table.find("torch.nn.Conv2d")->arg("kernel_size")->index, 2);
  EXPECT_EQ(table.find("torch.nn.Conv2d")->arg("padding")->default_number, 0.0);
  EXPECT_EQ(table.find("keras.layers.Conv2D")->arg("out_channels")->name, "filters");
  EXPECT_EQ(table.find("keras.layers.Conv2D")->arg("padding")->default_text, "valid");
  EXPECT_EQ(table.find("torch.nn.Conv2d")->family, "convolution");
  // mmcv's registry names.
  EXPECT_EQ(table.config_type("mmcv", "SyncBN")->canonical, "torch.nn.SyncBatchNorm");
  EXPECT_EQ(table.config_type("mmcv", "LN"), nullptr);
  // Datasets whose samples have one size.
  ASSERT_NE(table.dataset("torchvision.datasets.CIFAR10"), nullptr);
  EXPECT_EQ(table.dataset("torchvision.datasets.CIFAR10")->sample, (std::vector<std::int64_t>{3, 32, 32}));
  EXPECT_EQ(table.dataset("torchvision.datasets.ImageFolder"), nullptr);
  EXPECT_THROW(ApiTable::parse(R"({"frameworks": {}, "apis": [],
      "datasets": [{"names": ["a.B"], "sample": [1, 0, 28], "source": "s"}]})"),
               std::runtime_error);
  EXPECT_THROW(ApiTable::parse(R"({"frameworks": {}, "apis": [],
      "datasets": [{"names": ["a.B"], "sample": [1, 28, 28], "source": "s"}, {"names": ["a.B"], "sample": [1, 2, 2], "source": "s"}]})"),
               std::runtime_error);
}

TEST(Target, VersionsAndFrameworkSpecs) {
  EXPECT_EQ(parse_version("7.4")->str(), "7.4");
  EXPECT_EQ(parse_version("8.9.5")->str(), "8.9.5");
  EXPECT_EQ(*parse_version("9"), (Version{9, 0, 0}));
  EXPECT_FALSE(parse_version("7.").has_value());
  EXPECT_FALSE(parse_version("v7").has_value());
  EXPECT_FALSE(parse_version("").has_value());
  EXPECT_LT(*parse_version("7.4.9"), *parse_version("7.5"));
  const auto [name, version] = parse_framework_spec("keras==2.15");
  EXPECT_EQ(name, "keras");
  EXPECT_EQ(version->str(), "2.15");
  EXPECT_FALSE(parse_framework_spec("torch").second.has_value());
  // How users write them: the PyPI name, any case, torch.__version__'s local tag, a pre-release.
  EXPECT_EQ(parse_framework_spec("PyTorch==2.12.0+cu128"), std::make_pair(std::string("torch"), parse_version("2.12.0")));
  EXPECT_EQ(parse_framework_spec("Torch=2.13.0rc1").second, parse_version("2.13"));
  EXPECT_EQ(parse_framework_spec("tf=2.15").first, "tensorflow");
  EXPECT_THROW(parse_framework_spec("torch=+cu128"), std::invalid_argument);
  EXPECT_THROW(parse_framework_spec("torch=abc"), std::invalid_argument);
  Target t;
  EXPECT_FALSE(t.keras_major().has_value());
  t.frameworks["tensorflow"] = parse_version("2.16");
  EXPECT_EQ(t.keras_major(), 3);
  t.frameworks["keras"] = parse_version("2.15");
  EXPECT_EQ(t.keras_major(), 2);
}

}  // namespace
}  // namespace cudnnlint

namespace cudnnlint {
namespace {

DescriptorFact descriptor(DescriptorFact::Kind kind, std::vector<std::string> names, std::vector<std::int64_t> values) {
  DescriptorFact d;
  d.kind = kind;
  d.api = kind == DescriptorFact::Kind::Convolution ? "cudnnSetConvolution2dDescriptor"
          : kind == DescriptorFact::Kind::Filter    ? "cudnnSetFilter4dDescriptor"
                                                    : "cudnnSetTensor4dDescriptor";
  d.descriptor = "d";
  d.names = std::move(names);
  for (std::size_t i = 0; i < values.size(); ++i)
    d.values.push_back(IntegerValue{values[i], std::to_string(values[i]), Location{"m.cpp", {{2, static_cast<uint32_t>(10 + i), 0, 0}, {2, 11, 0, 0}}}, {}});
  return d;
}

std::vector<Finding> judge_file(const FileFacts& facts) {
  std::vector<Finding> out;
  run_rules(RuleInput{facts, Target{}, ApiTable::builtin()}, out);
  return out;
}

TEST(DescriptorRules, NonPositiveDimensionsAndBadConvolutionParameters) {
  using K = DescriptorFact::Kind;
  FileFacts facts;
  facts.descriptors.push_back(descriptor(K::Tensor, {"n", "c", "h", "w"}, {0, 3, 8, 8}));
  facts.descriptors.push_back(descriptor(K::Filter, {"k", "c", "h", "w"}, {4, 3, -1, 3}));
  facts.descriptors.push_back(descriptor(K::Tensor, {"n", "c", "h", "w"}, {1, 1, 1, 1}));
  facts.descriptors.push_back(descriptor(K::Convolution, {"pad_h", "pad_w", "stride_h", "stride_w", "dilation_h", "dilation_w"},
                                         {0, -1, 1, 0, 1, 1}));
  const auto findings = judge_file(facts);
  ASSERT_EQ(findings.size(), 4u);
  for (const auto& f : findings) {
    EXPECT_EQ(f.rule_id, "cudnn-desc-bad-dim");
    EXPECT_EQ(f.level, Level::Error);
    EXPECT_NE(full_message(f).find("CUDNN_STATUS_BAD_PARAM"), std::string::npos);
  }
  EXPECT_NE(full_message(findings[0]).find("n = 0"), std::string::npos);
  EXPECT_NE(full_message(findings[2]).find("padding must not be negative"), std::string::npos);
  EXPECT_NE(full_message(findings[3]).find("strides must be at least 1"), std::string::npos);
}

struct ConvCase {
  std::int64_t in, filter, pad, stride, dilation;
  bool empty;
};

class ConvolutionOutput : public ::testing::TestWithParam<ConvCase> {};

// The cases measured with cuDNN 9.19.0's cudnnGetConvolution2dForwardOutputDim (KB entry
// cuda/cudnn-conv-output-size-nonpositive).
TEST_P(ConvolutionOutput, MatchesWhatCudnnMeasured) {
  using K = DescriptorFact::Kind;
  const ConvCase& c = GetParam();
  (void)sizeof(K);
  FileFacts facts;
  auto v = [](std::int64_t value) {
    return std::optional<IntegerValue>(IntegerValue{value, std::to_string(value), Location{"m.cpp", {{2, 10, 0, 0}, {2, 11, 0, 0}}}, {}});
  };
  ConvGeometryFact conv;
  conv.api = "cudnnGetConvolution2dForwardOutputDim";
  conv.input = {v(1), v(3), v(c.in), v(c.in)};
  conv.out_channels = v(4);
  conv.in_channels = v(3);
  conv.kernel = {v(c.filter), v(c.filter)};
  conv.padding = {v(c.pad), v(c.pad)};
  conv.stride = {v(c.stride), v(c.stride)};
  conv.dilation = {v(c.dilation), v(c.dilation)};
  conv.padding_mode = "explicit";
  conv.input_api = "cudnnSetTensor4dDescriptor";
  facts.conv_geometries.push_back(conv);
  const auto findings = judge_file(facts);
  EXPECT_EQ(findings.size(), c.empty ? 1u : 0u) << c.in << " " << c.filter << " " << c.pad << " " << c.stride;
  if (c.empty && !findings.empty()) {
    EXPECT_EQ(findings[0].rule_id, "cudnn-conv-output-empty");
  }
}

INSTANTIATE_TEST_SUITE_P(Measured, ConvolutionOutput,
                         ::testing::Values(ConvCase{1, 3, 0, 1, 1, true}, ConvCase{2, 3, 0, 1, 1, true},
                                           ConvCase{3, 3, 0, 1, 1, false}, ConvCase{8, 3, 0, 1, 1, false},
                                           ConvCase{2, 3, 0, 2, 1, true}, ConvCase{2, 3, 0, 3, 1, true},
                                           ConvCase{1, 3, 0, 2, 1, true}, ConvCase{4, 3, 0, 1, 2, true},
                                           ConvCase{5, 3, 0, 1, 2, false}, ConvCase{1, 3, 1, 1, 1, false},
                                           ConvCase{8, 3, 0, 2, 1, false}, ConvCase{9, 4, 0, 3, 1, false}));

}  // namespace
}  // namespace cudnnlint

namespace cudnnlint {
namespace {

TEST(TorchIntegerInputRule, OneErrorPerFactNamingTheDtypeAndWhereItIsSet) {
  FileFacts facts;
  TensorInputFact fact;
  fact.consumer = "torch::nn::Conv2d";
  fact.use = Location{"m.cpp", {{9, 5, 5, 80}, {9, 10, 10, 85}}};
  fact.variable = "image";
  fact.dtype = DType::UInt8;
  fact.dtype_spelling = "kByte";
  fact.dtype_location = Location{"m.cpp", {{3, 40, 40, 30}, {3, 52, 52, 42}}};
  facts.tensor_inputs.push_back(fact);
  std::vector<Finding> out;
  run_rules(RuleInput{facts, Target{}, ApiTable::builtin()}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule_id, "torch-integer-input");
  EXPECT_EQ(out[0].level, Level::Error);
  EXPECT_EQ(out[0].location.range.begin.line, 9u);
  EXPECT_NE(full_message(out[0]).find("torch::kByte"), std::string::npos);
  EXPECT_NE(full_message(out[0]).find("torch::nn::Conv2d"), std::string::npos);
  ASSERT_EQ(out[0].related.size(), 1u);
  EXPECT_EQ(out[0].related[0].where.range.begin.line, 3u);
}

}  // namespace
}  // namespace cudnnlint

namespace cudnnlint {
namespace {

TensorInputFact half_input(std::string weight_dtype) {
  TensorInputFact fact;
  fact.consumer = "torch::nn::Conv2d";
  fact.use = Location{"m.cpp", {{9, 5, 5, 80}, {9, 10, 10, 85}}};
  fact.variable = "x";
  fact.dtype = DType::Float16;
  fact.dtype_spelling = "kHalf";
  fact.dtype_location = Location{"m.cpp", {{3, 40, 40, 30}, {3, 52, 52, 42}}};
  fact.weight_dtype = dtype_from_spelling(weight_dtype);
  fact.weight_dtype_spelling = std::move(weight_dtype);
  if (fact.weight_dtype != DType::Unknown) fact.weight_dtype_location = Location{"m.cpp", {{2, 3, 3, 10}, {2, 9, 9, 16}}};
  return fact;
}

TEST(TorchConvDtypeMismatchRule, HalfInputIntoFloatModuleIsOneErrorWithBothOrigins) {
  FileFacts facts;
  facts.tensor_inputs.push_back(half_input("kFloat"));
  std::vector<Finding> out;
  run_rules(RuleInput{facts, Target{}, ApiTable::builtin()}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule_id, "torch-conv-dtype-mismatch");
  EXPECT_EQ(out[0].kb_id, "pytorch/conv-input-weight-dtype-mismatch");
  EXPECT_NE(full_message(out[0]).find("Input type (c10::Half) and bias type (float)"), std::string::npos);
  ASSERT_EQ(out[0].related.size(), 2u);
  EXPECT_EQ(out[0].related[1].where.range.begin.line, 2u);
}

TEST(TorchConvDtypeMismatchRule, SilentWhenTheWeightTypeIsUnknownOrTheSame) {
  for (const char* weight : {"", "kHalf", "kFloat16"}) {
    FileFacts facts;
    facts.tensor_inputs.push_back(half_input(weight));
    std::vector<Finding> out;
    run_rules(RuleInput{facts, Target{}, ApiTable::builtin()}, out);
    EXPECT_TRUE(out.empty()) << "weight dtype '" << weight << "'";
  }
}

}  // namespace
}  // namespace cudnnlint
