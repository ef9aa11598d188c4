// libFuzzer harness: Python source bytes in, facts out, through the whole front-end (tree-sitter,
// resolver, every extractor), in full-parse and in region mode, and in region mode over a kept
// whole tree (the language server's document: the plan's regions walked in it). The region plan
// with a run's first-pass relevance must give exactly the full parse's facts on every input that
// parses: a difference traps (issue 34). Inputs the loader would refuse (invalid UTF-8, NUL bytes) are refused here too.
#include "cache/codec.h"
#include "core/api_table.h"
#include "core/source_file.h"
#include "python/frontend.h"
#include "python/incremental_tree.h"
#include "python/relevance.h"
#include "python/syntax.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnlint;
  std::string text(reinterpret_cast<const char*>(data), size);
  if (text.find('\0') != std::string::npos || find_invalid_utf8(text) != std::string::npos) return -1;
  static const python::Parser parser;
  const ApiTable& table = ApiTable::builtin();
  static const std::vector<std::string> families{std::string(kNormalizationFamily), std::string(kLoaderFamily),
                                                 std::string(kConvolutionFamily), std::string(kDtypeFamily),
                                                 std::string(kShapeFamily)};
  // The options are the same for every input: built once, so that executions go to the front-end.
  static const python::PythonOptions full = [] {
    python::PythonOptions options;
    options.mode = python::ParseMode::Full;
    options.families = families;
    options.argparse = true;
    options.config_defaults = true;
    return options;
  }();
  // A run's first-pass relevance (python/relevance.h): its words, quoted names, attributes and the
  // dtype and shape families' word pairs, so that the planner is exercised as a run configures it.
  // The first pass reads no argparse or yacs defaults: a full parse with the first pass's options,
  // whose facts the region plan must give exactly (issue 34: a fact outside the plan is a failure).
  static const python::PythonOptions full_first_pass = [] {
    python::PythonOptions options = full;
    options.argparse = options.config_defaults = false;
    return options;
  }();
  static const python::PythonOptions regions = [&] {
    python::PythonOptions options = full_first_pass;
    options.mode = python::ParseMode::Regions;
    python::Relevance relevance = python::relevance_of(table, families);
    options.triggers = std::move(relevance.quoted_tokens);
    options.trigger_words = std::move(relevance.words);
    options.trigger_words.insert(options.trigger_words.end(), relevance.framework_words.begin(),
                                 relevance.framework_words.end());
    options.attributes = std::move(relevance.attributes);
    options.pairs = std::move(relevance.pairs);
    return options;
  }();
  python::PythonOptions kept = regions;
  kept.parsed = std::make_shared<const python::ParsedSource>(text);
  const SourceFile file("fuzz.py", std::move(text));
  (void)python::analyze_python(file, table, parser, full);
  (void)python::analyze_python(file, table, parser, kept);
  python::PythonAnalysis planned = python::analyze_python(file, table, parser, regions);
  python::PythonAnalysis whole = python::analyze_python(file, table, parser, full_first_pass);
  // The statistics count what each parse followed, not facts: a region plan leaves out what no
  // fact needs.
  planned.facts.tracked = whole.facts.tracked = {};
  // Parity is a property of files Python can parse. In a file with a syntax error tree-sitter's
  // recovery depends on the text around the error: a region that parses alone can give a fact
  // the whole file's recovered tree hides (a function swallowed by an ERROR node), and the other
  // way round. Python runs neither; --full-parse names the error.
  if (!whole.diagnostics.empty()) return 0;
  if (cache::encode(planned.facts) != cache::encode(whole.facts)) {
    std::fprintf(stderr, "region plan and full parse disagree: normalizations %zu/%zu, loaders %zu/%zu, "
                         "tensor inputs %zu/%zu, low-precision constants %zu/%zu, shape chains %zu/%zu, "
                         "convolutions %zu/%zu, forwardings %zu/%zu\n",
                 planned.facts.normalizations.size(), whole.facts.normalizations.size(), planned.facts.loaders.size(),
                 whole.facts.loaders.size(), planned.facts.tensor_inputs.size(), whole.facts.tensor_inputs.size(),
                 planned.facts.low_precision_constants.size(), whole.facts.low_precision_constants.size(),
                 planned.facts.shape_chains.size(), whole.facts.shape_chains.size(),
                 planned.facts.conv_geometries.size(), whole.facts.conv_geometries.size(),
                 planned.facts.forwardings.size(), whole.facts.forwardings.size());
    __builtin_trap();
  }
  return 0;
}
