// AST matchers over one translation unit's main file: cuDNN batch-norm calls (epsilon by
// argument index, from the API table), descriptor set calls (dimensions, paddings, strides)
// and the convolutions that use them, folded with clang's own constant evaluation.
#pragma once

#include "core/facts.h"
#include "core/api_table.h"

#include <clang/ASTMatchers/ASTMatchFinder.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudnnlint::cpp {

struct LibtorchConvMisfit;  // cpp/libtorch_shapes.h

// The identifiers of everything the collector reads, the C++ prefilter's words. A file that names
// none of them cannot give a fact.
struct CppTriggerWords {
  // The cuDNN C API and cudnn-frontend names of the API table, and the descriptor setters.
  std::vector<std::string> cudnn;
  // The API table's libtorch names, and the layers, functional calls and element types the tensor
  // walks follow. Other C++ code uses them too (MXNet's `kFloat32`, `convolution`): they count
  // only in a file that names libtorch (`torch`, `ATen`, `at::`).
  std::vector<std::string> libtorch;
};
CppTriggerWords collector_trigger_words(const ApiTable& table);

class FactsCollector : public clang::ast_matchers::MatchFinder::MatchCallback {
 public:
  FactsCollector(const ApiTable& table, FileFacts& out, std::string& text_out);
  ~FactsCollector() override;

  // Registers this collector's matchers.
  void register_matchers(clang::ast_matchers::MatchFinder& finder);
  void run(const clang::ast_matchers::MatchFinder::MatchResult& result) override;
  // Every file the translation unit read, by the name clang opened it with.
  const std::vector<std::string>& included_files() const { return included_files_; }

 private:
  class Context;  // per-TU helpers: locations, folding, provenance
  void on_normalization(const clang::CallExpr& call, const std::string& name, const ApiEntry& api,
                        Context& ctx);
  void on_descriptor(const clang::CallExpr& call, llvm::StringRef name, const clang::FunctionDecl* function,
                     Context& ctx);
  void on_function_body(const clang::FunctionDecl& function, Context& ctx);
  // Floats converted to half (`__float2half(1e-8f)`) that float16 rounds down to 0 or a subnormal.
  template <class Conversions>
  void on_half_conversions(const Conversions& conversions, Context& ctx);
  // libtorch's DataLoaderOptions: its batch size, set by the constructor or the batch_size setter.
  void on_loader(const clang::Expr& site, const clang::Expr* batch, const std::string& name, const ApiEntry& api,
                 Context& ctx);
  // libtorch convolutions run here on a tensor smaller than their kernel.
  void on_libtorch_shapes(const std::vector<LibtorchConvMisfit>& misfits, Context& ctx);
  void on_convolution_use(const clang::CallExpr& call, llvm::StringRef name, const clang::FunctionDecl* function,
                          Context& ctx);

  const ApiTable& table_;
  FileFacts& out_;
  std::string& text_;
  std::unique_ptr<Context> context_;
  // The last descriptor set on each variable, per function, in source order.
  std::map<std::pair<const clang::FunctionDecl*, std::string>, DescriptorFact> last_set_;
  std::set<const clang::CallExpr*> seen_calls_;
  std::set<const clang::Stmt*> seen_inputs_;
  std::vector<std::string> included_files_;
};

}  // namespace cudnnlint::cpp
