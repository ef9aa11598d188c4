// The generic resolver's new value sources within one file (references the project step
// follows), the dtype vocabulary, the module index, relative imports, and region planning at
// member and statement level (which must give exactly a full parse's facts).
#include "core/dtype.h"
#include "engine/module_index.h"
#include "python/imports.h"
#include "python/regions.h"
#include "python/relevance.h"
#include "python_test_helpers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace cudnnlint {
namespace {

using testing::analyze_source;

FileFacts facts_in(const std::string& text, python::ParseMode mode = python::ParseMode::Regions,
                   const std::string& module = "model") {
  const SourceFile file("model.py", text);
  const python::Parser parser;
  auto options = testing::first_pass_options(mode);
  options.module = module;
  return python::analyze_python(file, ApiTable::builtin(), parser, options).facts;
}

TEST(DTypeVocabulary, EverySpellingOfAFrameworkNamesOneType) {
  EXPECT_EQ(dtype_from_spelling("torch.float16"), DType::Float16);
  EXPECT_EQ(dtype_from_spelling("torch.half"), DType::Float16);
  EXPECT_EQ(dtype_from_spelling("kHalf"), DType::Float16);
  EXPECT_EQ(dtype_from_spelling("torch::kFloat16"), DType::Float16);
  EXPECT_EQ(dtype_from_spelling("CUDNN_DATA_HALF"), DType::Float16);
  EXPECT_EQ(dtype_from_spelling("mixed_float16"), DType::Float16);
  EXPECT_EQ(dtype_from_spelling("'bfloat16'"), DType::BFloat16);
  EXPECT_EQ(dtype_from_spelling("tf.int32"), DType::Int32);
  EXPECT_EQ(dtype_from_spelling("np.uint8"), DType::UInt8);
  EXPECT_EQ(dtype_from_spelling("at::kByte"), DType::UInt8);
  EXPECT_EQ(dtype_from_spelling("torch.long"), DType::Int64);
  // A bare builtin is ambiguous across frameworks (torch: float64 for `float`): not a dtype.
  EXPECT_EQ(dtype_from_spelling("float"), DType::Unknown);
  EXPECT_EQ(dtype_from_spelling("int"), DType::Unknown);
  EXPECT_EQ(dtype_from_spelling("torch.nn"), DType::Unknown);
  for (const DType d : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64, DType::Int8, DType::UInt8,
                        DType::Int32, DType::Int64, DType::Bool}) {
    EXPECT_EQ(dtype_from_name(dtype_name(d)), d);
    EXPECT_EQ(dtype_from_spelling(libtorch_name(d)), d) << dtype_name(d);
  }
  EXPECT_TRUE(is_floating(DType::BFloat16));
  EXPECT_TRUE(is_integer(DType::Bool));
  EXPECT_EQ(element_size(DType::Float16), 2u);
  EXPECT_EQ(cudnn_data_type_name(DType::Int8), "CUDNN_DATA_INT8");
  EXPECT_EQ(torch_cpp_type_name(DType::Float16), "c10::Half");
}

TEST(RelativeImports, MadeAbsoluteFromTheModulesPlace) {
  const python::ModuleContext module{"pkg.sub.mod", false};
  EXPECT_EQ(python::absolute_module(module, 1, "constants"), "pkg.sub.constants");
  EXPECT_EQ(python::absolute_module(module, 2, "layers"), "pkg.layers");
  EXPECT_EQ(python::absolute_module(module, 1, ""), "pkg.sub");
  EXPECT_EQ(python::absolute_module(module, 4, "x"), "");  // above the top package
  const python::ModuleContext package{"pkg.sub", true};
  EXPECT_EQ(python::absolute_module(package, 1, "bn"), "pkg.sub.bn");
  EXPECT_EQ(python::absolute_module({"", false}, 1, "x"), "");
}

