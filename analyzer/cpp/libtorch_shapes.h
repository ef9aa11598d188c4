// libtorch convolutions run on tensors whose size the code fixes, within one function body:
//   torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, 5).stride(1).padding(0));
//   auto x = torch::randn({1, 3, 4, 4});
//   auto y = conv->forward(x);   // or conv(x)
// The module must be built in the function (its options as written), the tensor made there by a
// factory with a literal size list, and neither changed before the call. The output size is
// libtorch's (ATen's, as in PyTorch): floor((in + 2·pad − dilation·(k − 1) − 1) / stride) + 1.
#pragma once

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>

#include <cstdint>
#include <vector>

namespace cudnnlint::cpp {

struct LibtorchConvMisfit {
  const clang::Expr* call = nullptr;        // conv->forward(x), conv(x)
  const clang::VarDecl* module = nullptr;   // the module's declaration
  const clang::Expr* factory = nullptr;     // torch::randn({1, 3, 4, 4})
  std::vector<std::int64_t> input;          // N, C, spatial... (as written; unbatched: C, spatial...)
  std::int64_t in_channels = 0, out_channels = 0;
  std::vector<std::int64_t> kernel, stride, padding, dilation, output;  // per spatial axis
};

// The convolutions of `body` whose output would have a size below 1, in source order.
std::vector<LibtorchConvMisfit> find_libtorch_conv_misfits(const clang::Stmt& body, clang::ASTContext& ast);

}  // namespace cudnnlint::cpp
