// The value flow through model code (issue 35): stacks built by code (python/extract/layer_stacks.h),
// element types through numpy defaults, helpers, loader batches and rebinding conversions, names
// unpacked from tuples. Each case runs the full parse and the first pass's region plan, which must
// give the same facts, and has a near twin the code does not fix (or fixes otherwise) that must not
// give the fact: an unknown never makes one.
#include "python/relevance.h"
#include "python_test_helpers.h"

#include <gtest/gtest.h>

namespace cudnnlint {
namespace {

// `text` with the first `from` replaced by `to` (a test fails where `from` is missing).
std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text = text.substr(0, at) + std::string(to) + text.substr(at + from.size());
  return text;
}

// The facts of `text` with every family, in full and in the first pass's region mode (both asked
// to agree).
FileFacts facts_both_ways(const std::string& text) {
  python::PythonOptions full = testing::first_pass_options(python::ParseMode::Full);
  full.families = {std::string(kNormalizationFamily), std::string(kConvolutionFamily), std::string(kLoaderFamily),
                   std::string(kDtypeFamily), std::string(kShapeFamily)};
  python::PythonOptions regions = full;
  regions.mode = python::ParseMode::Regions;
  python::Relevance relevance = python::relevance_of(ApiTable::builtin(), regions.families);
  regions.triggers = std::move(relevance.quoted_tokens);
  regions.trigger_words = std::move(relevance.words);
  regions.trigger_words.insert(regions.trigger_words.end(), relevance.framework_words.begin(),
                               relevance.framework_words.end());
  regions.attributes = std::move(relevance.attributes);
  regions.pairs = std::move(relevance.pairs);
  const SourceFile file("model.py", text);
  const python::Parser parser;
  FileFacts whole = python::analyze_python(file, ApiTable::builtin(), parser, full).facts;
  const FileFacts planned = python::analyze_python(file, ApiTable::builtin(), parser, regions).facts;
  EXPECT_EQ(planned.shape_chains.size(), whole.shape_chains.size()) << text;
  EXPECT_EQ(planned.tensor_inputs.size(), whole.tensor_inputs.size()) << text;
  EXPECT_EQ(planned.low_precision_constants.size(), whole.low_precision_constants.size()) << text;
  EXPECT_EQ(planned.loaders.size(), whole.loaders.size()) << text;
  for (std::size_t i = 0; i < planned.loaders.size() && i < whole.loaders.size(); ++i) {
    EXPECT_EQ(planned.loaders[i].batch.value.has_value(), whole.loaders[i].batch.value.has_value()) << text;
    EXPECT_EQ(planned.loaders[i].divisor.value.has_value(), whole.loaders[i].divisor.value.has_value()) << text;
    EXPECT_EQ(planned.loaders[i].dataset_size.has_value(), whole.loaders[i].dataset_size.has_value()) << text;
  }
  return whole;
}

const char* const kVgg =
    "import torch\nimport torch.nn as nn\n\n"
    "CFG = [64, 'M', 128, 'M', 256, 'M', 512, 'M', 512, 'M']\n\n\n"
    "def make_layers(cfg, batch_norm=False):\n"
    "    layers = []\n"
    "    in_channels = 3\n"
    "    for v in cfg:\n"
    "        if v == 'M':\n"
    "            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]\n"
    "        else:\n"
    "            conv = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)\n"
    "            if batch_norm:\n"
    "                layers += [conv, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]\n"
    "            else:\n"
    "                layers += [conv, nn.ReLU(inplace=True)]\n"
    "            in_channels = v\n"
    "    return nn.Sequential(*layers)\n\n\n"
    "class VGG(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.features = make_layers(CFG, batch_norm=True)\n\n"
    "    def forward(self, x):\n"
    "        return self.features(x)\n\n\n"
    "net = VGG()\n"
    "out = net(torch.randn(1, 3, SIZE, SIZE))\n";

// kVgg with its input side set (built by appends: GCC 12 warns on std::string::replace here, a
// -Wrestrict false positive).
std::string with_size(std::string_view text, int size) {
  std::string out;
  const std::string side = std::to_string(size);
  for (std::size_t at = 0;;) {
    const std::size_t hole = text.find("SIZE", at);
    out.append(text.substr(at, hole == std::string_view::npos ? std::string_view::npos : hole - at));
    if (hole == std::string_view::npos) return out;
    out.append(side);
    at = hole + 4;
  }
}

TEST(ValueFlow, VggMakeLayersOverACfgListIsRunLayerByLayer) {
  // Five 2x2 pools: 16 -> 8 -> 4 -> 2 -> 1, and the fifth pool gets 1x1.
  const FileFacts facts = facts_both_ways(with_size(kVgg, 16));
  ASSERT_EQ(facts.shape_chains.size(), 1u);
  const ShapeChainFact& chain = facts.shape_chains.front();
  EXPECT_EQ(chain.rejected_by, "pool");
  // Each conv step names the loop's values for its names.
  bool named = false;
  for (const ShapeStep& step : chain.steps) named = named || step.bindings == "in_channels = 256, v = 512";
  EXPECT_TRUE(named);
  EXPECT_GE(facts.tracked.shape_chains, 1u);
  // 32 leaves 1x1 after the fifth pool: nothing rejects.
  EXPECT_TRUE(facts_both_ways(with_size(kVgg, 32)).shape_chains.empty());
}

TEST(ValueFlow, AStackWhoseLoopOrBranchIsNotKnownIsNotRead) {
  // The loop runs over an __init__ parameter: the construction's literal list binds it...
  std::string text = with_size(kVgg, 16);
  text = replaced(text, "make_layers(CFG, batch_norm=True)", "make_layers(cfg, batch_norm=True)");
  text = replaced(text, "def __init__(self):", "def __init__(self, cfg):");
  text = replaced(text, "net = VGG()", "net = VGG(CFG)");
  const FileFacts bound = facts_both_ways(text);
  ASSERT_EQ(bound.shape_chains.size(), 1u);
  EXPECT_EQ(bound.shape_chains.front().rejected_by, "pool");
  // ...a value the reader does not know leaves how many layers unknown, so no chain.
  text = replaced(text, "net = VGG(CFG)", "net = VGG(load_cfg())");
  EXPECT_TRUE(facts_both_ways(text).shape_chains.empty());
  // The list handed to a call that may change it.
  std::string handed = with_size(kVgg, 16);
  handed = replaced(handed, "    return nn.Sequential(*layers)", "    shuffle_layers(layers)\n    return nn.Sequential(*layers)");
  EXPECT_TRUE(facts_both_ways(handed).shape_chains.empty());
}

TEST(ValueFlow, KerasSequentialBuiltByAddAndD2lLayerLoop) {
  const FileFacts keras = facts_both_ways(
      "from tensorflow import keras\nfrom tensorflow.keras import layers\n\n"
      "model = keras.Sequential()\n"
      "model.add(layers.Conv2D(32, 3, activation='relu', input_shape=(8, 8, 1)))\n"
      "model.add(layers.MaxPooling2D(2))\n"
      "model.add(layers.Conv2D(64, 5))\n");
  ASSERT_EQ(keras.shape_chains.size(), 1u);
  EXPECT_EQ(keras.shape_chains.front().steps.size(), 3u);
  const FileFacts d2l = facts_both_ways(
      "import torch\nfrom torch import nn\n\n\n"
      "def lenet():\n"
      "    return nn.Sequential(nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),\n"
      "                         nn.AvgPool2d(kernel_size=2, stride=2), nn.Conv2d(6, 16, kernel_size=5))\n\n\n"
      "net = lenet()\n"
      "X = torch.rand(size=(1, 1, 8, 8), dtype=torch.float32)\n"
      "for layer in net:\n"
      "    X = layer(X)\n");
  ASSERT_EQ(d2l.shape_chains.size(), 1u);
  EXPECT_EQ(d2l.shape_chains.front().rejected_by, "conv");
}

TEST(ValueFlow, Float64FromNumpyDefaultsAndLoaderBatchesReachAFloat32Conv) {
  const FileFacts facts = facts_both_ways(
      "import numpy as np\nimport torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset\n\n\n"
      "def load():\n"
      "    return np.random.rand(8, 1, 16, 16)\n\n\n"
      "def main():\n"
      "    net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU())\n"
      "    loader = DataLoader(TensorDataset(torch.from_numpy(load())), batch_size=4)\n"
      "    for (xb,) in loader:\n"
      "        net(xb)\n");
  ASSERT_EQ(facts.tensor_inputs.size(), 1u);
  EXPECT_EQ(facts.tensor_inputs.front().dtype, DType::Float64);
  EXPECT_EQ(facts.tensor_inputs.front().weight_dtype, DType::Float32);
  // Converted first, or a custom collate: no fact.
  const FileFacts converted = facts_both_ways(
      "import numpy as np\nimport torch\nfrom torch import nn\n\n\n"
      "def main():\n"
      "    net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU())\n"
      "    x = torch.from_numpy(np.random.rand(8, 1, 16, 16)).float()\n"
      "    net(x)\n");
  EXPECT_TRUE(converted.tensor_inputs.empty());
  const FileFacts collated = facts_both_ways(
      "import numpy as np\nimport torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset\n\n\n"
      "def main(collate):\n"
      "    net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU())\n"
      "    loader = DataLoader(TensorDataset(torch.from_numpy(np.zeros((8, 1, 16, 16)))), 4, collate_fn=collate)\n"
      "    for (xb,) in loader:\n"
      "        net(xb)\n");
  EXPECT_TRUE(collated.tensor_inputs.empty());
}

TEST(ValueFlow, AModelClassReachedThroughAnotherMethodAndAHelperReturnType) {
  const FileFacts facts = facts_both_ways(
      "import numpy as np\nimport torch\nimport torch.nn as nn\n\n\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)\n\n"
      "    def _forward_impl(self, x):\n"
      "        return self.conv1(x)\n\n"
      "    def forward(self, x):\n"
      "        return self._forward_impl(x)\n\n\n"
      "def load_images(n=16):\n"
      "    return np.random.randint(0, 256, size=(n, 1, 28, 28)).astype(np.uint8)\n\n\n"
      "if __name__ == '__main__':\n"
      "    model = Net()\n"
      "    output = model(torch.from_numpy(load_images()))\n");
  ASSERT_EQ(facts.tensor_inputs.size(), 1u);
  EXPECT_EQ(facts.tensor_inputs.front().dtype, DType::UInt8);
  // forward scales the input first: the layer sees a float tensor.
  const FileFacts scaled = facts_both_ways(
      "import torch\nimport torch.nn as nn\n\n\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)\n\n"
      "    def forward(self, x):\n"
      "        x = x / 255\n"
      "        return self.conv1(x)\n\n\n"
      "model = Net()\n"
      "output = model(torch.randint(0, 256, (1, 1, 28, 28), dtype=torch.uint8))\n");
  EXPECT_TRUE(scaled.tensor_inputs.empty());
}

TEST(ValueFlow, UnpackedConstantsAndARebindingHalfConversion) {
  const FileFacts facts = facts_both_ways(
      "import torch\nfrom torch import nn\n\nIMG_ROWS, IMG_COLS = 6, 6\n\n\n"
      "def main():\n"
      "    model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3))\n"
      "    return model(torch.randn(1, 1, IMG_ROWS, IMG_COLS))\n");
  ASSERT_EQ(facts.shape_chains.size(), 1u);
  const FileFacts half = facts_both_ways(
      "import torch\nimport torch.nn as nn\n\nADAM_EPS = 1e-8\n\n\n"
      "def main():\n"
      "    net = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8))\n"
      "    net = net.half()\n"
      "    return torch.optim.Adam(net.parameters(), lr=1e-3, eps=ADAM_EPS)\n");
  ASSERT_EQ(half.low_precision_constants.size(), 1u);
  // Converted only under a flag: the type is not plain.
  const FileFacts flagged = facts_both_ways(
      "import torch\nimport torch.nn as nn\n\n\n"
      "def main(use_half):\n"
      "    net = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8))\n"
      "    if use_half:\n"
      "        net = net.half()\n"
      "    return torch.optim.Adam(net.parameters(), lr=1e-3)\n");
  EXPECT_TRUE(flagged.low_precision_constants.empty());
}

TEST(ValueFlow, NestedSequencesAreBoundedNotBuiltWhole) {
  // 256 copies of 256 values are 65,793 values, past the reader's bound (4,096 in all): the grid
  // is unknown, so is the loop over it and the stack it builds (no fact, where Python would build
  // 256 convolutions), and it costs milliseconds. One level less is within the bound and read.
  const std::string code =
      "import torch\nfrom torch import nn\n\n\n"
      "def main():\n"
      "    grid = GRID\n"
      "    layers = []\n"
      "    for plane in grid:\n"
      "        layers.append(nn.Conv2d(3, 3, 5))\n"
      "    model = nn.Sequential(*layers)\n"
      "    return model(torch.randn(1, 3, 8, 8))\n";
  auto with_grid = [&](std::string_view grid) {
    std::string text = code;
    text = replaced(text, "GRID", grid);
    return text;
  };
  EXPECT_TRUE(facts_both_ways(with_grid("[[0] * 256] * 256")).shape_chains.empty());
  EXPECT_TRUE(facts_both_ways(with_grid("[[[0] * 256] * 256] * 256 * 256")).shape_chains.empty());
  EXPECT_EQ(facts_both_ways(with_grid("[[0] * 8] * 4")).shape_chains.size(), 1u);
}


namespace {

// The batch size of the file's one loader, folded; nullopt when it stays unknown.
std::optional<double> folded_batch(const std::string& text) {
  const FileFacts facts = facts_both_ways(text);
  EXPECT_EQ(facts.loaders.size(), 1u) << text;
  if (facts.loaders.size() != 1 || !facts.loaders[0].batch.value) return std::nullopt;
  return facts.loaders[0].batch.value->value;
}

// A division's dividend and divisor as the file's one loader folds them.
std::pair<std::optional<double>, std::optional<double>> folded_division(const std::string& text) {
  const FileFacts facts = facts_both_ways(text);
  EXPECT_EQ(facts.loaders.size(), 1u) << text;
  if (facts.loaders.size() != 1) return {};
  const LoaderFact& loader = facts.loaders[0];
  return {loader.batch.value ? std::optional(loader.batch.value->value) : std::nullopt,
          loader.divisor.value ? std::optional(loader.divisor.value->value) : std::nullopt};
}

const char* const kClassConfig =
    "from torch.utils.data import DataLoader\n\n\n"
    "class cfg:\n"
    "    bs_mult = 2\n"
    "    ngpu = 0\n\n\n"
    "def make_loader(args, ds):\n"
    "    return DataLoader(ds, batch_size=args.bs_mult * args.ngpu)\n\n\n"
    "if __name__ == '__main__':\n"
    "    make_loader(cfg, None)\n";

}  // namespace

TEST(ValueFlow, AConfigClassReachedThroughEveryCallOfItsFunction) {
  EXPECT_EQ(folded_batch(kClassConfig), 0.0);
  // Another call with another object, an attribute written elsewhere, the function passed as a
  // value, a class with methods setting the attribute on its instances: unknown.
  EXPECT_EQ(folded_batch(std::string(kClassConfig) + "    make_loader(other, None)\n"), std::nullopt);
  EXPECT_EQ(folded_batch(std::string(kClassConfig) + "    cfg.ngpu = 4\n"), std::nullopt);
  EXPECT_EQ(folded_batch(std::string(kClassConfig) + "    hooks = [make_loader]\n"), std::nullopt);
  EXPECT_EQ(folded_batch(replaced(kClassConfig, "make_loader(cfg, None)", "make_loader(cfg(), None)")), 0.0);
  EXPECT_EQ(folded_batch(replaced(replaced(kClassConfig, "make_loader(cfg, None)", "make_loader(cfg(), None)"),
                                  "    ngpu = 0\n", "    ngpu = 0\n\n    def __init__(self):\n        self.ngpu = 8\n")),
            std::nullopt);
}

TEST(ValueFlow, AnAttributeDictAndADictReadThroughAParameter) {
  const std::string easy =
      "from torch.utils.data import DataLoader\n\n\n"
      "class EasyDict(dict):\n"
      "    __getattr__ = dict.__getitem__\n"
      "    __setattr__ = dict.__setitem__\n\n\n"
      "Cfg = EasyDict()\n"
      "Cfg.batch = 4\n"
      "Cfg.subdivisions = 16\n\n\n"
      "def train(config, ds):\n"
      "    return DataLoader(ds, batch_size=config.batch // config.subdivisions)\n\n\n"
      "def main():\n"
      "    return train(Cfg, None)\n";
  EXPECT_EQ(folded_division(easy), std::pair(std::optional(4.0), std::optional(16.0)));
  // setattr may write any attribute.
  EXPECT_EQ(folded_division(easy + "\nsetattr(Cfg, 'batch', 64)\n").first, std::nullopt);

  const std::string dict =
      "from torch.utils.data import DataLoader\n\n"
      "data = dict(samples_per_gpu=0, workers_per_gpu=0)\n"
      "CONFIG = {'samples_per_gpu': 0}\n\n\n"
      "def build(cfg, ds):\n"
      "    return DataLoader(ds, batch_size=cfg['samples_per_gpu'] + 0)\n\n\n"
      "build(data, None)\n";
  EXPECT_EQ(folded_batch(dict), 0.0);
  EXPECT_EQ(folded_batch(replaced(dict, "build(data, None)", "build(CONFIG, None)")), 0.0);
  EXPECT_EQ(folded_batch(dict + "data.update(samples_per_gpu=8)\n"), std::nullopt);
  EXPECT_EQ(folded_batch(dict + "data['samples_per_gpu'] = 8\n"), std::nullopt);
}

TEST(ValueFlow, AParameterInArithmeticIsReadFromItsCallsAndOnePassedOnIsForwarded) {
  const std::string text =
      "from torch.utils.data import DataLoader\n\n"
      "FID_BATCH_SIZE = 100\n"
      "WORLD_SIZE = 128\n\n\n"
      "def loader(images, batch_size, world_size):\n"
      "    per_rank = batch_size // world_size\n"
      "    return DataLoader(images, batch_size=per_rank)\n\n\n"
      "def run():\n"
      "    return loader(None, FID_BATCH_SIZE, WORLD_SIZE)\n";
  EXPECT_EQ(folded_division(text), std::pair(std::optional(100.0), std::optional(128.0)));
  // Two calls that disagree: unknown.
  EXPECT_EQ(folded_division(text + "    loader(None, 8, 1)\n").first, std::nullopt);
  // Passed on as it is, the batch size stays the project step's reference to follow call by call.
  const FileFacts direct = facts_both_ways(
      "from torch.utils.data import DataLoader\n\n\n"
      "def loader(images, batch_size):\n"
      "    return DataLoader(images, batch_size=batch_size)\n\n\n"
      "loader(None, 0)\n");
  ASSERT_EQ(direct.loaders.size(), 1u);
  EXPECT_FALSE(direct.loaders[0].batch.value);
  ASSERT_TRUE(direct.loaders[0].batch.ref);
  EXPECT_EQ(direct.loaders[0].batch.ref->kind, ValueRef::Kind::Parameter);
}


TEST(ValueFlow, AnArgparseDefaultInArithmeticIsReadAndADirectOneLeftToTheProjectStep) {
  const std::string text =
      "import argparse\n"
      "from torch.utils.data import DataLoader\n\n"
      "parser = argparse.ArgumentParser()\n"
      "parser.add_argument('--batch-size', type=int, default='4')\n"
      "parser.add_argument('--gpus', type=int, default=8)\n"
      "args = parser.parse_args()\n\n\n"
      "def build(ds):\n"
      "    return DataLoader(ds, batch_size=args.batch_size * 1 // args.gpus)\n";
  const FileFacts facts = facts_both_ways(text);
  ASSERT_EQ(facts.loaders.size(), 1u);
  ASSERT_TRUE(facts.loaders[0].batch.value);
  EXPECT_EQ(facts.loaders[0].batch.value->value, 4.0);  // the string default through type=int
  // The divisor is the argument itself: the project step settles it, and says it is an argparse
  // default a command line overrides.
  EXPECT_FALSE(facts.loaders[0].divisor.value);
  ASSERT_TRUE(facts.loaders[0].divisor.ref);
  EXPECT_EQ(facts.loaders[0].divisor.ref->kind, ValueRef::Kind::ConfigKey);
  // Set elsewhere, by set_defaults, or with an action: unknown here.
  for (const std::string& twin : {text + "args.batch_size = 1\n", text + "parser.set_defaults(batch_size=1)\n",
                                  replaced(text, "type=int, default='4'", "action='store_const', const=1, default=4")}) {
    const FileFacts other = facts_both_ways(twin);
    ASSERT_EQ(other.loaders.size(), 1u);
    EXPECT_FALSE(other.loaders[0].batch.value) << twin;
  }
}


TEST(ValueFlow, AKerasHalfPolicySetInAFunctionTheModuleCalls) {
  const std::string layer =
      "import keras\n"
      "import tensorflow as tf\n\n\n"
      "class Normalize(keras.layers.Layer):\n"
      "    def call(self, inputs):\n"
      "        return inputs / (tf.norm(inputs) + 1e-8)\n\n\n";
  const std::string called = layer + "def main():\n    keras.mixed_precision.set_global_policy('mixed_float16')\n\n\nmain()\n";
  EXPECT_EQ(facts_both_ways(called).low_precision_constants.size(), 1u);
  // Never called, or set only under a condition of the function: no float16 known.
  EXPECT_TRUE(facts_both_ways(replaced(called, "\nmain()\n", "\n")).low_precision_constants.empty());
  EXPECT_TRUE(facts_both_ways(replaced(called, "    keras.mixed", "    if amp:\n        keras.mixed")).low_precision_constants.empty());
}


TEST(ValueFlow, AModelAndATensorHandedToAFunctionAreReadAtItsCalls) {
  const std::string text =
      "import numpy as np\n"
      "import tensorflow as tf\n\n\n"
      "class Net(tf.keras.Model):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.conv1 = tf.keras.layers.Conv2D(8, 3)\n\n"
      "    def call(self, x, training=False):\n"
      "        return self.conv1(x)\n\n\n"
      "@tf.function\n"
      "def test_step(model, x):\n"
      "    return model(x, training=False)\n\n\n"
      "if __name__ == '__main__':\n"
      "    model = Net()\n"
      "    images = np.random.randint(0, 256, size=(8, 32, 32, 3)).astype(np.uint8)\n"
      "    print(test_step(model, images))  # test_step, named in a comment\n";
  const FileFacts facts = facts_both_ways(text);
  ASSERT_EQ(facts.tensor_inputs.size(), 1u);
  EXPECT_EQ(facts.tensor_inputs[0].dtype, DType::UInt8);
  // A second call with float32 images, the function also reached by name through getattr: unknown.
  EXPECT_TRUE(facts_both_ways(text + "    test_step(model, images.astype(np.float32))\n").tensor_inputs.empty());
  EXPECT_TRUE(facts_both_ways(text + "    getattr(__import__('__main__'), 'test_step')\n").tensor_inputs.empty());
}

// A forward whose 4x4 map meets another tensor in `a * b` and `a + b`: `gate`, the window of the
// pooling that gives the other side (4: 1x1, 2: 2x2).
std::string gated(std::string_view gate) {
  std::string out =
      "import torch\nimport torch.nn as nn\n\n\n"
      "class Gated(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.conv = nn.Conv2d(3, 8, 3, padding=1)\n"
      "        self.gate = nn.MaxPool2d(";
  out.append(gate);
  out.append(
      ")\n"
      "        self.head = nn.Conv2d(8, 8, 5)\n\n"
      "    def forward(self, x):\n"
      "        y = self.conv(x)\n"
      "        y = y * self.gate(y)\n"
      "        return self.head(self.gate(y) + y)\n\n\n"
      "Gated()(torch.rand(1, 3, 4, 4))\n");
  return out;
}

TEST(ValueFlow, BroadcastingKeepsTheSizeOfASideAbove1AndNoOtherOne) {
  // A gate of 1x1 meets the 4x4 map: the map's size goes on, and the 5x5 conv rejects it.
  const FileFacts gate = facts_both_ways(gated("4"));
  ASSERT_EQ(gate.shape_chains.size(), 1u);
  EXPECT_EQ(gate.shape_chains.front().rejected_by, "conv");
  EXPECT_EQ(gate.shape_chains.front().padded_input, (std::vector<std::int64_t>{4, 4}));
  // 4x4 meets 2x2: PyTorch raises on the add, not at the conv, so no chain.
  EXPECT_TRUE(facts_both_ways(gated("2")).shape_chains.empty());
  // A side whose size is 1 meets a tensor the reader does not know: the result may be larger, so
  // the chain stops there.
  std::string unknown = gated("4");
  unknown = replaced(unknown, "self.gate(y) + y", "self.gate(y) + z");
  unknown = replaced(unknown, "def forward(self, x):", "def forward(self, x, z=None):");
  EXPECT_TRUE(facts_both_ways(unknown).shape_chains.empty());
}

TEST(ValueFlow, ConcatenatedChannelsAndAConditionalOfOneSizeKeepTheSize) {
  // DenseNet's `torch.cat([out, x], 1)` and MobileNetV2's `out + shortcut(x) if stride == 1 else out`.
  const std::string model =
      "import torch\nimport torch.nn as nn\n\n\n"
      "class Dense(nn.Module):\n"
      "    def __init__(self, stride=1):\n"
      "        super().__init__()\n"
      "        self.stride = stride\n"
      "        self.conv = nn.Conv2d(3, 4, 3, padding=1)\n"
      "        self.pool = nn.MaxPool2d(2)\n"
      "        self.head = nn.Conv2d(7, 7, 5)\n\n"
      "    def forward(self, x):\n"
      "        out = torch.cat([self.conv(x), x], JOIN)\n"
      "        out = out * 2 if self.stride == 1 else out\n"
      "        return self.head(out)\n\n\n"
      "Dense()(torch.rand(1, 3, 4, 4))\n";
  std::string channels = model;
  channels = replaced(channels, "JOIN", "1");
  const FileFacts joined = facts_both_ways(channels);
  ASSERT_EQ(joined.shape_chains.size(), 1u);
  EXPECT_EQ(joined.shape_chains.front().rejected_by, "conv");
  EXPECT_EQ(joined.shape_chains.front().channels, 7);
  // Joined along a spatial axis the size changes: not followed.
  std::string height = model;
  height = replaced(height, "JOIN", "2");
  EXPECT_TRUE(facts_both_ways(height).shape_chains.empty());
  // A side of the conditional that a layer rejects may never run: no finding from it.
  std::string pooled = channels;
  pooled = replaced(pooled, "out * 2 if", "self.head(out) if");
  pooled = replaced(pooled, "return self.head(out)", "return out");
  EXPECT_TRUE(facts_both_ways(pooled).shape_chains.empty());
}

TEST(ValueFlow, ABranchInForwardKeepsTheSizesEveryWayGivesAndABranchUndecidedInABuilderKeepsItsNumbers) {
  // The tutorial ResNet: `if self.downsample: residual = self.downsample(x)` in the block's forward,
  // and `if stride != 1 or self.in_channels != out_channels: downsample = ...` in make_layer.
  const std::string model =
      "import torch\nimport torch.nn as nn\n\n\n"
      "class Block(nn.Module):\n"
      "    def __init__(self, c_in, c_out, stride=1, downsample=None):\n"
      "        super().__init__()\n"
      "        self.conv = nn.Conv2d(c_in, c_out, 3, stride, 1)\n"
      "        self.big = nn.Conv2d(c_in, c_out, 9)\n"
      "        self.downsample = downsample\n\n"
      "    def forward(self, x):\n"
      "        residual = x\n"
      "        out = self.conv(x)\n"
      "        if self.downsample:\n"
      "            residual = self.downsample(x)\n"
      "        out += residual\n"
      "        return out\n\n\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.in_channels = 3\n"
      "        self.layer = self.make_layer(8, 2)\n"
      "        self.pool = nn.AvgPool2d(POOL)\n\n"
      "    def make_layer(self, out_channels, stride):\n"
      "        downsample = None\n"
      "        if stride != 1 or self.in_channels != out_channels:\n"
      "            downsample = nn.Conv2d(self.in_channels, out_channels, 1, stride)\n"
      "        layers = [Block(self.in_channels, out_channels, stride, downsample)]\n"
      "        return nn.Sequential(*layers)\n\n"
      "    def forward(self, x):\n"
      "        return self.pool(self.layer(x))\n\n\n"
      "Net()(torch.rand(1, 3, 8, 8))\n";
  std::string too_big = model;
  too_big = replaced(too_big, "POOL", "8");
  const FileFacts rejected = facts_both_ways(too_big);
  ASSERT_EQ(rejected.shape_chains.size(), 1u);
  EXPECT_EQ(rejected.shape_chains.front().rejected_by, "pool");
  EXPECT_EQ(rejected.shape_chains.front().padded_input, (std::vector<std::int64_t>{4, 4}));
  std::string fits = model;
  fits = replaced(fits, "POOL", "4");
  EXPECT_TRUE(facts_both_ways(fits).shape_chains.empty());
  // A branch whose layer rejects the size (a 9x9 kernel on 8x8) may never run: no finding from it.
  std::string branch = fits;
  branch = replaced(branch, "            residual = self.downsample(x)", "            residual = self.big(x)");
  EXPECT_TRUE(facts_both_ways(branch).shape_chains.empty());
}

TEST(ValueFlow, AMethodBoundToAModuleNameIsACallableOfTheModule) {
  // `train = Trainer().train`: the method is the module's callable `train`, whose calls the project
  // step follows (tests/fixtures/values/bound_methods runs that end to end).
  const std::string text =
      "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\n\n"
      "class Trainer:\n"
      "    def train(self, batch_size=0):\n"
      "        return DataLoader(TensorDataset(torch.rand(8, 2)), batch_size=batch_size)\n"
      "train = Trainer().train\n\n\n"
      "def main():\n"
      "    train()\n";
  const FileFacts aliased = facts_both_ways(text);
  ASSERT_EQ(aliased.loaders.size(), 1u);
  ASSERT_TRUE(aliased.loaders[0].batch.ref);
  EXPECT_EQ(aliased.loaders[0].batch.ref->target, "model.train");
  EXPECT_EQ(aliased.loaders[0].batch.ref->index, 0);
  // Without the alias, a method called as `Trainer().train()` is no callable of the module, but
  // that call is one of the method (a new instance of its class), which leaves the default.
  std::string plain = text;
  plain = replaced(plain, "train = Trainer().train\n", "");
  plain = replaced(plain, "    train()\n", "    Trainer().train()\n");
  const FileFacts method = facts_both_ways(plain);
  ASSERT_EQ(method.loaders.size(), 1u);
  EXPECT_FALSE(method.loaders[0].batch.ref);
  ASSERT_TRUE(method.loaders[0].batch.value);
  EXPECT_EQ(method.loaders[0].batch.value->value, 0);
  // Called on an instance bound once (`trainer = Trainer()`), the same; with another argument
  // there, that one.
  const std::string instance = replaced(plain, "    Trainer().train()\n", "    trainer = Trainer()\n    trainer.train(4)\n");
  const FileFacts bound = facts_both_ways(instance);
  ASSERT_EQ(bound.loaders.size(), 1u);
  ASSERT_TRUE(bound.loaders[0].batch.value);
  EXPECT_EQ(bound.loaders[0].batch.value->value, 4);
  // A call on an object the module does not make (a parameter) may be any class's: unknown.
  const std::string handed = replaced(plain, "def main():\n    Trainer().train()\n",
                                      "def main(trainer):\n    trainer.train(4)\n");
  const FileFacts unknown = facts_both_ways(handed);
  ASSERT_EQ(unknown.loaders.size(), 1u);
  EXPECT_FALSE(unknown.loaders[0].batch.value);
  // A call on another class's instance is none of this method's.
  const std::string other = replaced(
      instance, "def main():\n", "class Other:\n    def train(self, n):\n        return n\n\n\ndef main():\n    Other().train(-1)\n");
  const FileFacts others = facts_both_ways(other);
  ASSERT_EQ(others.loaders.size(), 1u);
  ASSERT_TRUE(others.loaders[0].batch.value);
  EXPECT_EQ(others.loaders[0].batch.value->value, 4);
}

TEST(ValueFlow, AComprehensionBuiltStackAndAnInstanceAttributeSetFromAnInitParameter) {
  // A TCN: dilated convolutions in a ModuleList built by a comprehension, the window length an
  // attribute `__init__` sets from its parameter, read off the instance.
  const std::string model =
      "import torch\nimport torch.nn as nn\n\n\n"
      "class TCN(nn.Module):\n"
      "    def __init__(self, levels=4, win_size=16):\n"
      "        super().__init__()\n"
      "        self.win_size = win_size\n"
      "        self.convs = nn.ModuleList([nn.Conv1d(8, 8, 3, dilation=2 ** i) for i in range(levels)])\n\n"
      "    def forward(self, x):\n"
      "        for conv in self.convs:\n"
      "            x = conv(x)\n"
      "        return x\n\n\n"
      "enc = TCN(WINDOW)\n"
      "enc(torch.randn(2, 8, enc.win_size))\n";
  std::string short_window = model;
  short_window = replaced(short_window, "WINDOW", "win_size=16");
  const FileFacts rejected = facts_both_ways(short_window);
  ASSERT_EQ(rejected.shape_chains.size(), 1u);
  // 16 -> 14 -> 10 -> 2, then a kernel of 17 (dilation 8).
  EXPECT_EQ(rejected.shape_chains.front().padded_input, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(rejected.shape_chains.front().kernel_extent, (std::vector<std::int64_t>{17}));
  std::string long_window = model;
  long_window = replaced(long_window, "WINDOW", "win_size=64");
  EXPECT_TRUE(facts_both_ways(long_window).shape_chains.empty());
  // The loop variable also names a module constant: which one a fold would read is not sure.
  EXPECT_TRUE(facts_both_ways("i = 0\n" + short_window).shape_chains.empty());
  // The attribute written elsewhere too: unknown.
  EXPECT_TRUE(facts_both_ways(short_window + "enc.win_size = 64\n").shape_chains.empty());
}

TEST(ValueFlow, AnInstanceAttributeAMethodReturnsAndAParameterReadBeforeItIsRebound) {
  // A replay buffer's uint8 frames, returned by a method of an instance, handed to a helper that
  // rebinds its parameter after reading it.
  const std::string text =
      "import numpy as np\nimport torch\nimport torch.nn as nn\n\n\n"
      "class Buffer:\n"
      "    def __init__(self, size):\n"
      "        self.frames = np.zeros((size, 4, 84, 84), dtype=np.uint8)\n\n"
      "    def latest(self):\n"
      "        return self.frames[-1]\n\n\n"
      "def act(net, obs):\n"
      "    obs = torch.from_numpy(obs).unsqueeze(0)\n"
      "    return net(obs)\n\n\n"
      "if __name__ == '__main__':\n"
      "    buffer = Buffer(8)\n"
      "    q = nn.Conv2d(4, 8, 3)\n"
      "    act(q, buffer.latest())\n";
  const FileFacts facts = facts_both_ways(text);
  ASSERT_EQ(facts.tensor_inputs.size(), 1u);
  EXPECT_EQ(facts.tensor_inputs[0].dtype, DType::UInt8);
  // A subclass may set the attribute otherwise; another write of `.frames` may be to this
  // instance; a loop may read the parameter after a round rebound it: unknown, each.
  EXPECT_TRUE(facts_both_ways(text + "\n\nclass Scaled(Buffer):\n    pass\n").tensor_inputs.empty());
  EXPECT_TRUE(facts_both_ways(text + "    buffer.frames = np.zeros((8, 4, 84, 84), np.float32)\n").tensor_inputs.empty());
  const std::string looped = replaced(text, "    obs = torch.from_numpy(obs).unsqueeze(0)\n    return net(obs)\n",
                                      "    for _ in range(2):\n        obs = torch.from_numpy(obs).unsqueeze(0)\n"
                                      "        net(obs)\n");
  EXPECT_TRUE(facts_both_ways(looped).tensor_inputs.empty());
  // Another class's own `self.frames` is not this one's.
  EXPECT_EQ(facts_both_ways(text + "\n\nclass Other:\n    def __init__(self):\n        self.frames = []\n")
                .tensor_inputs.size(),
            1u);
}

TEST(ValueFlow, AParameterReadInARoundOfOneAClosureCalledOnceAndPassedOnByAnUncalledWrapper) {
  const std::string head =
      "import numpy as np\nimport torch\nimport torch.nn as nn\n\n\n"
      "def act(net, obs):\n";
  const std::string tail =
      "\n\ndef wrap(net, obs):\n    return act(net, obs)\n\n\n"
      "if __name__ == '__main__':\n"
      "    frames = np.zeros((8, 4, 84, 84), dtype=np.uint8)\n"
      "    q = nn.Conv2d(4, 8, 3)\n"
      "    act(q, frames[-1])\n";
  auto inputs = [&](const std::string& body) { return facts_both_ways(head + body + tail).tensor_inputs; };
  // `wrap`, which nothing here calls, hands on what its callers elsewhere pass: the call in the
  // module still says what `act` gets there.
  const std::string plain = "    obs = torch.from_numpy(obs).unsqueeze(0)\n    return net(obs)\n";
  ASSERT_EQ(inputs(plain).size(), 1u);
  EXPECT_EQ(inputs(plain)[0].dtype, DType::UInt8);
  // `for _ in range(1)` runs its body once: the parameter is read before anything rebinds it.
  EXPECT_EQ(inputs("    for _ in range(1):\n        obs = torch.from_numpy(obs).unsqueeze(0)\n        return net(obs)\n").size(),
            1u);
  // A closure declaring the parameter nonlocal, called once after its def.
  const std::string closure =
      "    def inner():\n        nonlocal obs\n        obs = torch.from_numpy(obs).unsqueeze(0)\n"
      "        return net(obs)\n    return inner()\n";
  ASSERT_EQ(inputs(closure).size(), 1u);
  EXPECT_EQ(inputs(closure)[0].dtype, DType::UInt8);
  // Called twice, the second call reads what the first bound; a rebinding before the call counts.
  EXPECT_TRUE(inputs(replaced(closure, "    return inner()\n", "    inner()\n    return inner()\n")).empty());
  EXPECT_TRUE(inputs(replaced(closure, "    return inner()\n", "    obs = obs / 255.0\n    return inner()\n")).empty());
  // Once the module calls the wrapper too, its float32 tensor disagrees with the frames: no fact.
  EXPECT_TRUE(facts_both_ways(head + plain + tail + "    wrap(q, torch.rand(1, 4, 84, 84))\n").tensor_inputs.empty());
}

TEST(ValueFlow, ADatasetClassInstantiatedByAModuleStatementIsSizedInBothModes) {
  // pytorch-tutorial's template: the loader names the instance, a module statement the class, whose
  // __len__ holds comments before its return. Both modes read the size (the planner keeps the class).
  const std::string text =
      "import torch\n\n\n"
      "class CustomDataset(torch.utils.data.Dataset):\n"
      "    def __getitem__(self, index):\n        pass\n\n"
      "    def __len__(self):\n        # the dataset's size\n        return 3\n\n\n"
      "custom_dataset = CustomDataset()\n"
      "loader = torch.utils.data.DataLoader(dataset=custom_dataset, batch_size=4, drop_last=True)\n";
  const FileFacts facts = facts_both_ways(text);
  ASSERT_EQ(facts.loaders.size(), 1u);
  ASSERT_TRUE(facts.loaders[0].dataset_size);
  EXPECT_EQ(facts.loaders[0].dataset_size->value, 3);
  // Through a closure and a default len() never passes: the same size.
  const FileFacts closure = facts_both_ways(replaced(
      text, "    def __len__(self):\n        # the dataset's size\n        return 3\n",
      "    def __len__(self, n=3):\n        def inner():\n            return n\n        return inner()\n"));
  ASSERT_EQ(closure.loaders.size(), 1u);
  ASSERT_TRUE(closure.loaders[0].dataset_size);
  EXPECT_EQ(closure.loaders[0].dataset_size->value, 3);
  const FileFacts defaulted = facts_both_ways(
      replaced(text, "    def __len__(self):\n        # the dataset's size\n        return 3\n",
               "    def __len__(self, n=3):\n        return n\n"));
  ASSERT_EQ(defaulted.loaders.size(), 1u);
  ASSERT_TRUE(defaulted.loaders[0].dataset_size);
  EXPECT_EQ(defaulted.loaders[0].dataset_size->value, 3);
}

TEST(ValueFlow, ABareAnnotationInForwardIsAStatementWithoutAValue) {
  // `scale: float` has no right-hand side: the forward reader walked the missing node and crashed
  // (the fuzzer's reproducer is tests/fuzz/corpus/python/bare_annotation_in_forward.py).
  const std::string text =
      "import torch\nimport torch.nn as nn\n\n\n"
      "class Head(nn.Module):\n"
      "    def __init__(self):\n        super().__init__()\n        self.conv = nn.Conv2d(3, 8, 5)\n\n"
      "    def forward(self, x):\n        scale: float\n        return self.conv(x)\n\n\n"
      "Head()(torch.randint(0, 255, (1, 3, 4, 4)))\n";
  const FileFacts facts = facts_both_ways(text);
  ASSERT_EQ(facts.tensor_inputs.size(), 1u);
  EXPECT_EQ(facts.tensor_inputs[0].dtype, DType::Int64);
}

TEST(ValueFlow, ADictSplattedIntoTheLoaderIsItsKeywordsUnlessTheCodeChangesIt) {
  const std::string text =
      "import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\n"
      "cfg = dict(batch_size=0, shuffle=True)\n"
      "loader = DataLoader(TensorDataset(torch.rand(10, 3)), **cfg)\n";
  EXPECT_EQ(folded_batch(text), 0);
  EXPECT_EQ(folded_batch(replaced(text, "dict(batch_size=0, shuffle=True)", "{'batch_size': 0}")), 0);
  // An item written later, or a dict the code builds otherwise: unknown.
  EXPECT_FALSE(folded_batch(text + "cfg['batch_size'] = 4\n"));
  EXPECT_FALSE(folded_batch(text + "cfg.update(batch_size=4)\n"));
  EXPECT_FALSE(folded_batch(replaced(text, "dict(batch_size=0, shuffle=True)", "dict(base, batch_size=0)")));
}

}  // namespace
}  // namespace cudnnlint
