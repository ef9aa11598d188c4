#include "gpu_check/framework_tier.h"

#include "gpu_check/subprocess.h"

#include "core/printable.h"

#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <set>
#include <sstream>
#include <unistd.h>

namespace cudnnlint::gpu {

namespace {

// What the survey prints: the interpreter's version and the frameworks' distribution versions,
// read from their metadata (find_spec and importlib.metadata import nothing of the framework).
constexpr const char* kSurvey = R"(import json, sys, importlib.util
from importlib import metadata
found = {}
for module, dists in (("torch", ("torch",)), ("tensorflow", ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-macos"))):
    try:
        if importlib.util.find_spec(module) is None:
            continue
    except BaseException:
        continue
    for dist in dists:
        try:
            found[module] = metadata.version(dist)
            break
        except BaseException:
            pass
    else:
        found[module] = "?"
print(json.dumps({"python": sys.version.split()[0], "frameworks": found}))
)";

// The environment of every program: quiet TensorFlow, no bytecode written, no current-directory
// imports; and the CPU only (the KB's claims were measured there; a GPU is not touched) unless the
// cases are about the GPU path.
std::vector<std::pair<std::string, std::string>> program_environment(bool gpu = false) {
  std::vector<std::pair<std::string, std::string>> env = {{"TF_CPP_MIN_LOG_LEVEL", "3"},
                                                          {"PYTHONDONTWRITEBYTECODE", "1"},
                                                          {"PYTHONSAFEPATH", "1"},
                                                          {"KERAS_BACKEND", "tensorflow"},
                                                          {"OMP_NUM_THREADS", "1"}};
  if (!gpu) env.emplace_back("CUDA_VISIBLE_DEVICES", "");
  return env;
}

bool executable(const std::string& path) { return !path.empty() && path[0] == '/' && ::access(path.c_str(), X_OK) == 0; }

void survey(PythonInterpreter& interpreter) {
  ProgramLimits limits;
  limits.time = std::chrono::seconds(30);
  limits.max_output = 4096;
  const ProgramRun run = run_python_program(interpreter.path, kSurvey, program_environment(), limits);
  if (!run.started) return void(interpreter.problem = run.error);
  if (run.timed_out) return void(interpreter.problem = "did not answer within 30 s");
  const auto answer = nlohmann::json::parse(run.out, nullptr, false);
  if (answer.is_discarded() || !answer.is_object() || !answer.contains("frameworks"))
    return void(interpreter.problem = "exited " + std::to_string(run.exit_code) + " without answering");
  if (answer.contains("python") && answer["python"].is_string()) interpreter.python_version = answer["python"];
  for (const auto& [module, version] : answer["frameworks"].items()) {
    const auto framework = parse_framework_name(module);
    if (framework && version.is_string()) interpreter.frameworks[*framework] = version.get<std::string>();
  }
}

std::vector<std::pair<std::string, std::string>> candidate_paths(const std::string& forced) {
  if (!forced.empty()) return {{forced, "--python"}};
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [var, origin] : {std::pair{"VIRTUAL_ENV", "$VIRTUAL_ENV"}, std::pair{"CONDA_PREFIX", "$CONDA_PREFIX"}})
    if (const char* prefix = std::getenv(var); prefix != nullptr && prefix[0] == '/')
      for (const char* name : {"/bin/python3", "/bin/python"})
        if (executable(std::string(prefix) + name)) {
          out.emplace_back(std::string(prefix) + name, origin);
          break;
        }
  // PATH's python3: absolute entries only (a relative one would mean the analysed tree's).
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && dir[0] == '/' && executable(dir + "/python3")) out.emplace_back(dir + "/python3", "PATH");
  }
  std::set<std::string> seen;
  std::vector<std::pair<std::string, std::string>> unique;
  for (auto& c : out)
    if (seen.insert(std::filesystem::path(c.first).lexically_normal().string()).second) unique.push_back(std::move(c));
  return unique;
}

}  // namespace

std::vector<PythonInterpreter> find_interpreters(const std::string& forced) {
  std::vector<PythonInterpreter> out;
  for (auto& [path, origin] : candidate_paths(forced)) {
    PythonInterpreter interpreter{path, origin, "", {}, ""};
    survey(interpreter);
    out.push_back(std::move(interpreter));
  }
  return out;
}

