// gpu_check's framework tier without a framework: the programs it writes hold only the finding's
// numbers, hostile values are refused or bounded, and the runner survives interpreters that die,
// hang or do not exist. What the frameworks do is tests/e2e/test_gpu_check_framework.py's.
#include "emit/replay_json.h"
#include "gpu_check/framework_tier.h"
#include "gpu_check/subprocess.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

namespace cudnnlint::gpu {
namespace {

namespace fs = std::filesystem;

FrameworkReplay conv_case(std::vector<std::int64_t> input, std::vector<std::int64_t> kernel) {
  FrameworkReplay r;
  r.framework = FrameworkName::Torch;
  r.probe = FrameworkProbe::ConvInput;
  r.expect = FrameworkExpect::Raises;
  r.input = std::move(input);
  r.kernel = std::move(kernel);
  r.out_channels = 4;
  return r;
}

std::string program_for(const FrameworkReplay& r) {
  const FrameworkReplay* cases[] = {&r};
  return framework_program(r.framework, cases);
}

// A folder of its own, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "cudnnlint-fwtest-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

TEST(FrameworkProgram, WritesOnlyTheCaseNumbersThroughExactLiterals) {
  FrameworkReplay r = conv_case({1, 3, 2, 2}, {3, 3});
  r.input_dtype = DType::UInt8;
  r.assumed.push_back("__import__('os').system('touch /tmp/pwned')");
  const std::string program = program_for(r);
  EXPECT_NE(program.find("torch.nn.Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=(0, 0), dilation=(1, 1))"),
            std::string::npos)
      << program;
  EXPECT_NE(program.find("torch.zeros([1, 3, 2, 2], dtype=torch.uint8)"), std::string::npos) << program;
  EXPECT_EQ(program.find("__import__"), std::string::npos) << "an assumption's text reached the program";
  EXPECT_EQ(program.find("pwned"), std::string::npos);

  FrameworkReplay eps;
  eps.framework = FrameworkName::Torch;
  eps.probe = FrameworkProbe::BatchNormEps;
  eps.expect = FrameworkExpect::Fails;
  eps.epsilon = 1e-5;
  EXPECT_NE(program_for(eps).find("eps=float.fromhex(\"0x1.4f8b588e368f1p-17\")"), std::string::npos)
      << program_for(eps);
  eps.epsilon = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(program_for(eps).find("eps=float(\"nan\")"), std::string::npos);
  eps.epsilon = -std::numeric_limits<double>::infinity();
  EXPECT_NE(program_for(eps).find("eps=float(\"-inf\")"), std::string::npos);
}

TEST(FrameworkProgram, AnOptimizerNameOutsideItsTableIsRefusedNotWritten) {
  FrameworkReplay r;
  r.framework = FrameworkName::Torch;
  r.probe = FrameworkProbe::OptimizerHalfEpsilon;
  r.expect = FrameworkExpect::NonFinite;
  r.epsilon = 1e-8;
  r.optimizer = "Adam([p]); import os; os.system('id'); torch.optim.Adam";
  ASSERT_TRUE(framework_case_problem(r).has_value());
  r.optimizer = "AdamW";
  EXPECT_FALSE(framework_case_problem(r).has_value());
  EXPECT_NE(program_for(r).find("torch.optim.AdamW([p], eps="), std::string::npos);
}

TEST(FrameworkProgram, SizesPastTheBoundsAreRefused) {
  EXPECT_FALSE(framework_case_problem(conv_case({1, 3, 8, 8}, {3, 3})).has_value());
  EXPECT_TRUE(framework_case_problem(conv_case({1, 3, 65536, 65536}, {3, 3})).has_value()) << "2^32 elements";
  EXPECT_TRUE(framework_case_problem(conv_case({1, 3, -1, 8}, {3, 3})).has_value());
  EXPECT_TRUE(framework_case_problem(conv_case({1, 3, 8, 8}, {3})).has_value()) << "kernel rank";
  FrameworkReplay wide = conv_case({1, 4096, 8, 8}, {64, 64});
  wide.out_channels = 4096;
  EXPECT_TRUE(framework_case_problem(wide).has_value()) << "weights of 4096*4096*64*64 elements";

  FrameworkReplay loader;
  loader.framework = FrameworkName::Torch;
  loader.probe = FrameworkProbe::LastBatchIntoBatchNorm;
  loader.expect = FrameworkExpect::Raises;
  loader.batch_size = 1;
  loader.dataset_size = std::int64_t{1} << 29;
  loader.input = {1, 4};
  EXPECT_TRUE(framework_case_problem(loader).has_value()) << "2^29 batches to step through";
  loader.dataset_size = 9;
  EXPECT_FALSE(framework_case_problem(loader).has_value());
}

TEST(FrameworkProgram, AHostileReportReadsBackAsNoCaseOrABoundedOne) {
  // What a SARIF file given to `cudnnlint gpu-check` may hold.
  const auto replay = [](const char* framework_json) {
    return replay_from_json(nlohmann::json::parse(std::string(R"({"op": "", "expect": "", "framework": )") +
                                                  framework_json + "}"));
  };
  EXPECT_FALSE(replay(R"j({"framework": "torch", "probe": "conv-input", "expect": "raises",
                          "input": [1, 3, "__import__('os')", 8], "kernel": [3, 3], "outChannels": 4})j")
                   .framework.replayable());
  EXPECT_FALSE(replay(R"j({"framework": "os.system", "probe": "conv-input", "expect": "raises"})j").framework.replayable());
  EXPECT_FALSE(replay(R"j({"framework": "torch", "probe": "exec", "expect": "raises"})j").framework.replayable());
  EXPECT_FALSE(replay(R"j({"framework": "torch", "probe": "loader-batch", "expect": "raises", "batchSize": 1e300})j")
                   .framework.replayable());
  const ReplayConfig huge = replay(R"j({"framework": "torch", "probe": "conv-input", "expect": "raises",
                                       "input": [1, 3, 2000000000, 8], "kernel": [3, 3], "outChannels": 4})j");
  ASSERT_TRUE(huge.framework.replayable());
  EXPECT_TRUE(framework_case_problem(huge.framework).has_value());
  // And the values this build writes read back as they were, NaN included.
  FrameworkReplay eps;
  eps.framework = FrameworkName::TensorFlow;
  eps.probe = FrameworkProbe::BatchNormEps;
  eps.expect = FrameworkExpect::Fails;
  eps.epsilon = std::numeric_limits<double>::quiet_NaN();
  ReplayConfig written;
  written.framework = eps;
  const ReplayConfig back = replay_from_json(nlohmann::json::parse(replay_to_json(written).dump()));
  ASSERT_TRUE(back.framework.replayable());
  EXPECT_EQ(back.framework.framework, FrameworkName::TensorFlow);
  ASSERT_TRUE(back.framework.epsilon.has_value());
  EXPECT_TRUE(std::isnan(*back.framework.epsilon));
}

