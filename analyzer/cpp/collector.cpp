#include "cpp/collector.h"

#include "cpp/libtorch_shapes.h"
#include "core/sizes_text.h"
#include "core/tensor_layout.h"

#include "core/source_file.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <cstdio>

namespace cudnnlint::cpp {

using namespace clang;
using namespace clang::ast_matchers;

namespace {

struct DescriptorSpec {
  const char* api;
  DescriptorFact::Kind kind;
  int data_type_index;                     // -1: none
  int format_index;                        // -1: none (the tensor format, or the convolution mode)
  std::vector<std::pair<int, const char*>> values;  // argument index, name
  bool nd_array = false;                   // cudnnSetTensorNdDescriptor: dims come from an array
  int dims_index = 3;                      // with nd_array: the dims array's argument (strides follow it)
};

const std::vector<DescriptorSpec>& descriptor_specs() {
  using K = DescriptorFact::Kind;
  static const std::vector<DescriptorSpec> specs = {
      {"cudnnSetTensor4dDescriptor", K::Tensor, 2, 1, {{3, "n"}, {4, "c"}, {5, "h"}, {6, "w"}}},
      {"cudnnSetTensor4dDescriptorEx", K::Tensor, 1, -1,
       {{2, "n"}, {3, "c"}, {4, "h"}, {5, "w"}, {6, "n_stride"}, {7, "c_stride"}, {8, "h_stride"}, {9, "w_stride"}}},
      {"cudnnSetTensorNdDescriptor", K::Tensor, 1, -1, {}, true},
      {"cudnnSetFilter4dDescriptor", K::Filter, 1, 2, {{3, "k"}, {4, "c"}, {5, "h"}, {6, "w"}}},
      {"cudnnSetFilterNdDescriptor", K::Filter, 1, 2, {}, true, 4},
      {"cudnnSetConvolution2dDescriptor", K::Convolution, 8, 7,
       {{1, "pad_h"}, {2, "pad_w"}, {3, "stride_h"}, {4, "stride_w"}, {5, "dilation_h"}, {6, "dilation_w"}}},
  };
  return specs;
}

// Calls that use an input tensor, a filter and a convolution descriptor together:
// argument indices of (input, filter, convolution).
struct ConvolutionUse {
  const char* api;
  int input, filter, convolution;
};
constexpr std::array kConvolutionUses{
    ConvolutionUse{"cudnnGetConvolution2dForwardOutputDim", 1, 2, 0},
    ConvolutionUse{"cudnnGetConvolutionNdForwardOutputDim", 1, 2, 0},
    ConvolutionUse{"cudnnConvolutionForward", 2, 4, 6},
    ConvolutionUse{"cudnnConvolutionBiasActivationForward", 2, 4, 6},
    ConvolutionUse{"cudnnGetConvolutionForwardWorkspaceSize", 1, 2, 3},
    ConvolutionUse{"cudnnGetConvolutionForwardAlgorithm_v7", 1, 2, 3},
    ConvolutionUse{"cudnnFindConvolutionForwardAlgorithm", 1, 2, 3},
};

}  // namespace

CppTriggerWords collector_trigger_words(const ApiTable& table) {
  CppTriggerWords words{table.cpp_trigger_words("cudnn"), table.cpp_trigger_words("torch")};
  for (const auto& spec : descriptor_specs()) words.cudnn.emplace_back(spec.api);
  // The tensor walks (on_function_body) and libtorch_shapes: a layer or functional call that
  // consumes a tensor, and the element types that make one of interest. The layer's own name is
  // not always in the file (`conv1->forward(x)` on a member declared in a header), the element
  // type always is (`torch::kByte`, `.to(torch::kLong)`).
  for (const char* word : {"Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
                           "Conv1dOptions", "Conv2dOptions", "Conv3dOptions", "conv1d", "conv2d", "conv3d",
                           "convolution", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
                           "InstanceNorm2d", "InstanceNorm3d", "batch_norm", "instance_norm", "kByte", "kChar",
                           "kShort", "kInt", "kLong", "kBool", "kUInt8", "kInt8", "kInt16", "kInt32", "kInt64",
                           "kHalf", "kFloat16", "kBFloat16", "kFloat", "kFloat32", "kDouble", "kFloat64"})
    words.libtorch.emplace_back(word);
  for (auto* list : {&words.cudnn, &words.libtorch}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return words;
}

namespace {

// libtorch element types, by the names libtorch gives them (c10::kByte re-exported as torch::kByte).
DType libtorch_dtype(llvm::StringRef name) {
  if (!name.startswith("k")) return DType::Unknown;  // `half` the variable is not torch::kHalf
  return dtype_from_spelling(std::string_view(name.data(), name.size()));
}
bool is_integer_dtype(llvm::StringRef name) { return is_integer(libtorch_dtype(name)); }
bool is_any_dtype(llvm::StringRef name) { return libtorch_dtype(name) != DType::Unknown; }
// "class torch::nn::ModuleHolder<struct torch::nn::Conv2dImpl>" -> "torch::nn::Conv2d".
std::string layer_name(const std::string& description) {
  for (std::size_t at = description.find("torch::nn::"); at != std::string::npos;
       at = description.find("torch::nn::", at + 1)) {
    std::size_t end = at + 11;
    while (end < description.size() && (std::isalnum(static_cast<unsigned char>(description[end])) || description[end] == '_'))
      ++end;
    std::string name = description.substr(at, end - at);
    if (name.find("Conv") == std::string::npos && name.find("Norm") == std::string::npos) continue;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, "Impl") == 0) name.resize(name.size() - 4);
    return name;
  }
  return description;
}

// Tensor methods that convert to a fixed element type.
llvm::StringRef dtype_of_method(llvm::StringRef method) {
  if (method == "byte") return "kByte";
  if (method == "char_") return "kChar";
  if (method == "short_") return "kShort";
  if (method == "int_") return "kInt";
  if (method == "long_") return "kLong";
  if (method == "bool_") return "kBool";
  if (method == "half") return "kHalf";
  if (method == "float_") return "kFloat";
  if (method == "double_") return "kDouble";
  return "";
}

}  // namespace

// Locations, source text and constant folding for one translation unit.
class FactsCollector::Context {
 public:
  // `display_path` is the main file as the user named it (clang knows it by its absolute path).
  Context(ASTContext& ast, std::string& text_out, const std::string& display_path)
      : ast_(ast), sm_(ast.getSourceManager()), main_path_(display_path) {
    const auto buffer = sm_.getBufferData(sm_.getMainFileID());
    text_out.assign(buffer.data(), buffer.size());
    file_ = std::make_unique<SourceFile>(main_path_, text_out);
  }

