#include "cpp/libtorch_shapes.h"

#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace cudnnlint::cpp {

using namespace clang;

namespace {

// Through the nodes clang wraps temporaries and conversions in.
const Expr* bare(const Expr* e) {
  for (int depth = 0; e != nullptr && depth < 16; ++depth) {
    const Expr* next = e->IgnoreParenImpCasts();
    if (const auto* cleanups = dyn_cast<ExprWithCleanups>(next)) next = cleanups->getSubExpr();
    else if (const auto* temp = dyn_cast<MaterializeTemporaryExpr>(next)) next = temp->getSubExpr();
    else if (const auto* bind = dyn_cast<CXXBindTemporaryExpr>(next)) next = bind->getSubExpr();
    else if (const auto* cast = dyn_cast<CXXFunctionalCastExpr>(next)) next = cast->getSubExpr();
    if (next == e) return e;
    e = next;
  }
  return e;
}

std::optional<std::int64_t> integer(const Expr* e, ASTContext& ast) {
  e = bare(e);
  if (e == nullptr || e->isValueDependent() || !e->getType()->isIntegralOrEnumerationType()) return std::nullopt;
  Expr::EvalResult result;
  if (!e->EvaluateAsInt(result, ast)) return std::nullopt;
  return result.Val.getInt().getExtValue();
}

const InitListExpr* init_list_in(const Stmt* s, int depth = 0) {
  if (s == nullptr || depth > 8) return nullptr;
  if (const auto* list = dyn_cast<InitListExpr>(s)) return list;
  for (const Stmt* child : s->children())
    if (const InitListExpr* list = init_list_in(child, depth + 1)) return list;
  return nullptr;
}

// An ExpandingArray<D> argument: one int for every axis, or a list of D; empty when not fixed.
std::vector<std::int64_t> per_axis(const Expr* e, std::size_t axes, ASTContext& ast) {
  e = bare(e);
  for (int depth = 0; depth < 4 && e != nullptr; ++depth) {
    const auto* construct = dyn_cast<CXXConstructExpr>(e);
    if (construct == nullptr || construct->getNumArgs() != 1) break;
    e = bare(construct->getArg(0));
  }
  if (e == nullptr) return {};
  if (const InitListExpr* list = init_list_in(e)) {
    std::vector<std::int64_t> out;
    for (unsigned i = 0; i < list->getNumInits(); ++i) {
      const auto v = integer(list->getInit(i), ast);
      if (!v) return {};
      out.push_back(*v);
    }
    if (out.size() != axes) out.clear();
    return out;
  }
  if (const auto v = integer(e, ast)) return std::vector<std::int64_t>(axes, *v);
  return {};
}

bool names(const Stmt* s, llvm::StringRef name, int depth = 0) {
  if (s == nullptr || depth > 8) return false;
  if (const auto* ref = dyn_cast<DeclRefExpr>(s); ref && ref->getDecl()->getName() == name) return true;
  return std::any_of(s->child_begin(), s->child_end(), [&](const Stmt* c) { return names(c, name, depth + 1); });
}

struct Module {
  std::size_t axes = 0;
  std::int64_t in_channels = 0, out_channels = 0;
  std::vector<std::int64_t> kernel, stride, padding, dilation;
  bool same = false;  // padding kSame: the output keeps the input's size
};

struct Tensor {
  const Expr* factory = nullptr;
  std::vector<std::int64_t> sizes;
};

// torch::nn::Conv1d/2d/3d (the holder or its Impl): the spatial axes; 0 for anything else.
std::size_t conv_axes(QualType type) {
  const std::string name = type.getCanonicalType().getUnqualifiedType().getAsString();
  if (name.find("torch::nn::") == std::string::npos) return 0;
  for (std::size_t axes = 1; axes <= 3; ++axes) {
    const std::string conv = "Conv" + std::to_string(axes) + "d";
    if (name.find("torch::nn::" + conv + "Impl") != std::string::npos || name.ends_with("torch::nn::" + conv))
      return axes;
  }
  return 0;
}

// `Conv2dOptions(3, 8, 5).stride(2).padding(1)`: the outermost setter of each field wins.
bool read_options(const Expr* e, Module& m, ASTContext& ast, int depth = 0) {
  e = bare(e);
  if (e == nullptr || depth > 12) return false;
  if (const auto* call = dyn_cast<CXXMemberCallExpr>(e)) {
    const CXXMethodDecl* method = call->getMethodDecl();
    if (method == nullptr || call->getNumArgs() != 1) return false;
    const llvm::StringRef field = method->getName();
    auto set = [&](std::vector<std::int64_t>& slot) {
      if (!slot.empty()) return true;  // an outer setter already decided
      slot = per_axis(call->getArg(0), m.axes, ast);
      return !slot.empty();
    };
    bool ok = true;
    if (field == "stride") ok = set(m.stride);
    else if (field == "dilation") ok = set(m.dilation);
    else if (field == "padding") {
      if (m.padding.empty() && !m.same) {
        if (names(call->getArg(0), "kSame")) m.same = true;
        else if (names(call->getArg(0), "kValid")) m.padding.assign(m.axes, 0);
        else ok = set(m.padding);
      }
    } else if (field != "bias" && field != "groups" && field != "padding_mode") {
      return false;  // a setter this reader does not know
    }
    if (field == "padding_mode" && !names(call->getArg(0), "kZeros")) return false;  // circular/reflect padding
    return ok && read_options(call->getImplicitObjectArgument(), m, ast, depth + 1);
  }
  if (const auto* construct = dyn_cast<CXXConstructExpr>(e)) {
    const std::string type = construct->getType().getCanonicalType().getUnqualifiedType().getAsString();
    if (type.find("ConvOptions") == std::string::npos && type.find("Conv" + std::to_string(m.axes) + "dOptions") == std::string::npos)
      return false;
    if (construct->getNumArgs() < 3) return false;
    const auto in = integer(construct->getArg(0), ast), out = integer(construct->getArg(1), ast);
    if (!in || !out) return false;
    m.in_channels = *in;
    m.out_channels = *out;
    m.kernel = per_axis(construct->getArg(2), m.axes, ast);
    return !m.kernel.empty();
  }
  return false;
}

// A module built here: `torch::nn::Conv2d conv(3, 8, 5)`, `conv(Conv2dOptions(...)...)`,
// `auto conv = torch::nn::Conv2d(...)`. Parameters, references and empty holders are not.
std::optional<Module> construction(const VarDecl& var, ASTContext& ast) {
  if (isa<ParmVarDecl>(var) || var.getType()->isReferenceType() || var.getType()->isPointerType()) return std::nullopt;
  Module m;
  m.axes = conv_axes(var.getType());
  if (m.axes == 0 || var.getInit() == nullptr) return std::nullopt;
  const Expr* init = bare(var.getInit());
  for (int depth = 0; depth < 4; ++depth) {
    const auto* construct = dyn_cast_or_null<CXXConstructExpr>(init);
    if (construct == nullptr || construct->getNumArgs() == 0) return std::nullopt;
    if (construct->getConstructor()->isCopyOrMoveConstructor()) {
      init = bare(construct->getArg(0));
      continue;
    }
    if (construct->getNumArgs() == 1) {
      if (!read_options(construct->getArg(0), m, ast)) return std::nullopt;
    } else if (construct->getNumArgs() == 3) {
      const auto in = integer(construct->getArg(0), ast), out = integer(construct->getArg(1), ast);
      if (!in || !out) return std::nullopt;
      m.in_channels = *in;
      m.out_channels = *out;
      m.kernel = per_axis(construct->getArg(2), m.axes, ast);
      if (m.kernel.empty()) return std::nullopt;
    } else {
      return std::nullopt;
    }
    // libtorch's defaults: stride 1, padding 0, dilation 1.
    if (m.stride.empty()) m.stride.assign(m.axes, 1);
    if (m.padding.empty()) m.padding.assign(m.axes, 0);
    if (m.dilation.empty()) m.dilation.assign(m.axes, 1);
    return m;
  }
  return std::nullopt;
}

// `torch::randn({1, 3, 4, 4})` and the other factories taking a size list first.
std::optional<Tensor> factory(const Expr* e, ASTContext& ast) {
  e = bare(e);
  const auto* call = dyn_cast_or_null<CallExpr>(e);
  if (call == nullptr || call->getNumArgs() == 0) return std::nullopt;
  const FunctionDecl* callee = call->getDirectCallee();
  if (callee == nullptr) return std::nullopt;
  static const char* const factories[] = {"torch::randn", "torch::rand", "torch::zeros", "torch::ones", "torch::empty",
                                          "at::randn", "at::rand", "at::zeros", "at::ones", "at::empty"};
  const std::string name = callee->getQualifiedNameAsString();
  if (std::find(std::begin(factories), std::end(factories), name) == std::end(factories)) return std::nullopt;
  const InitListExpr* list = init_list_in(call->getArg(0));
  if (list == nullptr) return std::nullopt;
  Tensor t;
  t.factory = call;
  for (unsigned i = 0; i < list->getNumInits(); ++i) {
    const auto v = integer(list->getInit(i), ast);
    if (!v || *v <= 0) return std::nullopt;
    t.sizes.push_back(*v);
  }
  return t;
}

class Walker : public RecursiveASTVisitor<Walker> {
 public:
  explicit Walker(ASTContext& ast) : ast_(ast) {}