TEST(FrameworkRunner, RunsInAPrivateFolderThatIsRemovedAfterwards) {
  const ProgramRun run = run_python_program(
      "/usr/bin/python3", "import os, sys\nprint(os.getcwd())\nprint(sys.path[0])\n", {{"PYTHONSAFEPATH", "1"}}, {});
  ASSERT_TRUE(run.started) << run.error;
  EXPECT_EQ(run.exit_code, 0) << run.err_tail;
  const std::string cwd = run.out.substr(0, run.out.find('\n'));
  EXPECT_NE(cwd.find("cudnnlint-framework-"), std::string::npos) << run.out;
  EXPECT_FALSE(fs::exists(cwd)) << "the private folder was left behind";
}

TEST(FrameworkRunner, KillsAProgramAtItsTimeLimitAndBoundsItsOutput) {
  ProgramLimits limits;
  limits.time = std::chrono::milliseconds(700);
  limits.max_output = 1000;
  const auto started = std::chrono::steady_clock::now();
  const ProgramRun run = run_python_program(
      "/usr/bin/python3", "import sys, time\nsys.stdout.write('x' * 100000)\nsys.stdout.flush()\ntime.sleep(30)\n", {},
      limits);
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.out.size(), 1000u);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST(FrameworkRunner, AMissingInterpreterIsAnErrorNotACrash) {
  const ProgramRun run = run_python_program("/nonexistent/python3", "print(1)\n", {}, {});
  EXPECT_FALSE(run.started);
  EXPECT_NE(run.error.find("/nonexistent/python3"), std::string::npos) << run.error;
}

