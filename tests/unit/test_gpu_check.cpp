// gpu_check against the real libcudnn: the descriptor tier needs no GPU and runs in CI; the
// execution tier skips (and says why) where no GPU is present.
#include "gpu_check/gpu_check.h"
#include "gpu_check/host_values.h"
#include "gpu_check/tiers.h"
#include "rules/replay_configs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <unistd.h>
#include <vector>

namespace cudnnlint::gpu {
namespace {

const GpuEnvironment& environment() {
  static const GpuEnvironment env = probe_environment("", true);
  return env;
}

#define REQUIRE_CUDNN()                                                                           \
  if (!environment().descriptor_tier())                                                           \
  GTEST_SKIP() << "no libcudnn on this machine (" << environment().cudnn_missing                  \
               << "): the descriptor tier cannot run"

#define REQUIRE_GPU()                                                                             \
  if (!environment().execution_tier())                                                            \
  GTEST_SKIP() << "execution tier unavailable: "                                                  \
               << (environment().cudnn ? environment().execution_unavailable : environment().cudnn_missing)

ReplayConfig tensor(std::vector<std::int64_t> dims, std::string api = "cudnnSetTensor4dDescriptor") {
  ReplayConfig r;
  r.op = ReplayOp::TensorDescriptor;
  r.api = std::move(api);
  r.dtype = DType::Float32;
  r.layout = "NCHW";
  r.input = std::move(dims);
  r.expect = Expectation::BadParam;
  return r;
}

ReplayConfig convolution(std::int64_t in, std::int64_t k, std::int64_t pad, std::int64_t stride, std::int64_t dilation) {
  ReplayConfig r;
  r.op = ReplayOp::Convolution;
  r.dtype = DType::Float32;
  r.layout = "NCHW";
  r.input = {1, 3, in, in};
  r.filter = {8, 3, k, k};
  r.padding = {pad, pad};
  r.stride = {stride, stride};
  r.dilation = {dilation, dilation};
  r.compute_type = DType::Float32;
  r.expect = Expectation::BadParam;
  return r;
}

TEST(HostValues, HalfAndBfloat16Encodings) {
  EXPECT_EQ(float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half_bits(70000.0f), 0x7c00);  // overflow: inf
  EXPECT_EQ(float_to_half_bits(1e-5f), 0x00a8);     // subnormal: 168 * 2^-24 = 1.00136e-5
  EXPECT_EQ(float_to_half_bits(1e-8f), 0x0000);     // below 2^-25: underflows to 0
  EXPECT_EQ(float_to_half_bits(0.1f), 0x2e66);
  EXPECT_EQ(float_to_bfloat16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bfloat16_bits(3.140625f), 0x4049);
}

TEST(HostValues, NonFiniteDetectionPerType) {
  const std::vector<double> finite{0.5, -1.0, 2.0};
  const std::vector<double> with_inf{0.5, INFINITY};
  const std::vector<double> with_nan{NAN, 1.0};
  for (const DType type : {DType::Float32, DType::Float16, DType::BFloat16, DType::Float64}) {
    EXPECT_FALSE(any_nonfinite(encode(finite, type), type)) << dtype_name(type);
    EXPECT_TRUE(any_nonfinite(encode(with_inf, type), type)) << dtype_name(type);
    EXPECT_TRUE(any_nonfinite(encode(with_nan, type), type)) << dtype_name(type);
  }
  EXPECT_FALSE(any_nonfinite(encode(finite, DType::Int8), DType::Int8));
  EXPECT_EQ(encode(finite, DType::Float16).size(), 6u);
}

TEST(Loading, AnExplicitLibraryThatIsMissingIsReportedNotFatal) {
  const GpuEnvironment env = probe_environment("/nonexistent/libcudnn.so.9", false);
  EXPECT_FALSE(env.descriptor_tier());
  EXPECT_FALSE(env.execution_tier());
  ASSERT_EQ(env.cudnn_tried.size(), 1u);
  EXPECT_NE(env.cudnn_tried[0].find("/nonexistent/libcudnn.so.9 (--cudnn-library)"), std::string::npos);
  EXPECT_NE(describe_environment(env).find("descriptor    unavailable"), std::string::npos);
}

// A venv whose bin/ is on PATH but not activated (no VIRTUAL_ENV): GPU images ship torch so, and
// its pip cuDNN wheel is what the user's framework loads.
TEST(Loading, ThePipWheelOfThePythonOnPathIsACandidate) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("cudnnlint-venv-" + std::to_string(::getpid()));
  const fs::path library = root / "lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9";
  fs::create_directories(root / "bin");
  fs::create_directories(library.parent_path());
  std::ofstream(root / "bin/python3") << "";
  std::ofstream(library) << "";
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path ? old_path : "";
  auto finds_it = [&](const std::string& path_value) {
    ::setenv("PATH", path_value.c_str(), 1);
    const auto candidates = cudnn_candidates("");
    ::setenv("PATH", saved.c_str(), 1);
    return std::any_of(candidates.begin(), candidates.end(), [&](const Candidate& c) {
      return fs::absolute(c.path).lexically_normal() == library.lexically_normal() && c.origin == "pip nvidia-cudnn-cu*";
    });
  };
  EXPECT_TRUE(finds_it((root / "bin").string() + ":" + saved));
  EXPECT_TRUE(finds_it((root / "bin").string() + "/:" + saved)) << "a trailing slash is the same directory";
  // A relative entry would load a library from the working directory: never searched.
  const fs::path cwd = fs::current_path();
  fs::current_path(root);
  const bool relative_found = finds_it("bin:" + saved);
  fs::current_path(cwd);
  EXPECT_FALSE(relative_found);
  fs::remove_all(root);
}

TEST(Loading, CandidatesFollowCudnnPathThenTheToolkitThenTheSystemLoader) {
  const auto explicit_only = cudnn_candidates("/x/libcudnn.so.9");
  ASSERT_EQ(explicit_only.size(), 1u);
  EXPECT_EQ(explicit_only[0].origin, "--cudnn-library");
  const auto searched = cudnn_candidates("");
  ASSERT_FALSE(searched.empty());
  EXPECT_EQ(searched[searched.size() - 2].path, "libcudnn.so.9");
  EXPECT_EQ(searched.back().path, "libcudnn.so.8");
  EXPECT_EQ(searched.back().origin, "system loader");
  // libcudart: the major version cuDNN was built against comes first.
  const auto runtimes = cudart_candidates("", 12);
  auto position = [&](const std::string& soname) {
    for (std::size_t i = 0; i < runtimes.size(); ++i)
      if (runtimes[i].path == soname && runtimes[i].origin == "system loader") return i;
    return runtimes.size();
  };
  EXPECT_LT(position("libcudart.so.12"), position("libcudart.so.13"));
  EXPECT_LT(position("libcudart.so.13"), runtimes.size());
}

TEST(Versions, CudnnAndCudaEncodings) {
  EXPECT_EQ(cudnn_version_text(91900), "9.19.0");
  EXPECT_EQ(cudnn_version_text(90100), "9.1.0");
  EXPECT_EQ(cudnn_version_text(8905), "8.9.5");
  EXPECT_EQ(cudnn_version_text(7605), "7.6.5");
  EXPECT_EQ(cuda_version_text(13000), "13.0");
  EXPECT_EQ(cuda_version_text(12040), "12.4");
}

TEST(DescriptorTier, TensorDescriptorsWithANonPositiveDimensionAreBadParam) {
  REQUIRE_CUDNN();
  const CudnnApi& cudnn = *environment().cudnn;
  for (const auto& dims : std::vector<std::vector<std::int64_t>>{{0, 3, 32, 32}, {1, -3, 32, 32}, {1, 3, 0, 32}}) {
    for (const char* api : {"cudnnSetTensor4dDescriptor", "cudnnSetTensor4dDescriptorEx", "cudnnSetTensorNdDescriptor"}) {
      const TierResult r = run_descriptor_tier(cudnn, tensor(dims, api));
      EXPECT_TRUE(r.failed) << api << " " << r.detail;
      EXPECT_EQ(r.status, "CUDNN_STATUS_BAD_PARAM") << api << " " << r.detail;
    }
  }
  const TierResult ok = run_descriptor_tier(cudnn, tensor({1, 3, 32, 32}));
  EXPECT_FALSE(ok.failed) << ok.detail;
  EXPECT_EQ(ok.status, "CUDNN_STATUS_SUCCESS");
}

TEST(DescriptorTier, FilterAndConvolutionDescriptors) {
  REQUIRE_CUDNN();
  const CudnnApi& cudnn = *environment().cudnn;
  ReplayConfig filter;
  filter.op = ReplayOp::FilterDescriptor;
  filter.dtype = DType::Float32;
  filter.layout = "NCHW";
  filter.filter = {0, 3, 3, 3};
  EXPECT_EQ(run_descriptor_tier(cudnn, filter).status, "CUDNN_STATUS_BAD_PARAM");
  filter.filter = {8, 3, 3, 3};
  EXPECT_EQ(run_descriptor_tier(cudnn, filter).status, "CUDNN_STATUS_SUCCESS");

  ReplayConfig conv = convolution(8, 3, 1, 1, 1);
  conv.op = ReplayOp::ConvolutionDescriptor;
  EXPECT_EQ(run_descriptor_tier(cudnn, conv).status, "CUDNN_STATUS_SUCCESS");
  conv.stride = {0, 1};
  EXPECT_EQ(run_descriptor_tier(cudnn, conv).status, "CUDNN_STATUS_BAD_PARAM");
  conv.stride = {1, 1};
  conv.padding = {-1, 0};
  EXPECT_EQ(run_descriptor_tier(cudnn, conv).status, "CUDNN_STATUS_BAD_PARAM");
}

// The rule cudnn-conv-output-empty computes the output size itself; cuDNN must agree on every
// small configuration: BAD_PARAM exactly when the rule's size is below 1, else the same size.
TEST(DescriptorTier, ConvolutionOutputSizeAgreesWithTheRuleEverywhere) {
  REQUIRE_CUDNN();
  const CudnnApi& cudnn = *environment().cudnn;
  int compared = 0;
  for (std::int64_t in = 1; in <= 6; ++in)
    for (std::int64_t k = 1; k <= 5; ++k)
      for (std::int64_t pad = 0; pad <= 2; ++pad)
        for (std::int64_t stride = 1; stride <= 3; ++stride)
          for (std::int64_t dilation = 1; dilation <= 2; ++dilation) {
            const std::int64_t numerator = in + 2 * pad - ((k - 1) * dilation + 1);
            const std::int64_t floor_div = numerator / stride - ((numerator % stride != 0 && numerator < 0) ? 1 : 0);
            const std::int64_t expected = 1 + floor_div;
            const TierResult r = run_descriptor_tier(cudnn, convolution(in, k, pad, stride, dilation));
            if (expected < 1) {
              EXPECT_EQ(r.status, "CUDNN_STATUS_BAD_PARAM") << r.detail;
            } else {
              EXPECT_EQ(r.status, "CUDNN_STATUS_SUCCESS") << r.detail;
              std::string size = "x";  // built step by step: gcc 12 misreports `"x" + to_string(...)` (-Wrestrict)
              size += std::to_string(expected);
              size += 'x';
              size += std::to_string(expected);
              size += ')';
              EXPECT_NE(r.detail.find(size), std::string::npos) << r.detail << " expected " << size;
            }
            ++compared;
          }
  EXPECT_EQ(compared, 540);
}

TEST(DescriptorTier, BatchNormDescriptorsCannotJudgeEpsilon) {
  REQUIRE_CUDNN();
  const TierResult r = run_descriptor_tier(*environment().cudnn, batchnorm_replay(-1e-5, DType::Unknown));
  EXPECT_FALSE(r.failed) << r.detail;
  EXPECT_FALSE(r.decisive);
  EXPECT_NE(r.detail.find("epsilon is only checked when batch norm runs"), std::string::npos);
}

Finding finding_with(ReplayConfig replay) {
  Finding f;
  f.rule_id = "cudnn-conv-output-empty";
  f.replay = std::move(replay);
  return f;
}

TEST(GpuCheck, VerdictsPerFindingAndSummary) {
  REQUIRE_CUDNN();
  std::vector<Finding> findings{finding_with(convolution(1, 3, 0, 1, 1)),   // BAD_PARAM: confirmed
                                finding_with(convolution(5, 3, 1, 1, 1)),   // fine: not reproduced
                                finding_with(batchnorm_replay(0.0, DType::Unknown)),    // needs the execution tier
                                finding_with(ReplayConfig{})};              // not a cuDNN configuration
  findings[2].replay.expect = Expectation::NonFiniteOutput;
  findings[3].replay.unknown = "PyTorch refuses it first";
  GpuCheckOptions options;
  options.execution = false;
  const GpuCheckSummary summary = run_gpu_check(findings, options);
  EXPECT_EQ(summary.descriptor_tier, "ran");
  EXPECT_EQ(summary.execution_tier, "not run: not requested");
  ASSERT_TRUE(findings[0].gpu_check && findings[1].gpu_check && findings[2].gpu_check && findings[3].gpu_check);
  EXPECT_EQ(findings[0].gpu_check->outcome, GpuVerdict::Outcome::Confirmed);
  EXPECT_EQ(findings[0].gpu_check->status, "CUDNN_STATUS_BAD_PARAM");
  EXPECT_EQ(findings[0].gpu_check->tier, "descriptor");
  EXPECT_EQ(findings[0].gpu_check->cudnn_version, environment().cudnn->version);
  EXPECT_EQ(findings[1].gpu_check->outcome, GpuVerdict::Outcome::NotReproduced);
  EXPECT_EQ(findings[1].gpu_check->status, "CUDNN_STATUS_SUCCESS");
  EXPECT_EQ(findings[2].gpu_check->outcome, GpuVerdict::Outcome::Skipped);
  EXPECT_NE(findings[2].gpu_check->reason.find("execution tier did not run (not requested)"), std::string::npos);
  EXPECT_EQ(findings[3].gpu_check->outcome, GpuVerdict::Outcome::Skipped);
  EXPECT_EQ(findings[3].gpu_check->reason, "not replayable: PyTorch refuses it first");
  EXPECT_EQ(summary.confirmed, 1u);
  EXPECT_EQ(summary.not_reproduced, 1u);
  EXPECT_EQ(summary.skipped, 2u);
}

TEST(GpuCheck, AConfigurationCuDnnCannotExpressIsSkippedNotJudged) {
  REQUIRE_CUDNN();
  ReplayConfig odd = convolution(1, 3, 0, 1, 1);
  odd.dtype = DType::Complex64;  // no cuDNN data type: nothing about the finding's values is tested
  std::vector<Finding> findings{finding_with(odd)};
  GpuCheckOptions options;
  options.execution = false;
  run_gpu_check(findings, options);
  ASSERT_TRUE(findings[0].gpu_check);
  EXPECT_EQ(findings[0].gpu_check->outcome, GpuVerdict::Outcome::Skipped) << findings[0].gpu_check->detail;
}

TEST(GpuCheck, WithoutCudnnEveryFindingIsSkippedWithTheReason) {
  std::vector<Finding> findings{finding_with(convolution(1, 3, 0, 1, 1))};
  GpuCheckOptions options;
  options.cudnn_library = "/nonexistent/libcudnn.so.9";
  const GpuCheckSummary summary = run_gpu_check(findings, options);
  EXPECT_EQ(summary.descriptor_tier.rfind("not run: ", 0), 0u);
  ASSERT_TRUE(findings[0].gpu_check);
  EXPECT_EQ(findings[0].gpu_check->outcome, GpuVerdict::Outcome::Skipped);
  EXPECT_NE(findings[0].gpu_check->reason.find("cuDNN not loaded"), std::string::npos);
}

// ---- Execution tier: a GPU is needed.

TEST(ExecutionTier, BatchNormEpsilonCasesRunAndReportStatusAndNonFinite) {
  REQUIRE_GPU();
  const GpuEnvironment& env = environment();
  ExecutionTier tier(*env.cudnn, *env.cuda);
  ASSERT_TRUE(tier.broken().empty()) << tier.broken();
  struct Case {
    double eps;
    DType dtype;
  };
  for (const Case c : {Case{1e-5, DType::Float32}, Case{1e-6, DType::Float32}, Case{1e-6, DType::Float16},
                       Case{0.0, DType::Float32}, Case{0.0, DType::Float16}, Case{-1e-5, DType::Float32}}) {
    const auto r = tier.run(batchnorm_replay(c.eps, c.dtype));
    ASSERT_TRUE(r) << tier.broken();
    std::cout << "[measured] cuDNN " << env.cudnn->version << " on " << env.device << ": " << r->detail << '\n';
    if (c.eps == 1e-5 && c.dtype == DType::Float32) {
      EXPECT_FALSE(r->failed) << r->detail;
      EXPECT_FALSE(r->nonfinite) << r->detail;
    }
  }
}

// kb/numerics/batch-norm-epsilon-not-finite: cuDNN documents only `epsilon < CUDNN_BN_MIN_EPSILON`
// as BAD_PARAM, a comparison that NaN does not fail. Measured on an H200 with cuDNN 9.14.0 and
// 9.19.0 (tests/probes/results/execution_tier.cudnn-9.14.0+9.19.0.h200.txt): NaN runs and gives
// NaN, +inf runs and gives finite output (the bias), -inf is refused as a negative epsilon.
TEST(ExecutionTier, NonFiniteEpsilonRunsUncheckedExceptMinusInfinity) {
  REQUIRE_GPU();
  const GpuEnvironment& env = environment();
  ExecutionTier tier(*env.cudnn, *env.cuda);
  ASSERT_TRUE(tier.broken().empty()) << tier.broken();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const DType dtype : {DType::Float32, DType::Float16}) {
    for (const double eps : {nan, inf, -inf}) {
      const auto r = tier.run(batchnorm_replay(eps, dtype));
      ASSERT_TRUE(r) << tier.broken();
      std::cout << "[measured] cuDNN " << env.cudnn->version << " on " << env.device << ": " << r->detail << '\n';
      if (eps < 0) {
        EXPECT_EQ(r->status, "CUDNN_STATUS_BAD_PARAM") << r->detail;
      } else {
        EXPECT_EQ(r->status, "CUDNN_STATUS_SUCCESS") << r->detail;
        EXPECT_EQ(r->nonfinite, std::isnan(eps)) << r->detail;
      }
    }
  }
}

