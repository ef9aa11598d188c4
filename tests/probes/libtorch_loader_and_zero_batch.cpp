// What libtorch (the C++ API) does with the loader and zero-batch configurations cudnnlint's loader
// family reports for Python: a DataLoaderOptions batch size of 0, drop_last with fewer samples than
// a batch, a zero-size batch into Conv2d and BatchNorm2d, and one sample into BatchNorm1d in training.
// One JSON line per case. CPU only; build against the libtorch of a torch wheel:
//   T=$(python -c 'import os, torch; print(os.path.dirname(torch.__file__))')   # or the unpacked wheel
//   g++ -std=c++17 -O1 libtorch_loader_and_zero_batch.cpp -I$T/include -I$T/include/torch/csrc/api/include \
//       -L$T/lib -ltorch_cpu -lc10 -Wl,-rpath,$T/lib -o probe && ./probe
#include <torch/torch.h>

#include <functional>
#include <iostream>
#include <sstream>
#include <string>

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') break;  // the first line of a message is enough
    out.push_back(c);
  }
  return out.substr(0, 220);
}

void probe_case(const std::string& name, const std::function<std::string()>& fn) {
  std::string field, value;
  try {
    value = fn();
    field = "result";
  } catch (const std::exception& e) {
    value = e.what();
    field = "error";
  }
  std::cout << "{\"case\": \"" << escape(name) << "\", \"" << field << "\": \"" << escape(value) << "\"}" << std::endl;
}

std::string sizes(const torch::Tensor& t) {
  std::ostringstream out;
  out << t.sizes();
  return out.str();
}

// Ten samples of 3 features.
auto ten_samples() { return torch::data::datasets::TensorDataset(torch::randn({10, 3})); }

}  // namespace

int main() {
  std::cout << "{\"libtorch\": \"" << TORCH_VERSION_MAJOR << "." << TORCH_VERSION_MINOR << "." << TORCH_VERSION_PATCH
            << "\"}" << std::endl;
  probe_case("make_data_loader(batch_size=0): first three batches' sizes", [] {
    auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        ten_samples(), torch::data::DataLoaderOptions().batch_size(0));
    std::string seen;
    int n = 0;
    for (auto& batch : *loader) {
      seen += std::to_string(batch.size()) + " ";
      if (++n == 3) break;
    }
    return "batches seen: " + std::to_string(n) + " of sizes " + seen;
  });
  probe_case("make_data_loader(batch_size=0).map(Stack): first batch", [] {
    auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        ten_samples().map(torch::data::transforms::Stack<torch::data::TensorExample>()),
        torch::data::DataLoaderOptions().batch_size(0));
    for (auto& batch : *loader) return sizes(batch.data);
    return std::string("no batch");
  });
  probe_case("make_data_loader(10 samples, batch_size=16, drop_last=true): batches", [] {
    auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        ten_samples(), torch::data::DataLoaderOptions().batch_size(16).drop_last(true));
    int n = 0;
    for (auto& batch : *loader) {
      (void)batch;
      ++n;
    }
    return std::to_string(n);
  });
  probe_case("make_data_loader(9 samples, batch_size=4): batch sizes", [] {
    auto loader = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        torch::data::datasets::TensorDataset(torch::randn({9, 3})), torch::data::DataLoaderOptions().batch_size(4));
    std::string seen;
    for (auto& batch : *loader) seen += std::to_string(batch.size()) + " ";
    return seen;
  });
  probe_case("torch::nn::Conv2d(3, 8, 3) on torch::zeros({0, 3, 8, 8})", [] {
    torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, 3));
    return sizes(conv(torch::zeros({0, 3, 8, 8})));
  });
  probe_case("torch::nn::BatchNorm2d(3) training on torch::zeros({0, 3, 8, 8})", [] {
    torch::nn::BatchNorm2d bn(3);
    bn->train();
    return sizes(bn(torch::zeros({0, 3, 8, 8})));
  });
  probe_case("torch::nn::BatchNorm1d(3) training on torch::randn({1, 3})", [] {
    torch::nn::BatchNorm1d bn(3);
    bn->train();
    return sizes(bn(torch::randn({1, 3})));
  });
  probe_case("torch::nn::BatchNorm1d(3) eval on torch::randn({1, 3})", [] {
    torch::nn::BatchNorm1d bn(3);
    bn->eval();
    return sizes(bn(torch::randn({1, 3})));
  });
  return 0;
}
