#include "cpp/frontend.h"

#include "core/text_search.h"
#include "core/tree_bounds.h"

#include "core/embedded.h"
#include "core/identifier.h"
#include "cpp/collector.h"
#include "cpp/include_search.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <clang/Basic/Stack.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <clang/Tooling/ArgumentsAdjusters.h>
#include <clang/Tooling/CompilationDatabase.h>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <clang/Tooling/Tooling.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <chrono>
#include <csignal>
#include <sys/mman.h>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#ifndef CUDNNLINT_CLANG_RESOURCE_DIR
#error "CUDNNLINT_CLANG_RESOURCE_DIR must name clang's resource directory (set by CMake)"
#endif
#ifndef CUDNNLINT_CUDA_INCLUDE_DIR
#define CUDNNLINT_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif
#ifndef CUDNNLINT_CUDNN_INCLUDE_DIR
#define CUDNNLINT_CUDNN_INCLUDE_DIR CUDNNLINT_CUDA_INCLUDE_DIR
#endif

namespace cudnnlint::cpp {

namespace {

constexpr const char* kPreludePath = "/cudnnlint-virtual/cuda_host_prelude.h";
// Searched after every other include directory (-idirafter): the real libtorch, Catch2 or
// GoogleTest headers win wherever the command finds them.
constexpr const char* kStandInDir = "/cudnnlint-virtual/stand-in";

struct StandIn {
  const char* header;   // as code includes it
  const char* prelude;  // the embedded file declaring what the rules read of it
};
constexpr StandIn kStandIns[] = {
    {"cudnn.h", "analyzer/cpp/cudnn_prelude.h"},
    {"torch/torch.h", "analyzer/cpp/libtorch_prelude.h"},
    {"torch/script.h", "analyzer/cpp/libtorch_prelude.h"},
    {"torch/all.h", "analyzer/cpp/libtorch_prelude.h"},
    {"torch/extension.h", "analyzer/cpp/libtorch_prelude.h"},
    {"ATen/ATen.h", "analyzer/cpp/libtorch_prelude.h"},
    {"ATen/autocast_mode.h", "analyzer/cpp/libtorch_prelude.h"},
    {"catch2/catch_test_macros.hpp", "analyzer/cpp/test_macros_prelude.h"},
    {"catch2/catch_all.hpp", "analyzer/cpp/test_macros_prelude.h"},
    {"catch2/catch.hpp", "analyzer/cpp/test_macros_prelude.h"},
    {"catch.hpp", "analyzer/cpp/test_macros_prelude.h"},
    {"gtest/gtest.h", "analyzer/cpp/test_macros_prelude.h"},
};

std::string_view extension_of(std::string_view path) {
  const auto slash = path.rfind('/');
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
  return path.substr(dot);
}

std::string_view embedded_text(std::string_view path) {
  for (const auto& file : embedded_files())
    if (file.path == path) return file.contents;
  return {};
}

std::string_view prelude_text() { return embedded_text("analyzer/cpp/cuda_host_prelude.h"); }

// What a translation unit's file system saw beyond the files it read (one unit's file system: no
// locking): the paths it refused, so that the file's note can say why a header clang reports as
// not found was not read, and the paths clang looked for and did not find, so that the cache can
// tell when a header that was missing (or a closer one on the search path) appears.
struct FileSystemLog {
  std::vector<std::string> refused;
  std::vector<std::string> not_found;
};

// A file clang reads with read(), never mmap(): a file mapped while an editor saves it (truncates,
// then writes) raises SIGBUS in the parse (the language server analyses files being edited).
class ReadNotMapped : public llvm::vfs::File {
 public:
  explicit ReadNotMapped(std::unique_ptr<llvm::vfs::File> file) : file_(std::move(file)) {}
  llvm::ErrorOr<llvm::vfs::Status> status() override { return file_->status(); }
  llvm::ErrorOr<std::string> getName() override { return file_->getName(); }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> getBuffer(const llvm::Twine& name, int64_t size,
                                                               bool requires_null_terminator, bool) override {
    return file_->getBuffer(name, size, requires_null_terminator, /*IsVolatile=*/true);
  }
  std::error_code close() override { return file_->close(); }

 private:
  std::unique_ptr<llvm::vfs::File> file_;
};

// Files clang may open: regular files only. A FIFO or device named by an #include would block
// the translation unit (and the run) forever; it gets "not a regular file" instead.
class RegularFilesOnly : public llvm::vfs::ProxyFileSystem {
 public:
  RegularFilesOnly(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, std::shared_ptr<FileSystemLog> log)
      : ProxyFileSystem(std::move(fs)), log_(std::move(log)) {}
  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& path) override {
    auto result = ProxyFileSystem::status(path);
    if (!result && result.getError() == std::errc::no_such_file_or_directory) note_not_found(path);
    return result;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& path) override {
    const auto status = getUnderlyingFS().status(path);
    if (!status && status.getError() == std::errc::no_such_file_or_directory) note_not_found(path);
    if (status && status->getType() != llvm::sys::fs::file_type::regular_file &&
        status->getType() != llvm::sys::fs::file_type::directory_file) {
      log_->refused.push_back(path.str());
      return std::make_error_code(std::errc::invalid_argument);
    }
    if (status && status->getType() != llvm::sys::fs::file_type::regular_file)
      return std::make_error_code(std::errc::invalid_argument);
    auto file = ProxyFileSystem::openFileForRead(path);
    if (!file) return file;
    return std::unique_ptr<llvm::vfs::File>(std::make_unique<ReadNotMapped>(std::move(*file)));
  }

 private:
  void note_not_found(const llvm::Twine& path) {
    llvm::SmallString<256> absolute;
    path.toVector(absolute);
    if (!llvm::sys::path::is_absolute(absolute)) {
      if (auto cwd = getCurrentWorkingDirectory()) {
        llvm::SmallString<256> joined(*cwd);
        llvm::sys::path::append(joined, absolute);
        absolute = joined;
      }
    }
    log_->not_found.emplace_back(absolute.str());
  }
  std::shared_ptr<FileSystemLog> log_;
};

// The file system clang reads: the real one, with the stand-in headers (each includes its
// prelude) in memory on top. Header search looks up directories, which ClangTool::mapVirtualFile's
// remapped files do not create: hence an in-memory file system of our own.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> file_system_with_stand_ins(std::shared_ptr<FileSystemLog> log) {
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::makeIntrusiveRefCnt<RegularFilesOnly>(llvm::vfs::createPhysicalFileSystem(), std::move(log)));
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const StandIn& stand_in : kStandIns) {
    const std::string prelude_path = std::string("/cudnnlint-virtual/") + stand_in.prelude;
    memory->addFile(prelude_path, 0, llvm::MemoryBuffer::getMemBuffer(embedded_text(stand_in.prelude), prelude_path));
    const std::string header_path = std::string(kStandInDir) + "/" + stand_in.header;
    memory->addFile(header_path, 0, llvm::MemoryBuffer::getMemBufferCopy("#include \"" + prelude_path + "\"\n", header_path));
  }
  overlay->pushOverlay(memory);
  return overlay;
}

