#include "engine/target_resolution.h"

#include "config/pins.h"
#include "core/framework_releases.h"

namespace cudnnlint {

Target resolve_target(const Target& given, const std::vector<std::string>& paths,
                      std::vector<FileDiagnostic>& diagnostics) {
  Target target = given;
  config::ProjectPins pins = config::read_project_pins(paths);
  for (auto& d : pins.diagnostics) diagnostics.push_back(std::move(d));
  // The tree is Keras itself (keras/src/version.py says 3.x): its code runs on Keras 3.
  if (!pins.keras3_source.empty() && !target.frameworks.count("keras")) {
    target.frameworks["keras"] = Version{3, 0, 0};
    target.framework_sources["keras"] = pins.keras3_source;
  }
  bool cudnn_pinned = target.cudnn.has_value();
  for (const config::Pin& pin : pins.pins) {
    if (pin.framework == "cudnn") {
      // nvidia-cudnn-cu12==9.1.0.70, conda's cudnn=8.9.2.26: the cuDNN itself. A range is used only
      // when it stays within one release (conda's `=8.9.2` prefix); wider ones leave it to the framework.
      const bool one_release = pin.range.lower && pin.range.upper && pin.range.lower->major == pin.range.upper->major &&
                               pin.range.lower->minor == pin.range.upper->minor &&
                               (pin.range.exact() || pin.range.upper->patch == pin.range.lower->patch + 1);
      if (cudnn_pinned || !one_release) continue;
      target.cudnn = Version{pin.range.lower->major, pin.range.lower->minor, pin.range.lower->patch};
      target.cudnn_source = pin.where();
      cudnn_pinned = true;
      continue;
    }
    // Flags and configuration win; the first pin found (nearest, then by rank) wins over later ones.
    if (target.frameworks.count(pin.framework) || target.framework_ranges.count(pin.framework)) continue;
    if (pin.range.exact()) {
      target.frameworks[pin.framework] = *pin.range.lower;
      target.framework_sources[pin.framework] = pin.where();
    } else {
      target.framework_ranges[pin.framework] = pin.range;
      target.framework_sources[pin.framework] = pin.where();
    }
  }
  return target;
}

}  // namespace cudnnlint