  ASTContext& ast() { return ast_; }
  const std::string& path() const { return main_path_; }

  // The range as the user sees it in the main file (macro uses at their expansion site).
  Location locate(clang::SourceRange range) {
    const SourceLocation begin = sm_.getFileLoc(range.getBegin());
    SourceLocation end = sm_.getFileLoc(range.getEnd());
    end = Lexer::getLocForEndOfToken(end, 0, sm_, ast_.getLangOpts());
    if (sm_.getFileID(begin) != sm_.getMainFileID()) return elsewhere(begin);
    const unsigned b = sm_.getFileOffset(begin);
    const unsigned e = end.isValid() && sm_.getFileID(end) == sm_.getMainFileID() ? sm_.getFileOffset(end) : b;
    return Location{main_path_, file_->range(b, std::max(b, e))};
  }

  // A location in any file (a header's #define, a constexpr elsewhere), by line and byte column.
  Location elsewhere(SourceLocation loc) {
    loc = sm_.getSpellingLoc(loc);
    if (sm_.getFileID(loc) == sm_.getMainFileID()) {
      const unsigned offset = sm_.getFileOffset(loc);
      return Location{main_path_, file_->range(offset, offset)};
    }
    Position pos;
    pos.line = sm_.getSpellingLineNumber(loc);
    pos.column = pos.column_utf16 = sm_.getSpellingColumnNumber(loc);
    pos.byte_offset = sm_.getFileOffset(loc);
    return Location{sm_.getFilename(loc).str(), cudnnlint::SourceRange{pos, pos}};
  }

  std::string text_of(const Expr& e) {
    const auto range = CharSourceRange::getTokenRange(sm_.getFileLoc(e.getBeginLoc()), sm_.getFileLoc(e.getEndLoc()));
    std::string text = Lexer::getSourceText(range, sm_, ast_.getLangOpts()).str();
    std::string compact;
    for (char c : text)
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') compact += c;
    return compact;
  }

  // The code as written, on one line (runs of white space made one space), to show in a message.
  std::string source_text(clang::SourceRange source) {
    const auto range = CharSourceRange::getTokenRange(sm_.getFileLoc(source.getBegin()), sm_.getFileLoc(source.getEnd()));
    const std::string text = Lexer::getSourceText(range, sm_, ast_.getLangOpts()).str();
    std::string line;
    for (char c : text) {
      const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r';
      if (space && (line.empty() || line.back() == ' ')) continue;
      line += space ? ' ' : c;
    }
    return line;
  }

  // Where a value came from: the #define, constexpr, const variable or enumerator it names.
  std::vector<ProvenanceStep> provenance_of(const Expr& e) {
    std::vector<ProvenanceStep> steps;
    // A value written as a macro's argument (`CHECK(f(0))`, `REQUIRE(...)`) is spelled where it
    // stands: only a macro whose body spells it (`#define EPS 1e-5`) is where it came from.
    SourceLocation begin = e.getBeginLoc();
    while (begin.isMacroID() && sm_.isMacroArgExpansion(begin)) begin = sm_.getImmediateSpellingLoc(begin);
    if (begin.isMacroID()) {
      const StringRef macro = Lexer::getImmediateMacroName(begin, sm_, ast_.getLangOpts());
      const SourceLocation body = sm_.getSpellingLoc(begin);
      if (!macro.empty())
        steps.push_back({elsewhere(body), "#define " + macro.str() + " is expanded from here"});
    }
    const Expr* inner = e.IgnoreParenImpCasts();
    if (const auto* cast = dyn_cast<ExplicitCastExpr>(inner)) inner = cast->getSubExpr()->IgnoreParenImpCasts();
    if (const auto* ref = dyn_cast<DeclRefExpr>(inner)) {
      const ValueDecl* decl = ref->getDecl();
      if (isa<VarDecl>(decl) || isa<EnumConstantDecl>(decl))
        steps.push_back({elsewhere(decl->getLocation()), decl->getNameAsString() + " is defined here"});
    }
    return steps;
  }

  std::optional<ConstantValue> fold_number(const Expr& e) {
    if (e.isValueDependent() || e.isTypeDependent() || e.containsErrors()) return std::nullopt;
    // cudnn-frontend: epsilon is a scalar tensor made by graph.tensor(1e-05f), directly or
    // through a variable initialised with it.
    if (auto scalar = graph_scalar(e)) return scalar;
    const auto value = evaluate_number(e);
    if (!value) return std::nullopt;
    return ConstantValue{*value, text_of(e), provenance_of(e)};
  }

  // `graph.tensor(x)` (cudnn_frontend::graph::Graph::tensor) folded to x, or a variable holding one.
  std::optional<ConstantValue> graph_scalar(const Expr& e, int depth = 0) {
    if (depth > 4) return std::nullopt;
    const Expr* bare = unwrap(&e);
    if (const auto* ref = dyn_cast<DeclRefExpr>(bare)) {
      const auto* var = dyn_cast<VarDecl>(ref->getDecl());
      if (var == nullptr || var->getInit() == nullptr) return std::nullopt;
      auto value = graph_scalar(*var->getInit(), depth + 1);
      if (value) {
        value->spelling = text_of(e);
        value->provenance.push_back({elsewhere(var->getLocation()),
                                     var->getNameAsString() + " = " + text_of(*var->getInit()) + " is defined here"});
      }
      return value;
    }
    const auto* call = dyn_cast<CXXMemberCallExpr>(bare);
    if (call == nullptr || call->getNumArgs() == 0) return std::nullopt;
    const auto* method = call->getMethodDecl();
    if (method == nullptr || method->getName() != "tensor" ||
        method->getParent()->getQualifiedNameAsString() != "cudnn_frontend::graph::Graph")
      return std::nullopt;
    // cudnn-frontend 1.x converts the scalar to a pass-by-value Tensor_attributes implicitly.
    const Expr& scalar = *unwrap(call->getArg(0));
    if (scalar.isValueDependent() || !scalar.getType()->isArithmeticType()) return std::nullopt;
    const auto value = evaluate_number(scalar);
    if (!value) return std::nullopt;
    return ConstantValue{*value, text_of(e), provenance_of(scalar)};
  }

  // Clang's constant evaluation of a floating or integer expression, as a double.
  std::optional<double> evaluate_number(const Expr& e) {
    Expr::EvalResult result;
    if (!e.EvaluateAsRValue(result, ast_)) return std::nullopt;
    if (result.Val.isFloat()) return result.Val.getFloat().convertToDouble();
    if (result.Val.isInt()) return static_cast<double>(result.Val.getInt().getSExtValue());
    return std::nullopt;
  }