// Collects what clang reports about a translation unit, to turn into one per-file note.
class DiagnosticCollector : public clang::DiagnosticConsumer {
 public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    ++errors;
    // `#include "x.hpp"` not found: named apart, so that a run can say once which header its
    // files miss and which flag would give it, instead of once per file.
    if (info.getID() == clang::diag::err_pp_file_not_found && info.getNumArgs() > 0 &&
        info.getArgKind(0) == clang::DiagnosticsEngine::ak_std_string) {
      if (missing_header.empty()) missing_header = info.getArgStdStr(0);
      missing_headers.push_back(info.getArgStdStr(0));
    }
    if (!first_error.empty()) return;
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    first_error = message.str().str();
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const auto& sm = info.getSourceManager();
      const auto loc = sm.getSpellingLoc(info.getLocation());
      first_error_file = sm.getFilename(loc).str();
      first_error_at = sm.getFilename(loc).str() + ":" + std::to_string(sm.getSpellingLineNumber(loc)) + ":" +
                       std::to_string(sm.getSpellingColumnNumber(loc));
    }
  }
  unsigned errors = 0;
  std::string missing_header;               // the first
  std::vector<std::string> missing_headers;  // all, as included
  std::string first_error;
  std::string first_error_at;
  std::string first_error_file;  // empty for the driver's errors, which have no place
};

// Stops the parse at the first top-level declaration after the deadline (ParseAST ends when a
// consumer declines one): a cooperative time limit, so nothing is interrupted mid-allocation.
class DeadlineConsumer : public clang::ASTConsumer {
 public:
  DeadlineConsumer(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancelled, bool& timed_out)
      : deadline_(deadline), cancelled_(cancelled), timed_out_(timed_out) {}
  bool HandleTopLevelDecl(clang::DeclGroupRef) override {
    if (std::chrono::steady_clock::now() < deadline_ && (cancelled_ == nullptr || !cancelled_->load())) return true;
    timed_out_ = true;
    return false;
  }

 private:
  std::chrono::steady_clock::time_point deadline_;
  const std::atomic<bool>* cancelled_;
  bool& timed_out_;
};

// The main file's byte ranges that the preprocessor skipped (an inactive #if branch): each from its
// directive to the #else/#endif that ends it.
// With the main file's text (the collector keeps it only when a matcher fires).
struct SkippedRanges {
  std::vector<std::pair<unsigned, unsigned>> ranges;
  std::string main_text;
};
class SkippedBranches : public clang::PPCallbacks {
 public:
  SkippedBranches(const clang::SourceManager& sm, SkippedRanges& out) : sm_(sm), out_(out) {}
  void SourceRangeSkipped(clang::SourceRange range, clang::SourceLocation) override {
    if (!sm_.isWrittenInMainFile(range.getBegin()) || !sm_.isWrittenInMainFile(range.getEnd())) return;
    if (out_.ranges.empty()) out_.main_text = sm_.getBufferData(sm_.getMainFileID()).str();
    out_.ranges.emplace_back(sm_.getFileOffset(range.getBegin()), sm_.getFileOffset(range.getEnd()));
  }

 private:
  const clang::SourceManager& sm_;
  SkippedRanges& out_;
};

class MatchWithDeadline : public clang::ASTFrontendAction {
 public:
  MatchWithDeadline(clang::ast_matchers::MatchFinder& finder, std::chrono::steady_clock::time_point deadline,
                    const std::atomic<bool>* cancelled, bool& timed_out, SkippedRanges& skipped)
      : finder_(finder), deadline_(deadline), cancelled_(cancelled), timed_out_(timed_out), skipped_(skipped) {}
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getPreprocessor().addPPCallbacks(std::make_unique<SkippedBranches>(ci.getSourceManager(), skipped_));
    return true;
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&, llvm::StringRef) override {
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::make_unique<DeadlineConsumer>(deadline_, cancelled_, timed_out_));
    consumers.push_back(finder_.newASTConsumer());
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

 private:
  clang::ast_matchers::MatchFinder& finder_;
  std::chrono::steady_clock::time_point deadline_;
  const std::atomic<bool>* cancelled_;
  bool& timed_out_;
  SkippedRanges& skipped_;
};

class MatchWithDeadlineFactory : public clang::tooling::FrontendActionFactory {
 public:
  MatchWithDeadlineFactory(clang::ast_matchers::MatchFinder& finder, double seconds, const std::atomic<bool>* cancelled,
                           bool& timed_out, SkippedRanges& skipped)
      : finder_(finder),
        deadline_(std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds))),
        cancelled_(cancelled),
        timed_out_(timed_out),
        skipped_(skipped) {}
  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<MatchWithDeadline>(finder_, deadline_, cancelled_, timed_out_, skipped_);
  }

 private:
  clang::ast_matchers::MatchFinder& finder_;
  std::chrono::steady_clock::time_point deadline_;
  const std::atomic<bool>* cancelled_;
  bool& timed_out_;
  SkippedRanges& skipped_;
};

// Offsets of the cuDNN calls a text spells (`cudnnSetTensor4dDescriptor(`), comments not skipped:
// a count to compare between active and skipped code, not an analysis.
std::vector<std::size_t> cudnn_call_offsets(std::string_view text) {
  std::vector<std::size_t> found;
  for (std::size_t at = text.find("cudnn"); at != std::string_view::npos; at = text.find("cudnn", at + 5)) {
    if (at > 0 && is_identifier_char(text[at - 1])) continue;
    std::size_t end = at + 5;
    if (end >= text.size() || !std::isupper(static_cast<unsigned char>(text[end]))) continue;
    while (end < text.size() && is_identifier_char(text[end])) ++end;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    if (end < text.size() && text[end] == '(') found.push_back(at);
  }
  return found;
}

