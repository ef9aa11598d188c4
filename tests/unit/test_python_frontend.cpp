// The Python front-end: import resolution, argument binding, constant folding (every route),
// partials, subclasses, attribute assignment, and what must never produce facts.
#include "python_test_helpers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cudnnlint {
namespace {

using testing::analyze_source;
using testing::facts_of;

// The single fact of `text`, with its API and eps value checked by the caller.
NormalizationFact only_fact(const std::string& text) {
  const FileFacts facts = facts_of(text);
  EXPECT_EQ(facts.normalizations.size(), 1u) << text;
  if (facts.normalizations.empty()) return {};
  return facts.normalizations.front();
}

double eps_of(const std::string& text) {
  const NormalizationFact fact = only_fact(text);
  EXPECT_EQ(fact.eps.source, ValueSource::Explicit) << text;
  return fact.eps.value ? fact.eps.value->value : -12345.0;
}

// ---- import resolution ----------------------------------------------------------------------

struct ImportCase {
  const char* code;
  const char* api;
};

class ImportResolution : public ::testing::TestWithParam<ImportCase> {};

TEST_P(ImportResolution, ResolvesToCanonicalApi) {
  const NormalizationFact fact = only_fact(GetParam().code);
  EXPECT_EQ(fact.api, GetParam().api) << GetParam().code;
  EXPECT_EQ(fact.eps.source, ValueSource::Explicit);
  ASSERT_TRUE(fact.eps.value.has_value());
  EXPECT_DOUBLE_EQ(fact.eps.value->value, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(
    AllForms, ImportResolution,
    ::testing::Values(
        ImportCase{"import torch.nn as nn\nnn.BatchNorm2d(3, eps=1e-6)\n", "torch.nn.BatchNorm2d"},
        ImportCase{"from torch import nn\nnn.BatchNorm1d(3, eps=1e-6)\n", "torch.nn.BatchNorm1d"},
        ImportCase{"from torch.nn import BatchNorm2d as BN\nBN(3, eps=1e-6)\n", "torch.nn.BatchNorm2d"},
        ImportCase{"import torch\ntorch.nn.BatchNorm3d(3, eps=1e-6)\n", "torch.nn.BatchNorm3d"},
        ImportCase{"import torch.nn\ntorch.nn.SyncBatchNorm(3, eps=1e-6)\n", "torch.nn.SyncBatchNorm"},
        ImportCase{"import torch.nn.functional as F\nF.batch_norm(x, m, v, eps=1e-6)\n",
                   "torch.nn.functional.batch_norm"},
        ImportCase{"from torch.nn import functional as F\nF.batch_norm(x, m, v, eps=1e-6)\n",
                   "torch.nn.functional.batch_norm"},
        ImportCase{"import tensorflow as tf\ntf.keras.layers.BatchNormalization(epsilon=1e-6)\n",
                   "tensorflow.keras.layers.BatchNormalization"},
        ImportCase{"from tensorflow.keras import layers\nlayers.BatchNormalization(epsilon=1e-6)\n",
                   "tensorflow.keras.layers.BatchNormalization"},
        ImportCase{"from tensorflow import keras\nkeras.layers.BatchNormalization(epsilon=1e-6)\n",
                   "tensorflow.keras.layers.BatchNormalization"},
        ImportCase{"import keras\nkeras.layers.BatchNormalization(epsilon=1e-6)\n",
                   "keras.layers.BatchNormalization"},
        ImportCase{"import tensorflow.compat.v1 as tf\ntf.layers.batch_normalization(x, epsilon=1e-6)\n",
                   "tensorflow.compat.v1.layers.batch_normalization"},
        ImportCase{"import flax.linen as nn\nnn.BatchNorm(epsilon=1e-6)\n", "flax.linen.BatchNorm"},
        ImportCase{"from flax import linen as nn\nnn.BatchNorm(epsilon=1e-6)\n", "flax.linen.BatchNorm"},
        ImportCase{"from flax import nnx\nnnx.BatchNorm(8, epsilon=1e-6, rngs=r)\n", "flax.nnx.BatchNorm"},
        ImportCase{"import haiku as hk\nhk.BatchNorm(True, True, 0.9, 1e-6)\n", "haiku.BatchNorm"},
        ImportCase{"from mxnet.gluon import nn\nnn.BatchNorm(epsilon=1e-6)\n", "mxnet.gluon.nn.BatchNorm"},
        ImportCase{"import mxnet as mx\nmx.gluon.nn.BatchNorm(1, 0.9, 1e-6)\n", "mxnet.gluon.nn.BatchNorm"},
        ImportCase{"from mxnet import gluon\ngluon.nn.BatchNorm(epsilon=1e-6)\n", "mxnet.gluon.nn.BatchNorm"},
        ImportCase{"import paddle\npaddle.nn.BatchNorm2D(64, epsilon=1e-6)\n", "paddle.nn.BatchNorm2D"},
        ImportCase{"import paddle.nn as nn\nnn.BatchNorm2D(64, 0.9, 1e-6)\n", "paddle.nn.BatchNorm2D"},
        ImportCase{"from torch.nn import *\nBatchNorm2d(3, eps=1e-6)\n", "torch.nn.BatchNorm2d"},
        ImportCase{"def f():\n    import torch.nn as nn\n    return nn.BatchNorm2d(3, eps=1e-6)\n",
                   "torch.nn.BatchNorm2d"},
        ImportCase{"import torch.nn as nn\nnorm = nn.BatchNorm2d\nnorm(3, eps=1e-6)\n", "torch.nn.BatchNorm2d"}));

// named_children walks a node's children with one cursor; it must give what indexing gives, for
// every node: comments among arguments, dictionary entries, decorators, nested brackets.
TEST(Syntax, NamedChildrenAreTheIndexedNamedChildren) {
  const std::string text =
      "@register\ndef f(a, *args, b=1, **kw):\n    cfgs = {'a': _cfg(url='', eps=1e-5),  # one\n"
      "            'b': dict(x=[1, (2, 3)], **kw)}\n    return g(a,  # why\n             b, *args)\n"
      "class C(nn.Module, metaclass=M):\n    x: int = 3\n    def __init__(self):\n"
      "        self.bn = nn.BatchNorm2d(8, eps=(y := 1e-5))\n";
  const python::Parser parser;
  const python::TreePtr tree = parser.parse(text);
  std::size_t nodes = 0;
  std::vector<TSNode> pending{ts_tree_root_node(tree.get())};
  while (!pending.empty()) {
    const TSNode node = pending.back();
    pending.pop_back();
    std::vector<TSNode> indexed;
    for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i) indexed.push_back(ts_node_named_child(node, i));
    const std::vector<TSNode> walked = python::named_children(node);
    ASSERT_EQ(walked.size(), indexed.size()) << ts_node_type(node);
    for (std::size_t i = 0; i < walked.size(); ++i) EXPECT_TRUE(ts_node_eq(walked[i], indexed[i])) << ts_node_type(node);
    pending.insert(pending.end(), indexed.begin(), indexed.end());
    ++nodes;
  }
  EXPECT_GT(nodes, 80u);
  EXPECT_TRUE(python::named_children(TSNode{}).empty());
}

// The body of the first statement of a parsed module, a `def`.
TSNode first_function_body(const python::TreePtr& tree) {
  const TSNode function = ts_node_named_child(ts_tree_root_node(tree.get()), 0);
  return ts_node_child_by_field_name(function, "body", 4);
}

// The statements a block runs once each: with blocks and re-raising try blocks are entered, a
// loop over range(1) too; branches, other loops and a try that swallows stay whole.
TEST(Syntax, StraightLineStatementsEnterBlocksThatRunOnce) {
  const std::string text =
      "def f(x):\n    a = 1\n    with torch.no_grad():\n        b = 2\n        try:\n            c = 3\n"
      "        except ValueError:\n            raise\n        finally:\n            d = 4\n"
      "    for _ in range(1):\n        e = 5\n    for _ in range(2):\n        g = 6\n"
      "    try:\n        h = 7\n    except Exception:\n        h = 0\n    if x:\n        i = 8\n    return x\n";
  const python::TreePtr tree = python::Parser().parse(text);
  const TSNode body = first_function_body(tree);
  std::vector<std::string> got;
  for (const TSNode statement : python::straight_line_statements(body, text)) {
    const std::string_view line = python::node_text(statement, text);
    got.emplace_back(line.substr(0, line.find('\n')));
  }
  const std::vector<std::string> expected{"a = 1", "b = 2", "c = 3", "d = 4", "e = 5", "for _ in range(2):",
                                          "try:", "if x:", "return x"};
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(python::straight_line_statements(TSNode{}, text).empty());
}

// The blocks straight_line_statements enters are the ones block_runs_once names, and no other.
TEST(Syntax, BlockRunsOnceOnlyForWithReraisingTryAndRangeOne) {
  const std::string text =
      "def f(x):\n    with a:\n        b = 1\n    try:\n        c = 2\n    except E:\n        raise\n"
      "    for _ in range(1):\n        d = 3\n    for _ in range(2):\n        e = 4\n"
      "    try:\n        g = 5\n    except E:\n        g = 0\n    if x:\n        h = 6\n";
  const python::TreePtr tree = python::Parser().parse(text);
  const TSNode body = first_function_body(tree);
  std::vector<bool> got;
  for (uint32_t i = 0; i < ts_node_named_child_count(body); ++i) {
    const TSNode statement = ts_node_named_child(body, i);
    got.push_back(python::block_runs_once(ts_node_child_by_field_name(statement, "body", 4), text));
  }
  EXPECT_EQ(got, (std::vector<bool>{true, true, true, false, false, false}));
  EXPECT_FALSE(python::block_runs_once(body, text));  // a function's body runs once per call, not here
}

TEST(ImportResolutionNegative, UnknownModulesAndLocalNamesGiveNoFacts) {
  EXPECT_TRUE(facts_of("import mylib\nmylib.BatchNorm2d(3, eps=1e-6)\n").normalizations.empty());
  EXPECT_TRUE(facts_of("BatchNorm2d(3, eps=1e-6)\n").normalizations.empty());
  EXPECT_TRUE(facts_of("from . import nn\nnn.BatchNorm2d(3, eps=1e-6)\n").normalizations.empty());
  // LayerNorm is not a batch normalization.
  EXPECT_TRUE(facts_of("import torch.nn as nn\nnn.LayerNorm(3, eps=1e-12)\n").normalizations.empty());
}

TEST(ImportResolutionAliases, ModulePathAliasesAndSpelling) {
  // The fact names what the code reached, and keeps how the code spelled it.
  const NormalizationFact fact =
      only_fact("import torch.nn.modules.batchnorm as bnm\nbnm.BatchNorm2d(3, eps=1e-6)\n");
  EXPECT_EQ(fact.api, "torch.nn.modules.batchnorm.BatchNorm2d");
  EXPECT_EQ(fact.spelled_as, "bnm.BatchNorm2d");
}

TEST(Frameworks, DetectedFromImports) {
  const FileFacts facts = facts_of("import torch\nimport tensorflow as tf\nfrom flax import linen\nimport numpy\n");
  EXPECT_EQ(facts.frameworks, (std::vector<std::string>{"torch", "tensorflow", "flax"}));
}

// ---- argument binding -----------------------------------------------------------------------

TEST(ArgumentBinding, ByPositionPerApi) {
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nnn.BatchNorm2d(64, 1e-3)\n"), 1e-3);
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nnn.LazyBatchNorm2d(2e-3)\n"), 2e-3);
  EXPECT_DOUBLE_EQ(eps_of("from tensorflow.keras import layers\nlayers.BatchNormalization(-1, 0.99, 3e-3)\n"), 3e-3);
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn.functional as F\nF.batch_norm(x, m, v, w, b, True, 0.1, 4e-3)\n"), 4e-3);
  // torch.batch_norm orders weight/bias before the running stats, but eps is index 7 as well.
  EXPECT_DOUBLE_EQ(eps_of("import torch\ntorch.batch_norm(x, w, b, m, v, True, 0.1, 5e-3, True)\n"), 5e-3);
  EXPECT_DOUBLE_EQ(eps_of("import tensorflow as tf\ntf.nn.batch_normalization(x, m, v, o, s, 6e-3)\n"), 6e-3);
}

TEST(ArgumentBinding, TooFewPositionalsMeanTheDefault) {
  const NormalizationFact fact = only_fact("import torch.nn as nn\nnn.BatchNorm2d(64)\n");
  EXPECT_EQ(fact.eps.source, ValueSource::Default);
  ASSERT_TRUE(fact.eps.value.has_value());
  EXPECT_DOUBLE_EQ(fact.eps.value->value, 1e-5);
  const NormalizationFact keras = only_fact("from tensorflow.keras import layers\nlayers.BatchNormalization()\n");
  ASSERT_TRUE(keras.eps.value.has_value());
  EXPECT_DOUBLE_EQ(keras.eps.value->value, 1e-3);
}

TEST(ArgumentBinding, SplatsMakeEpsUnresolvable) {
  EXPECT_EQ(only_fact("import torch.nn as nn\nnn.BatchNorm2d(*args)\n").eps.source, ValueSource::Unresolvable);
  EXPECT_EQ(only_fact("import torch.nn as nn\nnn.BatchNorm2d(64, **kw)\n").eps.source, ValueSource::Unresolvable);
  // A splat after eps's position does not hide it.
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nnn.BatchNorm2d(64, 1e-3, *rest)\n"), 1e-3);
  // An explicit keyword wins over **kwargs.
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nnn.BatchNorm2d(64, eps=1e-4, **kw)\n"), 1e-4);
}

TEST(ArgumentBinding, NonConstantEpsIsRecordedAsSuch) {
  const NormalizationFact fact = only_fact("import torch.nn as nn\ndef f(e):\n    return nn.BatchNorm2d(3, eps=e)\n");
  EXPECT_EQ(fact.eps.source, ValueSource::NotConstant);
  EXPECT_TRUE(fact.eps.location.has_value());
}

TEST(ArgumentBinding, LiteralArgumentsAreKept) {
  const NormalizationFact fact =
      only_fact("from tensorflow.keras import layers\nlayers.BatchNormalization(epsilon=1e-6, fused=False, dtype='float16')\n");
  ASSERT_TRUE(fact.literal_args.count("fused"));
  EXPECT_EQ(fact.literal_args.at("fused").boolean, false);
  EXPECT_EQ(fact.literal_args.at("dtype").text, "float16");
}

// ---- constant folding -----------------------------------------------------------------------

struct SpellingCase {
  const char* expression;
  double value;
};

class LiteralSpelling : public ::testing::TestWithParam<SpellingCase> {};

TEST_P(LiteralSpelling, FoldsToTheNumber) {
  const std::string code = std::string("import torch.nn as nn\nnn.BatchNorm2d(3, eps=") + GetParam().expression + ")\n";
  EXPECT_DOUBLE_EQ(eps_of(code), GetParam().value) << GetParam().expression;
}

INSTANTIATE_TEST_SUITE_P(EverySpelling, LiteralSpelling,
                         ::testing::Values(SpellingCase{"1e-6", 1e-6}, SpellingCase{".000001", 1e-6},
                                           SpellingCase{"0.000_001", 1e-6}, SpellingCase{"1E-6", 1e-6},
                                           SpellingCase{"10**-6", 1e-6}, SpellingCase{"1/1e6", 1e-6},
                                           SpellingCase{"-1e-5", -1e-5}, SpellingCase{"+1e-5", 1e-5},
                                           SpellingCase{"(1e-5)", 1e-5}, SpellingCase{"0", 0.0},
                                           SpellingCase{"0.", 0.0}, SpellingCase{"0x0", 0.0},
                                           SpellingCase{"1e-5 * 0.1", 1e-6}, SpellingCase{"1e-5 - 2e-5", -1e-5},
                                           SpellingCase{"float(1e-6)", 1e-6}, SpellingCase{"2 ** -3", 0.125}));

TEST(ConstantFolding, KnowsAPythonIntFromAFloat) {
  const auto kind = [](const std::string& expression) {
    const NormalizationFact fact =
        only_fact("import torch.nn as nn\nTWO = 2\nnn.BatchNorm2d(3, eps=" + expression + ")\n");
    EXPECT_TRUE(fact.eps.value.has_value()) << expression;
    return fact.eps.value ? fact.eps.value->kind : NumberKind::Unknown;
  };
  for (const char* expression : {"2", "0x10", "TWO", "TWO * 3 - 1", "7 // 2", "2 ** 3", "int(2.5)", "max(1, TWO)", "-TWO"})
    EXPECT_EQ(kind(expression), NumberKind::Integer) << expression;
  for (const char* expression : {"2.0", "1e-5", "TWO / 2", "TWO * 0.5", "2 ** -1", "float(TWO)", "float('inf')", "7.0 // 2"})
    EXPECT_EQ(kind(expression), NumberKind::Float) << expression;
}

TEST(ConstantFolding, ConfigTextKinds) {
  for (const char* text : {"2", "-1", "+32", "1_000", " 64 "}) EXPECT_EQ(number_kind_of_text(text), NumberKind::Integer) << text;
  for (const char* text : {"2.0", "1e-5", "1E5", ".5", "-.inf", "nan", "3.", "1.0e+3"})
    EXPECT_EQ(number_kind_of_text(text), NumberKind::Float) << text;
  for (const char* text : {"", "abc", "0x10", "true", "-", "e"}) EXPECT_EQ(number_kind_of_text(text), NumberKind::Unknown) << text;
}

TEST(ConstantFolding, NotConstants) {
  for (const char* expression : {"1j", "1 / 0", "x", "cfg.eps", "eps()", "'1e-6'", "1 if a else 2"}) {
    const std::string code = std::string("import torch.nn as nn\nnn.BatchNorm2d(3, eps=") + expression + ")\n";
    EXPECT_EQ(only_fact(code).eps.source, ValueSource::NotConstant) << expression;
  }
}

TEST(ConstantFolding, ModuleConstantWithProvenance) {
  const NormalizationFact fact = only_fact("import torch.nn as nn\n\nEPS = 1e-6\nnn.BatchNorm2d(3, eps=EPS)\n");
  ASSERT_TRUE(fact.eps.value.has_value());
  EXPECT_DOUBLE_EQ(fact.eps.value->value, 1e-6);
  EXPECT_EQ(fact.eps.value->spelling, "EPS");
  ASSERT_EQ(fact.eps.value->provenance.size(), 1u);
  EXPECT_EQ(fact.eps.value->provenance[0].where.range.begin.line, 3u);
  EXPECT_NE(fact.eps.value->provenance[0].what.find("EPS = 1e-6"), std::string::npos);
}

TEST(ConstantFolding, ChainedConstantsRecordEveryDefinition) {
  const NormalizationFact fact =
      only_fact("import torch.nn as nn\nBASE = 1e-5\nEPS = BASE / 10\nclass M:\n    def f(self):\n"
                "        return nn.BatchNorm2d(3, eps=EPS)\n");
  ASSERT_TRUE(fact.eps.value.has_value());
  EXPECT_DOUBLE_EQ(fact.eps.value->value, 1e-6);
  ASSERT_EQ(fact.eps.value->provenance.size(), 2u);
  EXPECT_EQ(fact.eps.value->provenance[0].where.range.begin.line, 2u);  // definition first
  EXPECT_EQ(fact.eps.value->provenance[1].where.range.begin.line, 3u);
}

TEST(ConstantFolding, ConstantDefinedAfterUseAtModuleLevel) {
  // Functions run after the module body, so a constant defined below them is still seen.
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\ndef f():\n    return nn.BatchNorm2d(3, eps=EPS)\nEPS = 0.0\n"), 0.0);
}

TEST(ConstantFolding, LocalAndClassScopes) {
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\ndef f():\n    e = 1e-7\n    return nn.BatchNorm2d(3, eps=e)\n"), 1e-7);
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nclass M:\n    E = 1e-7\n    bn = nn.BatchNorm2d(3, eps=E)\n"), 1e-7);
  // A class attribute is not visible by bare name inside a method.
  EXPECT_EQ(only_fact("import torch.nn as nn\nclass M:\n    E = 1e-7\n    def f(self):\n"
                      "        return nn.BatchNorm2d(3, eps=E)\n")
                .eps.source,
            ValueSource::NotConstant);
}

TEST(ConstantFolding, ReassignedNamesAndParametersAreNotConstants) {
  EXPECT_EQ(only_fact("import torch.nn as nn\nEPS = 1e-6\nEPS = 1e-3\nnn.BatchNorm2d(3, eps=EPS)\n").eps.source,
            ValueSource::NotConstant);
  EXPECT_EQ(only_fact("import torch.nn as nn\nEPS = 1e-6\nEPS += 1\nnn.BatchNorm2d(3, eps=EPS)\n").eps.source,
            ValueSource::NotConstant);
  EXPECT_EQ(only_fact("import torch.nn as nn\ndef f(eps=1e-6):\n    return nn.BatchNorm2d(3, eps=eps)\n").eps.source,
            ValueSource::NotConstant);
  EXPECT_EQ(only_fact("import torch.nn as nn\nfor EPS in (1, 2):\n    nn.BatchNorm2d(3, eps=EPS)\n").eps.source,
            ValueSource::NotConstant);
  EXPECT_EQ(only_fact("import torch.nn as nn\nEPS = 1e-6\ndef g():\n    global EPS\n    EPS = 1\n"
                      "nn.BatchNorm2d(3, eps=EPS)\n")
                .eps.source,
            ValueSource::NotConstant);
  // `nonlocal` rebinds an enclosing function's name, not the module's: EPS stays a constant there.
  EXPECT_EQ(only_fact("import torch.nn as nn\nEPS = 1e-6\ndef outer():\n    EPS = 1\n    def inner():\n"
                      "        nonlocal EPS\n        EPS = 2\n    return inner\nnn.BatchNorm2d(3, eps=EPS)\n")
                .eps.source,
            ValueSource::Explicit);
  // ...but the enclosing function's EPS is not a constant.
  EXPECT_EQ(only_fact("import torch.nn as nn\ndef outer():\n    EPS = 1e-6\n    def inner():\n"
                      "        nonlocal EPS\n        EPS = 2\n    return nn.BatchNorm2d(3, eps=EPS)\n")
                .eps.source,
            ValueSource::NotConstant);
  // A local assignment shadows the module constant.
  EXPECT_EQ(only_fact("import torch.nn as nn\nEPS = 1e-6\ndef f(cfg):\n    EPS = cfg.eps\n"
                      "    return nn.BatchNorm2d(3, eps=EPS)\n")
                .eps.source,
            ValueSource::NotConstant);
}

TEST(ConstantFolding, LambdaParametersAndComprehensionTargetsShadowConstants) {
  const FileFacts facts = facts_of(
      "import torch.nn as nn\neps = 0.0\nmake = lambda eps: nn.BatchNorm2d(3, eps=eps)\n"
      "layers = [nn.BatchNorm2d(c, eps=eps) for c, eps in cfg]\n"
      "ok = lambda c, e=1: nn.BatchNorm2d(c, eps=eps)\n");
  ASSERT_EQ(facts.normalizations.size(), 3u);
  EXPECT_EQ(facts.normalizations[0].eps.source, ValueSource::NotConstant);
  EXPECT_EQ(facts.normalizations[1].eps.source, ValueSource::NotConstant);
  // Only the lambda's own parameters shadow: `eps` is still the module constant here.
  EXPECT_EQ(facts.normalizations[2].eps.source, ValueSource::Explicit);
}

TEST(ConstantFolding, UnderflowIsZeroAsInPython) {
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nnn.BatchNorm2d(3, eps=1e-400)\n"), 0.0);
  EXPECT_GT(eps_of("import torch.nn as nn\nnn.BatchNorm2d(3, eps=5e-324)\n"), 0.0);
  // A float literal past DBL_MAX is inf in Python; an integer that large is exact, not a double.
  EXPECT_TRUE(std::isinf(eps_of("import torch.nn as nn\nnn.BatchNorm2d(3, eps=1e400)\n")));
  EXPECT_EQ(only_fact("import torch.nn as nn\nnn.BatchNorm2d(3, eps=1" + std::string(400, '0') + ")\n").eps.source,
            ValueSource::NotConstant);
}

TEST(ConstantFolding, NonFiniteValuesFoldAsPythonComputesThem) {
  const std::string head = "import math\nimport numpy as np\nimport torch\nfrom math import inf\nimport torch.nn as nn\n";
  const auto eps = [&](const std::string& expression) {
    return eps_of(head + "nn.BatchNorm2d(3, eps=" + expression + ")\n");
  };
  EXPECT_TRUE(std::isnan(eps("float('nan')")));
  EXPECT_TRUE(std::isnan(eps("float(\"-NaN\")")));
  EXPECT_EQ(eps("float(' +inf ')"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(eps("float('-infinity')"), -std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(eps("float('1e-5')"), 1e-5);
  EXPECT_EQ(eps("math.inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(eps("-math.inf"), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(eps("np.nan")));
  EXPECT_TRUE(std::isnan(eps("torch.nan")));
  EXPECT_EQ(eps("2 * inf"), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(eps("inf - inf")));
  // What Python raises for, or cannot be a number, does not fold.
  for (const char* raises : {"float('1e-5x')", "float('0x10')", "float(f'nan')", "float(b'nan')", "10.0 ** 400",
                             "1e308 * 10", "int(float('inf'))", "int('5')", "math.pi", "np.inf_value"})
    EXPECT_NE(only_fact(head + "nn.BatchNorm2d(3, eps=" + raises + ")\n").eps.source, ValueSource::Explicit) << raises;
  // A parameter named like the module shadows it.
  EXPECT_NE(only_fact(head + "def f(math):\n    return nn.BatchNorm2d(3, eps=math.inf)\n").eps.source,
            ValueSource::Explicit);
}

// Config objects whose construction's arguments set their attributes (rules/api_table.json
// config_objects; tests/probes/config_objects.py measured what each class does with them).
TEST(ConstantFolding, ConfigObjectsTakeTheirConstructionsArguments) {
  const std::string head =
      "import dataclasses\nfrom dataclasses import dataclass, field\nfrom types import SimpleNamespace\n"
      "from typing import NamedTuple\nimport easydict\nimport ml_collections\nimport pydantic\nimport torch.nn as nn\n";
  const std::string fields = "    channels: int = 64\n    bn_eps: float = 1e-5\n";
  const std::string dataclass = "@dataclass\nclass C:\n" + fields;
  const auto eps = [&](const std::string& code) { return only_fact(head + code + "nn.BatchNorm2d(3, eps=cfg.bn_eps)\n"); };
  const auto folds_to = [&](const std::string& code, double value) {
    const NormalizationFact fact = eps(code);
    ASSERT_EQ(fact.eps.source, ValueSource::Explicit) << code;
    EXPECT_DOUBLE_EQ(fact.eps.value->value, value) << code;
  };
  folds_to(dataclass + "cfg = C(bn_eps=0.5)\n", 0.5);
  folds_to(dataclass + "cfg = C(8, 0.5)\n", 0.5);
  folds_to(dataclass + "cfg = C(8)\n", 1e-5);
  folds_to("@dataclasses.dataclass(frozen=True)\nclass C:\n    \"\"\"Doc.\"\"\"\n    bn_eps: float = field(default=0.25)\n"
           "cfg = C()\n", 0.25);
  folds_to("class C(NamedTuple):\n" + fields + "cfg = C(8, 0.5)\n", 0.5);
  folds_to("class C(pydantic.BaseModel):\n" + fields + "cfg = C(bn_eps=0.5)\n", 0.5);
  folds_to("cfg = SimpleNamespace(bn_eps=0.5)\n", 0.5);
  folds_to("cfg = easydict.EasyDict({'bn_eps': 0.5})\n", 0.5);
  folds_to("cfg = ml_collections.ConfigDict(dict(bn_eps=0.5))\n", 0.5);
  const NormalizationFact passed =
      only_fact(head + dataclass + "def build(cfg):\n    return nn.BatchNorm2d(3, eps=cfg.bn_eps)\nbuild(C(bn_eps=0.5))\n");
  ASSERT_TRUE(passed.eps.value.has_value());
  EXPECT_DOUBLE_EQ(passed.eps.value->value, 0.5);
  // What Python refuses, what a call or the code may change, and what a position cannot tell.
  for (const std::string& code : std::vector<std::string>{
           dataclass + "cfg = C(8, 0.5)\ncfg.bn_eps = 1e-3\n",                            // written again
           dataclass + "cfg = C(*args)\n",                                                 // a splat
           "@dataclass\nclass B:\n    channels: int = 64\n@dataclass\nclass C(B):\n    bn_eps: float = 1e-5\n"
           "cfg = C(0.5)\n",                                                               // a base's fields first
           "@dataclasses.dataclass\nclass C:\n    channels: int = 64\n    _: dataclasses.KW_ONLY\n"
           "    bn_eps: float = 1e-5\ncfg = C(8, 0.5)\n",                                  // keyword-only
           "@dataclass\nclass C:\n    bn_eps: float = 0.5\n    def __post_init__(self):\n        pass\ncfg = C()\n",
           "@dataclass\nclass C:\n    bn_eps: float = field(default_factory=lambda: 0.5)\ncfg = C()\n",
           "@dataclass\nclass C:\n    bn_eps: dataclasses.InitVar[float] = 0.5\ncfg = C(0.5)\n",
           "class C(pydantic.BaseModel):\n" + fields + "cfg = C(8, 0.5)\n",                // no positions
           "cfg = SimpleNamespace({'bn_eps': 0.5})\n",                                    // a TypeError
           "cfg = ml_collections.ConfigDict(bn_eps=0.5)\n",                               // a TypeError
           "cfg = easydict.EasyDict(defaults)\n",                                          // made elsewhere
           "cfg = easydict.EasyDict({'bn_eps': 0.5})\ncfg.update(other)\n",
           "cfg = SimpleNamespace(bn_eps=0.5)\nsetattr(cfg, name, 1e-3)\n",
       })
    EXPECT_NE(eps(code).eps.source, ValueSource::Explicit) << code;
}

TEST(NeverCrashes, DeeplyNestedConditionsAndTargets) {
  std::string chain = "import torch.nn as nn\nfor m in mods:\n    if x";
  for (int i = 0; i < 20000; ++i) chain += " and x";
  chain += " and isinstance(m, nn.BatchNorm2d):\n        m.eps = 0\n";
  (void)facts_of(chain);  // must return; whether the far-away guard is seen is secondary
  std::string targets = "x = 1\n" + std::string(20000, '[') + "a" + std::string(20000, ']') + " = 1\n";
  (void)facts_of(targets);
  SUCCEED();
}

// ---- functools.partial ----------------------------------------------------------------------

TEST(Partial, BindsEpsAtThePartialAndRecordsLaterCalls) {
  const FileFacts facts = facts_of(
      "import functools\nimport torch.nn as nn\nBN = functools.partial(nn.BatchNorm2d, eps=1e-6)\n"
      "a = BN(64)\nb = BN(128)\n");
  ASSERT_EQ(facts.normalizations.size(), 1u);
  const NormalizationFact& fact = facts.normalizations[0];
  EXPECT_EQ(fact.origin, "functools.partial");
  EXPECT_EQ(fact.api, "torch.nn.BatchNorm2d");
  EXPECT_DOUBLE_EQ(fact.eps.value->value, 1e-6);
  ASSERT_EQ(fact.uses.size(), 2u);
  EXPECT_EQ(fact.uses[0].where.range.begin.line, 4u);
  EXPECT_EQ(fact.uses[1].where.range.begin.line, 5u);
}

TEST(Partial, FromImportAndPositionalBinding) {
  const FileFacts facts =
      facts_of("from functools import partial\nfrom torch import nn\nnorm = partial(nn.BatchNorm2d, 64, 1e-7)\n");
  ASSERT_EQ(facts.normalizations.size(), 1u);
  EXPECT_DOUBLE_EQ(facts.normalizations[0].eps.value->value, 1e-7);
}

TEST(Partial, LaterCallThatSetsEpsIsItsOwnFact) {
  const FileFacts facts = facts_of(
      "import functools\nimport torch.nn as nn\nBN = functools.partial(nn.BatchNorm2d, momentum=0.01)\n"
      "x = BN(64, eps=0.0)\ny = BN(64, 1e-4)\n");
  ASSERT_EQ(facts.normalizations.size(), 3u);
  EXPECT_EQ(facts.normalizations[0].eps.source, ValueSource::Default);
  const NormalizationFact& keyword = facts.normalizations[1];
  EXPECT_EQ(keyword.origin, "call through functools.partial");
  EXPECT_DOUBLE_EQ(keyword.eps.value->value, 0.0);
  EXPECT_EQ(keyword.eps.location->range.begin.line, 4u);
  ASSERT_FALSE(keyword.eps.value->provenance.empty());
  EXPECT_EQ(keyword.eps.value->provenance.back().where.range.begin.line, 3u);
  EXPECT_DOUBLE_EQ(facts.normalizations[2].eps.value->value, 1e-4);
}

TEST(Partial, PartialAsAnArgumentIsStillSeen) {
  const FileFacts facts = facts_of(
      "from functools import partial\nimport torch.nn as nn\nmodel = Net(norm_layer=partial(nn.BatchNorm2d, eps=1e-6))\n");
  ASSERT_EQ(facts.normalizations.size(), 1u);
  EXPECT_EQ(facts.normalizations[0].origin, "functools.partial");
}

// ---- subclasses -----------------------------------------------------------------------------

TEST(Subclass, SuperInitPassesEps) {
  const NormalizationFact fact = only_fact(
      "import torch.nn as nn\nclass MyBN(nn.BatchNorm2d):\n    def __init__(self, c):\n"
      "        super().__init__(c, eps=1e-6)\n");
  EXPECT_EQ(fact.origin, "super().__init__");
  EXPECT_DOUBLE_EQ(fact.eps.value->value, 1e-6);
}

TEST(Subclass, PositionalSuperAndExplicitBaseInit) {
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nclass A(nn.BatchNorm2d):\n    def __init__(self, c):\n"
                          "        super(A, self).__init__(c, 1e-7)\n"),
                   1e-7);
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nclass A(nn.BatchNorm2d):\n    def __init__(self, c):\n"
                          "        nn.BatchNorm2d.__init__(self, c, 1e-7)\n"),
                   1e-7);
}

TEST(Subclass, SubclassOfALocalSubclass) {
  const FileFacts facts = facts_of(
      "import torch.nn as nn\nclass Base(nn.BatchNorm2d):\n    pass\nclass Leaf(Base):\n"
      "    def __init__(self, c):\n        super().__init__(c, eps=0)\n");
  ASSERT_EQ(facts.normalizations.size(), 1u);
  EXPECT_EQ(facts.normalizations[0].api, "torch.nn.BatchNorm2d");  // the base the chain reaches
}

TEST(Subclass, OtherClassesSuperInitIsIgnored) {
  EXPECT_TRUE(facts_of("import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n"
                       "        super().__init__(eps=1e-6)\n")
                  .normalizations.empty());
}

// ---- attribute assignment -------------------------------------------------------------------

TEST(AttributeAssignment, IsinstanceLoopIdiom) {
  const NormalizationFact fact = only_fact(
      "import torch.nn as nn\nfor m in model.modules():\n    if isinstance(m, nn.BatchNorm2d):\n        m.eps = 1e-6\n");
  EXPECT_EQ(fact.origin, "attribute assignment");
  EXPECT_EQ(fact.eps_param, "m.eps");
  EXPECT_DOUBLE_EQ(fact.eps.value->value, 1e-6);
  EXPECT_EQ(fact.eps.location->range.begin.line, 4u);
}

TEST(AttributeAssignment, TupleOfClassesAndAndConditions) {
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nfor m in mods:\n    if isinstance(m, (nn.ReLU, nn.BatchNorm1d)) and m.affine:\n"
                          "        m.eps = 1e-7\n"),
                   1e-7);
  EXPECT_DOUBLE_EQ(eps_of("import torch.nn as nn\nfor m in mods:\n    if x:\n        pass\n"
                          "    elif isinstance(m, nn.BatchNorm2d):\n        m.eps = 1e-7\n"),
                   1e-7);
}

TEST(AttributeAssignment, KnownConstructedModule) {
  const FileFacts facts = facts_of(
      "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        self.bn = nn.BatchNorm2d(8)\n"
      "        self.bn.eps = 0.0\n");
  ASSERT_EQ(facts.normalizations.size(), 2u);
  EXPECT_EQ(facts.normalizations[1].origin, "attribute assignment");
  EXPECT_DOUBLE_EQ(facts.normalizations[1].eps.value->value, 0.0);
}

TEST(AttributeAssignment, NamesTheClassTheCodeUsed) {
  const FileFacts facts = facts_of(
      "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        self.n = nn.InstanceNorm2d(3)\n"
      "        self.n.eps = 0.0\nclass N(nn.InstanceNorm2d):\n    def __init__(self):\n"
      "        super().__init__(3, eps=0.0)\n");
  ASSERT_EQ(facts.normalizations.size(), 3u);
  EXPECT_EQ(facts.normalizations[1].api, "torch.nn.InstanceNorm2d");
  EXPECT_EQ(facts.normalizations[2].api, "torch.nn.InstanceNorm2d");
}

TEST(AttributeAssignment, KerasUsesEpsilonAttribute) {
  EXPECT_DOUBLE_EQ(eps_of("from tensorflow.keras import layers\nfor l in model.layers:\n"
                          "    if isinstance(l, layers.BatchNormalization):\n        l.epsilon = 1e-7\n"),
                   1e-7);
  // `.eps` is not Keras's attribute.
  EXPECT_TRUE(facts_of("from tensorflow.keras import layers\nfor l in model.layers:\n"
                       "    if isinstance(l, layers.BatchNormalization):\n        l.eps = 1e-7\n")
                  .normalizations.empty());
}

TEST(AttributeAssignment, UnknownObjectsAndOutsideTheGuardAreIgnored) {
  EXPECT_TRUE(facts_of("import torch.nn as nn\nm.eps = 1e-6\n").normalizations.empty());
  EXPECT_TRUE(facts_of("import torch.nn as nn\nfor m in mods:\n    if isinstance(m, nn.Conv2d):\n        m.eps = 1e-6\n")
                  .normalizations.empty());
  EXPECT_TRUE(facts_of("import torch.nn as nn\nfor m in mods:\n    if isinstance(m, nn.BatchNorm2d):\n        pass\n"
                       "    m.eps = 1e-6\n")
                  .normalizations.empty());
  EXPECT_TRUE(facts_of("import torch.nn as nn\nfor m in mods:\n    if isinstance(m, nn.BatchNorm2d):\n        pass\n"
                       "    else:\n        m.eps = 1e-6\n")
                  .normalizations.empty());
}

// ---- what is never code ---------------------------------------------------------------------

TEST(NeverReported, CommentsAndStrings) {
  EXPECT_TRUE(facts_of("import torch.nn as nn\n# nn.BatchNorm2d(3, eps=-1)\n").normalizations.empty());
  EXPECT_TRUE(facts_of("import torch.nn as nn\ns = 'nn.BatchNorm2d(3, eps=-1)'\n").normalizations.empty());
  EXPECT_TRUE(facts_of("import torch.nn as nn\n\"\"\"\nnn.BatchNorm2d(3, eps=-1)\n\"\"\"\n").normalizations.empty());
}

// ---- suppressions and bad syntax ------------------------------------------------------------

TEST(Suppressions, ParsedFromCommentsOnly) {
  const FileFacts facts = facts_of(
      "x = 1  # cudnnlint: ignore[bn-eps-zero, bn-eps-negative]\n"
      "y = 2  # cudnnlint: ignore\n"
      "z = 3  # noqa: bn-eps-zero\n"
      "w = 4  # noqa\n"
      "s = '# cudnnlint: ignore'\n");
  ASSERT_EQ(facts.suppressions.size(), 3u);
  EXPECT_EQ(facts.suppressions[0].line, 1u);
  EXPECT_EQ(facts.suppressions[0].rules, (std::vector<std::string>{"bn-eps-zero", "bn-eps-negative"}));
  EXPECT_EQ(facts.suppressions[1].line, 2u);
  EXPECT_TRUE(facts.suppressions[1].rules.empty());
  EXPECT_EQ(facts.suppressions[2].line, 3u);
  EXPECT_EQ(facts.suppressions[2].rules, (std::vector<std::string>{"bn-eps-zero"}));
}

TEST(SyntaxErrors, DiagnosedAndTheRestIsStillAnalysed) {
  const auto analysis = analyze_source("import torch.nn as nn\ndef broken(:\n    pass\nnn.BatchNorm2d(3, eps=-1.0)\n");
  ASSERT_EQ(analysis.diagnostics.size(), 1u);
  EXPECT_NE(analysis.diagnostics[0].message.find("syntax error"), std::string::npos);
  ASSERT_TRUE(analysis.diagnostics[0].position.has_value());
  EXPECT_EQ(analysis.diagnostics[0].position->line, 2u);
  ASSERT_EQ(analysis.facts.normalizations.size(), 1u);
  EXPECT_DOUBLE_EQ(analysis.facts.normalizations[0].eps.value->value, -1.0);
}

TEST(SyntaxErrors, AnIndentationPythonRejectsIsDiagnosedThoughTreeSitterRecovers) {
  // A dedent to a column no outer block has: tree-sitter ends the blocks and goes on with no error
  // node; Python raises IndentationError. Consistent blocks, one-line bodies and `;` give none.
  const auto misindented = analyze_source("def f(x):\n    if x:\n        y = 1\n      z = 2\n    return x\n");
  ASSERT_EQ(misindented.diagnostics.size(), 1u);
  EXPECT_NE(misindented.diagnostics[0].message.find("indentation"), std::string::npos);
  ASSERT_TRUE(misindented.diagnostics[0].position.has_value());
  EXPECT_EQ(misindented.diagnostics[0].position->line, 4u);
  EXPECT_EQ(analyze_source("x = 1\n  y = 2\n").diagnostics.size(), 1u);  // an unexpected indent
  EXPECT_TRUE(analyze_source("def f(x):\n    if x: y = 1; z = 2\n    else:\n        pass\n    return (x,\n  1)\n"
                             "class C:\n  a = 1\n  def g(self): return lambda: 1\n")
                  .diagnostics.empty());
}

TEST(Positions, Utf16AndCodePointColumns) {
  // 'é' is one code point and one UTF-16 unit, '😀' one code point and two units.
  const NormalizationFact fact = only_fact("import torch.nn as nn\ns = 'é😀'; nn.BatchNorm2d(3, eps=0)\n");
  ASSERT_TRUE(fact.eps.location.has_value());
  EXPECT_EQ(fact.eps.location->range.begin.line, 2u);
  EXPECT_EQ(fact.eps.location->range.begin.column, 33u);
  EXPECT_EQ(fact.eps.location->range.begin.column_utf16, 34u);
}

TEST(Prefilter, TokensCoverEveryPythonApiLeafOfEachFamily) {
  const ApiTable& table = ApiTable::builtin();
  for (const std::string family : {"normalization", "convolution"}) {
    const std::vector<std::string> families{family};
    const auto tokens = table.trigger_tokens(families);
    for (const auto& name : table.names_of(family)) {
      if (name.find("::") != std::string::npos || table.find(name)->framework == "cudnn") continue;  // clang's
      const std::string leaf = name.substr(name.rfind('.') + 1);
      EXPECT_TRUE(python::may_contain_any(leaf, tokens)) << name;
    }
  }
  const std::vector<std::string> normalization{"normalization"};
  const auto tokens = table.trigger_tokens(normalization);
  EXPECT_FALSE(python::may_contain_any("import torch\nx = torch.zeros(3)\neps = 1e-6\n", tokens));
  // A family's tokens are its own: a file with only convolutions is not parsed for batch norm.
  EXPECT_FALSE(python::may_contain_any("self.conv = nn.Conv2d(3, 8, 3)\n", tokens));
  // mmcv registry names, quoted as a config dict writes them.
  EXPECT_TRUE(python::may_contain_any("norm_cfg = dict(type='SyncBN')\n", tokens));
}

}  // namespace
}  // namespace cudnnlint

namespace cudnnlint {
namespace {

// The whole-text reads the extractors declare (ExtractorRelevance), in their order: the
// TensorFlow import, the spellings present (shape: Sequential, Input(, def forward,
// image_data_format; dtype: the default-dtype and autocast switches, `import `), the
// mixed_float16 lines, the import lines. Two texts with the same features and statements give the
// same facts (the language server's parts key).
TEST(WholeTextFeatures, AreTheExtractorsDeclaredReadsInOrder) {
  const std::string text =
      "import tensorflow as tf\nimport torch\nm = Sequential()\n"
      "tf.keras.mixed_precision.set_global_policy(\"mixed_float16\")\n";
  EXPECT_EQ(python::whole_text_features(text),
            "T1000000001|tf.keras.mixed_precision.set_global_policy(\"mixed_float16\")|import tensorflow as tf"
            "|import torch");
  EXPECT_EQ(python::whole_text_features("x = 1\n"), "-0000000000");
}

}  // namespace
}  // namespace cudnnlint