TEST(ModuleIndex, NamesFromPackagesAndNamespaceFolders) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / "cudnnlint_module_index";
  fs::remove_all(root);
  fs::create_directories(root / "pkg" / "layers");
  fs::create_directories(root / "tools");
  for (const char* file : {"pkg/__init__.py", "pkg/layers/__init__.py", "pkg/layers/bn.py", "tools/train.py",
                           "pkg/not-a-module.py"})
    std::ofstream(root / file) << "\n";
  const std::vector<std::string> files{(root / "pkg/__init__.py").string(), (root / "pkg/layers/__init__.py").string(),
                                       (root / "pkg/layers/bn.py").string(), (root / "tools/train.py").string(),
                                       (root / "pkg/not-a-module.py").string()};
  const ModuleIndex index(files);
  EXPECT_EQ(index.of(0).name, "pkg");
  EXPECT_TRUE(index.of(0).is_package);
  EXPECT_EQ(index.of(1).name, "pkg.layers");
  EXPECT_EQ(index.of(2).name, "pkg.layers.bn");
  EXPECT_EQ(index.of(3).name, "train");
  EXPECT_EQ(index.of(4).name, "");
  EXPECT_EQ(index.file_of("pkg.layers.bn"), 2u);
  EXPECT_EQ(index.file_of("tools.train"), 3u);  // a namespace folder
  const auto split = index.split("pkg.layers.bn.NaiveSyncBN");
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->first, 2u);
  EXPECT_EQ(split->second, "NaiveSyncBN");
  EXPECT_FALSE(index.split("torch.nn.BatchNorm2d").has_value());
  fs::remove_all(root);
}

TEST(References, ImportedNamesParametersConfigAndSelfAttributes) {
  const FileFacts facts = facts_in(
      "import torch.nn as nn\n"
      "import torch.nn.functional as F\n"
      "from .constants import EPS\n"
      "from . import constants as C\n"
      "def conv_bn(c, eps=1e-3):\n"
      "    return nn.BatchNorm2d(c, eps=eps)\n"
      "class Frozen(nn.Module):\n"
      "    def __init__(self, n, eps=1e-5):\n"
      "        self.eps = eps\n"
      "    def forward(self, x):\n"
      "        return F.batch_norm(x, None, None, eps=self.eps)\n"
      "a = nn.BatchNorm2d(8, eps=EPS)\n"
      "b = nn.BatchNorm2d(8, eps=C.EPS)\n"
      "c = nn.BatchNorm2d(8, eps=cfg.MODEL.BN_EPS)\n"
      "d = nn.BatchNorm2d(8, eps=config['model']['eps'])\n"
      "e = nn.BatchNorm2d(8, eps=args.bn_eps)\n"
      "f = nn.BatchNorm2d(8, eps=layer.eps)\n",
      python::ParseMode::Regions, "pkg.model");
  ASSERT_EQ(facts.normalizations.size(), 8u);
  auto ref_of = [&](std::size_t k) { return facts.normalizations[k].eps.ref; };
  ASSERT_TRUE(ref_of(0));
  EXPECT_EQ(ref_of(0)->kind, ValueRef::Kind::Parameter);
  EXPECT_EQ(ref_of(0)->target, "pkg.model.conv_bn");
  EXPECT_EQ(ref_of(0)->index, 1);
  ASSERT_EQ(ref_of(0)->default_value.size(), 1u);
  EXPECT_DOUBLE_EQ(ref_of(0)->default_value[0].constant->value, 1e-3);
  ASSERT_TRUE(ref_of(1));  // self.eps set from an __init__ parameter: the class's parameter
  EXPECT_EQ(ref_of(1)->target, "pkg.model.Frozen");
  EXPECT_TRUE(ref_of(1)->of_class);
  EXPECT_EQ(ref_of(2)->kind, ValueRef::Kind::ModuleAttribute);
  EXPECT_EQ(ref_of(2)->target, "pkg.constants.EPS");
  EXPECT_EQ(ref_of(3)->target, "pkg.constants.EPS");  // through the module object, not a config named C
  EXPECT_EQ(ref_of(4)->kind, ValueRef::Kind::ConfigKey);
  EXPECT_EQ(ref_of(4)->target, "MODEL.BN_EPS");
  EXPECT_EQ(ref_of(5)->target, "model.eps");
  EXPECT_EQ(ref_of(6)->target, "bn_eps");
  EXPECT_EQ(ref_of(6)->root, "args");
  EXPECT_FALSE(ref_of(7).has_value());  // `layer` is no config object
  // Both project callables are recorded for the project step.
  ASSERT_EQ(facts.forwardings.size(), 2u);
  EXPECT_EQ(facts.forwardings[0].callable, "pkg.model.conv_bn");
  EXPECT_EQ(facts.forwardings[1].callable, "pkg.model.Frozen");
}