// The -D flags that enable a skipped branch its directive decides by macros being defined alone:
// `#ifdef CUDNN`, `#if GPU`, `#if defined(CUDNN) && defined(GPU)`; "" for anything else (`#ifndef`,
// `#else`, `||`, `!`, comparisons), which the note then leaves to the user.
std::string enabling_flags(std::string_view directive) {
  const std::size_t start = directive.find_first_not_of(" \t#");
  std::string_view rest = start == std::string_view::npos ? std::string_view{} : directive.substr(start);
  std::vector<std::string_view> words;
  for (std::size_t at = 0; at < rest.size();) {
    if (is_identifier_char(rest[at])) {
      const std::size_t from = at;
      while (at < rest.size() && is_identifier_char(rest[at])) ++at;
      words.push_back(rest.substr(from, at - from));
    } else if (rest.substr(at, 2) == "&&") {
      at += 2;
    } else if (std::string_view(" \t\r()").find(rest[at]) != std::string_view::npos) {
      ++at;
    } else {
      return "";  // ||, !, ==, a comment: not a plain conjunction of macros
    }
  }
  if (words.size() < 2) return "";
  std::string flags;
  const std::string_view keyword = words.front();
  if (keyword == "ifdef") {
    if (words.size() != 2) return "";
    flags = "-D" + std::string(words[1]);
  } else if (keyword == "if" || keyword == "elif") {
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (words[i] == "defined") continue;
      if (!is_identifier(words[i]) || std::isdigit(static_cast<unsigned char>(words[i][0]))) return "";
      flags += (flags.empty() ? "-D" : " -D") + std::string(words[i]);
    }
  }
  return flags;
}

// The conditional directives open at the end of `text` (which starts at a skipped branch's
// directive), outermost first: `#if`/`#ifdef`/`#ifndef` open one, `#elif`/`#else` replace the
// innermost, `#endif` closes it.
std::vector<std::string_view> enclosing_directives(std::string_view text) {
  std::vector<std::string_view> open;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t hash = line.find_first_not_of(" \t");
    if (hash == std::string_view::npos || line[hash] != '#') continue;
    line = line.substr(hash);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t word = line.find_first_not_of(" \t", 1);
    const std::string_view keyword = word == std::string_view::npos ? "" : line.substr(word);
    if (keyword.starts_with("if")) open.push_back(line);
    else if ((keyword.starts_with("el")) && !open.empty()) open.back() = line;
    else if (keyword.starts_with("endif") && !open.empty()) open.pop_back();
  }
  return open;
}

// A note where every cuDNN call the file spells sits in branches the preprocessor skipped (darknet's
// `#ifdef CUDNN`): a default run analyses none of them, and says which flag would.
std::optional<FileDiagnostic> skipped_cudnn_note(const std::string& path, const SkippedRanges& skipped_ranges) {
  const std::string_view text = skipped_ranges.main_text;
  const auto& skipped = skipped_ranges.ranges;
  std::size_t in_skipped = 0, active = 0;
  const std::pair<unsigned, unsigned>* first = nullptr;
  std::size_t first_call = 0;
  for (const std::size_t at : cudnn_call_offsets(text)) {
    const auto range = std::find_if(skipped.begin(), skipped.end(),
                                    [&](const auto& r) { return at >= r.first && at < r.second; });
    if (range == skipped.end()) {
      ++active;
    } else {
      ++in_skipped;
      if (first == nullptr) {
        first = &*range;
        first_call = at;
      }
    }
  }
  if (active > 0 || in_skipped == 0 || first->first >= text.size()) return std::nullopt;
  std::string_view directive = text.substr(first->first);
  directive = directive.substr(0, std::min<std::size_t>(directive.find('\n'), 120));
  if (!directive.empty() && directive.back() == '\r') directive.remove_suffix(1);
  const auto line = static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + first->first, '\n') + 1);
  // The flags of every conditional around the first call (darknet's `#ifdef CUDNN` inside `#ifdef GPU`:
  // one flag alone would only move the note inward); none when one of them is not a plain macro test.
  std::string flags;
  for (const std::string_view enclosing : enclosing_directives(text.substr(first->first, first_call - first->first))) {
    const std::string more = enabling_flags(enclosing);
    if (more.empty()) {
      flags.clear();
      break;
    }
    flags += (flags.empty() ? "" : " ") + more;
  }
  std::string message = in_skipped == 1 ? "its cuDNN call is in a preprocessor branch this build skips"
                                        : "its " + std::to_string(in_skipped) +
                                              " cuDNN calls are all in preprocessor branches this build skips";
  message += " (`" + std::string(directive) + "` at line " + std::to_string(line) + "): " +
             (in_skipped == 1 ? "it was not analysed; " : "none was analysed; ");
  std::string extra_args;
  for (std::size_t from = 0; from < flags.size();) {
    const std::size_t space = std::min(flags.find(' ', from), flags.size());
    extra_args += (extra_args.empty() ? "--extra-arg=" : " --extra-arg=") + flags.substr(from, space - from);
    from = space + 1;
  }
  message += flags.empty() ? "define what that condition needs with --extra-arg=-D..., or give the project's "
                             "compile_commands.json"
                           : extra_args + (in_skipped == 1 ? " analyses it" : " analyses them") +
                                 " (or the project's compile_commands.json, where it "
                             "defines " + (flags.find(' ') == std::string::npos ? "it" : "them") + ")";
  Position at;
  at.line = line;
  at.column = at.column_utf16 = 1;
  at.byte_offset = first->first;
  return FileDiagnostic{FileDiagnostic::Severity::Warning, path, at, std::move(message)};
}

// Crash recovery for translation units: LLVM's handlers turn a crash inside one into a return
// from CrashRecoveryContext::RunSafely. They are installed without SA_ONSTACK, so a stack
// overflow (5,000 nested `!`) could not run them: they are re-installed to run on an alternate
// signal stack, which each translation unit's thread sets up.
void enable_crash_recovery() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::CrashRecoveryContext::Enable();
    for (int signal : {SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGTRAP}) {
      struct sigaction action {};
      if (sigaction(signal, nullptr, &action) == 0) {
        action.sa_flags |= SA_ONSTACK;
        sigaction(signal, &action, nullptr);
      }
    }
  });
}

