// libFuzzer harness: cudnnlint triage's log scanner, KB matcher and frame mapper on arbitrary
// bytes (a log is whatever a job printed: binary junk, cut lines, half tracebacks).
#include "kb/kb.h"
#include "triage/frame_map.h"
#include "triage/log_scan.h"
#include "triage/recognise.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnlint::triage;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  const LogScan scan = scan_log(in);
  const Recognition recognition = recognise(scan, cudnnlint::kb::entries());
  const TreeIndex tree({"ocr/models/decoder/fpn_decoder.py", "train.py", "a/b/train.py"});
  for (const Failure& failure : scan.failures)
    for (const Frame& frame : failure.frames) (void)tree.map(frame);
  (void)recognition;
  return 0;
}