  bool VisitVarDecl(VarDecl* var) {
    if (var->getInit() == nullptr) return true;
    forget_modules_in(var->getInit());
    if (auto t = factory(var->getInit(), ast_)) tensors_[var] = std::move(*t);
    else if (auto m = construction(*var, ast_)) modules_[var] = std::move(*m);
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator* op) {
    if (op->isAssignmentOp()) forget(op->getLHS());
    return true;
  }

  // x.resize_(...), conv->options, conv->weight: a member other than forward may change the size
  // or the module.
  bool VisitMemberExpr(MemberExpr* member) {
    const auto name = member->getMemberDecl()->getName();
    if (name == "forward" || name == "operator()" || name == "operator->") return true;
    forget(member->getBase());
    return true;
  }

  bool VisitCallExpr(CallExpr* call) {
    const auto* op = dyn_cast<CXXOperatorCallExpr>(call);
    if (op != nullptr && op->getOperator() == OO_Equal && call->getNumArgs() == 2) {
      forget(call->getArg(0));
      return true;
    }
    if (op != nullptr && (op->getOperator() == OO_Arrow || op->getOperator() == OO_Star)) return true;
    const Expr* object = nullptr;
    const Expr* input = nullptr;
    if (const auto* member = dyn_cast<CXXMemberCallExpr>(call)) {
      if (member->getMethodDecl() == nullptr || member->getMethodDecl()->getName() != "forward" ||
          call->getNumArgs() != 1)
        return forget_modules_in(call);
      object = member->getImplicitObjectArgument();
      input = call->getArg(0);
    } else if (op != nullptr && op->getOperator() == OO_Call && call->getNumArgs() == 2) {
      object = call->getArg(0);
      input = call->getArg(1);
    } else {
      return forget_modules_in(call);
    }
    const VarDecl* module_var = module_of(object);
    if (module_var == nullptr) return true;
    std::optional<Tensor> tensor;
    if (const auto* ref = dyn_cast<DeclRefExpr>(bare(input))) {
      if (const auto it = tensors_.find(ref->getDecl()); it != tensors_.end()) tensor = it->second;
    } else {
      tensor = factory(input, ast_);
    }
    if (!tensor) return true;
    const Module& m = modules_.at(module_var);
    if (m.same) return true;
    const std::size_t axes = m.axes;
    if (tensor->sizes.size() != axes + 2 && tensor->sizes.size() != axes + 1) return true;
    LibtorchConvMisfit misfit;
    misfit.call = call;
    misfit.module = module_var;
    misfit.factory = tensor->factory;
    misfit.input = tensor->sizes;
    misfit.in_channels = m.in_channels;
    misfit.out_channels = m.out_channels;
    misfit.kernel = m.kernel;
    misfit.stride = m.stride;
    misfit.padding = m.padding;
    misfit.dilation = m.dilation;
    bool rejected = false;
    for (std::size_t a = 0; a < axes; ++a) {
      const std::int64_t in = tensor->sizes[tensor->sizes.size() - axes + a];
      if (m.stride[a] <= 0 || m.dilation[a] <= 0 || m.padding[a] < 0 || m.kernel[a] <= 0) return true;
      const std::int64_t numerator = in + 2 * m.padding[a] - m.dilation[a] * (m.kernel[a] - 1) - 1;
      // Floor division (numerator may be negative).
      const std::int64_t q = numerator / m.stride[a] - ((numerator % m.stride[a] != 0 && numerator < 0) ? 1 : 0);
      misfit.output.push_back(q + 1);
      rejected |= q + 1 < 1;
    }
    if (rejected) misfits_.push_back(std::move(misfit));
    return true;
  }

