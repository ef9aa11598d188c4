// libFuzzer harness: Python source bytes in, facts out, through the whole front-end (tree-sitter,
// resolver, every extractor), in full-parse and in region mode, and in region mode over a kept
// whole tree (the language server's document: the plan's regions walked in it). Inputs the loader
// would refuse (invalid UTF-8, NUL bytes) are refused here too.
#include "core/api_table.h"
#include "core/source_file.h"
#include "python/frontend.h"
#include "python/incremental_tree.h"
#include "python/syntax.h"

#include <cstddef>
#include <cstdint>
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
  static const python::PythonOptions regions = [&] {
    python::PythonOptions options = full;
    options.mode = python::ParseMode::Regions;
    options.triggers = table.trigger_tokens(families);
    options.trigger_words = table.trigger_words(families);
    options.attributes = table.instance_attributes();
    return options;
  }();
  python::PythonOptions kept = regions;
  kept.parsed = std::make_shared<const python::ParsedSource>(text);
  const SourceFile file("fuzz.py", std::move(text));
  (void)python::analyze_python(file, table, parser, full);
  (void)python::analyze_python(file, table, parser, regions);
  (void)python::analyze_python(file, table, parser, kept);
  return 0;
}
