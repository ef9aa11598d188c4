#include "core/framework_releases.h"

#include "core/embedded.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace cudnnlint {

namespace {

std::vector<FrameworkRelease> load() {
  std::string_view text;
  for (const auto& file : embedded_files())
    if (file.path == "rules/framework_cudnn.json") text = file.contents;
  if (text.empty()) throw std::runtime_error("rules/framework_cudnn.json is not embedded");
  const auto doc = nlohmann::json::parse(text);
  std::vector<FrameworkRelease> rows;
  for (const auto& [framework, releases] : doc.at("frameworks").items())
    for (const auto& row : releases) {
      const auto version = parse_version(row.at("version").get<std::string>());
      const auto cudnn = parse_version(row.at("cudnn").get<std::string>());
      if (!version || !cudnn) throw std::runtime_error("rules/framework_cudnn.json: bad row " + row.dump());
      rows.push_back({framework, *version, *cudnn,
                      row.contains("requirement") && row.at("requirement").is_string()
                          ? row.at("requirement").get<std::string>()
                          : std::string()});
    }
  return rows;
}

}  // namespace

std::span<const FrameworkRelease> framework_releases() {
  static const std::vector<FrameworkRelease> rows = load();
  return rows;
}

const FrameworkRelease* framework_release(std::string_view framework, const Version& version) {
  const FrameworkRelease* same_minor = nullptr;
  for (const auto& row : framework_releases()) {
    if (row.framework != framework) continue;
    if (row.version == version) return &row;
    if (row.version.major == version.major && row.version.minor == version.minor) same_minor = &row;
  }
  return same_minor;
}

std::vector<Version> releases_within(std::string_view framework, const VersionRange& range) {
  std::vector<Version> out;
  for (const auto& row : framework_releases()) {
    if (row.framework != framework || !range.contains(row.version)) continue;
    // One per minor: the newest patch (the rows are sorted).
    if (!out.empty() && out.back().major == row.version.major && out.back().minor == row.version.minor) out.pop_back();
    out.push_back(row.version);
  }
  return out;
}

void derive_cudnn(Target& target) {
  if (target.cudnn) return;
  for (const char* framework : {"torch", "tensorflow"}) {
    const auto it = target.frameworks.find(framework);
    if (it == target.frameworks.end() || !it->second) continue;
    const FrameworkRelease* row = framework_release(framework, *it->second);
    if (row == nullptr) continue;
    target.cudnn = row->cudnn;
    const std::string named = std::string(framework) + " " + it->second->str() + target.source_note(framework);
    target.cudnn_source = std::string(framework) == "torch" && !row->requirement.empty()
                              ? named + " requires " + row->requirement
                              : named + " is built and tested with cuDNN " + row->cudnn.str();
    return;
  }
  // Keras 2.6-2.15 is released with the TensorFlow of the same minor (tf.keras pins it).
  const auto keras = target.frameworks.find("keras");
  if (keras == target.frameworks.end() || !keras->second || keras->second->major != 2 || keras->second->minor < 6 ||
      keras->second->minor > 15)
    return;
  if (const FrameworkRelease* row = framework_release("tensorflow", Version{2, keras->second->minor, 0})) {
    target.cudnn = row->cudnn;
    target.cudnn_source = "keras " + keras->second->str() + target.source_note("keras") + " runs on TensorFlow 2." +
                          std::to_string(keras->second->minor) + ", built and tested with cuDNN " + row->cudnn.str();
  }
}

std::vector<Target> target_variants(const Target& target) {
  std::vector<Target> variants{target};
  for (const auto& [framework, range] : target.framework_ranges) {
    std::vector<Version> candidates;
    if (framework == "keras") {
      // Keras changes what batch norm does at 2.12 (the fused clamp left) and 3.0 (no fused path).
      for (const Version v : {Version{2, 11, 0}, Version{2, 12, 0}, Version{3, 0, 0}})
        if (range.contains(v)) candidates.push_back(v);
    } else {
      candidates = releases_within(framework, range);
    }
    // The lower bound itself, unless a release of its minor already stands for it.
    if (range.lower && range.lower_inclusive &&
        (candidates.empty() || (*range.lower < candidates.front() && (range.lower->major != candidates.front().major ||
                                                                      range.lower->minor != candidates.front().minor))))
      candidates.insert(candidates.begin(), *range.lower);
    if (candidates.empty()) continue;  // nothing known within it: the version stays unknown
    const std::string origin = target.framework_sources.count(framework) ? target.framework_sources.at(framework) : "";
    std::vector<Target> expanded;
    for (const Target& base : variants)
      for (const Version& version : candidates) {
        Target variant = base;
        variant.frameworks[framework] = version;
        variant.framework_sources[framework] = range.text + (origin.empty() ? "" : ", " + origin);
        variant.variant += (variant.variant.empty() ? "" : ", ") + framework + " " + version.str();
        expanded.push_back(std::move(variant));
      }
    // A project pinning several wide ranges: keep the product small (each range's ends survive).
    if (expanded.size() > 64) {
      std::vector<Target> kept;
      const std::size_t step = (expanded.size() + 63) / 64;
      std::size_t last = 0;
      for (std::size_t i = 0; i < expanded.size(); i += step) kept.push_back(expanded[last = i]);
      if (last + 1 != expanded.size()) kept.push_back(expanded.back());
      expanded = std::move(kept);
    }
    variants = std::move(expanded);
  }
  for (Target& variant : variants) derive_cudnn(variant);
  return variants;
}

}  // namespace cudnnlint