  std::vector<LibtorchConvMisfit> take() { return std::move(misfits_); }

 private:
  void forget(const Expr* e) {
    const Expr* b = bare(e);
    if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(b);
        op && (op->getOperator() == OO_Arrow || op->getOperator() == OO_Star) && op->getNumArgs() >= 1)
      b = bare(op->getArg(0));
    if (const auto* ref = dyn_cast_or_null<DeclRefExpr>(b)) {
      tensors_.erase(ref->getDecl());
      modules_.erase(ref->getDecl());
    }
  }

  // A module handed to another call (register_module, a helper) may be changed there.
  bool forget_modules_in(const Expr* e) {
    if (const auto* call = dyn_cast_or_null<CallExpr>(bare(e))) {
      for (const Expr* arg : call->arguments())
        if (module_of(arg) != nullptr) forget(arg);
    } else if (const auto* construct = dyn_cast_or_null<CXXConstructExpr>(bare(e))) {
      for (const Expr* arg : construct->arguments())
        if (module_of(arg) != nullptr) forget(arg);
    } else if (module_of(e) != nullptr) {
      forget(e);  // auto other = conv: a holder shares its module
    }
    return true;
  }

  const VarDecl* module_of(const Expr* e) const {
    const Expr* b = bare(e);
    if (const auto* op = dyn_cast_or_null<CXXOperatorCallExpr>(b);
        op && (op->getOperator() == OO_Arrow || op->getOperator() == OO_Star) && op->getNumArgs() >= 1)
      b = bare(op->getArg(0));
    if (const auto* ref = dyn_cast_or_null<DeclRefExpr>(b))
      if (const auto* var = dyn_cast<VarDecl>(ref->getDecl()); var && modules_.count(var)) return var;
    return nullptr;
  }

  ASTContext& ast_;
  std::map<const ValueDecl*, Tensor> tensors_;
  std::map<const ValueDecl*, Module> modules_;
  std::vector<LibtorchConvMisfit> misfits_;
};

}  // namespace

std::vector<LibtorchConvMisfit> find_libtorch_conv_misfits(const Stmt& body, ASTContext& ast) {
  Walker walker(ast);
  walker.TraverseStmt(const_cast<Stmt*>(&body));
  return walker.take();
}

}  // namespace cudnnlint::cpp
