// Running a program we wrote under an interpreter the user has, with a time limit and bounded
// output: the framework tier's one way to execute anything. The program lives in a fresh private
// directory (mkdtemp) that is also the working directory, so nothing of the analysed tree (a
// `torch.py` beside it) can be imported in its place; the directory is removed afterwards.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudnnlint::gpu {

struct ProgramRun {
  bool started = false;     // false: the interpreter could not be run (`error` says why)
  bool timed_out = false;   // killed at the time limit
  int exit_code = -1;       // when it exited
  int signal = 0;           // when a signal ended it
  std::string out;          // stdout, at most `max_output` bytes
  std::string err_tail;     // the last few KB of stderr
  std::string error;        // why it could not start
};

struct ProgramLimits {
  std::chrono::milliseconds time{60'000};
  std::size_t max_output = 1 << 20;
};

// Runs `interpreter program.py` where program.py holds `program`, in a new process group (killed
// whole at the time limit), with `environment` (NAME, VALUE) pairs set over the caller's.
ProgramRun run_python_program(const std::string& interpreter, std::string_view program,
                              const std::vector<std::pair<std::string, std::string>>& environment,
                              const ProgramLimits& limits);

}  // namespace cudnnlint::gpu