  static const Expr* unwrap(const Expr* e) {
    for (;;) {
      e = e->IgnoreParenImpCasts();
      if (const auto* c = dyn_cast<ExprWithCleanups>(e)) e = c->getSubExpr();
      else if (const auto* m = dyn_cast<MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
      else if (const auto* b = dyn_cast<CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
      else if (const auto* k = dyn_cast<CXXConstructExpr>(e); k && k->getNumArgs() == 1) e = k->getArg(0);
      else return e;
    }
  }

  std::optional<IntegerValue> fold_integer(const Expr& e) {
    if (e.isValueDependent() || e.isTypeDependent() || e.containsErrors()) return std::nullopt;
    Expr::EvalResult result;
    if (!e.EvaluateAsInt(result, ast_)) return std::nullopt;
    return IntegerValue{result.Val.getInt().getSExtValue(), text_of(e), locate(e.getSourceRange()), provenance_of(e)};
  }

  // The enumerator a data-type argument names (CUDNN_DATA_FLOAT), or "".
  std::string enumerator_name(const Expr& e) {
    const Expr* inner = e.IgnoreParenImpCasts();
    if (const auto* ref = dyn_cast<DeclRefExpr>(inner))
      if (isa<EnumConstantDecl>(ref->getDecl())) return ref->getDecl()->getNameAsString();
    return "";
  }

 private:
  ASTContext& ast_;
  SourceManager& sm_;
  std::string main_path_;
  std::unique_ptr<SourceFile> file_;
};

FactsCollector::FactsCollector(const ApiTable& table, FileFacts& out, std::string& text_out)
    : table_(table), out_(out), text_(text_out) {}

FactsCollector::~FactsCollector() = default;

void FactsCollector::register_matchers(MatchFinder& finder) {
  // C++ names in the API table: the cuDNN C API by function name, libtorch by qualified name
  // (functions such as at::batch_norm, and option setters such as BatchNormOptions::eps).
  std::vector<std::string> names;
  std::vector<std::string> setters;
  for (const auto& name : table_.names_of(kNormalizationFamily)) {
    const ApiEntry* api = table_.find(name);
    if (api == nullptr) continue;
    if (name.ends_with("::eps") || name.ends_with("::set_epsilon")) setters.push_back(name);
    else if (api->framework == "cudnn" || name.find("::") != std::string::npos) names.push_back(name);
  }
  // libtorch loaders: DataLoaderOptions' batch_size setter, and its constructor (below).
  std::vector<std::string> loader_classes;
  for (const auto& name : table_.names_of(kLoaderFamily)) {
    if (name.find("::") == std::string::npos) continue;
    const auto last = name.rfind("::");
    const std::string owner = name.substr(0, last);
    if (name.substr(last + 2) == owner.substr(owner.rfind("::") + 2)) loader_classes.push_back("::" + owner);
    else setters.push_back(name);
  }
  for (const auto& spec : descriptor_specs()) names.emplace_back(spec.api);
  for (const auto& use : kConvolutionUses) names.emplace_back(use.api);
  const std::vector<llvm::StringRef> refs(names.begin(), names.end());  // hasAnyName copies them
  const std::vector<llvm::StringRef> setter_refs(setters.begin(), setters.end());
  // In a template, a call with a type-dependent argument stays an unresolved lookup: its
  // candidates still name the function.
  const auto cudnn_call =
      callExpr(anyOf(callee(functionDecl(hasAnyName(refs)).bind("callee")),
                     callee(unresolvedLookupExpr(hasAnyDeclaration(functionDecl(hasAnyName(refs)).bind("callee")))),
                     cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName(setter_refs)).bind("callee")))))
          .bind("call");
  // Calls are found from the function that holds them rather than with hasAncestor: asking for
  // an ancestor makes clang build a parent map of the whole translation unit, headers included,
  // which cost up to 1.8x the parse. Templates are read as written, not once per instantiation.
  finder.addMatcher(traverse(TK_IgnoreUnlessSpelledInSource,
                             functionDecl(isExpansionInMainFile(), isDefinition(), forEachDescendant(cudnn_call))
                                 .bind("function")),
                    this);
  // Tensors and their element types are followed through each function body in source order.
  finder.addMatcher(traverse(TK_IgnoreUnlessSpelledInSource,
                             functionDecl(isExpansionInMainFile(), isDefinition(), hasBody(stmt())).bind("body_of")),
                    this);
  // `DataLoaderOptions(0)`, also made implicitly by make_data_loader(dataset, 0).
  const std::vector<llvm::StringRef> loader_class_refs(loader_classes.begin(), loader_classes.end());
  if (!loader_class_refs.empty())
    finder.addMatcher(traverse(TK_AsIs, cxxConstructExpr(isExpansionInMainFile(), argumentCountIs(1),
                                                         hasDeclaration(cxxConstructorDecl(ofClass(
                                                             cxxRecordDecl(hasAnyName(loader_class_refs))))))
                                            .bind("loader_construct")),
                      this);
  // The translation unit itself, once: which files it read.
  finder.addMatcher(translationUnitDecl().bind("translation_unit"), this);
  // Calls outside any function (initialisers of globals) are rare but still calls.
  finder.addMatcher(traverse(TK_IgnoreUnlessSpelledInSource,
                             varDecl(isExpansionInMainFile(), hasGlobalStorage(), unless(isStaticLocal()),
                                     forEachDescendant(cudnn_call))),
                    this);
}

