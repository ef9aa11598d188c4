// cudnnlint's stand-in for libtorch's headers, used only where `torch/torch.h` (or
// `torch/script.h`, `torch/all.h`, `torch/extension.h`, `ATen/ATen.h`, `ATen/autocast_mode.h`) is not on the include
// path: CI machines rarely have libtorch installed. It declares exactly the part of libtorch's
// C++ API that cudnnlint's rules read, as libtorch 2.11 declares it (same namespaces, same
// qualified names, typedefs and class templates), so that the collector sees the same facts
// as with the real headers (tests/e2e/test_cpp.py compares them). Any other libtorch name in
// the code stays undeclared: clang reports it and cudnnlint reads the recovered AST.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

// torch/arg.h
#define TORCH_ARG(T, name)                                                   \
 public:                                                                     \
  inline auto name(const T& new_##name)->decltype(*this) {                   \
    this->name##_ = new_##name;                                              \
    return *this;                                                            \
  }                                                                          \
  inline auto name(T&& new_##name)->decltype(*this) {                        \
    this->name##_ = std::move(new_##name);                                   \
    return *this;                                                            \
  }                                                                          \
  inline const T& name() const noexcept { return this->name##_; }            \
  inline T& name() noexcept { return this->name##_; }                        \
                                                                             \
 private:                                                                    \
  T name##_

// torch/nn/pimpl.h
#define TORCH_MODULE_IMPL(Name, ImplType)                  \
  class Name : public torch::nn::ModuleHolder<ImplType> {  \
   public:                                                 \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder; \
    using Impl = ImplType;                                 \
  }
#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)

// c10/core/ScalarType.h, c10/core/Device.h, c10/util/ArrayRef.h
namespace c10 {
enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble, Bool, BFloat16,
  UInt16 = 27, UInt32, UInt64
};
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
struct Device {
  /* implicit */ Device(DeviceType type, int8_t index = -1);
  /* implicit */ Device(const std::string& device_string);
};
template <typename T>
class ArrayRef {
 public:
  /* implicit */ ArrayRef(const std::initializer_list<T>& list);
  /* implicit */ ArrayRef(const std::vector<T>& vec);
  /* implicit */ ArrayRef(const T& single);
};
using IntArrayRef = ArrayRef<int64_t>;
}  // namespace c10

namespace at {
// ATen/autocast_mode.h: a function that names autocast casts conv inputs and weights itself.
namespace autocast {
void set_autocast_enabled(c10::DeviceType device_type, bool enabled);
bool is_autocast_enabled(c10::DeviceType device_type);
}  // namespace autocast
using c10::Device;
using c10::IntArrayRef;
using c10::ScalarType;
using c10::kBFloat16;
using c10::kBool;
using c10::kByte;
using c10::kChar;
using c10::kCPU;
using c10::kCUDA;
using c10::kDouble;
using c10::kFloat;
using c10::kHalf;
using c10::kInt;
using c10::kLong;
using c10::kShort;
constexpr auto kInt8 = kChar;
constexpr auto kInt16 = kShort;
constexpr auto kInt32 = kInt;
constexpr auto kInt64 = kLong;
constexpr auto kUInt8 = kByte;
constexpr auto kFloat16 = kHalf;
constexpr auto kFloat32 = kFloat;
constexpr auto kFloat64 = kDouble;
// c10/core/TensorOptions.h
struct TensorOptions {
  TensorOptions() = default;
  /* implicit */ TensorOptions(ScalarType dtype);
  /* implicit */ TensorOptions(Device device);
  /* implicit */ TensorOptions(c10::DeviceType device);
  TensorOptions dtype(ScalarType dtype) const noexcept;
  TensorOptions device(Device device) const noexcept;
  TensorOptions requires_grad(bool requires_grad) const noexcept;
};
inline TensorOptions dtype(ScalarType dtype) { return TensorOptions().dtype(dtype); }
inline TensorOptions device(Device device) { return TensorOptions().device(device); }
// ATen/core/TensorBody.h: the conversions the rules follow.
class Tensor {
 public:
  Tensor();
  Tensor(const Tensor&);
  Tensor(Tensor&&) noexcept;
  Tensor& operator=(const Tensor&) &;
  Tensor& operator=(Tensor&&) & noexcept;
  ~Tensor();  // as in libtorch: temporaries come wrapped in CXXBindTemporaryExpr
  Tensor to(TensorOptions options = {}, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  ScalarType scalar_type() const;
};
// ATen/Functions.h: factories and the functional layers the rules read.
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t high, IntArrayRef size, TensorOptions options = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, TensorOptions options = {});
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {}, IntArrayRef stride = 1,
              IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1);
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled);
Tensor instance_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                     const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                     bool use_input_stats, double momentum, double eps, bool cudnn_enabled);
}  // namespace at

