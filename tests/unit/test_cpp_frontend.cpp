// The C++/CUDA front-end, run by the real Clang on sources that include the real cuDNN headers
// of the CUDA toolkit: facts per API, values from literals, constexpr, #define and enumerators.
#include "cpp/frontend.h"
#include "core/api_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace cudnnlint {
namespace {

class CppSource {
 public:
  CppSource(const std::string& name, const std::string& text) {
    dir_ = std::filesystem::temp_directory_path() /
           ("cudnnlint-cpp-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
    std::ofstream(path_) << text;
  }
  ~CppSource() { std::filesystem::remove_all(dir_); }
  cpp::CppFileResult analyze(cpp::CppOptions options = {}) const {
    const std::vector<std::string> files{path_};
    return cpp::analyze_cpp(files, ApiTable::builtin(), options).front();
  }
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

TEST(CppFrontend, EpsilonByArgumentIndexFromEveryKindOfConstant) {
  const CppSource source("bn.cpp", R"(#include <cudnn.h>
#define EPS_MACRO 1e-7
constexpr double kConstexpr = 2e-7;
static const double kStatic = 3e-7;
enum { kEnumTimesTen = 4 };
void f(cudnnHandle_t h, cudnnTensorDescriptor_t x, void* p, double runtime_eps) {
  cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, p, p, x, p, x, p, x, p, p, 0.1, p, p, EPS_MACRO, p, p);
  cudnnBatchNormalizationForwardTraining(h, CUDNN_BATCHNORM_SPATIAL, p, p, x, p, x, p, x, p, p, 0.1, p, p, kConstexpr, p, p);
  cudnnBatchNormalizationForwardTrainingEx(h, CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, p, p, x, p, x, p, x, p, x, p, p, 0.1, p, p, kStatic, p, p, nullptr, p, 0, p, 0);
  cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, p, p, x, p, x, p, x, p, p, p, p, kEnumTimesTen * 1e-8);
  cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, p, p, x, p, x, p, x, p, p, p, p, runtime_eps);
}
)");
  const auto result = source.analyze();
  EXPECT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().message;
  const auto& norms = result.facts.normalizations;
  ASSERT_EQ(norms.size(), 5u);
  EXPECT_EQ(norms[0].api, "cudnnBatchNormalizationForwardTraining");
  EXPECT_DOUBLE_EQ(norms[0].eps.value->value, 1e-7);
  EXPECT_EQ(norms[0].eps.location->range.begin.line, 7u);
  ASSERT_FALSE(norms[0].eps.value->provenance.empty());
  EXPECT_EQ(norms[0].eps.value->provenance[0].where.range.begin.line, 2u);  // the #define
  EXPECT_DOUBLE_EQ(norms[1].eps.value->value, 2e-7);
  EXPECT_EQ(norms[1].eps.value->provenance.back().where.range.begin.line, 3u);
  EXPECT_EQ(norms[2].api, "cudnnBatchNormalizationForwardTrainingEx");
  EXPECT_DOUBLE_EQ(norms[2].eps.value->value, 3e-7);
  EXPECT_DOUBLE_EQ(norms[3].eps.value->value, 4e-8);
  EXPECT_EQ(norms[4].eps.source, ValueSource::NotConstant);
  EXPECT_EQ(result.facts.frameworks, std::vector<std::string>{"cudnn"});
}

TEST(CppFrontend, DescriptorsAndTheConvolutionThatUsesThem) {
  const CppSource source("conv.cpp", R"(#include <cudnn.h>
void f(cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c) {
  cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, 8, 3, 32, 32);
  cudnnSetFilter4dDescriptor(w, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, 16, 3, 5, 5);
  cudnnSetConvolution2dDescriptor(c, 2, 2, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  int n, ch, h, ww;
  cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &ch, &h, &ww);
}
void other(cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c) {
  int n, ch, h, ww;
  cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &ch, &h, &ww);  // set elsewhere: not linked
}
)");
  const auto result = source.analyze();
  ASSERT_EQ(result.facts.descriptors.size(), 3u);
  const DescriptorFact& tensor = result.facts.descriptors[0];
  EXPECT_EQ(tensor.kind, DescriptorFact::Kind::Tensor);
  EXPECT_EQ(tensor.descriptor, "x");
  EXPECT_EQ(tensor.data_type, "CUDNN_DATA_HALF");
  ASSERT_EQ(tensor.names, (std::vector<std::string>{"n", "c", "h", "w"}));
  EXPECT_EQ(tensor.values[2]->value, 32);
  EXPECT_EQ(result.facts.descriptors[2].names[2], "stride_h");
  ASSERT_EQ(result.facts.conv_geometries.size(), 1u);
  const ConvGeometryFact& conv = result.facts.conv_geometries[0];
  EXPECT_EQ(conv.api, "cudnnGetConvolution2dForwardOutputDim");
  ASSERT_EQ(conv.kernel.size(), 2u);
  EXPECT_EQ(conv.kernel[0]->value, 5);  // the filter's h
  ASSERT_EQ(conv.input.size(), 4u);
  EXPECT_EQ(conv.input[2]->value, 32);
  EXPECT_EQ(conv.dtype, DType::Float16);
  EXPECT_EQ(conv.input_set_by, "cudnnSetTensor4dDescriptor");
  EXPECT_EQ(conv.layout, "NHWC");  // the input's CUDNN_TENSOR_NHWC
}