void FactsCollector::run(const MatchFinder::MatchResult& result) {
  if (result.Nodes.getNodeAs<TranslationUnitDecl>("translation_unit")) {
    const SourceManager& sm = result.Context->getSourceManager();
    for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it) included_files_.push_back(it->first->getName().str());
    return;
  }
  if (const auto* body_of = result.Nodes.getNodeAs<FunctionDecl>("body_of")) {
    if (!context_) context_ = std::make_unique<Context>(*result.Context, text_, out_.path);
    on_function_body(*body_of, *context_);
    return;
  }
  if (const auto* construct = result.Nodes.getNodeAs<CXXConstructExpr>("loader_construct")) {
    if (!context_) context_ = std::make_unique<Context>(*result.Context, text_, out_.path);
    const std::string owner = construct->getConstructor()->getParent()->getQualifiedNameAsString();
    const std::string name = owner + "::" + construct->getConstructor()->getParent()->getNameAsString();
    // A copy or move of an options object sets nothing.
    if (construct->getConstructor()->isCopyOrMoveConstructor()) return;
    if (const ApiEntry* api = table_.find(name); api && api->family == kLoaderFamily)
      on_loader(*construct, construct->getArg(0), name, *api, *context_);
    return;
  }
  const auto* call = result.Nodes.getNodeAs<CallExpr>("call");
  const auto* callee = result.Nodes.getNodeAs<FunctionDecl>("callee");
  const auto* function = result.Nodes.getNodeAs<FunctionDecl>("function");
  if (call == nullptr || callee == nullptr) return;
  // A call in a local class's method is reached from the method and from the enclosing function.
  if (!seen_calls_.insert(call).second) return;
  if (!context_) context_ = std::make_unique<Context>(*result.Context, text_, out_.path);
  const std::string name = callee->getNameAsString();
  if (const ApiEntry* api = table_.find(name); api && api->framework == "cudnn" && api->family == kNormalizationFamily) {
    on_normalization(*call, name, *api, *context_);
    return;
  }
  const std::string qualified = callee->getQualifiedNameAsString();
  if (const ApiEntry* api = table_.find(qualified); api && api->family == kNormalizationFamily) {
    on_normalization(*call, qualified, *api, *context_);
    return;
  }
  if (const ApiEntry* api = table_.find(qualified); api && api->family == kLoaderFamily) {
    on_loader(*call, call->getNumArgs() == 1 ? call->getArg(0) : nullptr, qualified, *api, *context_);
    return;
  }
  for (const auto& spec : descriptor_specs())
    if (name == spec.api) return on_descriptor(*call, name, function, *context_);
  on_convolution_use(*call, name, function, *context_);
}

void FactsCollector::on_normalization(const CallExpr& call, const std::string& name, const ApiEntry& api,
                                      Context& ctx) {
  NormalizationFact fact;
  fact.api = name;
  fact.spelled_as = name;
  fact.eps_param = api.eps().name;
  fact.call = ctx.locate(call.getSourceRange());
  fact.origin = "call";
  // For a member call (an options setter) the arguments exclude the object, as the table's indices
  // do; `opts.eps()` with no argument is the getter, not a setting.
  if (isa<CXXMemberCallExpr>(call) && call.getNumArgs() == 0) return;
  const int index = api.eps().index.value_or(-1);
  if (index < 0 || static_cast<unsigned>(index) >= call.getNumArgs()) {
    fact.eps.source = ValueSource::Unresolvable;
  } else {
    const Expr& arg = *call.getArg(static_cast<unsigned>(index));
    fact.eps.source = ValueSource::Explicit;
    fact.eps.location = ctx.locate(arg.getSourceRange());
    fact.eps.value = ctx.fold_number(arg);
    if (!fact.eps.value) fact.eps.source = ValueSource::NotConstant;
  }
  out_.normalizations.push_back(std::move(fact));
}

void FactsCollector::on_descriptor(const CallExpr& call, llvm::StringRef name, const FunctionDecl* function,
                                   Context& ctx) {
  const DescriptorSpec* spec = nullptr;
  for (const auto& s : descriptor_specs())
    if (name == s.api) spec = &s;
  if (spec == nullptr || call.getNumArgs() == 0) return;
  DescriptorFact fact;
  fact.kind = spec->kind;
  fact.api = spec->api;
  fact.call = ctx.locate(call.getSourceRange());
  fact.descriptor = ctx.text_of(*call.getArg(0));
  if (spec->data_type_index >= 0 && static_cast<unsigned>(spec->data_type_index) < call.getNumArgs())
    fact.data_type = ctx.enumerator_name(*call.getArg(static_cast<unsigned>(spec->data_type_index)));
  if (spec->format_index >= 0 && static_cast<unsigned>(spec->format_index) < call.getNumArgs())
    fact.format = ctx.enumerator_name(*call.getArg(static_cast<unsigned>(spec->format_index)));
  for (const auto& [index, value_name] : spec->values) {
    if (static_cast<unsigned>(index) >= call.getNumArgs()) continue;
    fact.names.emplace_back(value_name);
    fact.values.push_back(ctx.fold_integer(*call.getArg(static_cast<unsigned>(index))));
  }
  if (spec->nd_array && call.getNumArgs() > static_cast<unsigned>(spec->dims_index)) {
    // cudnnSetTensorNdDescriptor(desc, type, nbDims, dimA, strideA): fold the arrays' initializers.
    auto fold_array = [&](const Expr& array, const char* suffix) {
      const Expr* bare = array.IgnoreParenImpCasts();
      const auto* ref = dyn_cast<DeclRefExpr>(bare);
      const auto* var = ref ? dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
      const auto* init = var ? dyn_cast_or_null<InitListExpr>(var->getInit()) : nullptr;
      if (init == nullptr) return;
      static const char* nchw[] = {"n", "c", "h", "w"};
      static const char* kchw[] = {"k", "c", "h", "w"};
      const char** names = spec->kind == DescriptorFact::Kind::Filter ? kchw : nchw;
      for (unsigned i = 0; i < init->getNumInits(); ++i) {
        fact.names.push_back((init->getNumInits() == 4 ? std::string(names[i]) : "dim" + std::to_string(i)) + suffix);
        fact.values.push_back(ctx.fold_integer(*init->getInit(i)));
      }
    };
    const auto dims = static_cast<unsigned>(spec->dims_index);
    fold_array(*call.getArg(dims), "");
    if (call.getNumArgs() > dims + 1) fold_array(*call.getArg(dims + 1), "_stride");
  }
  last_set_[{function, fact.descriptor}] = fact;
  out_.descriptors.push_back(std::move(fact));
}

namespace {

// Walks one function body in source order: remembers which variables hold tensors of a plain
// element type and which hold convolution modules built here (float32 parameters until
// converted), and reports such a tensor reaching a convolution or batch norm.
class TensorFlow : public RecursiveASTVisitor<TensorFlow> {
 public:
  struct Dtype {
    std::string name;
    clang::SourceRange where;
  };
  struct Input {
    const Expr* argument = nullptr;
    std::string consumer;
    std::string variable;
    Dtype dtype;
    std::optional<Dtype> weight;  // the consumer's weight element type, when plain
  };

  bool VisitVarDecl(VarDecl* var) {
    if (const Expr* init = var->getInit()) {
      if (const ValueDecl* aliased = module_of(init)) modules_.erase(aliased);  // a holder shares its module
      if (auto d = dtype_of(*init)) known_[var] = *d;
      else if (is_conv_module_construction(*var)) modules_[var] = Dtype{"kFloat", var->getSourceRange()};
    }
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator* op) {
    if (op->isAssignmentOp()) assign(op->getLHS(), op->getRHS());
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr* call) {
    if (call->getOperator() == OO_Equal && call->getNumArgs() == 2) assign(call->getArg(0), call->getArg(1));
    return true;
  }