TEST(References, SubclassesThatKeepTheBaseSignatureAreForwardings) {
  const FileFacts facts = facts_in(
      "import torch.nn as nn\n"
      "class Plain(nn.BatchNorm2d):\n    pass\n"
      "class Splat(nn.BatchNorm2d):\n    def __init__(self, *args, mode='', **kwargs):\n"
      "        super().__init__(*args, **kwargs)\n"
      "class Fixed(nn.BatchNorm2d):\n    def __init__(self, c):\n        super().__init__(c, eps=1e-3)\n",
      python::ParseMode::Regions, "m");
  std::vector<std::string> inherits;
  for (const auto& f : facts.forwardings)
    if (f.inherits_signature) inherits.push_back(f.callable);
  EXPECT_EQ(inherits, (std::vector<std::string>{"m.Plain", "m.Splat"}));
}

TEST(Guards, TypeIsAndTypeEqualNarrowLikeIsinstance) {
  const FileFacts facts = facts_in(
      "import torch.nn as nn\n"
      "def f(model):\n"
      "    for m in model.modules():\n"
      "        if type(m) is nn.BatchNorm2d:\n            m.eps = 0.0\n"
      "        if type(m) == nn.BatchNorm1d:\n            m.eps = -1.0\n"
      "        if type(m) is not nn.BatchNorm2d:\n            m.eps = 5.0\n");
  ASSERT_EQ(facts.normalizations.size(), 2u);
  EXPECT_EQ(facts.normalizations[0].api, "torch.nn.BatchNorm2d");
  EXPECT_EQ(facts.normalizations[1].api, "torch.nn.BatchNorm1d");
}

TEST(MmcvConfigDicts, TypeNamesTheLayer) {
  const FileFacts facts = facts_in(
      "norm_cfg = dict(type='SyncBN', eps=0.0, requires_grad=True)\n"
      "other = {'type': 'BN2d', 'eps': -1.0}\n"
      "ln = dict(type='LN', eps=0.0)\n"
      "def dict(**kw):\n    return kw\n");
  // A module that defines its own `dict` is not calling the builtin: only the literal counts.
  ASSERT_EQ(facts.normalizations.size(), 1u);
  EXPECT_EQ(facts.normalizations[0].api, "torch.nn.BatchNorm2d");
  EXPECT_DOUBLE_EQ(facts.normalizations[0].eps.value->value, -1.0);
  const FileFacts builtin = facts_in("norm_cfg = dict(type='SyncBN', eps=0.0)\n");
  ASSERT_EQ(builtin.normalizations.size(), 1u);
  EXPECT_EQ(builtin.normalizations[0].api, "torch.nn.SyncBatchNorm");
  EXPECT_EQ(builtin.normalizations[0].origin, "mmcv config dict");
}

// Region planning inside large definitions: the parsed parts must mean what the whole does.
std::string big_class() {
  std::string text =
      "import torch.nn as nn\nimport torch.nn.functional as F\nEPS = 1e-3\n"
      "class Net(nn.Module):\n"
      "    def __init__(self, c, eps=0.0):\n"
      "        super().__init__()\n"
      "        self.eps = eps\n"
      "        self.local = EPS\n";
  for (int k = 0; k < 40; ++k) text += "        self.layer" + std::to_string(k) + " = nn.Linear(c, c)\n";
  text +=
      "    def reset(self):\n"
      "        self.eps = 1e-2\n"  // a second assignment: self.eps is not one value
      "    def forward(self, x):\n"
      "        y = F.batch_norm(x, None, None, eps=self.eps)\n"
      "        return F.batch_norm(y, None, None, eps=self.local)\n";
  for (int k = 0; k < 40; ++k) text += "    def unrelated" + std::to_string(k) + "(self):\n        return " + std::to_string(k) + "\n";
  text += "def build(c):\n    n = 3\n";
  for (int k = 0; k < 60; ++k) text += "    x" + std::to_string(k) + " = n * " + std::to_string(k) + "\n";
  text += "    scale = 1e-4\n    scale = scale * 2\n    bn = nn.BatchNorm2d(c, eps=scale)\n    return bn\n";
  return text;
}

std::string dump(const FileFacts& facts) {
  std::string out;
  for (const auto& n : facts.normalizations)
    out += n.api + "@" + std::to_string(n.call.range.begin.line) + ":" +
           (n.eps.value ? std::to_string(n.eps.value->value) : std::string("?")) + (n.eps.ref ? "+ref" : "") + "\n";
  for (const auto& f : facts.forwardings) out += "fwd " + f.callable + "\n";
  return out;
}

