// What libtorch (the C++ API) does with convolution inputs smaller than the kernel, for the libtorch
// part of conv-input-smaller-than-kernel: the fixture's cases (tests/fixtures/cpp/libtorch_shapes.cpp)
// with their exact messages, then a grid of input sizes, kernels, strides, paddings and dilations
// checked against the output-size formula floor((in + 2p - d(k - 1) - 1) / s) + 1 < 1.
// One JSON line per case, then a summary line. CPU only; build against the libtorch of a torch wheel:
//   T=$(python -c 'import os, torch; print(os.path.dirname(torch.__file__))')   # or the unpacked wheel
//   g++ -std=c++17 -O1 libtorch_shapes.cpp -I$T/include -I$T/include/torch/csrc/api/include \
//       -L$T/lib -ltorch -ltorch_cpu -lc10 -Wl,-rpath,$T/lib -o probe && ./probe
#include <torch/torch.h>

#include <functional>
#include <iostream>
#include <sstream>
#include <string>

namespace nn = torch::nn;

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

void probe_case(const std::string& name, const std::function<at::Tensor()>& fn) {
  std::ostringstream line;
  line << "{\"case\": \"" << name << "\", ";
  try {
    const at::Tensor y = fn();
    line << "\"outcome\": \"ok\", \"sizes\": \"" << y.sizes() << "\"}";
  } catch (const c10::Error& e) {
    line << "\"outcome\": \"c10::Error\", \"message\": \"" << escape(first_line(e.what())) << "\"}";
  }
  std::cout << line.str() << "\n";
}

}  // namespace

int main() {
  std::cout << "{\"libtorch\": \"" << TORCH_VERSION << "\"}\n";
  probe_case("too_small", [] {
    nn::Conv2d conv(nn::Conv2dOptions(3, 8, 5));
    auto x = torch::randn({1, 3, 4, 4});
    return conv->forward(x);
  });
  probe_case("strided_and_dilated", [] {
    nn::Conv2d conv(nn::Conv2dOptions(3, 8, {3, 3}).stride(2).dilation(3));
    return conv(torch::zeros({2, 3, 6, 6}));
  });
  probe_case("one_dimensional", [] {
    nn::Conv1d conv(nn::Conv1dOptions(4, 8, 7).padding(1));
    auto signal = torch::randn({1, 4, 3});
    return conv(signal);
  });
  probe_case("padded_enough", [] {
    nn::Conv2d conv(nn::Conv2dOptions(3, 8, 5).padding(1));
    return conv->forward(torch::randn({1, 3, 4, 4}));
  });
  probe_case("same_padding", [] {
    nn::Conv2d conv(nn::Conv2dOptions(3, 8, 7).padding(torch::kSame));
    return conv(torch::randn({1, 3, 2, 2}));
  });
  probe_case("exactly_one", [] {
    nn::Conv2d conv(3, 8, 3);
    return conv(torch::randn({1, 3, 3, 3}));
  });
  int cases = 0, disagreements = 0;
  for (int in = 1; in <= 7; ++in)
    for (int k = 1; k <= 5; ++k)
      for (int s = 1; s <= 3; ++s)
        for (int p = 0; p <= 2; ++p)
          for (int d = 1; d <= 2; ++d) {
            const long numerator = in + 2 * p - d * (k - 1) - 1;
            const long floor_q = numerator >= 0 ? numerator / s : -((-numerator + s - 1) / s);
            const bool refused_by_formula = floor_q + 1 < 1;
            bool raised = false;
            try {
              nn::Conv2d conv(nn::Conv2dOptions(1, 1, k).stride(s).padding(p).dilation(d));
              conv(torch::zeros({1, 1, in, in}));
            } catch (const c10::Error&) {
              raised = true;
            }
            ++cases;
            if (raised != refused_by_formula) {
              ++disagreements;
              std::cout << "{\"disagreement\": {\"in\": " << in << ", \"k\": " << k << ", \"s\": " << s
                        << ", \"p\": " << p << ", \"d\": " << d << ", \"raised\": " << raised << "}}\n";
            }
          }
  std::cout << "{\"grid\": " << cases << ", \"disagreements\": " << disagreements << "}\n";
}
