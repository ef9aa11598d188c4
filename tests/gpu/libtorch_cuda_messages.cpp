// The messages a libtorch (C++) program gets on CUDA for the dtype mismatches cudnnlint reports.
// kb/pytorch/conv-input-weight-dtype-mismatch.json and integer-input-to-conv-or-batchnorm.json
// quote the Python spellings (torch.cuda.HalfTensor), measured; the ATen spellings a C++ program
// prints (CUDAHalfType, CUDAByteType) were read in the source only. The Python bindings rewrite
// them (processErrorMsg), so only a C++ program can show them. Also at::batch_norm on one value per
// channel in training, which no _verify_batch_size check guards.
// One JSON line per case. Build against the libtorch of a torch wheel (a CUDA build for the CUDA
// cases; the CPU cases run anywhere):
//   T=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
//   g++ -std=c++17 -O1 libtorch_cuda_messages.cpp -I$T/include -L$T/lib -Wl,--no-as-needed \
//       -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda -Wl,--as-needed -Wl,-rpath,$T/lib -o probe
//   (drop -ltorch_cuda -lc10_cuda on a CPU-only libtorch)
#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <functional>
#include <iostream>
#include <string>

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

void run_case(const std::string& device, const std::string& name, const std::function<std::string()>& body) {
  std::string error;
  std::string result;
  try {
    result = body();
  } catch (const c10::Error& e) {
    error = first_line(e.what_without_backtrace());
  } catch (const std::exception& e) {
    error = first_line(e.what());
  }
  std::cout << "{\"case\": \"" << escape(name) << "\", \"device\": \"" << device << "\", \"error\": "
            << (error.empty() ? std::string("null") : "\"" + escape(error) + "\"") << ", \"result\": \""
            << escape(result) << "\"}" << std::endl;
}

std::string describe(const at::Tensor& t) {
  auto f = t.to(at::kCPU).to(at::kFloat).flatten();
  std::string out = std::string(c10::toString(t.scalar_type())) + " nan=" + (at::isnan(f).any().item<bool>() ? "1" : "0");
  out += " first=";
  for (int64_t i = 0; i < std::min<int64_t>(3, f.numel()); ++i) out += std::to_string(f[i].item<float>()) + " ";
  return out;
}

void cases_on(const at::Device device) {
  const std::string where = device.is_cuda() ? "cuda" : "cpu";
  const auto opts = at::TensorOptions().device(device);
  const auto w = at::randn({8, 3, 3, 3}, opts);
  const auto b = at::randn({8}, opts);
  const auto x = at::randn({2, 3, 8, 8}, opts);
  run_case(where, "conv2d half input, float weight and bias", [&] { return describe(at::conv2d(x.to(at::kHalf), w, b)); });
  run_case(where, "conv2d half input, float weight, no bias", [&] { return describe(at::conv2d(x.to(at::kHalf), w)); });
  run_case(where, "conv2d uint8 input, float weight, no bias", [&] { return describe(at::conv2d(x.to(at::kByte), w)); });
  run_case(where, "conv2d int64 input, float weight and bias", [&] { return describe(at::conv2d(x.to(at::kLong), w, b)); });
  run_case(where, "conv2d float input, half weight and bias", [&] { return describe(at::conv2d(x, w.to(at::kHalf), b.to(at::kHalf))); });

  const auto gamma = at::ones({3}, opts);
  const auto beta = at::zeros({3}, opts);
  auto bn = [&](const at::Tensor& input, at::ScalarType params, bool training) {
    auto mean = at::zeros({3}, opts).to(params);
    auto var = at::ones({3}, opts).to(params);
    auto y = at::batch_norm(input, gamma.to(params), beta.to(params), mean, var, training, 0.1, 1e-5, true);
    return describe(y) + " running_var=" + describe(var);
  };
  run_case(where, "batch_norm int64 input, float parameters, training", [&] { return bn(x.to(at::kLong), at::kFloat, true); });
  run_case(where, "batch_norm uint8 input, float parameters, eval", [&] { return bn(x.to(at::kByte), at::kFloat, false); });
  run_case(where, "batch_norm float input, half parameters, training", [&] { return bn(x, at::kHalf, true); });
  run_case(where, "batch_norm one value per channel [1, 3], training", [&] { return bn(at::randn({1, 3}, opts), at::kFloat, true); });
  run_case(where, "batch_norm one value per channel [1, 3, 1, 1], training",
           [&] { return bn(at::randn({1, 3, 1, 1}, opts), at::kFloat, true); });
}

}  // namespace

int main() {
  std::cout << "{\"case\": \"environment\", \"cuda\": " << (at::hasCUDA() ? "true" : "false") << "}" << std::endl;
  cases_on(at::Device(at::kCPU));
  if (at::hasCUDA()) cases_on(at::Device(at::kCUDA));
  return 0;
}