TEST(RegionPlanning, MembersAndStatementsGiveTheFullParsesFacts) {
  const std::string text = big_class();
  const auto regions = analyze_source(text, "model.py", python::ParseMode::Regions);
  const auto full = analyze_source(text, "model.py", python::ParseMode::Full);
  EXPECT_LT(regions.parsed_bytes, text.size() / 2);  // most of the class and the function is left out
  EXPECT_EQ(dump(regions.facts), dump(full.facts));
  // self.eps is assigned twice (reset): unresolved in both; self.local folds to EPS; scale is
  // rebound in the function: not a constant.
  ASSERT_EQ(full.facts.normalizations.size(), 3u);
  EXPECT_FALSE(full.facts.normalizations[0].eps.value.has_value());
  EXPECT_DOUBLE_EQ(full.facts.normalizations[1].eps.value->value, 1e-3);
  EXPECT_FALSE(full.facts.normalizations[2].eps.value.has_value());
}

TEST(RegionPlanning, ApiSubclassKeepsItsInitAndSuperCall) {
  std::string text = "import torch.nn as nn\nclass BN(nn.BatchNorm2d):\n    def __init__(self, c, eps=1e-5):\n";
  for (int k = 0; k < 80; ++k) text += "        self.extra" + std::to_string(k) + " = " + std::to_string(k) + "\n";
  text += "        super().__init__(c, eps=eps)\n";
  for (int k = 0; k < 30; ++k) text += "    def helper" + std::to_string(k) + "(self):\n        return 1\n";
  const auto regions = analyze_source(text, "model.py", python::ParseMode::Regions);
  const auto full = analyze_source(text, "model.py", python::ParseMode::Full);
  EXPECT_LT(regions.parsed_bytes, text.size());
  EXPECT_EQ(dump(regions.facts), dump(full.facts));
  ASSERT_EQ(full.facts.forwardings.size(), 1u);
}


// Long chains settle however they run: relevance spreading upwards (each alias bound below its
// use) and kept constants spreading downwards (each bound from the one above) take more sweeps
// than the planner makes before it switches to its index; the answer must not change.
bool plan_covers_ranges(const std::vector<TSRange>& ranges, std::size_t offset) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const TSRange& r) { return r.start_byte <= offset && offset < r.end_byte; });
}

bool plan_covers(const python::ParsePlan& plan, std::size_t offset) { return plan_covers_ranges(plan.ranges, offset); }

TEST(RegionPlanning, LongChainsSettleBothWays) {
  const auto options = testing::first_pass_options();
  for (const bool above : {true, false}) {
    // Aliases of the API, each from the previous one; a function calls the last.
    std::vector<std::string> aliases{"A0 = nn.BatchNorm2d\n"};
    for (int k = 1; k < 12; ++k) aliases.push_back("A" + std::to_string(k) + " = A" + std::to_string(k - 1) + "\n");
    if (!above) std::reverse(aliases.begin(), aliases.end());
    std::string text = "import torch.nn as nn\n";
    for (const auto& line : aliases) text += line;
    // Constants, each from the previous one; the function reads the last.
    text += "K0 = 0.0\n";
    for (int k = 1; k < 12; ++k) text += "K" + std::to_string(k) + " = K" + std::to_string(k - 1) + "\n";
    for (int k = 0; k < 30; ++k) text += "UNUSED" + std::to_string(k) + " = " + std::to_string(k) + "\n";
    text += "def unrelated():\n    return 1\n";
    const std::size_t use = text.size();
    text += "def make():\n    return A11(3, eps=K11)\n";
    const auto plan = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes);
    ASSERT_TRUE(plan.has_value()) << above;
    EXPECT_TRUE(plan_covers(*plan, use)) << "the call of the last alias, aliases above: " << above;
    EXPECT_TRUE(plan_covers(*plan, text.find("K0 = 0.0"))) << above;
    EXPECT_TRUE(plan_covers(*plan, text.find("A0 = nn"))) << above;
    EXPECT_FALSE(plan_covers(*plan, text.find("UNUSED3 ="))) << above;
    EXPECT_FALSE(plan_covers(*plan, text.find("def unrelated"))) << above;
  }
}