namespace {

// One program's answers: the framework's version line, then per case what it did.
struct CaseAnswer {
  bool started = false, done = false;
  std::string raised, message;
  nlohmann::json result;
};

struct ProgramAnswers {
  std::string import_error;
  std::string version, keras_version;
  std::vector<CaseAnswer> cases;
};

// What the framework printed, as one line for a verdict: terminal colour sequences (Keras bolds its
// messages) dropped, line breaks as spaces, then the tool's own escaping of control characters and
// invalid UTF-8 (core/printable.h), cut at `max_chars` characters.
std::string framework_text(std::string_view text, std::size_t max_chars) {
  std::string plain;
  for (std::size_t i = 0; i < text.size() && plain.size() < 4 * max_chars; ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
      continue;
    }
    plain += (text[i] == '\n' || text[i] == '\r' || text[i] == '\t') ? ' ' : text[i];
  }
  return clipped(printable(plain), max_chars);
}

ProgramAnswers read_answers(const std::string& out, std::size_t cases) {
  ProgramAnswers answers;
  answers.cases.resize(cases);
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    auto text = [&](const char* key) { return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : ""; };
    if (j.contains("import_error")) answers.import_error = framework_text(text("import_error"), 300);
    if (j.contains("version")) answers.version = framework_text(text("version"), 64);
    if (j.contains("keras")) answers.keras_version = framework_text(text("keras"), 64);
    if (!j.contains("case") || !j["case"].is_number_unsigned()) continue;
    const auto k = j["case"].get<std::size_t>();
    if (k >= cases) continue;
    CaseAnswer& a = answers.cases[k];
    a.started = true;
    if (j.contains("raised")) {
      a.done = true;
      a.raised = framework_text(text("raised"), 64);
      a.message = framework_text(text("message"), 400);
    } else if (j.contains("result")) {
      a.done = true;
      a.result = j["result"];
    }
  }
  return answers;
}

