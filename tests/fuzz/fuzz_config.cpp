// libFuzzer harness: the readers of what projects write, on the same bytes: config files as YAML and
// as JSON (with OmegaConf interpolations followed), and every pin-file format (TOML, YAML, JSON,
// requirements lines, setup.cfg, setup.py literals). Each must answer with values or a diagnostic.
#include "config/config_file.h"
#include "config/pins.h"
#include "core/source_file.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnlint;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"fuzz.yaml", "fuzz.json"}) {
    const SourceFile file(name, text);
    auto parsed = config::ConfigDocument::parse(file);
    if (auto* doc = std::get_if<config::ConfigDocument>(&parsed)) {
      std::vector<ProvenanceStep> steps;
      const std::string mounts[] = {"model"};
      for (const auto& scalar : doc->scalars()) {
        steps.clear();
        (void)doc->resolve(scalar, steps, mounts);
      }
    }
  }
  for (const char* name : {"requirements.txt", "pyproject.toml", "setup.cfg", "setup.py", "environment.yml",
                           "poetry.lock", "uv.lock", "Pipfile.lock", "keras/src/version.py"})
    (void)config::parse_pin_file(name, text);
  return 0;
}