TEST(RegionPlan, AnnotationsDoNotKeepADefinitionButDefaultsAndBodiesDo) {
  const auto options = testing::first_pass_options();
  const std::string text =
      "import torch.nn as nn\n"
      "def annotated(bn: nn.BatchNorm2d, n: int = 3) -> nn.BatchNorm2d:\n    return bn\n"
      "def defaulted(make=lambda c: nn.BatchNorm2d(c, eps=0.0)):\n    return make(3)\n"
      "def two(c, make=lambda ch, **kw: nn.BatchNorm2d(ch, eps=0.0, **kw)):\n    return make(c)\n"
      "def called(x: int):\n    return nn.BatchNorm2d(x)\n"
      "def unrelated():\n    return 1\n";
  const auto plan = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan_covers(*plan, text.find("def annotated")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def defaulted")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def two")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def called")));
}

TEST(RegionPlan, AClassNamedOnlyInATypeTestKeepsNothing) {
  // `isinstance(m, nn.BatchNorm2d)` constructs no layer and passes none on: a definition naming an
  // API only there is left out, unless it assigns the attribute a rule reads (`m.eps = ...`), and
  // both modes give the same facts.
  const auto options = testing::first_pass_options();
  const std::string text =
      "import torch.nn as nn\n"
      "def init_weights(m):\n    if isinstance(m, (nn.Conv2d, nn.BatchNorm2d)):\n        m.weight.data.fill_(1)\n"
      "def frozen(m):\n    return issubclass(type(m), nn.BatchNorm2d)\n"
      "def fix_eps(model):\n    for m in model.modules():\n        if isinstance(m, nn.BatchNorm2d):\n"
      "            m.eps = 0.0\n"
      "def passed_on(make=nn.BatchNorm2d):\n    return make(3)\n"
      "def in_a_list():\n    return [nn.BatchNorm2d][0](3)\n"
      "def noted(m):\n    return isinstance(m, nn.Linear) or describe('(', nn.BatchNorm2d)\n"
      "def unrelated():\n    return 1\n";
  const auto plan = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan_covers(*plan, text.find("def init_weights")));
  EXPECT_FALSE(plan_covers(*plan, text.find("def frozen")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def fix_eps")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def passed_on")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def in_a_list")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def noted")));  // a quote on the way back: not sure, kept
  const auto regions = analyze_source(text, "model.py", python::ParseMode::Regions);
  const auto full = analyze_source(text, "model.py", python::ParseMode::Full);
  EXPECT_EQ(dump(regions.facts), dump(full.facts));
  ASSERT_EQ(full.facts.normalizations.size(), 1u);  // fix_eps's m.eps = 0.0
}

TEST(RegionPlan, AFunctionHandingARelevantClassOnAsAKeywordValueIsLeftOut) {
  // timm's `@register_model` variants name the block class only as `dict(block=BasicBlock, ...)`:
  // nothing builds it there, so they are not parsed. A call of the class, an alias of it called
  // later, and a positional argument still keep the function; both modes give the same facts.
  const auto options = testing::first_pass_options();
  const std::string text =
      "import torch.nn as nn\n"
      "class Block(nn.Module):\n    def __init__(self, c, eps):\n        super().__init__()\n"
      "        self.bn = nn.BatchNorm2d(c, eps=eps)\n"
      "def variant(pretrained=False, **kwargs):\n    args = dict(block=Block, layers=(2, 2))\n"
      "    return create('v', pretrained, **dict(args, **kwargs))\n"
      "def spaced():\n    return create(\n        block = Block,\n    )\n"
      "def called():\n    return Block(64, 0.0)\n"
      "def aliased():\n    b = Block\n    return b(32, 0.0)\n"
      "def positional():\n    return create(Block, 3)\n"
      "def compared(x):\n    return f(same=x==Block)\n";
  const auto plan = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan_covers(*plan, text.find("def variant")));
  EXPECT_FALSE(plan_covers(*plan, text.find("def spaced")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def called")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def aliased")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def positional")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def compared")));
  const auto regions = analyze_source(text, "model.py", python::ParseMode::Regions);
  const auto full = analyze_source(text, "model.py", python::ParseMode::Full);
  EXPECT_EQ(dump(regions.facts), dump(full.facts));
  ASSERT_EQ(full.facts.normalizations.size(), 1u);  // Block's batch norm, its eps read at the calls
}

