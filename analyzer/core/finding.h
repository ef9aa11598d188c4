// A rule's verdict on one fact: what emitters print and gpu_check replays.
#pragma once

#include "core/facts.h"
#include "core/notebook.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cudnnlint {

enum class Level { Note = 0, Warning = 1, Error = 2 };

const char* level_name(Level level);             // "note", "warning", "error"
std::optional<Level> parse_level(std::string_view text);

struct RelatedLocation {
  RelatedLocation() = default;
  RelatedLocation(Location at, std::string text) : where(std::move(at)), message(std::move(text)) {}
  Location where;
  std::string message;
  std::optional<NotebookPlace> notebook;  // set when `where` is in a notebook: its cell and lines
};

// The operation gpu_check replays; None when the finding is not about a cuDNN configuration.
enum class ReplayOp { None, TensorDescriptor, FilterDescriptor, ConvolutionDescriptor, Convolution, Batchnorm };
// What the rule predicts the replay shows; None when it predicts nothing gpu_check can judge.
enum class Expectation { None, BadParam, NonFiniteOutput };

// Their spellings in JSON, SARIF and messages ("tensor-descriptor", "CUDNN_STATUS_BAD_PARAM",
// "non-finite output"; "" for None), each from one table. Parsing "" gives None; a spelling no
// enumerator has gives nullopt.
std::string_view replay_op_name(ReplayOp op);
std::optional<ReplayOp> parse_replay_op(std::string_view text);
std::string_view expectation_name(Expectation expect);
std::optional<Expectation> parse_expectation(std::string_view text);

// The framework tier's case: what gpu_check asks the framework the user has installed to do with
// the finding's values (never the user's code). Every field is a number or an enumerator, so the
// program gpu_check writes from it can hold nothing else.
enum class FrameworkName { None, Torch, TensorFlow };
enum class FrameworkProbe {
  None,
  ConvInput,       // a convolution (weights `weight_dtype`, geometry below) on an input `input`/`input_dtype`
  BatchNormInput,  // a batch norm (training) on an integer input
  BatchNormEps,    // a batch norm with `epsilon` (training) on an input with a constant channel
  PoolInput,       // a max pooling layer (window `kernel`) on an input `input`
  LoaderBatch,     // a loader over `dataset_size` samples with `batch_size` (and `drop_last`)
  KerasFit,        // Keras `Model.fit` of a one-layer model on 4 samples with `batch_size`
  KerasPredictEmpty,  // Keras `Model.predict` of a one-layer model on zero samples
  ZeroBatchConv,   // a Keras convolution on `input` (batch 0), on the GPU (`gpu`)
  LastBatchIntoBatchNorm,  // the loader's last batch, through a batch norm in training
  HalfEpsilon,     // 1 / (0 + eps) with eps held in float16
  OptimizerHalfEpsilon,  // an Adam step with `epsilon` on float16 parameters whose gradient is 0
};
// What the rule predicts the framework does.
enum class FrameworkExpect { None, Raises, Fails /* raises or gives NaN/Inf */, NonFinite, NoBatches };

std::string_view framework_name(FrameworkName framework);
std::optional<FrameworkName> parse_framework_name(std::string_view text);
std::string_view framework_probe_name(FrameworkProbe probe);
std::optional<FrameworkProbe> parse_framework_probe(std::string_view text);
std::string_view framework_expect_name(FrameworkExpect expect);
std::optional<FrameworkExpect> parse_framework_expect(std::string_view text);

struct FrameworkReplay {
  FrameworkName framework = FrameworkName::None;
  FrameworkProbe probe = FrameworkProbe::None;
  FrameworkExpect expect = FrameworkExpect::None;
  DType input_dtype = DType::Unknown;   // the input's element type (Unknown: float32)
  DType weight_dtype = DType::Unknown;  // the layer's or parameters' type (Unknown: float32)
  std::vector<std::int64_t> input;      // N, C, spatial... (channels-first)
  std::vector<std::int64_t> kernel, stride, padding, dilation;  // one per spatial dimension
  std::int64_t out_channels = 0;
  std::optional<double> epsilon;
  std::optional<std::int64_t> batch_size, dataset_size;
  bool drop_last = false;
  std::string optimizer;  // torch.optim's or Keras's class ("Adam"); the program writes only names of its own tables
  bool gpu = false;       // the claim is about the GPU path: run where the framework sees a GPU, else skipped
  std::vector<std::string> assumed;  // what the tier chooses because the finding does not say
  bool replayable() const { return probe != FrameworkProbe::None && expect != FrameworkExpect::None; }
};