namespace torch {
using namespace at;  // torch/types.h
// torch/csrc/autograd/generated/variable_factories.h
inline at::Tensor zeros(at::IntArrayRef size, at::TensorOptions options = {}) { return at::zeros(size, options); }
inline at::Tensor ones(at::IntArrayRef size, at::TensorOptions options = {}) { return at::ones(size, options); }
inline at::Tensor empty(at::IntArrayRef size, at::TensorOptions options = {}) { return at::empty(size, options); }
inline at::Tensor rand(at::IntArrayRef size, at::TensorOptions options = {}) { return at::rand(size, options); }
inline at::Tensor randn(at::IntArrayRef size, at::TensorOptions options = {}) { return at::randn(size, options); }
inline at::Tensor randint(int64_t high, at::IntArrayRef size, at::TensorOptions options = {}) {
  return at::randint(high, size, options);
}
inline at::Tensor randint(int64_t low, int64_t high, at::IntArrayRef size, at::TensorOptions options = {}) {
  return at::randint(low, high, size, options);
}
inline at::Tensor from_blob(void* data, at::IntArrayRef sizes, const at::TensorOptions& options = at::TensorOptions()) {
  return at::from_blob(data, sizes, options);
}
// torch/expanding_array.h, torch/enum.h
template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /* implicit */ ExpandingArray(std::initializer_list<T> list);
  /* implicit */ ExpandingArray(std::vector<T> vec);
  /* implicit */ ExpandingArray(T single_size);
};
namespace enumtype {
struct kValid {};
struct kSame {};
struct kZeros {};
}  // namespace enumtype
constexpr enumtype::kValid kValid{};
constexpr enumtype::kSame kSame{};
constexpr enumtype::kZeros kZeros{};

namespace nn {
// torch/nn/module.h, torch/nn/pimpl.h
class Module {
 public:
  virtual ~Module();
  virtual void to(at::Device device, at::ScalarType dtype, bool non_blocking = false);
  virtual void to(at::ScalarType dtype, bool non_blocking = false);
  virtual void to(at::Device device, bool non_blocking = false);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name, std::shared_ptr<ModuleType> module);
};
template <typename Contained>
class ModuleHolder {
 public:
  ModuleHolder();
  /* implicit */ ModuleHolder(std::nullptr_t);
  template <typename Head, typename... Tail>
  explicit ModuleHolder(Head&& head, Tail&&... tail);
  /* implicit */ ModuleHolder(std::shared_ptr<Contained> module);
  Contained* operator->();
  const Contained* operator->() const;
  Contained& operator*();
  template <typename... Args>
  auto operator()(Args&&... args) -> decltype((*static_cast<Contained*>(nullptr)).forward(std::forward<Args>(args)...));
};
// torch/nn/options/conv.h
template <size_t D>
struct ConvOptions {
  using padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(padding_t, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;
// torch/nn/modules/conv.h
template <size_t D, typename Derived>
class ConvNdImpl : public Module {
 public:
  explicit ConvNdImpl(ConvOptions<D> options);
  at::Tensor weight;
  at::Tensor bias;
};
class Conv1dImpl : public ConvNdImpl<1, Conv1dImpl> {
 public:
  Conv1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size);
  explicit Conv1dImpl(Conv1dOptions options);
  at::Tensor forward(const at::Tensor& input);
};
TORCH_MODULE(Conv1d);
class Conv2dImpl : public ConvNdImpl<2, Conv2dImpl> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size);
  explicit Conv2dImpl(Conv2dOptions options);
  at::Tensor forward(const at::Tensor& input);
};
TORCH_MODULE(Conv2d);
class Conv3dImpl : public ConvNdImpl<3, Conv3dImpl> {
 public:
  Conv3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size);
  explicit Conv3dImpl(Conv3dOptions options);
  at::Tensor forward(const at::Tensor& input);
};
TORCH_MODULE(Conv3d);
// torch/nn/options/batchnorm.h, torch/nn/options/instancenorm.h
struct BatchNormOptions {
  /* implicit */ BatchNormOptions(int64_t num_features);
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(bool, affine) = true;
  TORCH_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;
struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features);
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(bool, affine) = false;
  TORCH_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;
// torch/nn/modules/batchnorm.h, torch/nn/modules/instancenorm.h
template <size_t D, typename Derived, typename DerivedOptions>
class NormImplBase : public Module {
 public:
  explicit NormImplBase(const DerivedOptions& options);
};
template <size_t D, typename Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  using NormImplBase<D, Derived, BatchNormOptions>::NormImplBase;
  at::Tensor forward(const at::Tensor& input);
};
class BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 public:
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm1d);
class BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 public:
  using BatchNormImplBase<2, BatchNorm2dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm2d);
