// The language server's analysis by parts (python/module_parts.h) must give exactly the facts a
// whole-module analysis gives: on every Python file of the fixtures and examples, first from
// nothing, then after an edit above every part (each part's facts kept and moved), then after an
// edit inside one part (that part analysed again).
#include "cache/codec.h"
#include "core/api_table.h"
#include "core/facts_locations.h"
#include "core/source_file.h"
#include "python/frontend.h"
#include "python/incremental_tree.h"
#include "python/module_parts.h"
#include "python/regions.h"
#include "python/relevance.h"
#include "python/syntax.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace cudnnlint::python {
namespace {

namespace fs = std::filesystem;

PythonOptions all_families() {
  PythonOptions options;
  options.mode = ParseMode::Full;
  options.module = "pkg.model";
  options.families = {std::string(kNormalizationFamily), std::string(kConvolutionFamily), std::string(kLoaderFamily),
                      std::string(kDtypeFamily), std::string(kShapeFamily)};
  options.argparse = true;
  options.config_defaults = true;
  return options;
}

// The facts as a sorted list of encoded single facts: the parts' order of facts is not the
// module's, and nothing downstream reads it.
std::string canonical(const FileFacts& facts) {
  std::vector<std::string> items;
  auto each = [&](auto member) {
    for (const auto& fact : facts.*member) {
      FileFacts one;
      (one.*member).push_back(fact);
      items.push_back(cache::encode(one));
    }
  };
  each(&FileFacts::normalizations);
  each(&FileFacts::loaders);
  each(&FileFacts::conv_geometries);
  each(&FileFacts::descriptors);
  each(&FileFacts::tensor_inputs);
  each(&FileFacts::low_precision_constants);
  each(&FileFacts::shape_chains);
  each(&FileFacts::single_sample_calls);
  each(&FileFacts::forwardings);
  each(&FileFacts::arguments);
  each(&FileFacts::config_defaults);
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& item : items) out += nlohmann::json::from_msgpack(item).dump() + "\n";
  FileFacts rest = facts;
  rest.normalizations.clear(), rest.loaders.clear(), rest.conv_geometries.clear(), rest.descriptors.clear();
  rest.tensor_inputs.clear(), rest.low_precision_constants.clear(), rest.shape_chains.clear();
  rest.single_sample_calls.clear();
  rest.forwardings.clear(), rest.arguments.clear(), rest.config_defaults.clear();
  rest.tracked = {};  // statistics of what each parse followed, not facts (core/facts.h TrackedFlows)
  return out + nlohmann::json::from_msgpack(cache::encode(rest)).dump();
}

// The facts only one side has, one per line ("-" the whole module's, "+" the parts'); "" when equal.
std::string difference(const std::string& parts, const std::string& whole) {
  auto lines = [](const std::string& text) {
    std::multiset<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.insert(line);
    return out;
  };
  const auto a = lines(parts), b = lines(whole);
  std::string out;
  for (const auto& line : b)
    if (a.count(line) < b.count(line)) out += "- " + line + "\n";
  for (const auto& line : a)
    if (b.count(line) < a.count(line)) out += "+ " + line + "\n";
  return out;
}

std::vector<fs::path> python_files() {
  std::vector<fs::path> files;
  for (const char* folder : {"tests/fixtures", "examples"}) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(fs::path(CUDNNLINT_SOURCE_DIR) / folder, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".py") files.push_back(it->path());
  }
  // A real tree besides (tests/bench/corpus: timm and transformers), when one is named.
  if (const char* corpus = std::getenv("CUDNNLINT_PARTS_CORPUS"); corpus != nullptr) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(corpus, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".py") files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Analyses {
  const Parser parser;
  const PythonOptions base = all_families();

  // The facts, then the diagnostics (a syntax error must be said either way).
  static std::string described(const PythonAnalysis& analysis) {
    std::string out = canonical(analysis.facts);
    for (const FileDiagnostic& d : analysis.diagnostics)
      out += "\ndiagnostic " + std::to_string(d.position ? d.position->line : 0) + " " + d.message;
    return out;
  }
  std::string whole(const std::string& path, const std::string& text) const {
    const SourceFile file(path, text);
    return described(analyze_python(file, ApiTable::builtin(), parser, base));
  }
  // By parts when the module cuts into several; `cut` says whether it did.
  std::string by_parts(const std::string& path, const std::string& text, IncrementalTree& tree, bool& cut) const {
    PythonOptions options = base;
    options.parsed = tree.parse(text);
    const SourceFile file(path, text);
    const auto analysis = analyze_by_parts(file, ApiTable::builtin(), parser, options, *options.parsed->parts);
    cut = analysis.has_value();
    return analysis ? described(*analysis) : whole(path, text);
  }
};