TEST(RegionPlan, ARelevantClassesUsesCountOnlyForTheFamilyReadingThem) {
  // The convolution family reads a class's geometry where it is built; the others do not follow
  // every use of a relevant class (a fifth of transformers + timm): only the classes deriving from
  // an API's subclass, and the calls of its methods that take arguments into the API.
  const auto options = testing::first_pass_options();
  ASSERT_FALSE(options.class_uses_count);
  const std::string conv[] = {"convolution"};
  const std::string others[] = {"normalization", "loader", "dtype", "shape"};
  EXPECT_EQ(conv[0], kConvolutionFamily);
  EXPECT_EQ(others[0], kNormalizationFamily);
  EXPECT_TRUE(python::relevance_of(ApiTable::builtin(), conv).follows_class_uses);
  EXPECT_FALSE(python::relevance_of(ApiTable::builtin(), others).follows_class_uses);
  const std::string text =
      "import torch.nn as nn\n"
      "class Block(nn.Module):\n    def __init__(self, c):\n        super().__init__()\n"
      "        self.bn = nn.BatchNorm2d(c)\n"
      "    def norm(self, eps):\n        return nn.BatchNorm2d(3, eps=eps)\n"
      "def variant():\n    return Block(64)\n"
      "class Sub(Block):\n    def extra(self):\n        return 1\n"
      "class Base(nn.BatchNorm2d):\n    pass\n"
      "class Leaf(\n    Base,\n):\n    def __init__(self):\n        super().__init__(3, eps=0.0)\n"
      "class User:\n    def __init__(self):\n        self.block = Block(3)\n"
      "def main():\n    return Block(1).norm(0.0)\n"
      "def unrelated():\n    return 1\n";
  const auto uses = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes, {}, false, true);
  ASSERT_TRUE(uses.has_value());
  EXPECT_TRUE(plan_covers(*uses, text.find("def variant")));
  EXPECT_TRUE(plan_covers(*uses, text.find("class User")));
  const auto plan = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes, {}, false, false);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan_covers(*plan, text.find("def variant")));
  EXPECT_FALSE(plan_covers(*plan, text.find("class User")));
  EXPECT_FALSE(plan_covers(*plan, text.find("class Sub")));
  EXPECT_TRUE(plan_covers(*plan, text.find("class Leaf")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def main")));
  const auto regions = testing::analyze_source(text, "model.py", python::ParseMode::Regions);
  const auto full = testing::analyze_source(text, "model.py", python::ParseMode::Full);
  EXPECT_EQ(dump(regions.facts), dump(full.facts));
  ASSERT_EQ(full.facts.normalizations.size(), 3u);  // Block's two, and Leaf's through Base
}

TEST(RegionPlan, ModuleExportsReadOnlyTheModulesOwnStatements) {
  // The functions and classes are left out of the parse, but for a class a constant reads and a
  // function rebinding a module name; the exports are those of the whole parse.
  const std::string text =
      "import torch\nfrom .consts import BASE\nfrom .layers import *\n"
      "EPS = 1e-5\nSCALE = EPS * 2\n"
      "class Config:\n    MOMENTUM = 0.1\n"
      "MOMENTUM = Config.MOMENTUM\n"
      "class Model(torch.nn.Module):\n    def forward(self, x):\n        return x * EPS\n"
      "def make(c):\n    return torch.nn.BatchNorm2d(c, eps=EPS)\n"
      "LIMIT = 3\n"
      "def bump():\n    global LIMIT\n    LIMIT = 4\n"
      "def make(c):\n    return c\n";
  const auto plan = python::plan_module_statements(text);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan_covers_ranges(plan->ranges, text.find("class Model")));
  EXPECT_FALSE(plan_covers_ranges(plan->ranges, text.find("def make")));
  EXPECT_TRUE(plan_covers_ranges(plan->ranges, text.find("class Config")));
  EXPECT_TRUE(plan_covers_ranges(plan->ranges, text.find("def bump")));
  EXPECT_EQ(plan->definition_names, (std::vector<std::string_view>{"Model", "make", "make"}));
  const SourceFile file("pkg/model.py", text);
  const python::Parser parser;
  const auto exports = python::module_exports(file, ApiTable::builtin(), parser, "pkg.model", false);
  ASSERT_TRUE(exports.values.count("EPS"));
  EXPECT_DOUBLE_EQ(exports.values.at("EPS").constant->value, 1e-5);
  ASSERT_TRUE(exports.values.count("SCALE") && exports.values.at("SCALE").constant);
  EXPECT_DOUBLE_EQ(exports.values.at("SCALE").constant->value, 2e-5);
  ASSERT_TRUE(exports.values.count("MOMENTUM") && exports.values.at("MOMENTUM").constant);
  EXPECT_DOUBLE_EQ(exports.values.at("MOMENTUM").constant->value, 0.1);
  EXPECT_FALSE(exports.values.count("LIMIT") && exports.values.at("LIMIT").constant);  // bump() rebinds it
  EXPECT_EQ(exports.imported.at("BASE"), "pkg.consts.BASE");
  EXPECT_EQ(exports.star_modules, (std::vector<std::string>{"pkg.layers"}));
  for (const char* name : {"Model", "make", "Config", "bump", "torch", "LIMIT"}) EXPECT_TRUE(exports.bound.count(name)) << name;
  std::vector<std::string> definitions = exports.definitions;
  std::sort(definitions.begin(), definitions.end());
  EXPECT_EQ(definitions, (std::vector<std::string>{"Config", "Model", "bump"}));  // `make`, bound twice, is none
}