TEST(ExecutionTier, ConvolutionForwardRunsAndAFailingCaseDoesNotPoisonTheNext) {
  REQUIRE_GPU();
  const GpuEnvironment& env = environment();
  ExecutionTier tier(*env.cudnn, *env.cuda);
  const auto bad = tier.run(convolution(1, 3, 0, 1, 1));
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, "CUDNN_STATUS_BAD_PARAM") << bad->detail;
  const auto good = tier.run(convolution(8, 3, 1, 1, 1));
  ASSERT_TRUE(good) << tier.broken();
  EXPECT_FALSE(good->failed) << good->detail;
  EXPECT_FALSE(good->nonfinite) << good->detail;
  std::cout << "[measured] " << good->detail << '\n';
}

// What kb/cuda/cudnn-execution-failed-nonfinite-input states: cuDNN neither rejects nor fails
// on NaN/Inf data; it returns SUCCESS and the output carries them (cuDNN >= 7.3 propagates).
TEST(ExecutionTier, NonFiniteInputsPropagateWithoutAFailingStatus) {
  REQUIRE_GPU();
  const GpuEnvironment& env = environment();
  ExecutionTier tier(*env.cudnn, *env.cuda);
  ASSERT_TRUE(tier.broken().empty()) << tier.broken();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* what;
    ReplayConfig replay;
    ExecutionInputs inputs;
  };
  ReplayConfig conv_half = convolution(8, 3, 1, 1, 1);
  conv_half.dtype = DType::Float16;
  const std::vector<Case> cases{
      {"conv fp32, NaN input", convolution(8, 3, 1, 1, 1), {nan, std::nullopt}},
      {"conv fp32, +Inf input", convolution(8, 3, 1, 1, 1), {inf, std::nullopt}},
      {"conv fp32, NaN filter", convolution(8, 3, 1, 1, 1), {std::nullopt, nan}},
      {"conv fp16, NaN input", conv_half, {nan, std::nullopt}},
      {"batch norm fp32 eps=1e-5, NaN input", batchnorm_replay(1e-5, DType::Float32), {nan, std::nullopt}},
  };
  for (const Case& c : cases) {
    const auto r = tier.run(c.replay, c.inputs);
    ASSERT_TRUE(r) << c.what << ": " << tier.broken();
    std::cout << "[measured] cuDNN " << env.cudnn->version << " on " << env.device << ": " << c.what << ": "
              << r->detail << '\n';
    EXPECT_EQ(r->status, "CUDNN_STATUS_SUCCESS") << c.what << ": " << r->detail;
    EXPECT_TRUE(r->nonfinite) << c.what << ": " << r->detail;
  }
  // The same tier, with finite data again, is unharmed: non-finite data leaves no sticky error.
  const auto after = tier.run(convolution(8, 3, 1, 1, 1));
  ASSERT_TRUE(after) << tier.broken();
  EXPECT_FALSE(after->nonfinite) << after->detail;
}

}  // namespace
}  // namespace cudnnlint::gpu