// The configuration gpu_check rebuilds: what the facts say about the operation a finding
// names. Filled where the facts give enough; `unknown` says what is missing otherwise.
struct ReplayConfig {
  ReplayOp op = ReplayOp::None;
  Expectation expect = Expectation::None;  // what the rule predicts
  std::string api;            // the descriptor call replayed ("cudnnSetTensor4dDescriptor"), "" for whole ops
  DType dtype = DType::Unknown;
  std::string layout;         // "NCHW", "NHWC", "NCHW_VECT_C"; "" unknown
  std::vector<std::int64_t> input;    // n, c, h, w (tensor descriptors: every dimension set)
  std::vector<std::int64_t> strides;  // tensor strides where the code sets them
  std::vector<std::int64_t> filter;   // k, c, h, w
  std::vector<std::int64_t> padding, stride, dilation;  // h, w
  DType compute_type = DType::Unknown;  // the convolution's accumulation type
  std::optional<double> epsilon;
  std::string bn_mode;        // "spatial", "per_activation"
  std::vector<std::string> assumed;  // values gpu_check must choose because the code does not say
  std::string unknown;        // what keeps it from being replayable, "" when replayable
  FrameworkReplay framework;  // the framework tier's case; probe None when there is none
};

// What gpu_check observed when it replayed a finding's configuration.
struct GpuVerdict {
  enum class Outcome { Confirmed, NotReproduced, Skipped };
  Outcome outcome = Outcome::Skipped;
  std::string status;         // "CUDNN_STATUS_BAD_PARAM"; "" when nothing ran
  std::string tier;           // "descriptor", "execution", "" when skipped before either
  std::string cudnn_version;  // "9.19.0"
  std::string device;         // the GPU's name, "" for the descriptor tier
  std::string detail;         // what ran and what came out, with the values gpu_check assumed
  std::string reason;         // for Skipped: why, in one short clause
  std::string framework;      // framework tier: "torch 2.11.0+cu130"
  std::string interpreter;    // framework tier: the Python interpreter that ran it
};

const char* outcome_name(GpuVerdict::Outcome outcome);

// What a gpu_check run had to work with, for the summary line and SARIF.
struct GpuCheckSummary {
  std::string cudnn_version;    // "" when no cuDNN was loaded
  std::string cudnn_library;    // the file loaded, and where it was found
  std::string device;           // "" without a GPU
  std::string descriptor_tier;  // "ran", or "not run: <why>"
  std::string execution_tier;   // "ran", or "not run: <why>"
  std::string framework_tier;   // "ran (torch 2.11.0 with /usr/bin/python3)", "not run: <why>", "" when not asked
  std::size_t confirmed = 0, not_reproduced = 0, skipped = 0;
  double seconds = 0.0;
};  // "confirmed", "not reproduced", "skipped"

// One text edit of a fix: the bytes of `range` (an empty range: an insertion at its start) become
// `replacement`.
struct TextEdit {
  SourceRange range;
  std::string replacement;
  // What the rule expects `range` to hold; the engine drops the fix when the file says otherwise.
  std::string expected;
  // An argument added to a call: `range` is empty at the call's ')' and the engine writes the
  // separator the text before it needs (", ", " " after a trailing comma, none after '(').
  bool new_argument = false;
};

// A mechanical edit from the KB entry's workaround, attached to a finding. Every fix today changes
// numerics or behaviour and is unsafe: --fix applies only safe ones, --unsafe-fixes the others too.
struct Fix {
  std::string description;  // "set eps=1.001e-05"
  bool safe = false;
  std::vector<TextEdit> edits;  // in the finding's file
  // content_hash() of the file's bytes the edits were checked against (settle_fix): --fix and
  // --diff apply them only to a file that still hashes so. Empty: not settled, never applied.
  std::string file_hash;
};

struct Finding;
// `text` cut to at most `max_chars` characters (a UTF-8 character is never split), with "…" where it
// was cut: code quoted in a headline.
std::string clipped(std::string_view text, std::size_t max_chars);
// The headline and the detail as one text (SARIF and workflow-command messages, which have one field).
std::string full_message(const Finding& finding);

struct Finding {
  std::string rule_id;        // e.g. "bn-eps-negative"
  std::string kb_id;          // e.g. "cuda/cudnn-bn-epsilon-negative"
  Level level = Level::Warning;
  Location location;          // in a notebook (.ipynb), the line of its code cells read as one module
  std::optional<NotebookPlace> notebook;  // in a notebook: the cell, its line, the file's line
  std::string message;        // the headline: rule, value, consequence, about 120 characters at most
  std::string detail;         // the rest: why, the measured versions, the framework's own words, what to do
  std::vector<RelatedLocation> related;  // provenance, definition first
  std::string target_note;    // which target made the rule fire, e.g. "cuDNN 7.4 (--cudnn-version)"
  std::string line_hash;      // partialFingerprints.primaryLocationLineHash, filled when needed
  std::string source_line;    // the primary line's text, for excerpts
  ReplayConfig replay;
  std::optional<GpuVerdict> gpu_check;  // set when gpu_check ran
  std::optional<Fix> fix;     // a rule's mechanical fix, checked against the file by the engine
};

} // namespace cudnnlint
