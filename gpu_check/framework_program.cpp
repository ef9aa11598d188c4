// The programs of the framework tier, written from a FrameworkReplay's numbers and enumerators
// only: every value reaches the text through int_literal, float_literal or a fixed table, so no
// text of the analysed tree (or of a hostile report read back) can become code.
#include "gpu_check/framework_tier.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace cudnnlint::gpu {

namespace {

// Bounds that keep a case small: a hostile report cannot make the program allocate much.
constexpr std::int64_t kMaxDim = 1 << 16;
constexpr std::int64_t kMaxElements = 1 << 22;
constexpr std::int64_t kMaxChannels = 4096;
constexpr std::int64_t kMaxDataset = std::int64_t{1} << 30;
constexpr std::int64_t kMaxIteratedBatches = 1 << 20;

std::string int_literal(std::int64_t value) { return std::to_string(value); }

// Exact, whatever the value: float.fromhex of C's %a spelling; NaN and the infinities by name.
std::string float_literal(double value) {
  if (std::isnan(value)) return "float(\"nan\")";
  if (std::isinf(value)) return value > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return std::string("float.fromhex(\"") + text + "\")";
}

std::string int_list(const std::vector<std::int64_t>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + int_literal(values[i]);
  return out + "]";
}

std::string int_tuple(const std::vector<std::int64_t>& values) {
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + int_literal(values[i]);
  return out + (values.size() == 1 ? ",)" : ")");
}

// The framework's name for an element type; "" for one the tier does not replay.
std::string torch_dtype(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "torch.bool";
    case DType::UInt8: return "torch.uint8";
    case DType::Int8: return "torch.int8";
    case DType::Int16: return "torch.int16";
    case DType::Int32: return "torch.int32";
    case DType::Int64: return "torch.int64";
    case DType::Float16: return "torch.float16";
    case DType::BFloat16: return "torch.bfloat16";
    case DType::Unknown:
    case DType::Float32: return "torch.float32";
    case DType::Float64: return "torch.float64";
    default: return "";
  }
}

std::string tf_dtype(DType dtype) {
  std::string name = torch_dtype(dtype);
  return name.empty() ? name : "tf." + name.substr(6);
}