  // Any mention of autocast: libtorch then casts conv inputs and weights to one type itself.
  bool VisitDeclRefExpr(DeclRefExpr* ref) {
    if (ref->getDecl()->getQualifiedNameAsString().find("autocast") != std::string::npos) autocast_ = true;
    return true;
  }

  // A module member other than forward/to (conv->weight, conv->options) may change or expose
  // its parameters: stop trusting what we know about them.
  bool VisitMemberExpr(MemberExpr* member) {
    const auto name = member->getMemberDecl()->getName();
    if (name != "forward" && name != "to" && name != "operator()")
      if (const ValueDecl* module = module_of(member->getBase())) modules_.erase(module);
    return true;
  }

  bool VisitCallExpr(CallExpr* call) {
    const FunctionDecl* callee = call->getDirectCallee();
    if (callee == nullptr || call->getNumArgs() == 0) return true;
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(call);
        op && (op->getOperator() == OO_Arrow || op->getOperator() == OO_Star || op->getOperator() == OO_Equal))
      return true;  // conv-> and *conv only reach the module; assignments are handled above
    std::string consumer;
    const Expr* input = nullptr;
    std::optional<Dtype> weight;
    const std::string qualified = callee->getQualifiedNameAsString();
    static const char* convolutions[] = {"at::conv1d", "at::conv2d", "at::conv3d", "at::convolution",
                                         "torch::nn::functional::conv1d", "torch::nn::functional::conv2d",
                                         "torch::nn::functional::conv3d"};
    static const char* norms[] = {"at::batch_norm", "at::instance_norm", "torch::nn::functional::batch_norm",
                                  "torch::nn::functional::instance_norm"};
    const bool functional_conv =
        std::find(std::begin(convolutions), std::end(convolutions), qualified) != std::end(convolutions);
    if (functional_conv || std::find(std::begin(norms), std::end(norms), qualified) != std::end(norms)) {
      consumer = qualified;
      input = call->getArg(0);
      if (functional_conv && call->getNumArgs() > 1) weight = dtype_of(*call->getArg(1));
    } else if (const auto* method = dyn_cast<CXXMethodDecl>(callee)) {
      // conv->forward(x) on a ...Impl, or conv(x) through torch::nn::ModuleHolder<...Impl>.
      const Expr* object = nullptr;
      if (const auto* member = dyn_cast<CXXMemberCallExpr>(call)) {
        object = member->getImplicitObjectArgument();
        if (method->getName() == "to") {
          // conv->to(torch::kHalf) converts the module's parameters; conv->to(device) does not.
          if (const ValueDecl* module = module_of(object); module && modules_.count(module))
            if (auto d = dtype_named_in(*call)) modules_[module] = *d;
          return true;
        }
        if (method->getName() != "forward") return forget_modules_in(*call);
        input = call->getArg(0);
      } else if (const auto* op = dyn_cast<CXXOperatorCallExpr>(call); op && op->getOperator() == OO_Call) {
        if (call->getNumArgs() < 2) return true;
        object = call->getArg(0);
        input = call->getArg(1);
      }
      if (object == nullptr) return forget_modules_in(*call);
      const std::string type = object->getType().getAsString();
      const std::string holder = method->getParent()->getQualifiedNameAsString();
      const std::string description = type + " " + holder;
      const bool layer = description.find("Conv") != std::string::npos ||
                         description.find("BatchNorm") != std::string::npos ||
                         description.find("InstanceNorm") != std::string::npos;
      if (!layer || description.find("torch::nn") == std::string::npos) return forget_modules_in(*call);
      consumer = layer_name(description);
      if (const ValueDecl* module = module_of(object))
        if (const auto it = modules_.find(module); it != modules_.end()) weight = it->second;
    } else {
      return forget_modules_in(*call);
    }
    if (input == nullptr) return true;
    const Expr* bare = input->IgnoreImplicit()->IgnoreParens();
    std::string variable;
    std::optional<Dtype> dtype;
    if (const auto* ref = dyn_cast<DeclRefExpr>(bare)) {
      variable = ref->getDecl()->getNameAsString();
      if (const auto it = known_.find(ref->getDecl()); it != known_.end()) dtype = it->second;
    } else {
      dtype = dtype_of(*bare);
    }
    if (!dtype) return true;
    if (is_integer_dtype(dtype->name)) {
      inputs_.push_back(Input{input, consumer, variable, *dtype, weight});
    } else if (weight && consumer.find("onv") != std::string::npos &&
               libtorch_dtype(dtype->name) != libtorch_dtype(weight->name) && !is_integer_dtype(weight->name)) {
      // Floating input and weight of different types: the convolution refuses them. Batch norm
      // is left alone: half input with float parameters is its documented mixed mode.
      mismatches_.push_back(Input{input, consumer, variable, *dtype, weight});
    }
    return true;
  }

  // What the walk found; type mismatches are dropped where the function mentions autocast.
  std::vector<Input> results() const {
    std::vector<Input> all = inputs_;
    if (!autocast_) all.insert(all.end(), mismatches_.begin(), mismatches_.end());
    return all;
  }

 private:
  void assign(const Expr* lhs, const Expr* rhs) {
    const auto* ref = dyn_cast<DeclRefExpr>(lhs->IgnoreParenImpCasts());
    if (const ValueDecl* aliased = module_of(rhs)) modules_.erase(aliased);  // a holder shares its module
    if (ref == nullptr) return;
    modules_.erase(ref->getDecl());
    if (auto d = dtype_of(*rhs)) known_[ref->getDecl()] = *d;
    else known_.erase(ref->getDecl());  // reassigned with something we cannot see: forget it
  }

  // A module handed to any other call (register_module, a helper) may be converted there.
  bool forget_modules_in(const CallExpr& call) {
    for (const Expr* arg : call.arguments())
      if (const ValueDecl* module = module_of(arg)) modules_.erase(module);
    return true;
  }