// The thread's alternate signal stack while a translation unit runs. Mapped, not allocated: after
// a crash the thread ends without this destructor (CrashRecoveryContext jumps past it), and the
// stack stays installed; AddressSanitizer's thread exit then unmaps it, which needs a mapping.
class AlternateSignalStack {
 public:
  AlternateSignalStack() {
    memory_ = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory_ == MAP_FAILED) return;
    stack_t stack{};
    stack.ss_sp = memory_;
    stack.ss_size = kSize;
    installed_ = sigaltstack(&stack, &previous_) == 0;
  }
  ~AlternateSignalStack() {
    if (installed_) sigaltstack(&previous_, nullptr);
    if (memory_ != MAP_FAILED) munmap(memory_, kSize);
  }
  AlternateSignalStack(const AlternateSignalStack&) = delete;
  AlternateSignalStack& operator=(const AlternateSignalStack&) = delete;

 private:
  static constexpr std::size_t kSize = 256 * 1024;
  void* memory_ = MAP_FAILED;
  stack_t previous_{};
  bool installed_ = false;
};

// "SIGSEGV" for CrashRecoveryContext's return code (128 + the signal).
std::string crash_name(int code) {
  const int signal = code > 128 ? code - 128 : code;
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal " + std::to_string(signal);
  }
}

// Each translation unit runs on a thread of its own with this much stack; clang's own stack
// handling (noteBottomOfStack) moves deeper work to fresh stacks before that runs out.
constexpr unsigned kTranslationUnitStack = 64u << 20;

// `// NOLINT`, `// NOLINT(cudnnlint-rule, ...)`, `// NOLINTNEXTLINE(cudnnlint-rule)` as clang-tidy spells them.
std::vector<SuppressionComment> nolint_comments(std::string_view text) {
  std::vector<SuppressionComment> out;
  std::uint32_t line = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view content = text.substr(start, end - start);
    const auto comment = content.find("//");
    const auto at = content.find("NOLINT", comment == std::string_view::npos ? content.size() : comment);
    if (comment != std::string_view::npos && at != std::string_view::npos) {
      std::string_view rest = content.substr(at + 6);
      std::uint32_t target = line;
      if (rest.substr(0, 8) == "NEXTLINE") {
        rest.remove_prefix(8);
        target = line + 1;
      }
      SuppressionComment s{target, {}};
      bool ours = true;
      if (!rest.empty() && rest.front() == '(') {
        ours = false;
        const auto close = rest.find(')');
        std::string_view list = rest.substr(1, close == std::string_view::npos ? rest.size() - 1 : close - 1);
        while (!list.empty()) {
          const auto comma = list.find(',');
          std::string_view item = list.substr(0, comma);
          while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
          while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
          if (item == "*" || item == "cudnnlint-*") {
            ours = true;
            s.rules.clear();
            break;
          }
          if (item.substr(0, 10) == "cudnnlint-") {
            ours = true;
            s.rules.emplace_back(item.substr(10));
          }
          if (comma == std::string_view::npos) break;
          list.remove_prefix(comma + 1);
        }
      }
      if (ours) out.push_back(std::move(s));
    }
    start = end + 1;
    ++line;
  }
  return out;
}

// Finds, per file, the compile command: -p's database, else a compile_commands.json found
// upward from the file, else none (fallback flags). Databases are loaded once per directory.
// Where files that clang reads may lie for their text to be quoted or their flags kept: the analysed
// paths, and the folders of the system's, the CUDA toolkit's and clang's own headers.
class TrustedFiles {
 public:
  explicit TrustedFiles(const std::vector<std::string>& roots) : everywhere_(roots.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const std::string& root : roots) {
      // A named file's neighbours are its tree too (its headers sit beside it).
      fs::path bound = tree_bound(root);
      if (fs::is_regular_file(bound, ec)) bound = bound.parent_path();
      if (!bound.empty()) roots_.push_back(bound.string());
    }
    for (const std::string& dir : {std::string("/usr/include"), std::string("/usr/local/include"),
                                  std::string("/usr/lib"), std::string(CUDNNLINT_CUDA_INCLUDE_DIR),
                                  std::string(CUDNNLINT_CUDNN_INCLUDE_DIR), clang_resource_dir()}) {
      const auto real = fs::canonical(dir, ec);
      roots_.push_back(ec ? dir : real.string());
    }
    for (const std::string& dir : environment_cudnn_include_dirs()) roots_.push_back(dir);
    roots_.push_back(kStandInDir);  // cudnnlint's own in-memory headers
  }
  bool contains(const std::string& file, const std::string& relative_to) const {
    if (everywhere_) return true;
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path path = fs::path(file).is_absolute() ? fs::path(file) : fs::path(relative_to) / file;
    const fs::path real = fs::weakly_canonical(path, ec);
    if (ec) return false;
    const std::string text = real.string();
    for (const std::string& root : roots_)
      if (text == root || (text.starts_with(root) && text.size() > root.size() && text[root.size()] == '/')) return true;
    return false;
  }
 private:
  bool everywhere_;  // no roots given: an API caller that analyses no tree of anyone else's
  std::vector<std::string> roots_;
};