// The program's case in words, for the verdict's detail.
std::string describe(const FrameworkReplay& r) {
  std::ostringstream d;
  auto list = [](const std::vector<std::int64_t>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  const std::string input_type(dtype_name(r.input_dtype == DType::Unknown ? DType::Float32 : r.input_dtype));
  const std::string weight_type(dtype_name(r.weight_dtype == DType::Unknown ? DType::Float32 : r.weight_dtype));
  switch (r.probe) {
    case FrameworkProbe::ConvInput:
      d << "a " << r.kernel.size() << "-D convolution (" << weight_type << " weights, kernel " << list(r.kernel)
        << (r.stride.empty() ? "" : ", stride " + list(r.stride)) << (r.padding.empty() ? "" : ", padding " + list(r.padding))
        << (r.dilation.empty() ? "" : ", dilation " + list(r.dilation)) << ") on a " << input_type << " input of shape "
        << list(r.input);
      break;
    case FrameworkProbe::BatchNormInput:
      d << "a batch norm in training on a " << input_type << " input of shape " << list(r.input);
      break;
    case FrameworkProbe::BatchNormEps: d << "a batch norm in training with eps=" << *r.epsilon << " on a constant channel"; break;
    case FrameworkProbe::PoolInput: d << "a max pooling layer (window " << list(r.kernel) << ") on an input of shape " << list(r.input); break;
    case FrameworkProbe::KerasFit: d << "Keras Model.fit of a one-layer model on 4 samples with batch_size=" << *r.batch_size; break;
    case FrameworkProbe::KerasPredictEmpty: d << "Keras Model.predict of a one-layer model on zero samples"; break;
    case FrameworkProbe::ZeroBatchConv: d << "a Keras Conv2D on the GPU on an input of shape " << list(r.input) << " (batch 0)"; break;
    case FrameworkProbe::LoaderBatch:
      d << "a loader over " << *r.dataset_size << " samples with batch size " << *r.batch_size
        << (r.drop_last ? ", dropping the last partial batch" : "");
      break;
    case FrameworkProbe::LastBatchIntoBatchNorm:
      d << "the last batch of " << *r.dataset_size << " samples in batches of " << *r.batch_size
        << " through a batch norm in training";
      break;
    case FrameworkProbe::HalfEpsilon: d << "1 / (0 + eps) with eps=" << *r.epsilon << " held in float16"; break;
    case FrameworkProbe::OptimizerHalfEpsilon:
      d << "ten " << r.optimizer << " steps with eps=" << *r.epsilon << " on float16 parameters whose gradient is 0";
      break;
    case FrameworkProbe::None: break;
  }
  return d.str();
}

// What the case's result shows, in words.
std::string result_words(const FrameworkReplay& r, const nlohmann::json& result) {
  if (!result.is_object()) return "it ran";
  std::string out;
  if (result.contains("batches") && result["batches"].is_number_integer())
    out = "the loader yields " + std::to_string(result["batches"].get<std::int64_t>()) + " batches";
  if (result.contains("eps_in_float16") && result["eps_in_float16"].is_string())
    out = "eps is " + framework_text(result["eps_in_float16"].get<std::string>(), 32) + " in float16, 1 / (0 + eps) = " +
          (result.contains("quotient") && result["quotient"].is_string() ? framework_text(result["quotient"].get<std::string>(), 32) : "?");
  if (result.contains("finite") && result["finite"].is_boolean() && r.probe != FrameworkProbe::LoaderBatch) {
    if (!out.empty()) out += "; ";
    out += result["finite"].get<bool>() ? "output finite" : "output holds NaN/Inf";
  }
  return out.empty() ? "it ran" : out;
}

bool result_flag(const nlohmann::json& result, const char* key, bool fallback) {
  return result.is_object() && result.contains(key) && result[key].is_boolean() ? result[key].get<bool>() : fallback;
}

GpuVerdict skipped_verdict(std::string reason) {
  GpuVerdict v;
  v.outcome = GpuVerdict::Outcome::Skipped;
  v.tier = "framework";
  v.detail = reason;
  v.reason = std::move(reason);
  return v;
}

// The verdict on one answered case.
GpuVerdict judge_case(const Finding& finding, const CaseAnswer& answer, const std::string& who,
                      const FrameworkTierOptions& options) {
  const FrameworkReplay& r = finding.replay.framework;
  GpuVerdict v;
  v.tier = "framework";
  if (result_flag(answer.result, "no_gpu", false))
    return skipped_verdict("the claim is about the GPU path (cuDNN), and " + who.substr(0, who.rfind(" (")) +
                           " sees no GPU here");
  const bool raised = !answer.raised.empty();
  const bool nonfinite = !raised && !result_flag(answer.result, "finite", true);
  const bool no_batches = !raised && answer.result.is_object() && answer.result.contains("batches") &&
                          answer.result["batches"] == 0;
  bool confirmed = false;
  switch (r.expect) {
    case FrameworkExpect::Raises: confirmed = raised; break;
    case FrameworkExpect::Fails: confirmed = raised || nonfinite; break;
    case FrameworkExpect::NonFinite: confirmed = nonfinite; break;
    case FrameworkExpect::NoBatches: confirmed = no_batches; break;
    case FrameworkExpect::None: break;
  }
  v.outcome = confirmed ? GpuVerdict::Outcome::Confirmed : GpuVerdict::Outcome::NotReproduced;
  v.status = who + (raised ? " raises " + answer.raised + ": " + answer.message
                           : (confirmed ? ": " : " accepts it: ") + result_words(r, answer.result));
  v.detail = "ran " + describe(r) + "; " + v.status;
  if (raised && options.kb_regex) {
    const std::string pattern = options.kb_regex(finding.kb_id);
    RE2::Options re_options;
    re_options.set_log_errors(false);
    const RE2 regex(pattern, re_options);
    if (!pattern.empty() && regex.ok())
      v.detail += RE2::PartialMatch(answer.raised + ": " + answer.message, regex)
                      ? " (the message matches KB entry " + finding.kb_id + ")"
                      : " (KB entry " + finding.kb_id + " does not quote this message)";
  }
  if (!confirmed) {
    v.detail += "; the rule predicts " + std::string(framework_expect_name(r.expect)) +
                (finding.target_note.empty() ? "" : " (" + finding.target_note + ")");
    const std::string measured = options.kb_versions ? options.kb_versions(finding.kb_id, r.framework) : "";
    if (!measured.empty()) v.detail += "; KB entry " + finding.kb_id + " records: " + measured;
  }
  for (const auto& assumption : r.assumed) v.detail += "; assumed " + assumption;
  return v;
}


// Runs `indices` (findings with cases of one framework) under `interpreter`, restarting after a
// case that kills the interpreter (at most three restarts), and sets their verdicts.
void run_cases(std::span<Finding> findings, std::vector<std::size_t> indices, FrameworkName framework, bool gpu,
               const PythonInterpreter& interpreter, const FrameworkTierOptions& options, std::string& version) {
  for (int attempt = 0; attempt < 4 && !indices.empty(); ++attempt) {
    std::vector<const FrameworkReplay*> cases;
    for (const auto i : indices) cases.push_back(&findings[i].replay.framework);
    ProgramLimits limits;
    limits.time = std::chrono::milliseconds(static_cast<long long>(options.seconds_per_program * 1000));
    const ProgramRun run =
        run_python_program(interpreter.path, framework_program(framework, cases), program_environment(gpu), limits);
    const ProgramAnswers answers = read_answers(run.out, cases.size());
    std::string ended = run.timed_out ? "the time limit (" + std::to_string(static_cast<int>(options.seconds_per_program)) + " s)"
                        : run.signal != 0 ? "signal " + std::to_string(run.signal)
                                          : "exit " + std::to_string(run.exit_code);
    if (!run.started || !answers.import_error.empty() || answers.version.empty()) {
      const std::string why = !run.started ? run.error
                              : !answers.import_error.empty() ? std::string(framework_name(framework)) + " does not import: " + answers.import_error
                                                              : "the program ended (" + ended + ") before the framework answered: " + framework_text(run.err_tail, 300);
      for (const auto i : indices) findings[i].gpu_check = skipped_verdict(why);
      return;
    }
    version = answers.version + (answers.keras_version.empty() ? "" : ", Keras " + answers.keras_version);
    const std::string who = std::string(framework_name(framework)) + " " + version + (gpu ? " (GPU)" : " (CPU)");
    std::vector<std::size_t> again;
    for (std::size_t k = 0; k < indices.size(); ++k) {
      Finding& finding = findings[indices[k]];
      const CaseAnswer& answer = answers.cases[k];
      if (answer.done) {
        finding.gpu_check = judge_case(finding, answer, who, options);
        finding.gpu_check->framework = std::string(framework_name(framework)) + " " + version;
        finding.gpu_check->interpreter = interpreter.path;
      } else if (answer.started) {
        finding.gpu_check = skipped_verdict("the interpreter died during this case (" + ended + ")");
      } else {
        again.push_back(indices[k]);
      }
    }
    indices = std::move(again);
  }
  for (const auto i : indices) findings[i].gpu_check = skipped_verdict("the interpreter kept dying before this case");
}

}  // namespace

