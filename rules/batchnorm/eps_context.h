// What the five batch-norm epsilon rules (negative, zero, not finite, below cuDNN's minimum,
// silently clamped) share: the fact's epsilon as the framework stores it, the path by which the
// framework hands it to cuDNN (the API table's cudnn_path, with Keras resolved for the target),
// and one way to write the finding.
// Facts (shared/research/cudnn-facts.md):
//  - CUDNN_BN_MIN_EPSILON was 1e-5 up to cuDNN 7.4 and is 0.0 since 7.5.0; eps below it is BAD_PARAM.
//  - PyTorch never passes eps < CUDNN_BN_MIN_EPSILON to cuDNN: it silently uses its native kernel.
//    From 2.10 its F.batch_norm refuses eps <= 0 itself (the API table's eps_refusals).
//  - TF fused batch norm (and Keras 2's fused BatchNormalization) raise eps < 1.001e-5 to 1.001e-5
//    in TensorFlow <= 2.11 only: measured with tests/probes/tf_bn_clamp.py on the CPU wheels, 2.11.1
//    clamps, 2.12.1 ... 2.21.0 (tf.keras 2.12-2.15, tf_keras 2.16-2.21) do not (`min_epsilon` left
//    nn_impl.py in 2.12.0). Keras 3 never does.
//  - float32(1e-5) = 9.99999975e-06 < 1e-5: frameworks that store eps as float fall under the old floor,
//    except Paddle (cudnn_path clamp_cudnn_min), whose GPU kernels widen the float attribute to double,
//    log only `if (epsilon <= CUDNN_BN_MIN_EPSILON - FLT_EPSILON)`, then pass
//    `std::max(epsilon, CUDNN_BN_MIN_EPSILON)` to cuDNN (paddle/phi/kernels/gpu/batch_norm_kernel.cu at
//    01fbd77c; the same lines in fluid's batch_norm_op.cu since 2017): cuDNN never sees an epsilon
//    below its minimum, and float32(1e-5) is raised to exactly 1e-5 without a word.
#pragma once

#include "rules/rule.h"

#include <cfloat>
#include <optional>
#include <string>

namespace cudnnlint::batchnorm {

inline constexpr double kOldCudnnFloor = 1e-5;     // CUDNN_BN_MIN_EPSILON before cuDNN 7.5.0
inline constexpr double kTfFusedFloor = 1.001e-5;  // TF's min_epsilon in fused_batch_norm
inline constexpr Version kFloorLowered{7, 5, 0};
inline constexpr Version kTfClampRemoved{2, 12, 0};  // the first TensorFlow (and Keras 2) that keeps eps
// clamp_cudnn_min (Paddle) logs the raise only for a stored epsilon, widened to double, at or below
// CUDNN_BN_MIN_EPSILON - FLT_EPSILON = 9.8807907e-06 (with the old 1e-5 floor); above it, up to the
// floor, the raise is silent and undoes the float32 rounding of 1e-5 itself.
inline constexpr double kClampLogBelow = kOldCudnnFloor - static_cast<double>(FLT_EPSILON);

struct EpsContext {
  EpsContext(const NormalizationFact& f, const ApiEntry& a) : fact(f), api(a) {}
  const NormalizationFact& fact;
  const ApiEntry& api;
  double eps = 0.0;
  std::string what;          // "eps=1e-6", "eps=EPS (= 1e-06)", "m.eps = 1e-6" (the code clipped)
  std::string layer;         // how the code names the layer
  CudnnPath path = CudnnPath::None;  // Keras resolved: ClampTf (fused), None (not), or ClampTf when unknown
  bool keras_unknown = false;        // a Keras layer whose version (2 clamps, 3 does not) is unknown
  std::string keras_caveat;          // sentence to append when keras_unknown
  // On TensorFlow's fused path (ClampTf): whether the target's TensorFlow/Keras is one that clamps
  // (<= 2.11) is unknown; the rules then say which versions do. With a version >= 2.12 the path is
  // Passthrough and `clamp_note` says why.
  bool clamp_version_unknown = false;
  std::string clamp_note;            // "TensorFlow 2.15 (requirements.txt:4) keeps it: the clamp left in 2.12"
  bool cudnn_known = false;
  bool old_cudnn = false;            // target cuDNN < 7.5
  std::string framework;             // the API's framework as users name it: "PyTorch"
  std::optional<Version> framework_version;  // the target's version of it
  std::string framework_note;        // "PyTorch 2.11 (--framework)", "PyTorch version unknown: pass ..."
  // The framework's own eps check in force for the target version (nullptr: none, or unknown).
  const EpsRefusal* refusal = nullptr;
  std::optional<bool> training;      // a functional call's mode, when stated or defaulted; layers: unknown
};

// Whether the framework's own check in force refuses `eps` for this call: not at all, only in
// training mode (the mode is unknown here), or whatever the mode.
enum class Refusal { None, InTraining, Always };
Refusal refusal_state(const EpsContext& ctx, double eps);

// nullopt when the fact has no settled epsilon or names an API the table does not know. Derived
// once per fact in a run_rules call (input.memo), and valid as long as that call.
const std::optional<EpsContext>& eps_context(const NormalizationFact& fact, const RuleInput& input);

// eps as the framework stores it (float32 storage rounds 1e-5 down).
double stored_eps(const EpsContext& ctx);
// On the clamp_cudnn_min path with the old 1e-5 floor: whether the framework's own comparison
// (stored eps <= CUDNN_BN_MIN_EPSILON - FLT_EPSILON) logs the raise, i.e. whether the epsilon it
// computes with differs from the declared one by more than float32 rounding.
bool clamp_logged(const EpsContext& ctx);
std::string number(double value);
// "Keras 2 (--framework)" or "Keras version unknown".
std::string keras_target_note(const Target& target);

// The framework's own checks that refuse `eps`, for an unknown framework version: "PyTorch >= 2.10
// refuses it with a ValueError at the layer's first forward (>= 2.12: in training mode only)";
// "... at the call; PyTorch >= 2.12 lets it through" for an eval-mode call. "" if none.
std::string refusal_summary(const EpsContext& ctx, double eps);
// What the framework in force (ctx.refusal) does with `eps`: "PyTorch 2.11 refuses it: the layer's
// first forward raises ValueError: ...". "" when no check is in force or it lets `eps` through.
std::string refusal_in_force(const EpsContext& ctx, double eps);
// " (when ...)" for entries whose checks run only sometimes.
std::string refusal_condition(const EpsContext& ctx);

// Writes the finding: primary location at the epsilon, provenance as related locations, and
// the replay configuration gpu_check rebuilds.
// The headline is the rule's subject (the value, the layer) and `consequence`, at most about 120
// characters; `detail` says why, with the measured versions.
void add_eps_finding(const EpsContext& ctx, RuleId rule, Level level, std::string_view consequence, std::string detail,
                     std::string target_note, std::vector<Finding>& out);

}  // namespace cudnnlint::batchnorm