class CommandSource {
 public:
  explicit CommandSource(const CppOptions& options) : trusted_(options.trusted_roots) {
    if (!options.compile_commands_dir.empty()) {
      std::string error;
      // As clang's JSON plugin loads it, less its expansion of @response files: a response file
      // named by the tree would be read (and its text quoted in clang's errors) wherever it lies;
      // unexpanded, the `@file` argument is dropped with the other option files.
      const std::string file = (std::filesystem::path(options.compile_commands_dir) / "compile_commands.json").string();
      auto loaded = clang::tooling::JSONCompilationDatabase::loadFromFile(
          file, error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
      if (loaded)
        explicit_db_ = clang::tooling::inferTargetAndDriverMode(
            clang::tooling::inferMissingCompileCommands(std::move(loaded)));
      if (!explicit_db_) {
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::path dir(options.compile_commands_dir);
        if (!fs::is_directory(dir, ec)) error = "no such directory";
        else if (!fs::exists(dir / "compile_commands.json", ec)) error = "no compile_commands.json in it";
        else std::replace(error.begin(), error.end(), '\n', ' ');  // clang's reason, on one line
        load_error_ = "-p " + options.compile_commands_dir + ": " + error;
      }
    }
  }
  const std::string& load_error() const { return load_error_; }
  const TrustedFiles& trusted() const { return trusted_; }

  // `problem`: a compile_commands.json found on the way that cannot be read, named with clang's reason.
  std::vector<clang::tooling::CompileCommand> commands_for(const std::string& absolute_path, std::string& problem) {
    if (explicit_db_) return explicit_db_->getCompileCommands(absolute_path);
    if (!load_error_.empty()) return {};
    namespace fs = std::filesystem;
    for (fs::path dir = fs::path(absolute_path).parent_path(); !dir.empty(); dir = dir.parent_path()) {
      const auto candidate = dir / "compile_commands.json";
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) {
        std::lock_guard lock(mutex_);
        auto& db = found_[dir.string()];
        if (!db && !errors_.count(dir.string())) {
          std::string error;
          db = clang::tooling::JSONCompilationDatabase::loadFromFile(
              candidate.string(), error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
          if (!db) errors_[dir.string()] = error.empty() ? "cannot be read" : error;
        }
        if (db) return db->getCompileCommands(absolute_path);
        problem = candidate.string() + " is not a valid compilation database (" + errors_[dir.string()] +
                  "); fallback flags used";
        return {};
      }
      if (dir == dir.root_path()) break;
    }
    return {};
  }

 private:
  std::unique_ptr<clang::tooling::CompilationDatabase> explicit_db_;
  std::string load_error_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<clang::tooling::CompilationDatabase>> found_;
  std::map<std::string, std::string> errors_;  // by directory: why its compile_commands.json did not load
  TrustedFiles trusted_;
};

// A compile command comes from the tree (compile_commands.json is the tree's file). A flag that
// makes clang read a file, and so quote it in its errors, is kept only when that file is trusted;
// flags that load code into clang, read option files, or print to the process's stderr (which CI
// logs show unescaped) are dropped whatever they name. Returns a note naming what was dropped.
enum class FlagVerdict { Keep, Drop, DropWithNext, CheckFile, CheckNextFile };

struct FlagRule {
  std::string_view spelling;
  bool prefix;  // `spelling` starts the argument (`-fplugin=x`); else the argument is `spelling`
  FlagVerdict verdict;
};

// Checked in order: a longer spelling before a shorter one it starts with (-include-pch, -include).
constexpr FlagRule kFlagRules[] = {
    // Code loaded into clang, or clang's own options: never.
    {"-fplugin", true, FlagVerdict::Drop},          {"-fpass-plugin", true, FlagVerdict::Drop},
    {"-Xclang", false, FlagVerdict::DropWithNext},  {"-Xpreprocessor", false, FlagVerdict::DropWithNext},
    {"-Xassembler", false, FlagVerdict::DropWithNext}, {"-Xlinker", false, FlagVerdict::DropWithNext},
    {"-mllvm", false, FlagVerdict::DropWithNext},   {"-Wp,", true, FlagVerdict::Drop},
    {"-Wa,", true, FlagVerdict::Drop},              {"-Wl,", true, FlagVerdict::Drop},
    {"--config", true, FlagVerdict::Drop},          {"@", true, FlagVerdict::Drop},
    // What prints to stderr outside the diagnostics cudnnlint collects.
    {"-v", false, FlagVerdict::Drop},               {"--verbose", false, FlagVerdict::Drop},
    {"-###", false, FlagVerdict::Drop},             {"-H", false, FlagVerdict::Drop},
    {"-ftime-report", true, FlagVerdict::Drop},     {"-ftime-trace", true, FlagVerdict::Drop},
    {"-save-temps", true, FlagVerdict::Drop},       {"-print-", true, FlagVerdict::Drop},
    // Files read whole, whose malformed lines LLVM reports as fatal errors on stderr.
    {"-fsanitize-ignorelist=", true, FlagVerdict::Drop}, {"-fsanitize-blacklist=", true, FlagVerdict::Drop},
    {"-fsanitize-coverage-", true, FlagVerdict::Drop},   {"-fprofile-", true, FlagVerdict::Drop},
    {"-fxray-", true, FlagVerdict::Drop},                {"-ivfsoverlay", true, FlagVerdict::DropWithNext},
    {"-fmodule-map-file=", true, FlagVerdict::Drop},     {"-fmodules-cache-path=", true, FlagVerdict::Drop},
    {"-include-pch", true, FlagVerdict::DropWithNext},
    // Files included into the unit: kept when they lie in the tree.
    {"--include=", true, FlagVerdict::CheckFile},   {"--include", false, FlagVerdict::CheckNextFile},
    {"-include", false, FlagVerdict::CheckNextFile}, {"-include", true, FlagVerdict::CheckFile},
    {"--imacros=", true, FlagVerdict::CheckFile},   {"--imacros", false, FlagVerdict::CheckNextFile},
    {"-imacros", false, FlagVerdict::CheckNextFile}, {"-imacros", true, FlagVerdict::CheckFile},
};

const FlagRule* rule_for(std::string_view arg) {
  for (const FlagRule& rule : kFlagRules)
    if (rule.prefix ? arg.starts_with(rule.spelling) : arg == rule.spelling) return &rule;
  return nullptr;
}

std::string drop_flags_reading_outside(std::vector<std::string>& command, const std::string& directory,
                                       const TrustedFiles& trusted) {
  std::vector<std::string> kept, dropped;
  if (!command.empty()) kept.push_back(command.front());  // the driver
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    const FlagRule* rule = rule_for(arg);
    const bool has_next = i + 1 < command.size();
    FlagVerdict verdict = rule ? rule->verdict : FlagVerdict::Keep;
    if (verdict == FlagVerdict::CheckFile || verdict == FlagVerdict::CheckNextFile) {
      std::string file = verdict == FlagVerdict::CheckNextFile ? (has_next ? command[i + 1] : std::string())
                                                               : arg.substr(rule->spelling.size());
      const bool inside = !file.empty() && trusted.contains(file, directory);
      verdict = verdict == FlagVerdict::CheckNextFile ? (inside ? FlagVerdict::Keep : FlagVerdict::DropWithNext)
                                                      : (inside ? FlagVerdict::Keep : FlagVerdict::Drop);
      if (inside && rule->verdict == FlagVerdict::CheckNextFile) {
        kept.push_back(arg);
        kept.push_back(command[++i]);
        continue;
      }
    }
    if (verdict == FlagVerdict::Keep) {
      kept.push_back(arg);
    } else if (verdict == FlagVerdict::Drop || !has_next) {
      dropped.push_back(arg);
    } else {
      dropped.push_back(arg + " " + command[++i]);
    }
  }
  command = std::move(kept);
  if (dropped.empty()) return {};
  std::string note = "compile_commands.json: dropped ";
  for (std::size_t i = 0; i < dropped.size(); ++i) note += (i ? ", '" : "'") + dropped[i] + "'";
  return note + ": flags that read a file outside the analysed paths, load code, read option files or print "
                "outside clang's diagnostics are not passed to clang";
}

