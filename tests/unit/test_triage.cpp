// cudnnlint triage's parts: the log scanner, the KB matcher and the frame mapper.
#include "kb/kb.h"
#include "triage/frame_map.h"
#include "triage/log_scan.h"
#include "triage/recognise.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <sstream>

namespace cudnnlint::triage {
namespace {

LogScan scan(const std::string& text) {
  std::istringstream in(text);
  return scan_log(in);
}

TEST(LogScan, ChainedTracebacksKeepTheirFramesAndLinks) {
  const LogScan s = scan(
      "Traceback (most recent call last):\n"
      "  File \"/a/train.py\", line 10, in <module>\n"
      "    main()\n"
      "  File \"/a/model.py\", line 5, in forward\n"
      "    return self.conv(x)\n"
      "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM\n"
      "\n"
      "During handling of the above exception, another exception occurred:\n"
      "\n"
      "Traceback (most recent call last):\n"
      "  File \"/a/train.py\", line 12, in <module>\n"
      "    cleanup()\n"
      "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n");
  ASSERT_EQ(s.failures.size(), 2u);
  EXPECT_EQ(s.failures[0].text, "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM");
  ASSERT_EQ(s.failures[0].frames.size(), 2u);
  EXPECT_EQ(s.failures[0].frames[1].path, "/a/model.py");
  EXPECT_EQ(s.failures[0].frames[1].line, 5u);
  EXPECT_EQ(s.failures[0].frames[1].function, "forward");
  EXPECT_EQ(s.failures[0].frames[1].code, "return self.conv(x)");
  EXPECT_EQ(s.failures[0].where.line, 6u);
  EXPECT_EQ(s.failures[1].link, Failure::Link::DuringHandling);
  ASSERT_EQ(s.failures[1].frames.size(), 1u);
  EXPECT_EQ(s.failures[1].frames[0].line, 12u);
}

TEST(LogScan, FramesAfterTheErrorLineBelongToIt) {
  // Seed 004's layout.
  const LogScan s = scan(
      "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
      "  File \".../ocr/models/decoder/fpn_decoder.py\", line 68, in forward\n"
      "    return self.fusion(fused)\n"
      "  ...\n"
      "torch.AcceleratorError: CUDA error: an illegal instruction was encountered\n"
      "  File \".../lightning/fabric/utilities/optimizer.py\", line 104, in batch_to\n"
      "    data_output = data.to(device, **kwargs)\n");
  ASSERT_EQ(s.failures.size(), 2u);
  ASSERT_EQ(s.failures[0].frames.size(), 1u);
  EXPECT_EQ(s.failures[0].frames[0].path, ".../ocr/models/decoder/fpn_decoder.py");
  EXPECT_EQ(s.failures[0].frames[0].code, "return self.fusion(fused)");
  ASSERT_EQ(s.failures[1].frames.size(), 1u);
  EXPECT_EQ(s.failures[1].frames[0].function, "batch_to");
}

TEST(LogScan, FrameLinesWrappedAtEightyColumnsAreJoined) {
  // As posted in microsoft/human-pose-estimation.pytorch#112 (tests/fixtures/triage/real/01-*).
  const LogScan s = scan(
      "Traceback (most recent call last):\n"
      "  File \"H:\\paper_coding\\human-pose-estimation.pytorch-master\\lib\\core\\function.p\n"
      "y\", line 56, in train\n"
      "    loss.backward( ) # allow_unreachable=True)  #retain_graph=True\n"
      "  File \"E:\\Python36\\lib\\site-packages\\torch\\autograd\\__init__.py\", line 93, in b\n"
      "ackward\n"
      "    allow_unreachable=True)  # allow_unreachable flag\n"
      "RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM\n");
  ASSERT_EQ(s.failures.size(), 1u);
  ASSERT_EQ(s.failures[0].frames.size(), 2u);
  EXPECT_EQ(s.failures[0].frames[0].path, "H:\\paper_coding\\human-pose-estimation.pytorch-master\\lib\\core\\function.py");
  EXPECT_EQ(s.failures[0].frames[0].line, 56u);
  EXPECT_EQ(s.failures[0].frames[0].code, "loss.backward( ) # allow_unreachable=True)  #retain_graph=True");
  EXPECT_EQ(s.failures[0].frames[1].function, "backward");
  EXPECT_EQ(s.failures[0].frames[1].code, "allow_unreachable=True)  # allow_unreachable flag");
}

TEST(LogScan, MessageContinuationIsContextAndRepeatsFold) {
  const LogScan s = scan(
      "UnknownError: 2 root error(s) found.\n"
      "  (0) Unknown: CUDNN_STATUS_BAD_PARAM\n"
      "in tensorflow/stream_executor/cuda/cuda_dnn.cc(1285): 'cudnnSetTensorNdDescriptor(...)'\n"
      "\n"
      "CUDNN_STATUS_BAD_PARAM\n"
      "CUDNN_STATUS_BAD_PARAM\n");
  ASSERT_EQ(s.failures.size(), 2u);
  // An exception's message goes on over lines that name the status: one failure, with context.
  EXPECT_EQ(s.failures[0].context.size(), 2u);
  EXPECT_EQ(s.failures[1].repeats, 1u);
}

TEST(LogScan, DeviceSideAssertLinesAreOneFailure) {
  // As torch 2.11.0+cu130 printed them on an H200 (tests/fixtures/triage/h200/async.log).
  const LogScan s = scan(
      "/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
      "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
      "/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], "
      "thread: [6,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
      "Traceback (most recent call last):\n"
      "  File \"/w/train.py\", line 34, in main\n"
      "    loss.backward()\n"
      "torch.AcceleratorError: CUDA error: device-side assert triggered\n");
  ASSERT_EQ(s.failures.size(), 2u);
  EXPECT_EQ(s.failures[0].repeats, 1u);
  EXPECT_TRUE(s.failures[0].frames.empty());
  EXPECT_EQ(s.failures[1].frames.size(), 1u);
}

TEST(LogScan, LongLinesAreCutAndBinaryIsNoticed) {
  const LogScan s = scan(std::string(10000, 'x') + "\nRuntimeError: CUDNN_STATUS_BAD_PARAM");
  EXPECT_EQ(s.lines, 2u);
  EXPECT_EQ(s.lines_cut, 1u);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0].where.offset, 10001u);  // no final newline: the last line still counts
  const LogScan b = scan(std::string("ab\0cd", 5));
  EXPECT_TRUE(b.binary);
  EXPECT_EQ(b.first_nul, 2u);
  EXPECT_TRUE(b.failures.empty());
}