// torch.optim's classes the tier replays: a name reaches the program only through this table.
std::string torch_optimizer(std::string_view name) {
  for (const char* known : {"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "RMSprop", "Adadelta"})
    if (name == known) return std::string("torch.optim.") + known;
  return "";
}

// Keras's optimizers the tier replays (those whose epsilon the rule reads): the same rule.
std::string keras_optimizer(std::string_view name) {
  for (const char* known : {"Adam", "AdamW", "RMSprop", "Adadelta", "Nadam"})
    if (name == known) return std::string("keras.optimizers.") + known;
  return "";
}

std::int64_t product(const std::vector<std::int64_t>& values) {
  std::int64_t out = 1;
  for (const auto v : values) {
    if (v <= 0) return 0;
    if (out > kMaxElements / v) return kMaxElements + 1;
    out *= v;
  }
  return out;
}

std::optional<std::string> conv_problem(const FrameworkReplay& r) {
  if (r.input.size() < 3 || r.input.size() > 5) return "the input needs 1 to 3 spatial dimensions";
  const std::size_t spatial = r.input.size() - 2;
  if (r.kernel.size() != spatial) return "the kernel does not match the input's spatial dimensions";
  for (const auto* list : {&r.stride, &r.padding, &r.dilation})
    if (!list->empty() && list->size() != spatial) return "a stride, padding or dilation does not match the kernel";
  for (const auto d : r.input)
    if (d < 0 || d > kMaxDim) return "an input dimension is negative or past " + int_literal(kMaxDim);
  if (product(r.input) > kMaxElements) return "the input holds more than " + int_literal(kMaxElements) + " elements";
  for (const auto k : r.kernel)
    if (k < 1 || k > 4096) return "a kernel size is out of 1..4096";
  for (const auto s : r.stride)
    if (s < 1 || s > 4096) return "a stride is out of 1..4096";
  for (const auto d : r.dilation)
    if (d < 1 || d > 4096) return "a dilation is out of 1..4096";
  for (const auto p : r.padding)
    if (p < 0 || p > 4096) return "a padding is out of 0..4096";
  if (r.input[1] < 1 || r.input[1] > kMaxChannels || r.out_channels < 1 || r.out_channels > kMaxChannels)
    return "a channel count is out of 1.." + int_literal(kMaxChannels);
  std::vector<std::int64_t> weight = {r.out_channels, r.input[1]};
  weight.insert(weight.end(), r.kernel.begin(), r.kernel.end());
  if (product(weight) > kMaxElements) return "the weights would hold more than " + int_literal(kMaxElements) + " elements";
  if (r.framework == FrameworkName::TensorFlow)
    for (const auto p : r.padding)
      if (p != 0) return "Keras convolutions take no explicit padding";
  return std::nullopt;
}

std::optional<std::string> loader_problem(const FrameworkReplay& r, bool iterated) {
  if (!r.batch_size || !r.dataset_size) return "the batch size or the dataset size is not known";
  if (*r.dataset_size < 0 || *r.dataset_size > kMaxDataset) return "the dataset size is out of 0.." + int_literal(kMaxDataset);
  if (!iterated) return std::nullopt;
  if (*r.batch_size < 1 || *r.dataset_size < 1) return "no last batch to take";
  if (*r.dataset_size / *r.batch_size > kMaxIteratedBatches) return "more than " + int_literal(kMaxIteratedBatches) + " batches to step through";
  if (r.input.size() != 2 || r.input[1] < 1 || r.input[1] > kMaxChannels) return "the batch norm's features are not known";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> framework_case_problem(const FrameworkReplay& r) {
  if (!r.replayable()) return "no framework case";
  const bool torch = r.framework == FrameworkName::Torch;
  if (!torch && r.framework != FrameworkName::TensorFlow) return "no framework named";
  if (torch_dtype(r.input_dtype).empty() || torch_dtype(r.weight_dtype).empty())
    return "an element type the framework tier does not replay";
  switch (r.probe) {
    case FrameworkProbe::ConvInput: return conv_problem(r);
    case FrameworkProbe::BatchNormInput:
      if (!torch) return "only PyTorch's batch norm is replayed for an input type";
      if (r.input.size() < 2 || r.input.size() > 5 || product(r.input) > kMaxElements || r.input[1] > kMaxChannels)
        return "the batch norm's input shape is out of bounds";
      return std::nullopt;
    case FrameworkProbe::BatchNormEps:
    case FrameworkProbe::HalfEpsilon:
    case FrameworkProbe::OptimizerHalfEpsilon:
      if (!r.epsilon) return "the epsilon is not known";
      if (r.probe == FrameworkProbe::OptimizerHalfEpsilon &&
          (torch ? torch_optimizer(r.optimizer) : keras_optimizer(r.optimizer)).empty())
        return "only torch.optim's Adam family, Adagrad, RMSprop and Adadelta, and Keras's Adam, AdamW, RMSprop, "
               "Adadelta and Nadam are replayed";
      return std::nullopt;
    case FrameworkProbe::PoolInput:
      if (!torch) return "only PyTorch's pooling layers are replayed";
      if (r.input.size() < 3 || r.input.size() > 5 || r.kernel.size() != r.input.size() - 2) return "the window does not match the input";
      for (const auto d : r.input)
        if (d < 1 || d > kMaxDim) return "an input dimension is out of 1.." + int_literal(kMaxDim);
      for (const auto k : r.kernel)
        if (k < 1 || k > 4096) return "a window size is out of 1..4096";
      if (product(r.input) > kMaxElements) return "the input holds more than " + int_literal(kMaxElements) + " elements";
      return std::nullopt;
    case FrameworkProbe::KerasPredictEmpty:
      if (r.framework != FrameworkName::TensorFlow) return "Model.predict is Keras'";
      return std::nullopt;
    case FrameworkProbe::ZeroBatchConv:
      if (r.framework != FrameworkName::TensorFlow) return "only Keras convolutions are replayed on a zero batch";
      if (r.input.size() != 4 || r.input[0] != 0) return "the input is not a 4-D tensor with batch 0";
      for (std::size_t i = 1; i < r.input.size(); ++i)
        if (r.input[i] < 1 || r.input[i] > 4096) return "an input dimension is out of 1..4096";
      return std::nullopt;
    case FrameworkProbe::KerasFit:
      if (r.framework != FrameworkName::TensorFlow) return "Model.fit is Keras'";
      if (!r.batch_size) return "the batch size is not known";
      return std::nullopt;
    case FrameworkProbe::LoaderBatch: return loader_problem(r, false);
    case FrameworkProbe::LastBatchIntoBatchNorm:
      if (!torch) return "only PyTorch's loader and batch norm are replayed for a last batch";
      return loader_problem(r, true);
    case FrameworkProbe::None: break;
  }
  return "no framework case";
}

namespace {

std::string torch_case(const FrameworkReplay& r) {
  std::ostringstream b;
  const std::string input_type = torch_dtype(r.input_dtype), weight_type = torch_dtype(r.weight_dtype);
  switch (r.probe) {
    case FrameworkProbe::ConvInput: {
      const std::size_t spatial = r.input.size() - 2;
      auto or_ones = [&](const std::vector<std::int64_t>& v, std::int64_t fill) {
        return v.empty() ? std::vector<std::int64_t>(spatial, fill) : v;
      };
      b << "    layer = torch.nn.Conv" << spatial << "d(" << int_literal(r.input[1]) << ", " << int_literal(r.out_channels)
        << ", kernel_size=" << int_tuple(r.kernel) << ", stride=" << int_tuple(or_ones(r.stride, 1))
        << ", padding=" << int_tuple(or_ones(r.padding, 0)) << ", dilation=" << int_tuple(or_ones(r.dilation, 1))
        << ").to(" << weight_type << ")\n"
        << "    y = layer(torch.zeros(" << int_list(r.input) << ", dtype=" << input_type << "))\n"
        << "    return {\"finite\": finite(y)}\n";
      break;
    }
    case FrameworkProbe::BatchNormInput:
      b << "    layer = torch.nn.BatchNorm" << (r.input.size() <= 3 ? 1 : r.input.size() - 2) << "d("
        << int_literal(r.input[1]) << ").to(" << weight_type << ").train()\n"
        << "    y = layer(torch.zeros(" << int_list(r.input) << ", dtype=" << input_type << "))\n"
        << "    return {\"finite\": finite(y)}\n";
      break;
    case FrameworkProbe::BatchNormEps:
      // A constant channel: its variance is 0, so the epsilon alone keeps 1/sqrt(var + eps) finite.
      b << "    layer = torch.nn.BatchNorm2d(3, eps=" << float_literal(*r.epsilon) << ").train()\n"
        << "    y = layer(torch.zeros([2, 3, 2, 2]))\n"
        << "    return {\"finite\": finite(y)}\n";
      break;
    case FrameworkProbe::PoolInput:
      b << "    layer = torch.nn.MaxPool" << r.kernel.size() << "d(kernel_size=" << int_tuple(r.kernel) << ")\n"
        << "    y = layer(torch.zeros(" << int_list(r.input) << "))\n"
        << "    return {\"finite\": finite(y)}\n";
      break;
    case FrameworkProbe::LoaderBatch:
      b << "    loader = torch.utils.data.DataLoader(range(" << int_literal(*r.dataset_size)
        << "), batch_size=" << int_literal(*r.batch_size) << ", drop_last=" << (r.drop_last ? "True" : "False") << ")\n"
        << "    return {\"batches\": len(loader)}\n";
      break;
    case FrameworkProbe::LastBatchIntoBatchNorm:
      b << "    *_, last = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range("
        << int_literal(*r.dataset_size) << ")), " << int_literal(*r.batch_size) << ", False)\n"
        << "    layer = torch.nn.BatchNorm1d(" << int_literal(r.input[1]) << ").train()\n"
        << "    y = layer(torch.randn(len(last), " << int_literal(r.input[1]) << "))\n"
        << "    return {\"finite\": finite(y), \"last_batch\": len(last)}\n";
      break;
    case FrameworkProbe::HalfEpsilon:
      b << "    eps = torch.tensor(" << float_literal(*r.epsilon) << ", dtype=torch.float16)\n"
        << "    q = torch.ones(1, dtype=torch.float16) / (torch.zeros(1, dtype=torch.float16) + eps)\n"
        << "    return {\"finite\": finite(q), \"eps_in_float16\": repr(float(eps)), \"quotient\": repr(float(q[0]))}\n";
      break;
    case FrameworkProbe::OptimizerHalfEpsilon:
      // Ten steps: RAdam's rectification starts only after its first few.
      b << "    p = torch.nn.Parameter(torch.ones(4, dtype=torch.float16))\n"
        << "    optimizer = " << torch_optimizer(r.optimizer) << "([p], eps=" << float_literal(*r.epsilon) << ")\n"
        << "    for _ in range(10):\n"
        << "        p.grad = torch.zeros_like(p)\n"
        << "        optimizer.step()\n"
        << "    return {\"finite\": finite(p.detach())}\n";
      break;
    case FrameworkProbe::KerasFit:
    case FrameworkProbe::KerasPredictEmpty:
    case FrameworkProbe::ZeroBatchConv:
    case FrameworkProbe::None: break;
  }
  return b.str();
}

// Keras lays images out channels-last: [N, C, H, W] becomes [N, H, W, C].
std::vector<std::int64_t> channels_last(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> out = {shape[0]};
  out.insert(out.end(), shape.begin() + 2, shape.end());
  out.push_back(shape[1]);
  return out;
}

std::string tf_case(const FrameworkReplay& r) {
  std::ostringstream b;
  switch (r.probe) {
    case FrameworkProbe::ConvInput: {
      const std::size_t spatial = r.input.size() - 2;
      auto or_ones = [&](const std::vector<std::int64_t>& v) { return v.empty() ? std::vector<std::int64_t>(spatial, 1) : v; };
      b << "    layer = keras.layers.Conv" << spatial << "D(" << int_literal(r.out_channels)
        << ", " << int_tuple(r.kernel) << ", strides=" << int_tuple(or_ones(r.stride))
        << ", dilation_rate=" << int_tuple(or_ones(r.dilation)) << ", dtype=\"" << tf_dtype(r.weight_dtype).substr(3) << "\")\n"
        << "    y = layer(tf.zeros(" << int_list(channels_last(r.input)) << ", dtype=" << tf_dtype(r.input_dtype) << "))\n"
        << "    return {\"finite\": finite(y)}\n";
      break;
    }
    case FrameworkProbe::BatchNormEps:
      b << "    layer = keras.layers.BatchNormalization(epsilon=" << float_literal(*r.epsilon) << ")\n"
        << "    y = layer(tf.zeros([2, 2, 2, 3]), training=True)\n"
        << "    return {\"finite\": finite(y)}\n";
      break;
    case FrameworkProbe::LoaderBatch:
      b << "    ds = tf.data.Dataset.range(" << int_literal(*r.dataset_size) << ").batch(" << int_literal(*r.batch_size)
        << ", drop_remainder=" << (r.drop_last ? "True" : "False") << ")\n"
        << "    return {\"batches\": int(ds.cardinality())}\n";
      break;
    case FrameworkProbe::KerasFit:
      b << "    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])\n"
        << "    model.compile(optimizer=\"sgd\", loss=\"mse\")\n"
        << "    history = model.fit(tf.zeros([4, 2]), tf.zeros([4, 1]), batch_size=" << int_literal(*r.batch_size)
        << ", epochs=1, verbose=0)\n"
        << "    return {\"finite\": all(v == v for values in history.history.values() for v in values)}\n";
      break;
    case FrameworkProbe::KerasPredictEmpty:
      b << "    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])\n"
        << "    y = model.predict(tf.zeros([0, 2]), verbose=0)\n"
        << "    return {\"finite\": True}\n";
      break;
    case FrameworkProbe::ZeroBatchConv:
      // On the GPU, where the claim is: cuDNN handed a tensor with n = 0.
      b << "    if not tf.config.list_physical_devices(\"GPU\"):\n"
        << "        return {\"no_gpu\": True}\n"
        << "    with tf.device(\"/GPU:0\"):\n"
        << "        layer = keras.layers.Conv2D(4, 3, padding=\"same\")\n"
        << "        y = layer(tf.zeros(" << int_list(channels_last(r.input)) << "))\n"
        << "    return {\"finite\": finite(y)}\n";
      break;
    case FrameworkProbe::OptimizerHalfEpsilon:
      // float16 weights through each layer's dtype, not set_floatx: the program's other cases share
      // the interpreter. Zero inputs give both kernels exactly zero gradients.
      b << "    model = keras.Sequential([keras.layers.Dense(3, dtype=\"float16\", input_shape=(4,)), "
           "keras.layers.Dense(1, dtype=\"float16\")])\n"
        << "    model.compile(optimizer=" << keras_optimizer(r.optimizer) << "(epsilon=" << float_literal(*r.epsilon)
        << "), loss=\"mse\")\n"
        << "    model.fit(tf.zeros([8, 4], tf.float16), tf.ones([8, 1], tf.float16), epochs=1, verbose=0)\n"
        << "    return {\"finite\": all(finite(w.numpy()) for w in model.weights)}\n";
      break;
    case FrameworkProbe::HalfEpsilon:
      b << "    eps = tf.constant(" << float_literal(*r.epsilon) << ", dtype=tf.float16)\n"
        << "    q = tf.ones([1], dtype=tf.float16) / (tf.zeros([1], dtype=tf.float16) + eps)\n"
        << "    return {\"finite\": finite(q), \"eps_in_float16\": repr(float(eps)), \"quotient\": repr(float(q[0]))}\n";
      break;
    default: break;
  }
  return b.str();
}

constexpr const char* kPrologue = R"(import json, sys
def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()
def run(case, body):
    emit({"case": case, "started": True})
    try:
        result = body()
    except BaseException as e:
        emit({"case": case, "raised": type(e).__name__, "message": str(e)[:2000]})
    else:
        emit({"case": case, "result": result})
)";

constexpr const char* kTorchImport = R"(try:
    import torch
    import torch.utils.data
except BaseException as e:
    emit({"import_error": type(e).__name__ + ": " + str(e)[:500]})
    sys.exit(0)
emit({"framework": "torch", "version": torch.__version__, "python": sys.version.split()[0]})
torch.manual_seed(0)
def finite(t):
    return bool(torch.isfinite(t).all()) if t.is_floating_point() else True
)";

constexpr const char* kTfImport = R"(try:
    import tensorflow as tf
    import keras
except BaseException as e:
    emit({"import_error": type(e).__name__ + ": " + str(e)[:500]})
    sys.exit(0)
emit({"framework": "tensorflow", "version": tf.__version__, "keras": keras.__version__, "python": sys.version.split()[0]})
def finite(t):
    return bool(tf.reduce_all(tf.math.is_finite(tf.cast(t, tf.float32))))
)";

}  // namespace

std::string framework_program(FrameworkName framework, std::span<const FrameworkReplay* const> cases) {
  const bool torch = framework == FrameworkName::Torch;
  std::string program = kPrologue;
  program += torch ? kTorchImport : kTfImport;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    program += "def case_" + std::to_string(k) + "():\n";
    const std::string body = torch ? torch_case(*cases[k]) : tf_case(*cases[k]);
    program += body.empty() ? "    return None\n" : body;
    program += "run(" + std::to_string(k) + ", case_" + std::to_string(k) + ")\n";
  }
  return program;
}

}  // namespace cudnnlint::gpu