TEST(ModuleParts, EveryFixtureGivesTheWholeModulesFacts) {
  const Analyses analyses;
  std::size_t cut_files = 0, facts_seen = 0, moved_parts = 0;
  for (const fs::path& path : python_files()) {
    SCOPED_TRACE(path.string());
    const std::string text = read(path);
    IncrementalTree tree;
    bool cut = false;
    const std::string expected = analyses.whole(path.string(), text);
    EXPECT_EQ(difference(analyses.by_parts(path.string(), text, tree, cut), expected), "");
    if (!cut) continue;
    ++cut_files;
    facts_seen += static_cast<std::size_t>(std::count(expected.begin(), expected.end(), '\n'));
    // Two lines above everything: every part but the first statement's (whose text now starts
    // with them) is kept, and moved.
    const std::string shifted = "# a comment\n\n" + text;
    tree.edit(text, 0, 0, "# a comment\n\n");
    EXPECT_EQ(difference(analyses.by_parts(path.string(), shifted, tree, cut), analyses.whole(path.string(), shifted)), "");
    const auto counts = tree.parse(shifted)->parts->last();
    EXPECT_GE(counts.reused + 1, counts.parts);
    moved_parts += counts.reused;
    // A line inside the last part: that part is analysed again, the ones above are kept unmoved.
    const auto parts = split_into_parts(shifted);
    ASSERT_TRUE(parts.has_value());
    const std::size_t last = parts->parts.back().back();
    const std::size_t at = parts->chunks[last].end;
    const std::string edited = shifted.substr(0, at) + "\n# edited\n" + shifted.substr(at);
    tree.edit(shifted, at, at, "\n# edited\n");
    EXPECT_EQ(difference(analyses.by_parts(path.string(), edited, tree, cut), analyses.whole(path.string(), edited)), "");
  }
  // The corpus must exercise the path: many files cut into parts, with facts in them.
  EXPECT_GT(cut_files, 10u);
  EXPECT_GT(facts_seen, 100u);
  EXPECT_GT(moved_parts, 20u);
}

// Issue 34: every fact a full parse gives comes from what a run's region plan keeps. The first
// pass's options (python::relevance_of for every family, as a run builds them) in region mode give
// exactly the full parse's facts on every fixture and example; a difference lists the facts, each
// kind one extractor's (normalization, loader, dtype's tensor inputs and constants, shape chains).
TEST(RegionParity, TheFirstPassRegionPlanGivesTheFullParsesFacts) {
  const Analyses analyses;
  // The first pass reads no argparse or yacs defaults (later passes do, with their own words).
  PythonOptions full = analyses.base;
  full.argparse = full.config_defaults = false;
  PythonOptions regions = full;
  regions.mode = ParseMode::Regions;
  python::Relevance relevance = python::relevance_of(ApiTable::builtin(), regions.families);
  regions.triggers = std::move(relevance.quoted_tokens);
  regions.trigger_words = std::move(relevance.words);
  regions.attributes = std::move(relevance.attributes);
  regions.pairs = std::move(relevance.pairs);
  regions.own_names_count = false;
  std::size_t planned = 0;
  for (const fs::path& path : python_files()) {
    SCOPED_TRACE(path.string());
    const std::string text = read(path);
    const SourceFile file(path.string(), text);
    // As the first pass does: the framework words count in files importing TensorFlow or Keras.
    PythonOptions options = regions;
    if (python::imports_at_module_level(text, relevance.framework_markers))
      options.trigger_words.insert(options.trigger_words.end(), relevance.framework_words.begin(),
                                   relevance.framework_words.end());
    const PythonAnalysis region = analyze_python(file, ApiTable::builtin(), analyses.parser, options);
    if (region.parsed_bytes < text.size()) ++planned;
    const PythonAnalysis whole = analyze_python(file, ApiTable::builtin(), analyses.parser, full);
    EXPECT_EQ(difference(Analyses::described(region), Analyses::described(whole)), "");
  }
  EXPECT_GT(planned, 20u);  // the plan left code out of most fixtures: the test compares something
  // Found by this test over PyTorch Lightning's tests: a subclass of an optimizer forwards to it
  // (the dtype family reads optimizers), so its definition must be in the plan.
  std::string text = "import torch\n\n\nclass CustomAdam(torch.optim.Adam):\n"
                     "    def __init__(self, params, num_classes=None, **kwargs):\n"
                     "        super().__init__(params, **kwargs)\n\n\n";
  for (int k = 0; k < 40; ++k) text += "def helper" + std::to_string(k) + "(x):\n    return x + " + std::to_string(k) + "\n\n\n";
  const SourceFile file("lightning_cli.py", text);
  const PythonAnalysis region = analyze_python(file, ApiTable::builtin(), analyses.parser, regions);
  const PythonAnalysis whole = analyze_python(file, ApiTable::builtin(), analyses.parser, full);
  EXPECT_LT(region.parsed_bytes, text.size());
  ASSERT_EQ(whole.facts.forwardings.size(), 1u);
  EXPECT_EQ(difference(Analyses::described(region), Analyses::described(whole)), "");
}