TEST(RegionPlan, AnAttributeKeptCodeOnlyAssignsKeepsNoOtherMethod) {
  // __init__ builds the batch norm and assigns self.head; reset_head assigns self.head too, which
  // no kept code reads: left out. scale reads self.eps, which tune assigns: kept, and the two modes
  // agree (self.eps, assigned twice, is no constant in either).
  const auto options = testing::first_pass_options();
  std::string text = "import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self, c):\n"
                     "        super().__init__()\n        self.head = nn.Linear(c, 2)\n        self.eps = 1e-3\n"
                     "        self.bn = nn.BatchNorm2d(c, eps=self.eps)\n";
  for (int k = 0; k < 30; ++k) text += "        self.pad" + std::to_string(k) + " = " + std::to_string(k) + "\n";
  text += "    def reset_head(self, n):\n        self.head = nn.Linear(8, n)\n"
          "    def tune(self):\n        self.eps = 0.0\n";
  for (int k = 0; k < 20; ++k) text += "    def other" + std::to_string(k) + "(self):\n        return " + std::to_string(k) + "\n";
  const auto plan = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes);
  ASSERT_TRUE(plan.has_value());
  EXPECT_TRUE(plan_covers(*plan, text.find("self.bn = ")));
  EXPECT_FALSE(plan_covers(*plan, text.find("def reset_head")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def tune")));
  const auto regions = analyze_source(text, "model.py", python::ParseMode::Regions);
  const auto full = analyze_source(text, "model.py", python::ParseMode::Full);
  EXPECT_EQ(dump(regions.facts), dump(full.facts));
}

TEST(RegionPlan, ADefinitionsOwnNameKeepsItOnlyWhereOwnNamesCount) {
  // transformers defines `class TrainingArguments`: in the first pass that is the library defining
  // the API, not code using it; a call of the name inside the definition still counts.
  const auto options = testing::first_pass_options();
  const std::string text =
      "import torch.nn as nn\n"
      "class BatchNorm2d:\n    def __init__(self):\n        self.n = 1\n"
      "class SyncBatchNorm:\n    def copy(self):\n        return SyncBatchNorm()\n"
      "def unrelated():\n    return 1\n"
      "def use():\n    return nn.BatchNorm2d(3)\n";
  const auto first = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes, {}, false);
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(plan_covers(*first, text.find("class BatchNorm2d")));
  EXPECT_TRUE(plan_covers(*first, text.find("class SyncBatchNorm")));
  EXPECT_TRUE(plan_covers(*first, text.find("def use")));
  const auto later = python::plan_parse(text, options.triggers, options.trigger_words, options.attributes, {}, true);
  ASSERT_TRUE(later.has_value());
  EXPECT_TRUE(plan_covers(*later, text.find("class BatchNorm2d")));
}