struct ResolvedCommand {
  std::vector<std::string> arguments;  // driver first, the file included; before cudnnlint's own additions
  std::string directory;               // absolute: the tool's working directory for this file
  bool from_database = false;
  std::string note;                    // a problem with the database entry, for the per-file notes
};

// The compile command cudnnlint uses for `path`: the compilation database's (an nvcc command
// keeps only its -I/-D/-isystem/-std), else the fallback flags.
ResolvedCommand resolve_command(const std::string& path, CommandSource& commands) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string absolute = fs::absolute(path, ec).lexically_normal().string();
  ResolvedCommand resolved;
  resolved.directory = fs::current_path(ec).string();
  std::string problem;
  std::vector<clang::tooling::CompileCommand> found = commands.commands_for(absolute, problem);
  resolved.note = problem;
  if (!found.empty() && !fs::is_directory(found.front().Directory, ec)) {
    // clang's tooling aborts the process on a directory it cannot enter: say so and fall back.
    resolved.note = "compile_commands.json names the directory " + found.front().Directory +
                    ", which does not exist; fallback flags used";
    found.clear();
  }
  resolved.from_database = !found.empty();
  std::vector<std::string>& command = resolved.arguments;
  const bool nvcc = resolved.from_database && !found.front().CommandLine.empty() &&
                    fs::path(found.front().CommandLine.front()).filename().string().find("nvcc") != std::string::npos;
  if (resolved.from_database) resolved.directory = found.front().Directory;
  if (resolved.from_database && !nvcc) {
    command = found.front().CommandLine;
    if (std::string note = drop_flags_reading_outside(command, resolved.directory, commands.trusted()); !note.empty())
      resolved.note = resolved.note.empty() ? note : resolved.note + "; " + note;
  } else if (nvcc) {
    // clang cannot run an nvcc command line: keep its include paths, macros and standard.
    command.push_back("clang++");
    for (auto& flag : fallback_flags(path)) command.push_back(std::move(flag));
    const auto& line = found.front().CommandLine;
    for (std::size_t i = 1; i < line.size(); ++i) {
      const std::string& arg = line[i];
      if ((arg == "-I" || arg == "-D" || arg == "-isystem") && i + 1 < line.size()) {
        command.push_back(arg);
        command.push_back(line[++i]);
      } else if (arg.rfind("-I", 0) == 0 || arg.rfind("-D", 0) == 0 || arg.rfind("-std=", 0) == 0) {
        command.push_back(arg);
      }
    }
    command.push_back(absolute);
  } else {
    command.push_back(fs::path(path).extension() == ".c" ? "clang" : "clang++");
    for (auto& flag : fallback_flags(path)) command.push_back(std::move(flag));
    command.push_back(absolute);
  }
  return resolved;
}

}  // namespace

std::string clang_resource_dir() {
  // An installed cudnnlint (the wheel, `cmake --install`) carries the built-in headers of the Clang
  // it links at ../share/cudnnlint/clang; a build tree uses those of the Clang it was built with.
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const fs::path bundled = (exe.parent_path() / ".." / "share" / "cudnnlint" / "clang").lexically_normal();
      if (fs::is_regular_file(bundled / "include" / "stddef.h", ec)) return bundled.string();
    }
    return std::string(CUDNNLINT_CLANG_RESOURCE_DIR);
  }();
  return dir;
}

namespace {

// The full argument list handed to clang: outputs dropped, syntax only, cudnnlint's additions last.
std::vector<std::string> final_arguments(const ResolvedCommand& resolved, const CppOptions& options) {
  const auto& command = resolved.arguments;
  std::vector<std::string> out;
  out.push_back(command.front());
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    // Drop outputs and dependency files: nothing is written.
    if (arg == "-o" || arg == "-MF" || arg == "-MT" || arg == "-MQ") {
      ++i;
      continue;
    }
    if (arg == "-c" || arg == "-MD" || arg == "-MMD") continue;
    out.push_back(arg);
  }
  // The clang driver takes options after inputs too.
  out.push_back("-resource-dir=" + clang_resource_dir());
  for (const char* flag : {"-fsyntax-only", "-fno-color-diagnostics",
                           "-fno-caret-diagnostics", "-Wno-unknown-cuda-version", "-Wno-macro-redefined",
                           })
    out.emplace_back(flag);
  // Searched after the command's own folders, in this order: an nvidia-cudnn wheel's headers in the
  // user's Python environment, then cudnnlint's stand-ins.
  for (const std::string& dir : environment_cudnn_include_dirs()) {
    out.emplace_back("-idirafter");
    out.push_back(dir);
  }
  out.emplace_back("-idirafter");
  out.emplace_back(kStandInDir);
  out.insert(out.end(), options.extra_args.begin(), options.extra_args.end());
  return out;
}