TEST(ModuleParts, AnEditReanalysesOnlyItsPart) {
  std::string text = "import torch.nn as nn\n";
  for (int i = 0; i < 5; ++i)
    text += "\nclass Block" + std::to_string(i) + "(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.bn = nn.BatchNorm2d(8, eps=1e-5)\n";
  IncrementalTree tree;
  PythonOptions options = all_families();
  const Parser parser;
  auto analyse = [&](const std::string& now) {
    options.parsed = tree.parse(now);
    const SourceFile file("model.py", now);
    return analyze_by_parts(file, ApiTable::builtin(), parser, options, *options.parsed->parts);
  };
  ASSERT_TRUE(analyse(text).has_value());
  EXPECT_EQ(options.parsed->parts->last().parts, 5u);
  EXPECT_EQ(options.parsed->parts->last().reused, 0u);
  const std::size_t at = text.find("1e-5", text.find("Block2"));
  const std::string edited = text.substr(0, at) + "1e-9" + text.substr(at + 4);
  tree.edit(text, at, at + 4, "1e-9");
  const auto after = analyse(edited);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(options.parsed->parts->last().reused, 4u);
  ASSERT_EQ(after->facts.normalizations.size(), 5u);
  EXPECT_EQ(std::count_if(after->facts.normalizations.begin(), after->facts.normalizations.end(),
                          [](const NormalizationFact& f) { return f.eps.value && f.eps.value->spelling == "1e-9"; }),
            1);
  // A class that names another joins its part: editing the named one reanalyses both.
  const auto parts = split_into_parts(text + "\nclass Net(nn.Module):\n    def __init__(self):\n        self.b = Block0()\n");
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->parts.size(), 5u);
}

// A module sent whole for a part holding most of it is sent whole again, without being cut, while
// the edits stay inside that part's statements; an edit elsewhere cuts it again. Either way the
// analysis gives the whole module's facts.
TEST(ModuleParts, EditsInsideThePartHoldingMostOfTheModuleSkipTheCut) {
  std::string text = "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n";
  for (int i = 0; i < 20; ++i) text += "        self.bn" + std::to_string(i) + " = nn.BatchNorm2d(8, eps=1e-5)\n";
  text += "\n\ndef helper():\n    return nn.BatchNorm2d(4, eps=1e-3)\n";
  IncrementalTree tree;
  PythonOptions options = all_families();
  const Parser parser;
  std::string now = text;
  auto edit = [&](std::size_t at, std::size_t length, const std::string& inserted) {
    const std::string before = now;
    now = before.substr(0, at) + inserted + before.substr(at + length);
    tree.edit(before, at, at + length, inserted);
    options.parsed = tree.parse(now);
    const PythonAnalysis analysed = analyze_python(SourceFile("model.py", now), ApiTable::builtin(), parser, options);
    PythonOptions alone = all_families();
    const PythonAnalysis whole = analyze_python(SourceFile("model.py", now), ApiTable::builtin(), parser, alone);
    EXPECT_EQ(canonical(analysed.facts), canonical(whole.facts));
    return analysed;
  };
  options.parsed = tree.parse(now);
  (void)analyze_python(SourceFile("model.py", now), ApiTable::builtin(), parser, options);
  const ModulePartsCache& cache = *options.parsed->parts;
  const std::size_t cuts = cache.cuts();
  ASSERT_GE(cuts, 1u);
  // Inside the class (most of the module): not cut again, however the lines move.
  edit(now.find("1e-5", now.find("bn7")), 4, "1e-9");
  edit(now.find("super()"), 0, "x = 1\n        ");
  const PythonAnalysis inside = edit(now.find("1e-5", now.find("bn3")), 4, "0.0");
  EXPECT_EQ(cache.cuts(), cuts);
  EXPECT_EQ(std::count_if(inside.facts.normalizations.begin(), inside.facts.normalizations.end(),
                          [](const NormalizationFact& f) { return f.eps.value && f.eps.value->spelling == "0.0"; }),
            1);
  // In the helper, outside the class: cut again.
  edit(now.find("1e-3"), 4, "1e-2");
  EXPECT_EQ(cache.cuts(), cuts + 1);
}