TEST(RegionPlan, PairsKeepOnlyTheFunctionsAndMethodsHoldingBothHalves) {
  const auto options = testing::first_pass_options();
  const std::string text =
      "import torch\nimport torch.nn as nn\n"
      "def only_source():\n    return torch.randint(0, 9, (2,))\n"
      "def both():\n    conv = nn.Conv2d(3, 8, 3)\n    return conv(torch.randint(0, 9, (1, 3, 8, 8)))\n"
      "class Model(nn.Module):\n    def f(self, x):\n        return nn.Conv2d(3, 8, 3)(x.long())\n"
      "class Apart(nn.Module):\n    def f(self, x):\n        return nn.Conv2d(3, 8, 3)(x)\n"
      "    def g(self, x):\n        return x.long()\n"
      "def eps(x):\n    return x.half() / (x.half().norm() + 1e-8)\n"
      "def big_eps(x):\n    return x.half() / (x.half().norm() + 1e-3)\n";
  const std::vector<python::WordPair> pairs{{{"randint", "long"}, {"Conv2d"}, false, false, false},
                                            {{"half"}, {std::string(python::kSmallFloatLiteral)}, false, false, false}};
  const auto plan = python::plan_parse(text, {}, {}, {}, pairs, false);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan_covers(*plan, text.find("def only_source")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def both")));
  // Pairs are read from one function or one method: a class holds a pair when a method holds both
  // halves (issue 34: the same lines moved into a method were found only with --full-parse).
  EXPECT_TRUE(plan_covers(*plan, text.find("class Model")));
  EXPECT_FALSE(plan_covers(*plan, text.find("class Apart")));
  EXPECT_TRUE(plan_covers(*plan, text.find("def eps")));
  EXPECT_FALSE(plan_covers(*plan, text.find("def big_eps")));
}

TEST(RegionPlan, AModelClassIsKeptWhereModuleStatementsFeedItTheFirstHalfThroughOthers) {
  // The dataset (a size source), the loader over it, the loop handing its batches to the model:
  // the class is read where the loop uses its instance, three statements from the source.
  const std::string text =
      "import torch\nimport torch.nn as nn\nimport torchvision\n"
      "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
      "        self.conv = nn.Conv2d(1, 8, 30)\n    def forward(self, x):\n        return self.conv(x)\n"
      "class Unused(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
      "        self.conv = nn.Conv2d(1, 8, 3)\n    def forward(self, x):\n        return self.conv(x)\n"
      "data = torchvision.datasets.MNIST('d', transform=torchvision.transforms.ToTensor())\n"
      "loader = torch.utils.data.DataLoader(data, batch_size=4)\n"
      "batches = iter(loader)\n"
      "net = Net()\n"
      "for images, labels in batches:\n    net(images)\n"
      "def unrelated():\n    return 1\n";
  const std::vector<std::string> shape{std::string(kShapeFamily)};
  const auto pairs = python::relevance_of(ApiTable::builtin(), shape).pairs;
  const auto plan = python::plan_parse(text, {}, {}, {}, pairs, false);
  ASSERT_TRUE(plan.has_value());
  EXPECT_TRUE(plan_covers(*plan, text.find("class Net")));
  EXPECT_FALSE(plan_covers(*plan, text.find("class Unused")));
  EXPECT_FALSE(plan_covers(*plan, text.find("def unrelated")));
}

// A pair declares how a method may hold it: its second half called there (not named in an
// isinstance test), and whether __init__ counts (it builds layers and applies none).
TEST(RegionPlan, MethodPairsDeclareCalledHalvesAndWhetherInitCounts) {
  const std::string text =
      "import torch\nimport torch.nn as nn\n"
      "class Weights(nn.Module):\n    def _init_weights(self, m):\n"
      "        if isinstance(m, (nn.Conv1d, nn.Linear)):\n            m.bias.data = torch.tensor(0.0)\n"
      "class Applies(nn.Module):\n    def run(self, x):\n        return nn.Conv2d(3, 8, 3)(x.long())\n"
      "class Builds(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
      "        self.conv = nn.Conv2d(3, 8, 3)\n        self.ids = torch.tensor([1, 2])\n";
  const python::WordPair pair{.first = {"long", "tensor"}, .second = {"Conv1d", "Conv2d"},
                              .second_called_in_methods = true, .init_counts = false};
  const auto plan = python::plan_parse(text, {}, {}, {}, {pair}, false);
  ASSERT_TRUE(plan.has_value());
  EXPECT_FALSE(plan_covers(*plan, text.find("class Weights")));
  EXPECT_TRUE(plan_covers(*plan, text.find("class Applies")));
  EXPECT_FALSE(plan_covers(*plan, text.find("class Builds")));
  // The prefilter's reading of one class agrees.
  const auto chunks = python::split_top_level(text);
  ASSERT_TRUE(chunks.has_value());
  std::vector<std::string> none;
  for (const auto& chunk : *chunks) {
    if (!chunk.is_class) continue;
    EXPECT_EQ(python::a_method_may_hold(text, chunk, pair, false, false, none), chunk.name == "Applies") << chunk.name;
  }
}

}  // namespace
}  // namespace cudnnlint