class BatchNorm3dImpl : public BatchNormImplBase<3, BatchNorm3dImpl> {
 public:
  using BatchNormImplBase<3, BatchNorm3dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm3d);
template <size_t D, typename Derived>
class InstanceNormImpl : public NormImplBase<D, Derived, InstanceNormOptions> {
 public:
  using NormImplBase<D, Derived, InstanceNormOptions>::NormImplBase;
  at::Tensor forward(const at::Tensor& input);
};
class InstanceNorm1dImpl : public InstanceNormImpl<1, InstanceNorm1dImpl> {
 public:
  using InstanceNormImpl<1, InstanceNorm1dImpl>::InstanceNormImpl;
};
TORCH_MODULE(InstanceNorm1d);
class InstanceNorm2dImpl : public InstanceNormImpl<2, InstanceNorm2dImpl> {
 public:
  using InstanceNormImpl<2, InstanceNorm2dImpl>::InstanceNormImpl;
};
TORCH_MODULE(InstanceNorm2d);
class InstanceNorm3dImpl : public InstanceNormImpl<3, InstanceNorm3dImpl> {
 public:
  using InstanceNormImpl<3, InstanceNorm3dImpl>::InstanceNormImpl;
};
TORCH_MODULE(InstanceNorm3d);
namespace functional {
// torch/nn/options/batchnorm.h, instancenorm.h, conv.h; torch/nn/functional/*.h
struct BatchNormFuncOptions {
  TORCH_ARG(at::Tensor, weight) = at::Tensor();
  TORCH_ARG(at::Tensor, bias) = at::Tensor();
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};
struct InstanceNormFuncOptions {
  TORCH_ARG(at::Tensor, running_mean) = at::Tensor();
  TORCH_ARG(at::Tensor, running_var) = at::Tensor();
  TORCH_ARG(at::Tensor, weight) = at::Tensor();
  TORCH_ARG(at::Tensor, bias) = at::Tensor();
  TORCH_ARG(bool, use_input_stats) = true;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};
template <size_t D>
struct ConvFuncOptions {
  using padding_t = std::variant<ExpandingArray<D>, enumtype::kValid, enumtype::kSame>;
  TORCH_ARG(at::Tensor, bias) = at::Tensor();
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(padding_t, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;
at::Tensor batch_norm(const at::Tensor& input, const at::Tensor& running_mean, const at::Tensor& running_var,
                      const BatchNormFuncOptions& options = {});
at::Tensor instance_norm(const at::Tensor& input, const InstanceNormFuncOptions& options = {});
at::Tensor conv1d(const at::Tensor& input, const at::Tensor& weight, const Conv1dFuncOptions& options = {});
at::Tensor conv2d(const at::Tensor& input, const at::Tensor& weight, const Conv2dFuncOptions& options = {});
at::Tensor conv3d(const at::Tensor& input, const at::Tensor& weight, const Conv3dFuncOptions& options = {});
}  // namespace functional
}  // namespace nn

// torch/data/example.h, torch/data/datasets/base.h, torch/data/dataloader_options.h,
// torch/data/dataloader.h: what a make_data_loader call needs to resolve.
namespace data {
template <typename Data = at::Tensor, typename Target = at::Tensor>
struct Example {
  Data data;
  Target target;
};
namespace datasets {
template <typename Self, typename SingleExample = Example<>>
class Dataset {
 public:
  using ExampleType = SingleExample;
  using BatchType = std::vector<SingleExample>;
  virtual ~Dataset() = default;
  virtual ExampleType get(size_t index) = 0;
  virtual std::optional<size_t> size() const = 0;
};
}  // namespace datasets
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}
  TORCH_ARG(size_t, batch_size) = 1;
  TORCH_ARG(std::optional<size_t>, batch_size_hint) = std::nullopt;
  TORCH_ARG(size_t, workers) = 0;
  TORCH_ARG(bool, enforce_ordering) = true;
  TORCH_ARG(bool, drop_last) = false;
};
template <typename Dataset>
class DataLoader {
 public:
  struct Iterator {
    bool operator!=(const Iterator&) const;
    Iterator& operator++();
    typename Dataset::BatchType& operator*();
  };
  Iterator begin();
  Iterator end();
};
template <typename Dataset>
std::unique_ptr<DataLoader<Dataset>> make_data_loader(Dataset dataset, DataLoaderOptions options = DataLoaderOptions());
}  // namespace data
}  // namespace torch