// A part that does not parse sends the module to the whole analysis, which says where the error is
// (the whole tree is never parsed for the parts: the edited part's own parse tells).
TEST(ModuleParts, APartWithASyntaxErrorSendsTheModuleWhole) {
  const std::string good = "import torch.nn as nn\n\ndef a():\n    return nn.BatchNorm2d(4, eps=0.0)\n\n"
                           "def c():\n    return nn.BatchNorm2d(4, eps=1e-5)\n\n"
                           "def d():\n    return nn.BatchNorm2d(4, eps=1e-3)\n\ndef b(x):\n    return x\n";
  const std::string bad = good.substr(0, good.size() - 6) + "return x +\n";
  IncrementalTree tree;
  PythonOptions options = all_families();
  const Parser parser;
  options.parsed = tree.parse(good);
  ASSERT_TRUE(analyze_by_parts(SourceFile("m.py", good), ApiTable::builtin(), parser, options, *options.parsed->parts));
  EXPECT_FALSE(options.parsed->parsed());
  tree.reset();
  options.parsed = tree.parse(bad);
  EXPECT_FALSE(analyze_by_parts(SourceFile("m.py", bad), ApiTable::builtin(), parser, options, *options.parsed->parts));
  const PythonAnalysis whole = analyze_python(SourceFile("m.py", bad), ApiTable::builtin(), parser, options);
  ASSERT_EQ(whole.diagnostics.size(), 1u);
  EXPECT_NE(whole.diagnostics[0].message.find("syntax error"), std::string::npos);
  EXPECT_EQ(whole.facts.normalizations.size(), 3u);  // the parts that parse are still read
}

TEST(ModuleParts, ModuleStatementsAreOnePartWithWhatTheyName) {
  const std::string text =
      "import torch.nn as nn\nEPS = 1e-3\n\nclass A(nn.Module):\n    pass\n\nclass B(nn.Module):\n"
      "    def f(self):\n        return nn.BatchNorm2d(4, eps=EPS)\n\ndef helper():\n    return 1\n\nmodel = A()\n";
  const auto parts = split_into_parts(text);
  ASSERT_TRUE(parts.has_value());
  ASSERT_EQ(parts->shared.size(), 1u);  // the import
  // EPS, B (names EPS), A and `model = A()` (the script names A) are one part; helper is alone.
  ASSERT_EQ(parts->parts.size(), 2u);
  EXPECT_EQ(parts->parts[0].size(), 4u);
  EXPECT_EQ(parts->chunks[parts->parts[1].front()].name, "helper");
}

// for_each_location must reach every Location the facts hold: counted against the facts' JSON,
// where a location is an object with a path and a range.
std::size_t locations_in(const nlohmann::json& j) {
  std::size_t n = 0;
  if (j.is_object()) {
    if (j.contains("path") && j.contains("range")) ++n;
    for (const auto& [key, value] : j.items()) n += locations_in(value);
  } else if (j.is_array()) {
    for (const auto& value : j) n += locations_in(value);
  }
  return n;
}