  // The local variable behind `conv`, `conv.operator->()` or `*conv`, if it is a tracked module.
  const ValueDecl* module_of(const Expr* e) const {
    if (e == nullptr) return nullptr;
    const Expr* bare = e->IgnoreImplicit()->IgnoreParens();
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(bare);
        op && (op->getOperator() == OO_Arrow || op->getOperator() == OO_Star) && op->getNumArgs() >= 1)
      bare = op->getArg(0)->IgnoreParenImpCasts();
    if (const auto* ref = dyn_cast<DeclRefExpr>(bare))
      if (modules_.count(ref->getDecl())) return ref->getDecl();
    return nullptr;
  }

  // `torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, 3))` or `auto conv = torch::nn::Conv2d(...)`:
  // a local holder or Impl constructed here, so its parameters are libtorch's default float32.
  // Parameters, references, members and `Conv2d conv(nullptr)` (an empty holder) are not.
  static bool is_conv_module_construction(const VarDecl& var) {
    if (isa<ParmVarDecl>(var) || var.getType()->isReferenceType() || var.getType()->isPointerType()) return false;
    const std::string type = var.getType().getCanonicalType().getAsString();
    if (type.find("torch::nn::") == std::string::npos || type.find("Conv") == std::string::npos) return false;
    const Expr* init = var.getInit()->IgnoreParenImpCasts();
    if (const auto* cleanups = dyn_cast<ExprWithCleanups>(init)) init = cleanups->getSubExpr()->IgnoreParenImpCasts();
    for (int depth = 0; depth < 4; ++depth) {
      if (const auto* temp = dyn_cast<MaterializeTemporaryExpr>(init)) init = temp->getSubExpr()->IgnoreParenImpCasts();
      if (const auto* bind = dyn_cast<CXXBindTemporaryExpr>(init)) init = bind->getSubExpr()->IgnoreParenImpCasts();
      if (const auto* cast = dyn_cast<CXXFunctionalCastExpr>(init)) init = cast->getSubExpr()->IgnoreParenImpCasts();
      const auto* construct = dyn_cast<CXXConstructExpr>(init);
      if (construct == nullptr) return false;
      if (construct->getNumArgs() == 0) return false;  // an empty holder
      const Expr* first = construct->getArg(0)->IgnoreParenImpCasts();
      if (isa<CXXNullPtrLiteralExpr>(first)) return false;
      // A copy or move of another holder: look through it once more.
      if (construct->getConstructor()->isCopyOrMoveConstructor()) { init = first; continue; }
      return true;
    }
    return false;
  }


  // The element type of a tensor expression, when the code makes it plain: the outermost
  // conversion (`.to(kFloat)`, `.byte()`) decides; else a factory's dtype argument; else a
  // variable already known.
  std::optional<Dtype> dtype_of(const Expr& e) {
    // Temporaries of a class with a destructor (at::Tensor) come wrapped in cleanups, bind and
    // materialize nodes: look through all of them.
    const Expr* bare = e.IgnoreImplicit()->IgnoreParens();
    if (const auto* construct = dyn_cast<CXXConstructExpr>(bare); construct && construct->getNumArgs() == 1)
      return dtype_of(*construct->getArg(0));
    if (const auto* ref = dyn_cast<DeclRefExpr>(bare)) {
      if (const auto it = known_.find(ref->getDecl()); it != known_.end()) return it->second;
      return std::nullopt;
    }
    const auto* call = dyn_cast<CallExpr>(bare);
    if (call == nullptr) return std::nullopt;
    if (const auto* member = dyn_cast<CXXMemberCallExpr>(call)) {
      const auto* method = member->getMethodDecl();
      if (method == nullptr) return std::nullopt;
      const llvm::StringRef fixed = dtype_of_method(method->getName());
      if (!fixed.empty()) return Dtype{fixed.str(), call->getSourceRange()};
      // `.to(torch::kFloat)`: the arguments name the type; the object (`from_blob(..., kByte)`) does not.
      if (method->getName() == "to" || method->getName() == "toType") {
        for (const Expr* arg : call->arguments()) {
          if (const auto* ref = dyn_cast<DeclRefExpr>(arg->IgnoreParenImpCasts()); ref && is_any_dtype(ref->getDecl()->getName()))
            return Dtype{ref->getDecl()->getName().str(), ref->getSourceRange()};
          if (auto named = dtype_named_in(*arg)) return named;
        }
        return std::nullopt;
      }
      return std::nullopt;  // any other method: element type unknown here
    }
    const FunctionDecl* callee = call->getDirectCallee();
    if (callee == nullptr) return std::nullopt;
    const std::string qualified = callee->getQualifiedNameAsString();
    static const char* factories[] = {"at::zeros", "at::ones", "at::empty", "at::full", "at::rand", "at::randn",
                                      "at::randint", "at::arange", "at::from_blob", "torch::zeros", "torch::ones",
                                      "torch::empty", "torch::full", "torch::rand", "torch::randn", "torch::randint",
                                      "torch::arange", "torch::from_blob", "torch::tensor"};
    if (std::find(std::begin(factories), std::end(factories), qualified) == std::end(factories)) return std::nullopt;
    return dtype_named_in(*call);
  }

  // The dtype an expression's arguments name (torch::kByte, TensorOptions().dtype(torch::kLong)).
  static std::optional<Dtype> dtype_named_in(const Stmt& s) {
    for (const Stmt* child : s.children()) {
      if (child == nullptr) continue;
      if (const auto* ref = dyn_cast<DeclRefExpr>(child)) {
        const auto name = ref->getDecl()->getName();
        if (is_any_dtype(name)) return Dtype{name.str(), ref->getSourceRange()};
      }
      if (auto inner = dtype_named_in(*child)) return inner;
    }
    return std::nullopt;
  }

  std::map<const ValueDecl*, Dtype> known_;    // tensors of a plain element type
  std::map<const ValueDecl*, Dtype> modules_;  // conv modules built here, with their parameters' type
  std::vector<Input> inputs_;                  // integer tensors reaching a consumer
  std::vector<Input> mismatches_;              // floating tensors reaching a conv of another type
  bool autocast_ = false;
};

}  // namespace

void FactsCollector::on_loader(const Expr& site, const Expr* batch, const std::string& name, const ApiEntry& api,
                               Context& ctx) {
  if (batch == nullptr) return;  // the getter
  LoaderFact fact;
  fact.api = name;
  // "DataLoaderOptions::batch_size", "DataLoaderOptions": how libtorch code names them.
  const auto data = name.find("DataLoaderOptions");
  fact.spelled_as = data == std::string::npos ? name : name.substr(data);
  if (fact.spelled_as == "DataLoaderOptions::DataLoaderOptions") fact.spelled_as = "DataLoaderOptions";
  fact.framework = api.framework;
  fact.batch_param = "batch_size";
  fact.call = ctx.locate(site.getSourceRange());
  fact.origin = "call";
  fact.batch.location = ctx.locate(batch->getSourceRange());
  auto value = ctx.fold_integer(*batch);
  // The batch size is a size_t: a negative int converts to a huge one, which libtorch's samplers
  // clamp to what is left (RandomSampler::next takes min(batch_size, remaining)): not a refusal.
  if (value && value->value < 0) value.reset();
  if (value) {
    fact.batch.source = ValueSource::Explicit;
    fact.batch.value = ConstantValue{static_cast<double>(value->value), value->spelling, value->provenance};
  } else {
    fact.batch.source = ValueSource::NotConstant;
  }
  out_.loaders.push_back(std::move(fact));
}