TEST(CppFrontend, CudaFileParsesOnTheHostSide) {
  const CppSource source("k.cu", R"(#include <cuda_runtime.h>
#include <cudnn.h>
__global__ void k(float* x) { x[threadIdx.x + blockIdx.x * blockDim.x] = 0; }
__device__ float twice(float v) { return 2 * v; }
void launch(float* x, cudnnTensorDescriptor_t t) {
  k<<<1, 32>>>(x);
  cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 1, 1, 1);
}
)");
  const auto result = source.analyze();
  EXPECT_TRUE(result.diagnostics.empty()) << result.diagnostics.front().message;
  ASSERT_EQ(result.facts.descriptors.size(), 1u);
  EXPECT_EQ(result.facts.descriptors[0].values[0]->value, 0);
}

TEST(CppFrontend, BrokenTranslationUnitGivesANoteAndWhatTheAstRecovered) {
  const CppSource source("broken.cpp", R"(#include <cudnn.h>
#include "missing/header.h"
void f(cudnnTensorDescriptor_t t) { cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, -2, 1, 1, 1); }
)");
  const auto result = source.analyze();
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_NE(result.diagnostics[0].message.find("missing/header.h"), std::string::npos);
  ASSERT_EQ(result.facts.descriptors.size(), 1u);
  EXPECT_EQ(result.facts.descriptors[0].values[0]->value, -2);
}

TEST(CppFrontend, NolintComments) {
  const CppSource source("n.cpp", "#include <cudnn.h>\n"
                                  "int a;  // NOLINT\n"
                                  "int b;  // NOLINT(cudnnlint-cudnn-desc-bad-dim, bugprone-x)\n"
                                  "// NOLINTNEXTLINE(cudnnlint-*)\n"
                                  "int c;\n"
                                  "int d;  // NOLINT(bugprone-x)\n"
                                  "const char* s = \"NOLINT\";\n"
                                  "void f(cudnnTensorDescriptor_t t) { cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1); }\n");
  const auto result = source.analyze();
  const auto& s = result.facts.suppressions;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].line, 2u);
  EXPECT_TRUE(s[0].rules.empty());
  EXPECT_EQ(s[1].line, 3u);
  EXPECT_EQ(s[1].rules, std::vector<std::string>{"cudnn-desc-bad-dim"});
  EXPECT_EQ(s[2].line, 5u);
  EXPECT_TRUE(s[2].rules.empty());
}

TEST(CppFrontend, FileKindsAndFallbackFlags) {
  for (const char* p : {"a.c", "a.cc", "a.cpp", "a.cxx", "a.h", "a.hh", "a.hpp", "a.cu", "a.cuh"})
    EXPECT_TRUE(cpp::is_cpp_source(p)) << p;
  for (const char* p : {"a.py", "a.cuda", "dir.cpp/file", "Makefile"}) EXPECT_FALSE(cpp::is_cpp_source(p)) << p;
  const auto cu = cpp::fallback_flags("k.cu");
  EXPECT_NE(std::find(cu.begin(), cu.end(), "--cuda-host-only"), cu.end());
  EXPECT_NE(std::find(cu.begin(), cu.end(), "-nocudainc"), cu.end());
  const auto cc = cpp::fallback_flags("a.cpp");
  EXPECT_NE(std::find(cc.begin(), cc.end(), "-std=c++17"), cc.end());
  EXPECT_FALSE(cpp::may_contain_cpp_trigger("int main() { return 0; }"));
  // The prefilter takes the API names the rules read, as whole identifiers, not any "cudnn".
  EXPECT_FALSE(cpp::may_contain_cpp_trigger("#include <cudnn.h>\ncudnnHandle_t h; cudnnCreate(&h);"));
  EXPECT_FALSE(cpp::may_contain_cpp_trigger("int wrap_cudnnSetTensor4dDescriptor_v2(int);"));
  EXPECT_TRUE(cpp::may_contain_cpp_trigger("cudnnSetTensor4dDescriptor(d, f, t, 1, 2, 3, 4);"));
  EXPECT_TRUE(cpp::may_contain_cpp_trigger("s = cudnnBatchNormalizationForwardTrainingEx(h, m, o, a, b);"));
  EXPECT_TRUE(cpp::may_contain_cpp_trigger("torch::nn::BatchNorm2d bn(torch::nn::BatchNorm2dOptions(8).eps(0));"));
  EXPECT_TRUE(cpp::may_contain_cpp_trigger("auto loader = torch::data::make_data_loader(std::move(ds), 0);"));
  EXPECT_TRUE(cpp::may_contain_cpp_trigger("auto y = net->forward(x.to(torch::kByte));"));
  EXPECT_TRUE(cpp::may_contain_cpp_trigger("auto bn = fe::graph::Batchnorm_attributes().set_epsilon(eps);"));
  EXPECT_TRUE(cpp::may_contain_cpp_trigger("__half h = __float2half(1e-8f);"));
  EXPECT_FALSE(cpp::may_contain_cpp_trigger("__half h = __float2half(0.5f);"));
}

}  // namespace
}  // namespace cudnnlint
