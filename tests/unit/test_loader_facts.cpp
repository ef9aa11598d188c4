// The loader extractor on inline sources: which calls are loaders, how the batch size is read
// (a division keeps both operands, guards are found), and the dataset sizes the code makes plain.
#include "python_test_helpers.h"

#include <gtest/gtest.h>

namespace cudnnlint {
namespace {

FileFacts loader_facts(const std::string& text) {
  python::PythonOptions options = testing::first_pass_options(python::ParseMode::Full);
  options.families = {std::string(kLoaderFamily)};
  const SourceFile file("train.py", text);
  const python::Parser parser;
  return python::analyze_python(file, ApiTable::builtin(), parser, options).facts;
}

TEST(LoaderFacts, TorchLoadersWithTheirBatchSizeDropLastAndDataset) {
  const FileFacts facts = loader_facts(
      "import torch\nfrom torch.utils.data import DataLoader, TensorDataset, Subset\n"
      "ds = TensorDataset(torch.randn(10, 3))\n"
      "a = DataLoader(ds, batch_size=16, drop_last=True)\n"
      "b = DataLoader(Subset(ds, range(2, 8)), 4)\n"
      "c = DataLoader(ds, batch_size=None)\n");
  ASSERT_EQ(facts.loaders.size(), 3u);
  const LoaderFact& a = facts.loaders[0];
  EXPECT_EQ(a.api, "torch.utils.data.DataLoader");
  ASSERT_TRUE(a.batch.value);
  EXPECT_EQ(a.batch.value->value, 16);
  ASSERT_TRUE(a.drop_last);
  EXPECT_TRUE(*a.drop_last);
  ASSERT_TRUE(a.dataset_size);
  EXPECT_EQ(a.dataset_size->value, 10);
  ASSERT_TRUE(facts.loaders[1].dataset_size);
  EXPECT_EQ(facts.loaders[1].dataset_size->value, 6);
  ASSERT_TRUE(facts.loaders[1].drop_last);
  EXPECT_FALSE(*facts.loaders[1].drop_last);  // the default
  EXPECT_TRUE(facts.loaders[2].batch_none);
}

TEST(LoaderFacts, DivisionKeepsBothOperandsAndFindsGuards) {
  const FileFacts facts = loader_facts(
      "from torch.utils.data import DataLoader\nimport torch.distributed as dist\nB = 8\nN = 16\n"
      "def f(ds):\n    bs = B // N\n    return DataLoader(ds, batch_size=bs)\n"
      "def g(ds):\n    assert B >= N\n    return DataLoader(ds, batch_size=int(B / N))\n"
      "def h(ds):\n    return DataLoader(ds, batch_size=B // dist.get_world_size())\n");
  ASSERT_EQ(facts.loaders.size(), 3u);
  const LoaderFact& f = facts.loaders[0];
  EXPECT_EQ(f.division, "B // N");
  ASSERT_TRUE(f.batch.value && f.divisor.value);
  EXPECT_EQ(f.batch.value->value, 8);
  EXPECT_EQ(f.divisor.value->value, 16);
  EXPECT_EQ(f.guard, "");
  ASSERT_FALSE(f.uses.empty());  // `bs = B // N is defined here`
  EXPECT_EQ(facts.loaders[1].division, "int(B / N)");
  // An assert stops the program first: no guard, but named in the message.
  EXPECT_EQ(facts.loaders[1].guard, "");
  EXPECT_EQ(facts.loaders[1].raising_check, "assert B >= N");
  EXPECT_FALSE(facts.loaders[2].divisor.value);  // a run-time divisor stays unknown
}

TEST(LoaderFacts, MethodsNeedTheirFrameworkAndKerasNeedsTheKeyword) {
  const FileFacts without_tf = loader_facts("def f(ds):\n    return ds.batch(0)\n");
  EXPECT_TRUE(without_tf.loaders.empty());
  const FileFacts facts = loader_facts(
      "import tensorflow as tf\n"
      "ds = tf.data.Dataset.range(10).map(f).batch(16, drop_remainder=True)\n"
      "model.fit(x, y, 0)\n"                 // positional: also sklearn's sample_weight slot; not read
      "model.fit(x, y)\n"                    // no batch size written
      "model.predict(x, batch_size=-1)\n");
  ASSERT_EQ(facts.loaders.size(), 2u);
  EXPECT_EQ(facts.loaders[0].spelled_as, "Dataset.batch");
  ASSERT_TRUE(facts.loaders[0].dataset_size);
  EXPECT_EQ(facts.loaders[0].dataset_size->value, 10);
  EXPECT_EQ(facts.loaders[1].spelled_as, "Model.predict");
  EXPECT_EQ(facts.loaders[1].batch.value->value, -1);
}

TEST(LoaderFacts, ZeroBatchTensorsReachingTensorFlowLayersOnly) {
  const FileFacts facts = loader_facts(
      "import numpy as np\nimport tensorflow as tf\nimport torch\n"
      "x = tf.zeros([0, 8, 8, 3])\nunused = np.zeros((0, 4))\n"
      "conv = tf.keras.layers.Conv2D(4, 3)\ny = conv(x)\n"
      "z = conv(tf.zeros([2, 8, 8, 3]))\n"
      "t = torch.nn.Conv2d(3, 4, 3)(torch.empty(0, 3, 8, 8))\n");
  ASSERT_EQ(facts.tensor_inputs.size(), 1u);
  EXPECT_EQ(facts.tensor_inputs[0].variable, "x");
  EXPECT_EQ(facts.tensor_inputs[0].framework, "keras");
  ASSERT_EQ(facts.tensor_inputs[0].shape.size(), 4u);
  EXPECT_EQ(facts.tensor_inputs[0].shape[0]->value, 0);
}

TEST(LoaderFacts, SingleSampleConsumerOnlyWhenTheModelPlainlyStaysInTraining) {
  const std::string model =
      "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n"
      "def run():\n    m = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))\n"
      "    loader = DataLoader(range(9), batch_size=4)\n";
  const FileFacts plain = loader_facts(model + "    for x in loader:\n        m(x)\n");
  ASSERT_EQ(plain.loaders.size(), 1u);
  ASSERT_TRUE(plain.loaders[0].feeds);
  EXPECT_EQ(plain.loaders[0].single_sample_norm_text, "nn.Linear(4, 4), then nn.BatchNorm1d(4)");
  // Switched to eval, or handed to a function that may switch it: not plain.
  EXPECT_FALSE(loader_facts(model + "    m.eval()\n    for x in loader:\n        m(x)\n").loaders[0].feeds);
  EXPECT_FALSE(loader_facts(model + "    prepare(m)\n    for x in loader:\n        m(x)\n").loaders[0].feeds);
  // A batch norm on conv features keeps H*W values per channel.
  EXPECT_FALSE(loader_facts("import torch.nn as nn\nfrom torch.utils.data import DataLoader\n"
                            "m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))\n"
                            "loader = DataLoader(range(9), batch_size=4)\nfor x in loader:\n    m(x)\n")
                   .loaders[0]
                   .feeds);
}

}  // namespace
}  // namespace cudnnlint
