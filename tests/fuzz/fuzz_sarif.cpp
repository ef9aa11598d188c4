// libFuzzer harness: the SARIF reader behind `cudnnlint gpu-check REPORT.sarif`, and the replay
// configurations it reads back (round-tripped through the writer). A malformed log is a
// std::runtime_error naming the problem; nothing else may escape.
#include "emit/replay_json.h"
#include "emit/sarif_read.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnlint;
  try {
    const SarifFindings report = parse_sarif_findings(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.sarif");
    for (const Finding& finding : report.findings) {
      const ReplayConfig again = replay_from_json(replay_to_json(finding.replay));
      if (again.input != finding.replay.input || again.unknown != finding.replay.unknown) __builtin_trap();
    }
  } catch (const std::runtime_error&) {
    // the documented answer to a bad log
  }
  return 0;
}