CppFileResult analyze_one(const std::string& path, const ApiTable& table, const CppOptions& options,
                          CommandSource& commands) {
  CppFileResult result;
  result.facts.path = path;
  result.facts.language = "cpp";
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string absolute = fs::absolute(path, ec).lexically_normal().string();
  const ResolvedCommand resolved = resolve_command(path, commands);
  const bool from_database = resolved.from_database;
  const std::vector<std::string> arguments = final_arguments(resolved, options);
  if (!resolved.note.empty())
    result.diagnostics.push_back({FileDiagnostic::Severity::Warning, path, std::nullopt, resolved.note});

  clang::tooling::FixedCompilationDatabase single(resolved.directory, {});
  // FixedCompilationDatabase supplies its own driver line; hand the tool ours instead.
  auto adjust = [&](const clang::tooling::CommandLineArguments&, llvm::StringRef) { return arguments; };
  // A file system with its own working directory: ClangTool moves into each command's
  // directory, and the real file system would do that with chdir(), for every worker thread at once.
  auto file_system_log = std::make_shared<FileSystemLog>();
  clang::tooling::ClangTool tool(single, {absolute}, std::make_shared<clang::PCHContainerOperations>(),
                                 file_system_with_stand_ins(file_system_log));
  tool.clearArgumentsAdjusters();
  tool.appendArgumentsAdjuster(adjust);
  if (is_cuda_source(path)) tool.mapVirtualFile(kPreludePath, prelude_text());

  DiagnosticCollector diagnostics;
  tool.setDiagnosticConsumer(&diagnostics);
  tool.setPrintErrorMessage(false);

  clang::ast_matchers::MatchFinder finder;
  FactsCollector collector(table, result.facts, result.text);
  collector.register_matchers(finder);
  bool timed_out = false;
  SkippedRanges skipped;
  MatchWithDeadlineFactory factory(finder, options.timeout_seconds, options.cancelled, timed_out, skipped);
  const int status = tool.run(&factory);
  if (timed_out && options.cancelled != nullptr && options.cancelled->load()) {
    result.facts = FileFacts{};
    result.facts.path = path;
    result.facts.language = "cpp";
    result.cacheable = false;
    result.diagnostics.push_back({FileDiagnostic::Severity::Warning, path, std::nullopt, "analysis cancelled"});
    return result;
  }
  if (timed_out) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", options.timeout_seconds);
    result.facts = FileFacts{};
    result.facts.path = path;
    result.facts.language = "cpp";
    result.diagnostics.push_back({FileDiagnostic::Severity::Warning, path, std::nullopt,
                                  std::string("clang was still parsing this file after ") + seconds +
                                      " s (--cpp-timeout): skipped, no findings from it"});
    return result;
  }

  const std::string stand_in_prefix = std::string(kStandInDir) + "/";
  for (const std::string& included : collector.included_files())
    if (included.starts_with(stand_in_prefix)) result.stand_ins.push_back(included.substr(stand_in_prefix.size()));
  // The header the file is known by first (`torch/torch.h` before `ATen/autocast_mode.h`): the
  // text report groups files by it.
  std::sort(result.stand_ins.begin(), result.stand_ins.end(), [](const std::string& a, const std::string& b) {
    const auto rank = [](const std::string& header) {
      for (std::size_t i = 0; i < std::size(kStandIns); ++i)
        if (header == kStandIns[i].header) return i;
      return std::size(kStandIns);
    };
    return rank(a) < rank(b);
  });
  if (!result.stand_ins.empty() || diagnostics.errors > 0 || status != 0) {
    std::string message;
    if (!result.stand_ins.empty()) {
      // Said once per file, with the errors (if any) that the declarations leave.
      std::string names;
      for (const auto& header : result.stand_ins) names += (names.empty() ? "'" : ", '") + header + "'";
      message = names + " not found: parsed with cudnnlint's declarations of the API its rules read";
      if (diagnostics.errors > 0) message += "; ";
    }
    if (diagnostics.errors > 0 || status != 0) {
      message += "clang reported " + std::to_string(diagnostics.errors) + " error" + (diagnostics.errors == 1 ? "" : "s");
      // clang's message quotes source text (a macro's value, a string, a type name), which may come
      // from any file the unit read: it is quoted only when every such file is the tree's or the
      // system's.
      const auto outside = std::find_if(
          collector.included_files().begin(), collector.included_files().end(), [&](const std::string& file) {
            return !file.starts_with(stand_in_prefix) && file != kPreludePath &&
                   !commands.trusted().contains(file, resolved.directory);
          });
      if (outside != collector.included_files().end() ||
          (!diagnostics.first_error_file.empty() &&
           !commands.trusted().contains(diagnostics.first_error_file, resolved.directory)))
        message += " (not quoted: the unit read a file outside the analysed paths and the system's headers)";
      else if (!diagnostics.first_error.empty())
        message += " (first: " + diagnostics.first_error +
                   (diagnostics.first_error_at.empty() ? "" : " at " + diagnostics.first_error_at) + ")";
    }
    message += from_database ? "; flags from compile_commands.json" : "; no compile command, fallback flags used";
    if (diagnostics.errors > 0 || status != 0) message += "; findings come from the recovered AST";
    // A header that exists but is a FIFO, device or socket: clang says "not found", and no -I helps.
    std::string unreadable;
    for (const std::string& refused_path : file_system_log->refused)
      if (!diagnostics.missing_header.empty() &&
          (refused_path == diagnostics.missing_header || refused_path.ends_with("/" + diagnostics.missing_header)))
        unreadable = refused_path;
    if (!unreadable.empty())
      message = "'" + unreadable + "' is not a regular file (a FIFO, device or socket): not read; " + message;
    FileDiagnostic diagnostic{FileDiagnostic::Severity::Warning, path, std::nullopt, std::move(message)};
    if (unreadable.empty()) diagnostic.missing_header = diagnostics.missing_header;
    diagnostic.from_compile_command = from_database;
    if (!result.stand_ins.empty()) diagnostic.stand_in = result.stand_ins.front();
    result.diagnostics.push_back(std::move(diagnostic));
  }
  if (!result.facts.descriptors.empty()) result.facts.frameworks.push_back("cudnn");
  if (!result.facts.tensor_inputs.empty() &&
      std::find(result.facts.frameworks.begin(), result.facts.frameworks.end(), "torch") == result.facts.frameworks.end())
    result.facts.frameworks.push_back("torch");
  for (const auto& n : result.facts.normalizations) {
    const ApiEntry* api = table.find(n.api);
    if (api && std::find(result.facts.frameworks.begin(), result.facts.frameworks.end(), api->framework) ==
                   result.facts.frameworks.end())
      result.facts.frameworks.push_back(api->framework);
  }
  if (auto note = skipped_cudnn_note(path, skipped)) result.diagnostics.push_back(std::move(*note));
  result.facts.suppressions = nolint_comments(result.text);
  result.text_size = result.text.size();
  for (const std::string& included : collector.included_files()) {
    if (included.starts_with(stand_in_prefix) || included == kPreludePath) continue;
    fs::path file(included);
    if (file.is_relative()) file = fs::path(resolved.directory) / file;
    // As clang spelled it: `..` after a symbolic link is not where lexically_normal() goes.
    if (fs::is_regular_file(file, ec)) result.dependencies.push_back(file.string());
  }
  // The places clang looked for a header it did not find (or stood in for): one appearing there
  // would change the unit. Other failed lookups (a header found in a later search directory) are
  // not kept: a closer copy appearing later is a limit the README states.
  std::vector<std::string> missing = diagnostics.missing_headers;
  missing.insert(missing.end(), result.stand_ins.begin(), result.stand_ins.end());
  std::set<std::string> absent;
  for (const std::string& probe : file_system_log->not_found)
    for (const std::string& name : missing)
      if (probe.size() > name.size() && probe.ends_with(name) && probe[probe.size() - name.size() - 1] == '/') {
        absent.insert(probe);
        break;
      }
  result.absent.assign(absent.begin(), absent.end());
  result.cacheable = file_system_log->refused.empty();
  return result;
}

}  // namespace

