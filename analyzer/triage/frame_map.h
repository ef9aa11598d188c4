// Maps a log's stack frames onto the files of the tree being triaged. The log's paths come from
// the machine that crashed (/home/ci/run/ocr/models/decoder/fpn_decoder.py, C:\work\train.py,
// .../ocr/models/fpn_decoder.py), so a frame maps to the tree file that shares the longest
// suffix of whole path components with it. A library frame (site-packages, dist-packages, a
// Python installation) maps only when at least three components agree, so that a library's
// optimizer.py is not taken for the project's.
#pragma once

#include "triage/log_scan.h"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::triage {

struct MappedFrame {
  Frame frame;
  std::string file;                 // the tree's file, as discovery spells it; "" when none maps
  std::size_t components = 0;       // path components that agree
  bool library = false;             // the log's path is inside a Python installation
  std::vector<std::string> others;  // tree files that tie with `file` (then `file` is the first)
  // Checked against the tree's file (check_against_tree): the line that holds the log's quoted code
  // (0 when not found or not checked), and what differs, "" when the line holds that code.
  std::size_t tree_line = 0;
  std::string drift;
};

// Whether the mapped file holds, at the frame's line, the code the log quotes under the frame. A
// tree at another version than the job's moves code: the nearest line within 40 that holds it
// is taken instead, and `drift` says so; a line past the end or other code is said too.
void check_against_tree(MappedFrame& frame, std::string_view file_text);

class TreeIndex {
 public:
  explicit TreeIndex(const std::vector<std::string>& files);
  MappedFrame map(const Frame& frame) const;

 private:
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_basename_;
  std::vector<std::vector<std::string>> components_;  // per file, last component last
  std::vector<std::string> files_;
};

// "C:\a\b.py" -> {"C:", "a", "b.py"}; "/x/./y/../z.py" -> {"x", "z.py"}; ".../a/b.py" -> {"a", "b.py"}.
std::vector<std::string> path_components(std::string_view path);

// Whether a path lies in a Python installation or an environment's packages.
bool is_library_path(std::string_view path);

}  // namespace cudnnlint::triage