// Floats converted to half in a function body: `__float2half(1e-8f)` (and its _rn/_rz/_rd/_ru
// forms, __double2half), `__half(1e-8f)`, `__half h = 1e-8f`, `c10::Half(1e-8f)`. A call clang
// could not resolve (CUDA 13's cuda_fp16.h read by clang 14 on the host side often is not) still
// names its function: it stays an unresolved lookup, maybe inside a RecoveryExpr.
class HalfConversions : public RecursiveASTVisitor<HalfConversions> {
 public:
  struct Conversion {
    const Expr* site;
    const Expr* value;
    std::string api;
    std::string declared;  // `__half h(1e-9f)`: "__half h", for the message
  };

  bool VisitCallExpr(CallExpr* call) {
    if (call->getNumArgs() != 1) return true;
    std::string name;
    if (const FunctionDecl* callee = call->getDirectCallee()) name = callee->getNameAsString();
    else if (const auto* lookup = dyn_cast<UnresolvedLookupExpr>(call->getCallee()->IgnoreParenImpCasts()))
      name = lookup->getName().getAsString();
    if (converts(name)) found_.push_back({call, call->getArg(0), name, ""});
    return true;
  }

  bool VisitRecoveryExpr(RecoveryExpr* recovery) {
    const auto children = recovery->subExpressions();
    if (children.size() != 2) return true;
    const auto* lookup = dyn_cast<OverloadExpr>(children[0]->IgnoreParenImpCasts());
    if (lookup != nullptr && converts(lookup->getName().getAsString()))
      found_.push_back({recovery, children[1], lookup->getName().getAsString(), ""});
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr* construct) {
    if (construct->getNumArgs() != 1 || construct->getConstructor()->isCopyOrMoveConstructor()) return true;
    if (!half_type(construct->getType())) return true;
    const std::string type = construct->getType().getCanonicalType().getUnqualifiedType().getAsString();
    const Expr* arg = construct->getArg(0)->IgnoreParenImpCasts();
    if (!arg->getType()->isRealFloatingType()) return true;
    found_.push_back({construct, arg, type.find("c10") != std::string::npos ? "c10::Half" : "__half", ""});
    return true;
  }

  // `__half h(1e-9f)` or `__half h = 1e-9f` whose constructor clang could not resolve: the
  // initialiser is kept as a recovery or paren-list expression around the float.
  bool VisitVarDecl(VarDecl* var) {
    const Expr* init = var->getInit();
    if (init == nullptr || !half_type(var->getType())) return true;
    init = init->IgnoreParenImpCasts();
    const Expr* value = nullptr;
    if (const auto* recovery = dyn_cast<RecoveryExpr>(init); recovery && recovery->subExpressions().size() == 1)
      value = recovery->subExpressions()[0];
    else if (const auto* list = dyn_cast<ParenListExpr>(init); list && list->getNumExprs() == 1)
      value = list->getExpr(0);
    if (value != nullptr && value->getType()->isRealFloatingType())
      found_.push_back({init, value->IgnoreParenImpCasts(), "__half", "__half " + var->getNameAsString()});
    return true;
  }

  const std::vector<Conversion>& found() const { return found_; }

 private:
  static bool half_type(QualType type) {
    const std::string name = type.getCanonicalType().getUnqualifiedType().getAsString();
    return name == "struct __half" || name == "__half" || name == "struct c10::Half" || name == "c10::Half";
  }
  static bool converts(const std::string& name) {
    return name == "__float2half" || name == "__float2half_rn" || name == "__float2half_rz" ||
           name == "__float2half_rd" || name == "__float2half_ru" || name == "__double2half";
  }
  std::vector<Conversion> found_;
};

void FactsCollector::on_function_body(const FunctionDecl& function, Context& ctx) {
  TensorFlow flow;
  flow.TraverseStmt(function.getBody());
  for (const TensorFlow::Input& input : flow.results()) {
    if (!seen_inputs_.insert(input.argument).second) continue;  // a local class's method is also its own function
    TensorInputFact fact;
    fact.consumer = input.consumer;
    fact.use = ctx.locate(input.argument->getSourceRange());
    fact.variable = input.variable;
    fact.dtype = libtorch_dtype(input.dtype.name);
    fact.dtype_spelling = input.dtype.name;
    fact.dtype_location = ctx.locate(input.dtype.where);
    if (input.weight) {
      fact.weight_dtype = libtorch_dtype(input.weight->name);
      fact.weight_dtype_spelling = input.weight->name;
      fact.weight_dtype_location = ctx.locate(input.weight->where);
    }
    out_.tensor_inputs.push_back(std::move(fact));
  }
  HalfConversions conversions;
  conversions.TraverseStmt(function.getBody());
  on_half_conversions(conversions, ctx);
  on_libtorch_shapes(find_libtorch_conv_misfits(*function.getBody(), ctx.ast()), ctx);
}