bool is_cpp_source(std::string_view path) {
  static constexpr std::string_view kExtensions[] = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh"};
  const auto ext = extension_of(path);
  return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

bool is_header(std::string_view path) {
  const auto ext = extension_of(path);
  return ext == ".h" || ext == ".hh" || ext == ".hpp" || ext == ".cuh";
}

bool is_cuda_source(std::string_view path) {
  const auto ext = extension_of(path);
  return ext == ".cu" || ext == ".cuh";
}

std::vector<std::string> fallback_flags(std::string_view path) {
  const auto ext = extension_of(path);
  std::vector<std::string> flags;
  if (ext == ".c") {
    flags = {"-x", "c", "-std=c11"};
  } else if (is_cuda_source(path)) {
    // Host side only, without clang's CUDA wrapper headers or libdevice (they do not match
    // CUDA 13); cudnnlint's prelude declares the few builtins kernels use.
    flags = {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-std=c++17", "-include", kPreludePath};
  } else {
    flags = {"-x", "c++", "-std=c++17"};
  }
  flags.push_back("-I" CUDNNLINT_CUDA_INCLUDE_DIR);
  if (std::string_view(CUDNNLINT_CUDNN_INCLUDE_DIR) != CUDNNLINT_CUDA_INCLUDE_DIR)
    flags.push_back("-I" CUDNNLINT_CUDNN_INCLUDE_DIR);
  return flags;
}

bool may_contain_cpp_trigger(std::string_view text) {
  static const CppTriggerWords words = collector_trigger_words(ApiTable::builtin());
  static const WordSet cudnn(words.cudnn), libtorch(words.libtorch), none;
  if (scan_identifiers(text, cudnn, none, false).names_a_word) return true;
  const bool names_libtorch = text.find("torch") != std::string_view::npos ||
                              text.find("ATen") != std::string_view::npos || text.find("at::") != std::string_view::npos;
  if (names_libtorch && scan_identifiers(text, libtorch, none, false).names_a_word) return true;
  // CUDA code converting a float to half: read only when it also writes a constant such as 1e-8f.
  if (text.find("half") == std::string_view::npos && text.find("Half") == std::string_view::npos) return false;
  return has_small_float_literal(text);
}

std::vector<std::vector<std::string>> clang_commands(std::span<const std::string> files, const CppOptions& options) {
  CommandSource commands(options);
  std::vector<std::vector<std::string>> out;
  for (const auto& file : files) out.push_back(final_arguments(resolve_command(file, commands), options));
  return out;
}

std::vector<std::string> command_texts(std::span<const std::string> files, const CppOptions& options) {
  CommandSource commands(options);
  std::vector<std::string> out;
  for (const auto& file : files) {
    const ResolvedCommand resolved = resolve_command(file, commands);
    std::string text = resolved.directory + '\n' + resolved.note;
    for (const auto& argument : final_arguments(resolved, options)) text += '\n' + argument;
    if (!commands.load_error().empty()) text += "\n" + commands.load_error();
    out.push_back(std::move(text));
  }
  return out;
}

// Tells the progress line that a translation unit started, and that it finished however its
// iteration ends.
class UnitInFlight {
 public:
  UnitInFlight(Progress* progress, const std::string& path) : progress_(progress), path_(path) {
    if (progress_ != nullptr) progress_->unit_started(path_);
  }
  ~UnitInFlight() {
    if (progress_ == nullptr) return;
    progress_->unit_finished(path_);
    progress_->file_done();
  }
  UnitInFlight(const UnitInFlight&) = delete;
  UnitInFlight& operator=(const UnitInFlight&) = delete;

 private:
  Progress* progress_;
  const std::string& path_;
};

std::vector<CppFileResult> analyze_cpp(std::span<const std::string> files, const ApiTable& table,
                                       const CppOptions& options) {
  enable_crash_recovery();
  std::vector<CppFileResult> results(files.size());
  CommandSource commands(options);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      const UnitInFlight in_flight(options.progress, files[i]);
      try {
        // On a thread of its own under crash recovery: a crash or stack overflow in clang (5,000
        // nested `!` crash clang itself) becomes this file's diagnostic, and the run goes on.
        CppFileResult one;
        llvm::CrashRecoveryContext recovery;
        const bool survived = recovery.RunSafelyOnThread(
            [&] {
              AlternateSignalStack alternate;
              clang::noteBottomOfStack();
              one = analyze_one(files[i], table, options, commands);
            },
            kTranslationUnitStack);
        if (survived) {
          results[i] = std::move(one);
        } else {
          results[i].facts.path = files[i];
          results[i].facts.language = "cpp";
          results[i].diagnostics.push_back({FileDiagnostic::Severity::Error, files[i], std::nullopt,
                                            "clang crashed on this file (" + crash_name(recovery.RetCode) +
                                                ": a stack overflow or a bug in clang 14): skipped, no findings from it"});
        }
      } catch (const std::exception& e) {
        results[i].facts.path = files[i];
        results[i].diagnostics.push_back({FileDiagnostic::Severity::Error, files[i], std::nullopt,
                                          std::string("internal error in the C++ front-end: ") + e.what()});
      }
    }
  };
  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(files.size(), 1)));
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::jthread> threads;
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
  }
  // After the workers, which replace each result whole.
  if (!commands.load_error().empty() && !results.empty())
  {
    results.front().diagnostics.push_back({FileDiagnostic::Severity::Warning, options.compile_commands_dir, std::nullopt,
                                           commands.load_error() + "; fallback flags used for every file"});
    results.front().cacheable = false;
  }
  return results;
}

}  // namespace cudnnlint::cpp
