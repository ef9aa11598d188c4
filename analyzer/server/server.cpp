#include "server/server.h"

#include "cli/config.h"
#include "core/api_table.h"
#include "core/target.h"
#include "core/uri.h"
#include "cpp/frontend.h"
#include "discovery/discovery.h"
#include "engine/analysis.h"
#include "engine/import_closure.h"
#include "engine/session_cache.h"
#include "kb/kb.h"
#include "python/incremental_tree.h"
#include "rules/rule.h"
#include "server/background.h"
#include "server/documents.h"
#include "server/project.h"
#include "server/transport.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace cudnnlint::server {

namespace {

using nlohmann::json;

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kServerNotInitialized = -32002;
constexpr int kRequestCancelled = -32800;

struct Failure {
  int code;
  std::string message;
};

class Server {
 public:
  Server(std::ostream& out, std::ostream& log, const ServerOptions& options) : out_(out), log_(log), options_(options) {
    if (options_.lang) lang_ = *options_.lang;
  }

  // Returns false after `exit`.
  bool handle(const std::string& body) {
    // Before the parse: a deeper DOM would overflow the stack in the copies and dump()s below (and
    // in its destructor in older nlohmann releases). Its id is unknown without a parse: null.
    if (!json_depth_within(body, kMaxJsonDepth)) {
      respond_error(nullptr, kParseError, "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels: refused");
      return true;
    }
    json message;
    try {
      message = json::parse(body);
    } catch (const json::exception& e) {
      respond_error(nullptr, kParseError, std::string("not JSON: ") + e.what());
      return true;
    }
    if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
      if (message.is_object() && message.contains("id") && (message.contains("result") || message.contains("error"))) {
        // A response to a request of ours (registerCapability, diagnostic refresh): only a
        // refusal is worth a line in the log.
        if (message.contains("error")) log_ << "cudnnlint server: the client refused a request: " << message["error"].dump() << '\n';
        return true;
      }
      respond_error(message.is_object() && message.contains("id") ? message["id"] : json(nullptr), kInvalidRequest,
                    "not a request or a notification");
      return true;
    }
    const std::string method = message["method"];
    const bool is_request = message.contains("id");
    const json id = is_request ? message["id"] : json(nullptr);
    const json params = message.value("params", json::object());
    if (method == "exit") {
      exit_code_ = shutdown_ ? 0 : 1;
      return false;
    }
    try {
      if (is_request) {
        respond(id, request(method, params));
      } else {
        notification(method, params);
      }
    } catch (const Failure& failure) {
      if (is_request) respond_error(id, failure.code, failure.message);
      else log_ << "cudnnlint server: " << method << ": " << failure.message << '\n';
    } catch (const std::exception& e) {
      // A bug of ours, or params of the wrong shape: the server stays up.
      if (is_request) respond_error(id, kInvalidParams, e.what());
      else log_ << "cudnnlint server: " << method << ": " << e.what() << '\n';
    }
    return true;
  }

  int exit_code() const { return exit_code_; }

  // A message the framing could not read (server/transport.h): said in the log and to the client,
  // whose request, if it was one, gets no answer (its id is unknown).
  void refuse_frame(const std::string& error) {
    log_ << "cudnnlint server: " << error << " (message skipped)\n";
    log_message("cudnnlint: a message was skipped: " + error, 1);
  }

 private:
  json request(const std::string& method, const json& params) {
    if (method == "initialize") return initialize(params);
    if (!initialized_) throw Failure{kServerNotInitialized, "initialize first"};
    if (shutdown_) throw Failure{kInvalidRequest, "the server is shutting down"};
    if (method == "shutdown") {
      shutdown_ = true;
      return nullptr;
    }
    if (method == "textDocument/diagnostic") return pull_diagnostics(params);
    if (method == "textDocument/hover") return hover(params);
    if (method == "textDocument/codeAction") return code_actions(params);
    throw Failure{kMethodNotFound, "unknown method " + method};
  }