Finding finding_with(FrameworkReplay replay) {
  Finding f;
  f.rule_id = "loader-batch-size-nonpositive";
  f.replay.framework = std::move(replay);
  return f;
}

FrameworkReplay loader_case(std::int64_t batch) {
  FrameworkReplay r;
  r.framework = FrameworkName::Torch;
  r.probe = FrameworkProbe::LoaderBatch;
  r.expect = FrameworkExpect::Raises;
  r.batch_size = batch;
  r.dataset_size = 10;
  return r;
}

TEST(FrameworkTier, AnInterpreterWithoutTheFrameworkSkipsSayingSo) {
  TempDir tree;
  // A hostile tree's torch.py in the working directory must not stand in for the framework.
  const fs::path marker = tree.path / "imported";
  std::ofstream(tree.path / "torch.py") << "open(" << nlohmann::json(marker.string()).dump() << ", 'w').write('x')\n"
                                        << "__version__ = '9.9.9'\n";
  // The system Python without its site-packages: no torch, whatever this machine has installed.
  TempDir bin;
  const fs::path bare = bin.path / "python3";
  std::ofstream(bare) << "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n";
  fs::permissions(bare, fs::perms::owner_all);
  const fs::path before = fs::current_path();
  fs::current_path(tree.path);
  std::vector<Finding> findings = {finding_with(loader_case(0))};
  FrameworkTierOptions options;
  options.python = bare.string();
  const FrameworkTierRun run = run_framework_tier(findings, options);
  fs::current_path(before);
  ASSERT_TRUE(findings[0].gpu_check.has_value());
  EXPECT_EQ(findings[0].gpu_check->outcome, GpuVerdict::Outcome::Skipped);
  EXPECT_NE(findings[0].gpu_check->reason.find("torch is not importable by " + bare.string()), std::string::npos)
      << findings[0].gpu_check->reason;
  EXPECT_FALSE(fs::exists(marker)) << "the tree's torch.py was imported";
  EXPECT_NE(run.summary.find("torch not run"), std::string::npos) << run.summary;
}

TEST(FrameworkTier, AnInterpreterThatDiesLeavesEveryCaseSkippedWithTheReason) {
  TempDir dir;
  // Answers the survey as if it had torch, then dies on the program itself.
  const fs::path fake = dir.path / "python3";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "case \"$(cat \"$2\")\" in *find_spec*) echo '{\"python\": \"3\", \"frameworks\": {\"torch\": \"1\"}}'; exit 0;; esac\n"
                         "kill -9 $$\n";
  fs::permissions(fake, fs::perms::owner_all);
  std::vector<Finding> findings = {finding_with(loader_case(0)), finding_with(loader_case(-1))};
  FrameworkTierOptions options;
  options.python = fake.string();
  run_framework_tier(findings, options);
  for (const Finding& f : findings) {
    ASSERT_TRUE(f.gpu_check.has_value());
    EXPECT_EQ(f.gpu_check->outcome, GpuVerdict::Outcome::Skipped);
    EXPECT_NE(f.gpu_check->reason.find("signal 9"), std::string::npos) << f.gpu_check->reason;
  }
}

TEST(FrameworkTier, ACaseOutOfBoundsIsSkippedBeforeAnyInterpreterRuns) {
  FrameworkReplay huge = loader_case(4);
  huge.dataset_size = std::int64_t{1} << 40;
  std::vector<Finding> findings = {finding_with(huge)};
  FrameworkTierOptions options;
  options.python = "/nonexistent/python3";  // never run: nothing is left to run
  const FrameworkTierRun run = run_framework_tier(findings, options);
  ASSERT_TRUE(findings[0].gpu_check.has_value());
  EXPECT_NE(findings[0].gpu_check->reason.find("not replayable in the framework: the dataset size"), std::string::npos)
      << findings[0].gpu_check->reason;
  EXPECT_TRUE(run.summary.empty()) << run.summary;
}

}  // namespace
}  // namespace cudnnlint::gpu