TEST(ModuleParts, ForEachLocationReachesEveryLocation) {
  const Analyses analyses;
  std::size_t total = 0;
  for (const fs::path& path : python_files()) {
    SCOPED_TRACE(path.string());
    const SourceFile file(path.string(), read(path));
    FileFacts facts = analyze_python(file, ApiTable::builtin(), analyses.parser, analyses.base).facts;
    std::size_t visited = 0;
    for_each_location(facts, [&](Location&) { ++visited; });
    ASSERT_EQ(visited, locations_in(nlohmann::json::from_msgpack(cache::encode(facts))));
    total += visited;
  }
  EXPECT_GT(total, 500u);
}

// The language server asks nothing_relevant of its document instead of making a plan; it must say
// what the plan says, with and without the definitions' own names, with and without a word pair.
TEST(ModuleParts, NothingRelevantSaysWhatThePlanSays) {
  const PythonOptions base = all_families();
  const std::vector<std::string> triggers = ApiTable::builtin().quoted_tokens(base.families);
  const std::vector<std::string> words = ApiTable::builtin().trigger_words(base.families);
  const std::vector<std::string> attributes = ApiTable::builtin().instance_attributes();
  WordPair pair;
  pair.first = {"randint", "randn", "long"};
  pair.second = {"Conv2d", std::string(kSmallFloatLiteral)};
  const std::vector<WordPair> no_pairs, one_pair{pair};
  std::size_t irrelevant = 0, relevant = 0;
  for (const fs::path& path : python_files()) {
    SCOPED_TRACE(path.string());
    const std::string text = read(path);
    for (const bool own_names_count : {false, true})
      for (const auto* pairs : {&no_pairs, &one_pair}) {
        const auto plan = plan_parse(text, triggers, words, attributes, *pairs, own_names_count);
        const bool planned = plan && plan->nothing_relevant;
        ASSERT_EQ(nothing_relevant(text, triggers, words, attributes, *pairs, own_names_count), planned);
        ++(planned ? irrelevant : relevant);
      }
  }
  EXPECT_GT(irrelevant, 20u);
  EXPECT_GT(relevant, 200u);
}

// The server's document analysed whole walks its kept tree, entering only what the region plan
// keeps: the facts must be those of the command line's region parse (and, for a tree with a syntax
// error, which is walked whole, those of a full parse), with a word pair and without, in the first
// pass and in a later one that counts the definitions' own names.
TEST(ModuleParts, TheKeptTreeWalkedByThePlanGivesTheRegionParsesFacts) {
  PythonOptions base = all_families();
  base.mode = ParseMode::Regions;
  base.triggers = ApiTable::builtin().quoted_tokens(base.families);
  base.trigger_words = ApiTable::builtin().trigger_words(base.families);
  base.attributes = ApiTable::builtin().instance_attributes();
  WordPair pair;
  pair.first = {"randint", "randn", "long"};
  pair.second = {"Conv2d", std::string(kSmallFloatLiteral)};
  const Parser parser;
  std::size_t walked_in_part = 0, facts_seen = 0;
  for (const fs::path& path : python_files()) {
    SCOPED_TRACE(path.string());
    const std::string text = read(path);
    const SourceFile file(path.string(), text);
    for (const bool own_names_count : {false, true})
      for (const bool with_pair : {false, true}) {
        PythonOptions options = base;
        options.own_names_count = own_names_count;
        if (with_pair) options.pairs = {pair};
        PythonOptions kept = options;
        kept.parsed = std::make_shared<const ParsedSource>(text);  // no parts: the whole-tree path
        const PythonAnalysis from_tree = analyze_python(file, ApiTable::builtin(), parser, kept);
        const bool tree_has_error =
            kept.parsed->tree() != nullptr && ts_node_has_error(ts_tree_root_node(kept.parsed->tree()));
        if (tree_has_error) options.mode = ParseMode::Full;
        const PythonAnalysis parsed = analyze_python(file, ApiTable::builtin(), parser, options);
        EXPECT_EQ(difference(Analyses::described(from_tree), Analyses::described(parsed)), "");
        if (from_tree.parsed_bytes > 0 && from_tree.parsed_bytes < text.size()) ++walked_in_part;
        facts_seen += from_tree.facts.normalizations.size() + from_tree.facts.tensor_inputs.size() +
                      from_tree.facts.loaders.size() + from_tree.facts.shape_chains.size();
      }
  }
  // The path must be taken, with facts to compare.
  EXPECT_GT(walked_in_part, 60u);
  EXPECT_GT(facts_seen, 500u);
}

}  // namespace
}  // namespace cudnnlint::python