// A libtorch convolution run on a tensor smaller than its kernel, as the language-neutral size
// chain the Python front-end also produces (one step), with its geometry for gpu_check's replay.
void FactsCollector::on_libtorch_shapes(const std::vector<LibtorchConvMisfit>& misfits, Context& ctx) {
  for (const LibtorchConvMisfit& misfit : misfits) {
    if (!seen_inputs_.insert(misfit.call).second) continue;
    const std::size_t axes = misfit.kernel.size();
    ShapeChainFact fact;
    fact.framework = "libtorch";
    fact.layout = "NCHW";
    fact.call = ctx.locate(misfit.call->getSourceRange());
    fact.model_text = misfit.module->getNameAsString();
    fact.source_text = ctx.source_text(misfit.factory->getSourceRange());
    if (fact.source_text.size() > 60) fact.source_text = fact.source_text.substr(0, 57) + "...";
    fact.source = ctx.locate(misfit.factory->getSourceRange());
    fact.input_spatial.assign(misfit.input.end() - static_cast<std::ptrdiff_t>(axes), misfit.input.end());
    const Location declared = ctx.locate(misfit.module->getSourceRange());
    auto value = [&](std::int64_t v) { return IntegerValue{v, std::to_string(v), declared, {}}; };
    ShapeStep step;
    step.label = "conv " + sizes_text(misfit.kernel) + "/" + uniform_text(misfit.stride) +
                 padding_dilation_text(misfit.padding, misfit.dilation);
    std::string declaration = ctx.source_text(misfit.module->getSourceRange());
    step.text = declaration.size() > 60 ? declaration.substr(0, 57) + "..." : declaration;
    step.where = fact.call;
    step.output = misfit.output;
    fact.steps.push_back(std::move(step));
    fact.rejected_by = "conv";
    fact.channels = misfit.in_channels;
    ConvGeometryFact& conv = fact.conv;
    conv.api = fact.steps.back().text;
    conv.spelled_as = conv.api;
    conv.call = fact.call;
    conv.spatial_dims = static_cast<int>(axes);
    conv.in_channels = value(misfit.in_channels);
    conv.out_channels = value(misfit.out_channels);
    conv.padding_mode = "explicit";
    for (std::size_t a = 0; a < axes; ++a) {
      fact.padded_input.push_back(fact.input_spatial[a] + 2 * misfit.padding[a]);
      fact.kernel_extent.push_back(misfit.dilation[a] * (misfit.kernel[a] - 1) + 1);
      conv.kernel.push_back(value(misfit.kernel[a]));
      conv.stride.push_back(value(misfit.stride[a]));
      conv.padding.push_back(value(misfit.padding[a]));
      conv.dilation.push_back(value(misfit.dilation[a]));
    }
    const std::int64_t batch = misfit.input.size() == axes + 2 ? misfit.input.front() : 1;
    conv.input.push_back(IntegerValue{batch, std::to_string(batch), fact.source, {}});
    conv.input.push_back(IntegerValue{misfit.in_channels, std::to_string(misfit.in_channels), fact.source, {}});
    for (const auto v : fact.input_spatial) conv.input.push_back(IntegerValue{v, std::to_string(v), fact.source, {}});
    conv.input_set_by = fact.source_text;
    out_.shape_chains.push_back(std::move(fact));
  }
}

template <class Conversions>
void FactsCollector::on_half_conversions(const Conversions& conversions, Context& ctx) {
  for (const auto& conversion : conversions.found()) {
    if (!seen_inputs_.insert(conversion.site).second) continue;
    const auto value = ctx.fold_number(*conversion.value);
    // Only what float16 may lose: a positive constant below its smallest normal (2^-14).
    if (!value || !(value->value > 0) || value->value >= smallest_normal(DType::Float16)) continue;
    LowPrecisionConstantFact fact;
    fact.use = LowPrecisionConstantFact::Use::HalfConversion;
    fact.where = ctx.locate(conversion.value->getSourceRange());
    fact.value = *value;
    fact.dtype = DType::Float16;
    fact.expression = conversion.declared.empty() ? ctx.text_of(*conversion.site)
                                                  : conversion.declared + " = " + ctx.text_of(*conversion.value);
    if (fact.expression.size() > 60) fact.expression = fact.expression.substr(0, 57) + "...";
    fact.expression_location = ctx.locate(conversion.site->getSourceRange());
    fact.api = conversion.api;
    fact.framework = "cuda";
    out_.low_precision_constants.push_back(std::move(fact));
  }
}

namespace {

const std::optional<IntegerValue>* named(const DescriptorFact& fact, std::string_view name) {
  for (std::size_t i = 0; i < fact.names.size(); ++i)
    if (fact.names[i] == name) return &fact.values[i];
  return nullptr;
}

std::optional<IntegerValue> value_named(const DescriptorFact& fact, std::string_view name) {
  const std::optional<IntegerValue>* value = named(fact, name);
  return value ? *value : std::nullopt;
}

// The three descriptors of a C-API convolution, as the language-neutral geometry.
ConvGeometryFact geometry_of(const char* api, Location call, const DescriptorFact& input, const DescriptorFact& filter,
                             const DescriptorFact& convolution) {
  ConvGeometryFact g;
  g.api = api;
  g.spelled_as = api;
  g.call = std::move(call);
  g.spatial_dims = 2;
  for (const char* n : {"n", "c", "h", "w"}) g.input.push_back(value_named(input, n));
  g.out_channels = value_named(filter, "k");
  g.in_channels = value_named(filter, "c");
  g.kernel = {value_named(filter, "h"), value_named(filter, "w")};
  g.padding = {value_named(convolution, "pad_h"), value_named(convolution, "pad_w")};
  g.stride = {value_named(convolution, "stride_h"), value_named(convolution, "stride_w")};
  g.dilation = {value_named(convolution, "dilation_h"), value_named(convolution, "dilation_w")};
  g.groups = std::nullopt;
  g.padding_mode = "explicit";
  g.dtype = dtype_from_spelling(input.data_type);
  g.filter_dtype = dtype_from_spelling(filter.data_type);
  g.compute_type = dtype_from_spelling(convolution.data_type);
  g.layout = input.api == "cudnnSetTensor4dDescriptor" ? layout_from_cudnn(input.format) : "";
  g.input_api = input.api;
  g.input_set_by = input.api;
  g.filter_set_by = filter.api;
  g.params_set_by = convolution.api;
  return g;
}

}  // namespace

void FactsCollector::on_convolution_use(const CallExpr& call, llvm::StringRef name, const FunctionDecl* function,
                                        Context& ctx) {
  for (const auto& use : kConvolutionUses) {
    if (name != use.api) continue;
    const int needed = std::max({use.input, use.filter, use.convolution});
    if (call.getNumArgs() <= static_cast<unsigned>(needed)) return;
    auto find = [&](int index, DescriptorFact::Kind kind) -> const DescriptorFact* {
      const auto it = last_set_.find({function, ctx.text_of(*call.getArg(static_cast<unsigned>(index)))});
      return it != last_set_.end() && it->second.kind == kind ? &it->second : nullptr;
    };
    const DescriptorFact* input = find(use.input, DescriptorFact::Kind::Tensor);
    const DescriptorFact* filter = find(use.filter, DescriptorFact::Kind::Filter);
    const DescriptorFact* convolution = find(use.convolution, DescriptorFact::Kind::Convolution);
    if (!input || !filter || !convolution) return;
    out_.conv_geometries.push_back(geometry_of(use.api, ctx.locate(call.getSourceRange()), *input, *filter, *convolution));
    return;
  }
}

}  // namespace cudnnlint::cpp
