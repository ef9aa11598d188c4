#include "rules/rule.h"

#include <array>

namespace cudnnlint {

namespace {

constexpr std::array kRules{
    RuleInfo{"bn-eps-negative", "cuda/cudnn-bn-epsilon-negative", Level::Error,
             "Batch-norm epsilon is negative: CUDNN_STATUS_BAD_PARAM on every cuDNN, NaN elsewhere"},
    RuleInfo{"bn-eps-zero", "cuda/cudnn-bn-epsilon-zero", Level::Warning,
             "Batch-norm epsilon is 0: a zero-variance channel gives 1/sqrt(0) = inf, then NaN"},
    RuleInfo{"bn-eps-below-cudnn-min", "cuda/cudnn-bn-epsilon-too-small", Level::Error,
             "Batch-norm epsilon below 1e-5 (CUDNN_BN_MIN_EPSILON before cuDNN 7.5) reaches cuDNN"},
    RuleInfo{"bn-eps-silently-clamped", "tensorflow/fused-bn-epsilon-clamped", Level::Warning,
             "TensorFlow fused batch norm silently raises epsilon below 1.001e-5 to 1.001e-5"},
    RuleInfo{"cudnn-desc-bad-dim", "cuda/cudnn-tensor-descriptor-nonpositive-dim", Level::Error,
             "cuDNN tensor, filter or convolution descriptor set with a zero or negative dimension, a negative "
             "padding or a non-positive stride or dilation: CUDNN_STATUS_BAD_PARAM"},
    RuleInfo{"cudnn-conv-output-empty", "cuda/cudnn-conv-output-size-nonpositive", Level::Error,
             "Convolution whose output size, computed as cuDNN does, is below 1: CUDNN_STATUS_BAD_PARAM"},
    RuleInfo{"torch-integer-input", "pytorch/integer-input-to-conv-or-batchnorm", Level::Error,
             "libtorch tensor of an integer element type fed to a convolution or batch norm"},
    RuleInfo{"torch-conv-dtype-mismatch", "pytorch/conv-input-weight-dtype-mismatch", Level::Error,
             "libtorch half (or other floating) tensor fed to a convolution whose weights plainly have another "
             "floating type"},
};

}  // namespace

std::span<const RuleInfo> all_rules() { return kRules; }

const RuleInfo* find_rule(std::string_view id) {
  for (const auto& rule : kRules)
    if (rule.id == id) return &rule;
  return nullptr;
}

Finding make_finding(const RuleInfo& rule, const Location& where) {
  Finding finding;
  finding.rule_id = std::string(rule.id);
  finding.kb_id = std::string(rule.kb_id);
  finding.level = rule.default_level;
  finding.location = where;
  return finding;
}

void run_rules(const FileFacts& facts, const Target& target, std::vector<Finding>& out) {
  check_bn_epsilon(facts, target, out);
  check_cudnn_descriptors(facts, target, out);
  check_torch_tensor_dtype(facts, target, out);
  check_torch_conv_dtype_mismatch(facts, target, out);
}

}  // namespace cudnnlint
