// What a project pins: the framework and cuDNN versions named in its dependency files, with the
// file and line of each pin. Read without running anything (setup.py is scanned for string
// literals, never executed):
//   requirements*.txt, requirements/*.txt, constraints*.txt   PEP 508 lines
//   pyproject.toml        [project] dependencies and optional-dependencies, Poetry's dependency tables
//   setup.cfg             [options] install_requires, [options.extras_require]
//   setup.py              string literals such as "torch>=2.1"
//   environment.yml/.yaml conda specs (pytorch=2.1, cudnn=8.9) and their pip: list
//   poetry.lock, uv.lock, Pipfile.lock                        exact versions
#pragma once

#include "core/facts.h"
#include "core/target.h"

#include <filesystem>
#include <string>
#include <vector>

namespace cudnnlint::config {

struct Pin {
  std::string framework;   // the target's name: "torch", "tensorflow", "keras", "cudnn", "mxnet", "paddle"
  std::string package;     // as the file names it: "tensorflow-cpu", "nvidia-cudnn-cu12", "pytorch"
  VersionRange range;      // range.text: the constraint as written
  std::string file;        // the file, as the user would name it (relative to the working directory when inside it)
  unsigned line = 0;
  int rank = 0;            // which pin wins when several name a framework: lower first (lock files, then
                           // constraints, requirements, pyproject/setup, environment.yml)
  std::string where() const { return file + ":" + std::to_string(line); }
};

struct ProjectPins {
  std::vector<Pin> pins;                    // every pin of a known framework, in rank then file order
  std::vector<FileDiagnostic> diagnostics;  // a pin file that could not be read or parsed
  // A Keras 3 source tree (keras/src/version.py with __version__ = "3.x"): where it says so.
  std::string keras3_source;
};

// The pins of the projects holding `paths`: from each path (a directory, or a file's directory)
// up to its repository root (the nearest directory with .git) or the file system's root; a
// nearer directory's pin wins. A file that cannot be parsed gives a diagnostic naming it.
ProjectPins read_project_pins(const std::vector<std::string>& paths);

// The pins of one dependency file's text, its format from `name` ("requirements-dev.txt",
// "pyproject.toml", "environment.yml", "poetry.lock", "keras/src/version.py", ...). Never throws:
// a file that does not parse gives a diagnostic.
ProjectPins parse_pin_file(const std::string& name, const std::string& text);

// Parses one PEP 508 requirement ("torch[cuda]>=2.1,<2.5; python_version > '3.8'") into a package
// name (PEP 503-normalized: lowercase, runs of -_. as -) and a range; false when it names no
// version or is not a requirement.
bool parse_requirement(std::string_view text, std::string& package, VersionRange& range);

// The framework a package name stands for ("tensorflow-gpu" -> "tensorflow", "pytorch" ->
// "torch", "nvidia-cudnn-cu12" -> "cudnn"); "" for packages no rule reads.
std::string framework_of_package(std::string_view package);

}  // namespace cudnnlint::config