  void notification(const std::string& method, const json& params) {
    if (method == "$/cancelRequest" || method == "$/setTrace") return;
    if (!initialized_ || shutdown_) return;
    if (method == "initialized") return register_watchers();
    if (method == "workspace/didChangeWatchedFiles") return watched_files_changed(params);
    if (method == "textDocument/didOpen") {
      const json& item = params.at("textDocument");
      const std::string uri = item.at("uri");
      const auto path = path_of_uri(uri);
      if (!path) return log_message("cudnnlint: " + uri + " is not a local file: not analysed");
      auto document = std::make_unique<Document>(uri, *path, item.value("version", 0), item.at("text"));
      documents_[uri] = std::move(document);
      if (is_python(*path)) trees_[uri].reset();
      publish(*documents_[uri]);
    } else if (method == "textDocument/didChange") {
      Document& document = open_document(params);
      const auto tree = trees_.find(document.uri());
      for (const json& change : params.at("contentChanges")) {
        std::optional<LspRange> range;
        if (change.contains("range")) range = range_of(change["range"]);
        const std::string text = change.at("text").get<std::string>();
        // The tree is told of each edit in the coordinates of the text it applies to.
        if (tree != trees_.end()) {
          if (range) {
            const auto [begin, end] = document.byte_range(*range, encoding_);
            tree->second.edit(document.text(), begin, end, text);
          } else {
            tree->second.reset();
          }
        }
        document.apply(range, text, encoding_);
      }
      document.set_version(params.at("textDocument").value("version", document.version()));
      // C, C++ and CUDA are analysed from the saved file: on open and save only (clang's parse of
      // a translation unit takes seconds, and the file on disk has not changed).
      if (!cpp::is_cpp_source(document.path())) {
        publish(document);
        publish_dependents_of(document.path());
      }
    } else if (method == "textDocument/didSave") {
      Document& document = open_document(params);
      if (params.contains("text")) {
        document.apply(std::nullopt, params["text"].get<std::string>(), encoding_);
        if (const auto tree = trees_.find(document.uri()); tree != trees_.end()) tree->second.reset();
      }
      publish(document);
    } else if (method == "textDocument/didClose") {
      const std::string uri = params.at("textDocument").at("uri");
      trees_.erase(uri);
      {
        // Under the lock, so that a C++ analysis of it still running cannot publish after this.
        const std::lock_guard lock(state_mutex_);
        background_.cancel(uri);
        findings_.erase(uri);
        inputs_.erase(uri);
        analysed_in_background_.erase(uri);
      }
      const auto it = documents_.find(uri);
      if (it == documents_.end()) return;
      const std::string path = it->second->path();
      documents_.erase(it);
      if (!pull_) send_notification("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
      publish_dependents_of(path);  // they read the file from disk again
    }
  }

  json initialize(const json& params) {
    if (initialized_) throw Failure{kInvalidRequest, "initialize was sent twice"};
    initialized_ = true;
    // UTF-8 positions when the client offers them (no conversion on either side), else UTF-16.
    const json capabilities = params.value("capabilities", json::object());
    const json general = capabilities.value("general", json::object());
    for (const json& offered : general.value("positionEncodings", json::array()))
      if (offered == "utf-8") encoding_ = PositionEncoding::Utf8;
    pull_ = capabilities.value("textDocument", json::object()).contains("diagnostic");
    const json workspace = capabilities.value("workspace", json::object());
    watch_dynamically_ = workspace.value("didChangeWatchedFiles", json::object()).value("dynamicRegistration", false);
    refresh_support_ = workspace.value("diagnostics", json::object()).value("refreshSupport", false);
    // The workspace whose configuration applies: its first folder, else rootUri.
    std::string root_uri;
    if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array() &&
        !params["workspaceFolders"].empty())
      root_uri = params["workspaceFolders"][0].value("uri", "");
    else if (params.contains("rootUri") && params["rootUri"].is_string())
      root_uri = params["rootUri"];
    if (const auto root = path_of_uri(root_uri)) {
      std::error_code ec;
      if (std::filesystem::is_directory(*root, ec)) {
        project_.set_root(std::filesystem::path(*root).lexically_normal().string());
        // Relative settings (`exclude`) mean what they mean to `cudnnlint .` run in the workspace.
        std::filesystem::current_path(project_.root(), ec);
      }
    }
    json result;
    result["capabilities"] = {
        {"positionEncoding", encoding_ == PositionEncoding::Utf8 ? "utf-8" : "utf-16"},
        {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
        {"diagnosticProvider", {{"interFileDependencies", true}, {"workspaceDiagnostics", false}}},
        {"hoverProvider", true},
        {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
    };
    // KB text in Chinese when the client runs in a Chinese locale.
    if (!options_.lang && params.contains("locale") && params["locale"].is_string() &&
        params["locale"].get<std::string>().starts_with("zh"))
      lang_ = kb::Lang::Zh;
    result["serverInfo"] = {{"name", "cudnnlint"}, {"version", CUDNNLINT_VERSION}};
    return result;
  }

  Document& open_document(const json& params) {
    const std::string uri = params.at("textDocument").at("uri");
    const auto it = documents_.find(uri);
    if (it == documents_.end()) throw Failure{kInvalidParams, uri + " is not open"};
    return *it->second;
  }

  LspRange range_of(const json& range) const {
    auto position = [](const json& p) { return LspPosition{p.at("line").get<std::uint32_t>(), p.at("character").get<std::uint32_t>()}; };
    return LspRange{position(range.at("start")), position(range.at("end"))};
  }

  // The options a command-line run in the workspace would have for the document (server/project.h),
  // with the editor's buffers and the open Python documents' trees.
  AnalysisOptions options_for(const Document& document) {
    auto overlay = std::make_shared<std::map<std::string, std::string, std::less<>>>();
    ParsedPythonFiles parsed;
    for (const auto& [uri, open] : documents_) {
      (*overlay)[open->path()] = open->text();
      if (const auto tree = trees_.find(uri); tree != trees_.end()) {
        try {
          parsed[open->path()] = tree->second.parse(open->text());
        } catch (const std::exception& e) {
          log_ << "cudnnlint server: " << open->path() << ": " << e.what() << '\n';
        }
      }
    }
    std::string note;
    AnalysisOptions options = project_.options_for(document.path(), std::move(overlay), std::move(parsed), session_, note);
    if (!note.empty()) log_message(note);
    return options;
  }

  // Analyses a document now, on this thread.
  json diagnostics_of(const Document& document) {
    AnalysisOptions options = options_for(document);
    // C, C++ and CUDA: clang reads the saved file, so they are analysed from disk.
    if (cpp::is_cpp_source(document.path())) options.limits.overlay.reset();
    const AnalysisResult result = analyze(options);
    const std::lock_guard lock(state_mutex_);
    return record(document, options, result);
  }

  // Keeps an analysis's findings and inputs for the document and gives its diagnostics. The caller
  // holds state_mutex_.
  json record(const Document& document, const AnalysisOptions& options, const AnalysisResult& result) {
    inputs_[document.uri()] = std::set<std::string>(options.paths.begin(), options.paths.end());
    project_.remember(options, result);
    json diagnostics = json::array();
    std::vector<Finding>& kept = findings_[document.uri()];
    kept.clear();
    for (const Finding& finding : result.findings) {
      if (finding.location.path != document.path()) continue;
      diagnostics.push_back(diagnostic_of(finding, document));
      kept.push_back(finding);
    }
    for (const FileDiagnostic& d : result.diagnostics) {
      if (d.path != document.path()) continue;
      LspPosition at{};
      if (d.position) at = LspPosition{d.position->line > 0 ? d.position->line - 1 : 0, 0};
      diagnostics.push_back({{"range", {{"start", position_json(at)}, {"end", position_json(at)}}},
                             {"severity", d.severity == FileDiagnostic::Severity::Error ? 1 : 2},
                             {"source", "cudnnlint"},
                             {"message", d.message}});
    }
    return diagnostics;
  }

  static json position_json(LspPosition p) { return {{"line", p.line}, {"character", p.character}}; }

  json range_json(const SourceRange& range, const Document* document) const {
    // In the open document, from byte offsets (the buffer is what the client counts in); elsewhere
    // from the finding's own columns.
    auto convert = [&](const Position& p) {
      if (document != nullptr) return document->position_of(p.byte_offset, encoding_);
      const std::uint32_t column = encoding_ == PositionEncoding::Utf8 ? p.column : p.column_utf16;
      return LspPosition{p.line > 0 ? p.line - 1 : 0, column > 0 ? column - 1 : 0};
    };
    return {{"start", position_json(convert(range.begin))}, {"end", position_json(convert(range.end))}};
  }

  json diagnostic_of(const Finding& finding, const Document& document) const {
    json d = {{"range", range_json(finding.location.range, &document)},
              {"severity", finding.level == Level::Error ? 1 : finding.level == Level::Warning ? 2 : 3},
              {"code", finding.rule_id},
              {"source", "cudnnlint"},
              {"message", finding.detail.empty() ? finding.message : finding.message + "\n" + finding.detail}};
    if (const kb::Entry* entry = kb::find(finding.kb_id); entry != nullptr && !entry->official_doc_url.empty())
      d["codeDescription"] = {{"href", entry->official_doc_url}};
    json related = json::array();
    for (const RelatedLocation& r : finding.related) {
      const bool here = r.where.path == document.path();
      related.push_back({{"location", {{"uri", here ? document.uri() : file_uri(absolute(r.where.path))},
                                      {"range", range_json(r.where.range, here ? &document : nullptr)}}},
                         {"message", r.message}});
    }
    if (!related.empty()) d["relatedInformation"] = std::move(related);
    d["data"] = {{"kb", finding.kb_id}};
    return d;
  }

  static std::string absolute(const std::string& path) {
    std::error_code ec;
    return std::filesystem::absolute(path, ec).lexically_normal().string();
  }

  void publish(const Document& document) {
    // C, C++ and CUDA run in the background whether the client pulls or is pushed to: a pull is
    // answered with the last result at once, never by waiting for clang.
    if (cpp::is_cpp_source(document.path())) return publish_in_background(document);
    if (pull_) return;  // the client asks (textDocument/diagnostic)
    send_notification("textDocument/publishDiagnostics",
                      {{"uri", document.uri()}, {"version", document.version()}, {"diagnostics", diagnostics_of(document)}});
  }

  // C, C++ and CUDA: clang's parse takes seconds, so it runs on the background thread, debounced;
  // a newer save or a close supersedes it, and its result is then dropped.
  void publish_in_background(const Document& document) {
    AnalysisOptions options = options_for(document);
    options.limits.overlay.reset();  // clang reads the saved file
    auto snapshot = std::make_shared<const Document>(document);
    const std::lock_guard lock(state_mutex_);
    background_.schedule(document.uri(), [this, options, snapshot](const std::atomic<bool>& cancelled) mutable {
      options.cpp.cancelled = &cancelled;
      AnalysisResult result;
      try {
        result = analyze(options);
      } catch (const std::exception& e) {
        log_message("cudnnlint: " + snapshot->path() + ": " + e.what());
        return;
      }
      const std::lock_guard lock(state_mutex_);
      if (cancelled.load()) return;
      json diagnostics = record(*snapshot, options, result);
      if (pull_) {
        // Kept for the next pull; the client is asked to pull again, or, when it cannot be asked,
        // the result is pushed.
        analysed_in_background_[snapshot->uri()] = diagnostics;
        if (refresh_support_) return send_request("workspace/diagnostic/refresh", nullptr);
      }
      send_notification("textDocument/publishDiagnostics",
                        {{"uri", snapshot->uri()}, {"version", snapshot->version()}, {"diagnostics", std::move(diagnostics)}});
    });
  }

  // Open documents whose last analysis read `path` (another document, a module they import, a
  // config file) are analysed again: pushed, or the client is asked to pull again.
  void publish_dependents_of(const std::string& path) {
    std::vector<const Document*> dependents;
    std::unique_lock lock(state_mutex_);
    for (const auto& [uri, document] : documents_)
      if (document->path() != path)
        if (const auto it = inputs_.find(uri); it != inputs_.end() && it->second.contains(path))
          dependents.push_back(document.get());
    lock.unlock();
    republish(dependents);
  }

  void republish(const std::vector<const Document*>& documents) {
    if (documents.empty()) return;
    if (pull_) {
      // A C/C++/CUDA document is analysed again in the background, which asks for the pull itself.
      for (const Document* document : documents)
        if (cpp::is_cpp_source(document->path())) publish_in_background(*document);
      if (refresh_support_) send_request("workspace/diagnostic/refresh", nullptr);
      return;
    }
    for (const Document* document : documents) publish(*document);
  }

  // The files whose change may change a finding: Python modules, config files code reads, the
  // project's configuration, its pins, and the compile database.
  void register_watchers() {
    if (!watch_dynamically_) return;
    json watchers = json::array();
    for (const char* glob : {"**/*.{py,pyi}", "**/*.{yaml,yml,json}", "**/{pyproject.toml,.cudnnlint.toml,setup.cfg,setup.py}",
                             "**/{requirements,constraints}*.txt", "**/requirements/*.txt", "**/{poetry.lock,uv.lock,Pipfile.lock}"})
      watchers.push_back({{"globPattern", glob}});
    send_request("client/registerCapability",
                 {{"registrations", json::array({{{"id", "cudnnlint-watched-files"},
                                                 {"method", "workspace/didChangeWatchedFiles"},
                                                 {"registerOptions", {{"watchers", watchers}}}}})}});
  }

  void watched_files_changed(const json& params) {
    bool everything = false, some_config = false;
    std::set<std::string> modules;
    for (const json& change : params.at("changes")) {
      const auto path = path_of_uri(change.at("uri").get<std::string>());
      if (!path) continue;
      const int type = change.value("type", 2);  // 1 created, 2 changed, 3 deleted
      if (is_project_file(*path)) {
        everything = true;
        project_.configuration_changed();
      } else if (type != 2) {
        everything = true;
        project_.files_came_or_went();
      } else if (is_python(*path)) {
        modules.insert(*path);
        project_.module_changed();
      } else {
        some_config = true;  // a config file code may read
      }
    }
    std::vector<const Document*> again;
    std::unique_lock lock(state_mutex_);
    for (const auto& [uri, document] : documents_) {
      const bool cpp = cpp::is_cpp_source(document->path());
      bool reads = everything || (some_config && !cpp);
      if (!reads)
        if (const auto it = inputs_.find(uri); it != inputs_.end())
          for (const std::string& path : modules)
            if (path != document->path() && it->second.contains(path)) reads = true;
      if (reads) again.push_back(document.get());
    }
    lock.unlock();
    republish(again);
  }

  // The findings of the last analysis of a document that cover the byte range [begin, end].
  std::vector<Finding> findings_at(const Document& document, std::size_t begin, std::size_t end) {
    std::vector<Finding> out;
    const std::lock_guard lock(state_mutex_);
    const auto it = findings_.find(document.uri());
    if (it == findings_.end()) return out;
    for (const Finding& f : it->second)
      if (f.location.range.begin.byte_offset <= end && begin <= f.location.range.end.byte_offset) out.push_back(f);
    return out;
  }

  json hover(const json& params) {
    const Document& document = open_document(params);
    const LspPosition position{params.at("position").at("line").get<std::uint32_t>(),
                               params.at("position").at("character").get<std::uint32_t>()};
    const std::size_t offset = document.offset_of(position, encoding_);
    std::string markdown;
    for (const Finding& found : findings_at(document, offset, offset)) {
      const Finding* finding = &found;
      if (!markdown.empty()) markdown += "\n\n---\n\n";
      markdown += "**" + finding->rule_id + "** (" + level_name(finding->level) + "): " + finding->message;
      if (!finding->detail.empty()) markdown += "\n\n" + finding->detail;
      if (const kb::Entry* entry = kb::find(finding->kb_id)) {
        // The entry as `cudnnlint explain` prints it, to its first sections.
        std::string text = kb::render_markdown(*entry, lang_);
        std::size_t cut = 0;
        for (int sections = 0; sections < 4 && cut != std::string::npos; ++sections) cut = text.find("\n## ", cut + 1);
        if (cut != std::string::npos) text = text.substr(0, cut) + "\n\n*(cudnnlint explain " + entry->id + ")*";
        markdown += "\n\n" + text;
      }
    }
    if (markdown.empty()) return nullptr;
    return {{"contents", {{"kind", "markdown"}, {"value", markdown}}}};
  }

  json code_actions(const json& params) {
    const Document& document = open_document(params);
    const LspRange range = range_of(params.at("range"));
    const std::size_t begin = document.offset_of(range.start, encoding_), end = document.offset_of(range.end, encoding_);
    json actions = json::array();
    for (const Finding& found : findings_at(document, begin, end)) {
      const Finding* finding = &found;
      const json diagnostic = diagnostic_of(*finding, document);
      if (finding->fix && !finding->fix->edits.empty()) {
        json edits = json::array();
        for (const TextEdit& edit : finding->fix->edits)
          edits.push_back({{"range", range_json(edit.range, &document)}, {"newText", edit.replacement}});
        actions.push_back({{"title", "cudnnlint: " + finding->fix->description +
                                         (finding->fix->safe ? "" : " (unsafe: changes numerics or behaviour)")},
                           {"kind", "quickfix"},
                           {"diagnostics", json::array({diagnostic})},
                           {"edit", {{"changes", {{document.uri(), edits}}}}}});
      }
      // Suppress on this line: a comment at its end.
      const std::uint32_t line = finding->location.range.begin.line > 0 ? finding->location.range.begin.line - 1 : 0;
      const std::size_t line_end = document.offset_of(LspPosition{line, UINT32_MAX}, PositionEncoding::Utf8);
      const LspPosition at = document.position_of(line_end, encoding_);
      const std::string comment = cpp::is_cpp_source(document.path())
                                      ? "  // NOLINT(cudnnlint-" + finding->rule_id + ")"
                                      : "  # cudnnlint: ignore[" + finding->rule_id + "]";
      actions.push_back({{"title", "cudnnlint: ignore " + finding->rule_id + " on this line"},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diagnostic})},
                         {"edit", {{"changes", {{document.uri(), json::array({{{"range", {{"start", position_json(at)}, {"end", position_json(at)}}},
                                                                               {"newText", comment}}})}}}}}});
    }
    return actions;
  }

  json pull_diagnostics(const json& params) {
    Document& document = open_document(params);
    if (cpp::is_cpp_source(document.path())) {
      // The last background analysis's (none yet: empty); a newer one asks for a pull when done.
      const std::lock_guard lock(state_mutex_);
      const auto kept = analysed_in_background_.find(document.uri());
      return {{"kind", "full"}, {"items", kept == analysed_in_background_.end() ? json::array() : kept->second}};
    }
    return {{"kind", "full"}, {"items", diagnostics_of(document)}};
  }

  void log_message(const std::string& text, int type = 3) {  // 1 error, 3 information
    send_notification("window/logMessage", {{"type", type}, {"message", text}});
  }

  void send_notification(const std::string& method, json params) {
    const std::lock_guard lock(out_mutex_);
    write_message(out_, json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}.dump(
                            -1, ' ', false, json::error_handler_t::replace));
  }

  void send_request(const std::string& method, json params) {
    json message = {{"jsonrpc", "2.0"}, {"id", "cudnnlint-" + std::to_string(++requests_sent_)}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    const std::lock_guard lock(out_mutex_);
    write_message(out_, message.dump(-1, ' ', false, json::error_handler_t::replace));
  }

  void respond(const json& id, json result) {
    const std::lock_guard lock(out_mutex_);
    write_message(out_, json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}.dump(
                            -1, ' ', false, json::error_handler_t::replace));
  }

  void respond_error(const json& id, int code, const std::string& message) {
    const std::lock_guard lock(out_mutex_);
    write_message(out_, json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}.dump(
                            -1, ' ', false, json::error_handler_t::replace));
  }

  std::ostream& out_;
  std::ostream& log_;
  ServerOptions options_;
  bool initialized_ = false, shutdown_ = false, pull_ = false;
  bool watch_dynamically_ = false, refresh_support_ = false;
  std::uint64_t requests_sent_ = 0;
  Project project_{log_};
  std::shared_ptr<SessionCache> session_ = std::make_shared<SessionCache>();
  std::map<std::string, std::set<std::string>> inputs_;  // by URI: the files its last analysis read
  int exit_code_ = 1;
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  std::map<std::string, std::unique_ptr<Document>> documents_;
  std::map<std::string, python::IncrementalTree> trees_;  // by URI: open Python documents' trees
  std::map<std::string, std::vector<Finding>> findings_;  // by URI: the last analysis of each open document
  std::map<std::string, json> analysed_in_background_;   // by URI, pull mode: a C/C++/CUDA document's last diagnostics
  kb::Lang lang_ = kb::Lang::En;
  // The background thread publishes too: findings_ and inputs_ are shared (state_mutex_), and
  // messages are written whole (out_mutex_).
  std::mutex state_mutex_, out_mutex_;
  BackgroundQueue background_{std::chrono::milliseconds(300)};  // last: stopped before the rest goes
};

}  // namespace

int serve(std::istream& in, std::ostream& out, std::ostream& log, const ServerOptions& options) {
  // std::cin and std::cerr are tied to std::cout: each read of a message and each log line would
  // flush `out` from this thread while the background thread writes a message to it under
  // out_mutex_, and the two flushes of one buffer sent a message twice (seen as a stale
  // publishDiagnostics under load). Every message is flushed as it is written.
  in.tie(nullptr);
  log.tie(nullptr);
  Server server(out, log, options);
  (void)kRequestCancelled;  // requests are answered in order; a cancelled one has been answered already
  while (auto message = read_message(in)) {
    if (!message->error.empty()) {
      server.refuse_frame(message->error);
      continue;
    }
    if (!server.handle(message->body)) break;
  }
  return server.exit_code();
}

}  // namespace cudnnlint::server