namespace {

// A cuDNN tier's skip of a configuration it could replay (no libcudnn, no GPU) says more than the
// framework tier's own skip: it stays, with the framework tier's reason added.
void keep_cudnn_skips(std::span<Finding> findings, std::map<std::size_t, GpuVerdict>& before) {
  for (auto& [i, previous] : before) {
    Finding& f = findings[i];
    const bool cudnn_replayable = f.replay.op != ReplayOp::None && f.replay.unknown.empty();
    if (!cudnn_replayable || !f.gpu_check || f.gpu_check->outcome != GpuVerdict::Outcome::Skipped) continue;
    previous.detail += "; framework tier: " + f.gpu_check->reason;
    f.gpu_check = std::move(previous);
  }
}

}  // namespace

FrameworkTierRun run_framework_tier(std::span<Finding> findings, const FrameworkTierOptions& options) {
  FrameworkTierRun tier;
  std::map<std::size_t, GpuVerdict> before;  // the cuDNN tiers' skips the framework tier may settle
  for (std::size_t i = 0; i < findings.size(); ++i)
    if (findings[i].replay.framework.replayable() && findings[i].gpu_check) before.emplace(i, *findings[i].gpu_check);
  // By framework, and whether the cases are about the GPU path (a program of their own).
  std::map<std::pair<FrameworkName, bool>, std::vector<std::size_t>> by_framework;
  for (std::size_t i = 0; i < findings.size(); ++i) {
    Finding& f = findings[i];
    if (!f.replay.framework.replayable()) continue;
    if (f.gpu_check && f.gpu_check->outcome != GpuVerdict::Outcome::Skipped) continue;
    if (const auto problem = framework_case_problem(f.replay.framework)) {
      f.gpu_check = skipped_verdict("not replayable in the framework: " + *problem);
      continue;
    }
    by_framework[{f.replay.framework.framework, f.replay.framework.gpu}].push_back(i);
  }
  if (by_framework.empty()) {
    keep_cudnn_skips(findings, before);
    return tier;
  }
  std::vector<PythonInterpreter> interpreters;
  for (const auto& [path, origin] : candidate_paths(options.python)) {
    PythonInterpreter interpreter{path, origin, "", {}, ""};
    // Asked only until every framework needed has an interpreter.
    bool needed = false;
    for (const auto& [group, _] : by_framework) {
      const FrameworkName framework = group.first;
      bool have = false;
      for (const auto& known : interpreters) have = have || known.frameworks.count(framework) > 0;
      needed = needed || !have;
    }
    if (!needed) break;
    survey(interpreter);
    interpreters.push_back(std::move(interpreter));
  }
  // One program per framework, run side by side (each touches only its own findings): an
  // interpreter start (torch's import, about 2 s; TensorFlow's, about 4 s) is most of the time.
  std::vector<std::string> parts(by_framework.size());
  std::vector<std::future<void>> running;
  std::size_t part = 0;
  // Plain names, not structured bindings: clang 14 (the sanitizer build) cannot capture those.
  for (auto& entry : by_framework) {
    const FrameworkName framework = entry.first.first;
    const bool gpu = entry.first.second;
    std::vector<std::size_t>& indices = entry.second;
    std::string& summary_part = parts[part++];
    const std::string name = std::string(framework_name(framework)) + (gpu ? " (GPU cases)" : "");
    const PythonInterpreter* chosen = nullptr;
    for (const auto& interpreter : interpreters)
      if (!chosen && interpreter.frameworks.count(framework)) chosen = &interpreter;
    if (chosen == nullptr) {
      const std::string plain(framework_name(framework));
      const std::string why = options.python.empty()
                                  ? plain + " is not importable by any interpreter found (the active environment, then PATH's python3; --python chooses one)"
                                  : plain + " is not importable by " + options.python;
      for (const auto i : indices) findings[i].gpu_check = skipped_verdict(why);
      summary_part = name + " not run: " + why;
      continue;
    }
    running.push_back(std::async(std::launch::async, [&, framework, gpu, name, chosen] {
      std::string version;
      run_cases(findings, indices, framework, gpu, *chosen, options, version);
      summary_part = version.empty() ? name + " not run: see the verdicts" : "ran " + name + " " + version + " with " + chosen->path;
    }));
  }
  for (auto& run : running) run.get();
  for (std::size_t k = 0; k < parts.size(); ++k) tier.summary += (k ? "; " : "") + parts[k];
  keep_cudnn_skips(findings, before);
  return tier;
}

std::string describe_interpreters(const std::vector<PythonInterpreter>& interpreters) {
  std::ostringstream out;
  if (interpreters.empty()) out << "Python:         none found (no $VIRTUAL_ENV, $CONDA_PREFIX or python3 on PATH)\n";
  for (const auto& interpreter : interpreters) {
    out << "Python:         " << interpreter.path << " (" << interpreter.origin << ")";
    if (!interpreter.problem.empty()) {
      out << ": " << interpreter.problem << "\n";
      continue;
    }
    out << ", Python " << interpreter.python_version << ": ";
    if (interpreter.frameworks.empty()) out << "no framework";
    bool first = true;
    for (const auto& [framework, version] : interpreter.frameworks) {
      out << (first ? "" : ", ") << framework_name(framework) << " " << version;
      first = false;
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace cudnnlint::gpu