TEST(LogScan, FailuresKeepTheFirstAndTheLastHalves) {
  std::string text;
  // Neighbours differ in a word: lines that differ only in numbers fold into one failure.
  auto line = [](int i) { return "RuntimeError: failure number " + std::to_string(i) + (i % 2 ? " odd" : " even"); };
  for (int i = 0; i < 1000; ++i) text += line(i) + "\nok\n";
  const LogScan s = scan(text);
  ASSERT_EQ(s.failures.size(), kMaxFailures);
  EXPECT_EQ(s.failures_dropped, 1000 - kMaxFailures);
  EXPECT_EQ(s.failures.front().text, line(0));
  EXPECT_EQ(s.failures[kMaxFailures / 2].text, line(static_cast<int>(1000 - kMaxFailures / 2)));
  EXPECT_EQ(s.failures.back().text, line(999));
}

TEST(Recognise, StatusNamesAndNumbersInBothNumberings) {
  EXPECT_EQ(cudnn_status_named("cuDNN error: CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH"), "CUDNN_STATUS_BAD_PARAM");
  EXPECT_EQ(cudnn_status_named("cudnn status: 2000"), "CUDNN_STATUS_BAD_PARAM");
  EXPECT_EQ(cudnn_status_named("CUDNN_STATUS 3"), "CUDNN_STATUS_BAD_PARAM");        // cuDNN 7/8
  EXPECT_EQ(cudnn_status_named("cuDNN error code 5003"), "CUDNN_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(cudnn_status_named("cudnn status 8"), "CUDNN_STATUS_EXECUTION_FAILED");
  EXPECT_EQ(cudnn_status_named("CUDNN_STATUS 3000"), "CUDNN_STATUS_NOT_SUPPORTED");
  EXPECT_EQ(cudnn_status_named("epoch 3 status ok"), "");
}

TEST(Recognise, EveryKbRegexCompilesWithRe2) {
  // The KB's regexes are written for Python's re (kb/validate.py) and matched here with RE2, which
  // has no backreferences or lookaround: every one must compile there too.
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_log_errors(false);
  for (const kb::Entry& entry : kb::entries()) {
    const std::string regex = entry.data->value("regex", "");
    if (regex.empty()) continue;
    EXPECT_TRUE(RE2(regex, options).ok()) << entry.id << ": " << regex;
  }
}

// Issue 33: a failure whose message and context repeat what a regex's `.*` runs over (28 KB once
// joined) is matched in time linear in the line, and still matched. 200 of them took minutes with
// std::regex; the timing is in tests/bench/bench_triage.py, this checks the matches.
TEST(Recognise, ALongRepetitiveFailureIsStillMatched) {
  std::string unit_run;
  while (unit_run.size() < 4090) unit_run += "BatchNorm ";
  unit_run.resize(4090);
  std::string log = "RuntimeError: cuDNN error: " + unit_run.substr(0, 4000) + "\n";
  for (int i = 0; i < 5; ++i) log += unit_run + "\n";
  log += unit_run.substr(0, 4000) + " CUDNN_STATUS_BAD_PARAM\n";
  const LogScan s = scan(log);
  ASSERT_EQ(s.failures.size(), 1u);
  ASSERT_EQ(s.failures[0].context.size(), 6u);
  const Recognition r = recognise(s, kb::entries());
  ASSERT_FALSE(r.candidates.empty());
  const Candidate& top = r.candidates.front();
  EXPECT_TRUE(top.entry->id.starts_with("cuda/cudnn-bn-epsilon")) << top.entry->id;
  ASSERT_FALSE(top.evidence.empty());
  EXPECT_EQ(top.evidence[0].kind, Evidence::Kind::Regex);
  // The leftmost match, as std::regex gave it: from the first "BatchNorm" of the joined line.
  EXPECT_TRUE(top.evidence[0].matched.starts_with("BatchNorm BatchNorm")) << top.evidence[0].matched.substr(0, 80);
  EXPECT_TRUE(top.evidence[0].matched.ends_with("CUDNN_STATUS_BAD_PARAM"));
}

TEST(Recognise, TheAftermathPointsBackToTheFirstFailure) {
  const LogScan s = scan(
      "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
      "  File \"a.py\", line 3, in f\n"
      "torch.AcceleratorError: CUDA error: an illegal instruction was encountered\n"
      "  File \"b.py\", line 9, in g\n");
  const Recognition r = recognise(s, kb::entries());
  ASSERT_TRUE(r.primary);
  EXPECT_EQ(*r.primary, 0u);
  EXPECT_EQ(r.frames_from, std::optional<std::size_t>(0));
  ASSERT_FALSE(r.candidates.empty());
  EXPECT_EQ(r.candidates.front().entry->id, "cuda/cudnn-execution-failed-nonfinite-input");
  ASSERT_FALSE(r.notes.empty());
  // Alone, the CUDA error is reported as what it is.
  const Recognition alone = recognise(scan("RuntimeError: CUDA error: an illegal memory access was encountered\n"),
                                      kb::entries());
  ASSERT_FALSE(alone.candidates.empty());
  EXPECT_EQ(alone.candidates.front().entry->id, "cuda/cuda-sticky-error-aftermath");
}

TEST(Recognise, ASpecificRegexOutranksTheStatusAndACauseOutranksItsConsequence) {
  const Recognition r = recognise(
      scan("F tensorflow/stream_executor/cuda/cuda_dnn.cc:444] could not convert BatchDescriptor {count: 0 "
           "feature_map_count: 1024 spatial: 28 28  value_min: 0.000000 value_max: 0.000000 layout: BatchDepthYX} to "
           "cudnn tensor descriptor: CUDNN_STATUS_BAD_PARAM\n"),
      kb::entries());
  ASSERT_GE(r.candidates.size(), 3u);
  // Both match their regex; the zero batch leads_to the descriptor entry.
  EXPECT_EQ(r.candidates[0].entry->id, "tensorflow/zero-size-batch-into-cudnn-op");
  EXPECT_EQ(r.candidates[1].entry->id, "cuda/cudnn-tensor-descriptor-nonpositive-dim");
  const auto generic = std::find_if(r.candidates.begin(), r.candidates.end(),
                                    [](const Candidate& c) { return c.entry->id == "cuda/cudnn-status-bad-param"; });
  ASSERT_NE(generic, r.candidates.end());
  EXPECT_LT(generic->score, r.candidates[1].score);
}

TEST(Recognise, NothingMatchesAPlainLog) {
  const Recognition r = recognise(scan("epoch 1 loss 0.5\nValueError: bad config key 'lr'\n"), kb::entries());
  EXPECT_FALSE(r.primary);
  EXPECT_TRUE(r.candidates.empty());
}

TEST(FrameMap, PathComponents) {
  EXPECT_EQ(path_components("C:\\a\\b.py"), (std::vector<std::string>{"C:", "a", "b.py"}));
  EXPECT_EQ(path_components("/x/./y/../z.py"), (std::vector<std::string>{"x", "z.py"}));
  EXPECT_EQ(path_components(".../a/b.py"), (std::vector<std::string>{"a", "b.py"}));
  EXPECT_TRUE(is_library_path("/usr/local/lib/python3.10/dist-packages/keras/x.py"));
  EXPECT_FALSE(is_library_path("/home/u/proj/lib/x.py"));
}

TEST(FrameMap, LongestSuffixWinsAndLibrariesNeedThreeComponents) {
  const TreeIndex tree({"ocr/models/decoder/fpn_decoder.py", "tools/fpn_decoder.py", "utils/optimizer.py",
                        "train.py", "a/train.py"});
  const MappedFrame m = tree.map(Frame{"/home/ci/run/ocr/models/decoder/fpn_decoder.py", 68, "forward", "", 2});
  EXPECT_EQ(m.file, "ocr/models/decoder/fpn_decoder.py");
  EXPECT_EQ(m.components, 4u);
  // A library's optimizer.py is not the project's.
  const MappedFrame lib = tree.map(Frame{"/opt/conda/lib/python3.10/site-packages/lightning/utils/optimizer.py", 1, "", "", 3});
  EXPECT_TRUE(lib.library);
  EXPECT_EQ(lib.file, "");
  // A tie is reported.
  const MappedFrame tie = tree.map(Frame{"/elsewhere/train.py", 1, "", "", 4});
  EXPECT_EQ(tie.components, 1u);
  EXPECT_EQ(tie.others.size(), 1u);
  EXPECT_EQ(tree.map(Frame{"nothing.py", 1, "", "", 5}).file, "");
}

MappedFrame mapped(Frame frame) {
  MappedFrame m;
  m.frame = std::move(frame);
  m.file = "x.py";
  m.components = 1;
  return m;
}

TEST(FrameMap, TheTreeIsCheckedForTheLogsCode) {
  const std::string file = "a = 1\nb = 2\nreturn self.fusion(fused)\n";
  MappedFrame same = mapped(Frame{"x.py", 3, "f", "return self.fusion(fused)", 1});
  check_against_tree(same, file);
  EXPECT_EQ(same.tree_line, 3u);
  EXPECT_EQ(same.drift, "");
  MappedFrame moved = mapped(Frame{"x.py", 1, "f", "return self.fusion(fused)", 1});
  check_against_tree(moved, file);
  EXPECT_EQ(moved.tree_line, 3u);
  EXPECT_NE(moved.drift.find("at line 3 in the tree, not 1"), std::string::npos) << moved.drift;
  MappedFrame past = mapped(Frame{"x.py", 9, "f", "", 1});
  check_against_tree(past, file);
  EXPECT_EQ(past.tree_line, 0u);
  EXPECT_NE(past.drift.find("past the end"), std::string::npos);
  MappedFrame other = mapped(Frame{"x.py", 2, "f", "y = conv(x)", 1});
  check_against_tree(other, file);
  EXPECT_EQ(other.tree_line, 0u);
  EXPECT_NE(other.drift.find("holds other code"), std::string::npos);
}

}  // namespace
}  // namespace cudnnlint::triage
