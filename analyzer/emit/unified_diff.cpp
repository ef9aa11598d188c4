#include "emit/unified_diff.h"

#include "core/printable.h"

#include <algorithm>
#include <vector>

namespace cudnnlint {

namespace {

// Lines with their newline, so that a last line without one differs from the same line with one.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::size_t length = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(0, length));
    text.remove_prefix(length);
  }
  return lines;
}

enum class Op { Keep, Remove, Add };

// Myers' O((N+M)D) shortest edit script, as the sequence of operations from a to b.
std::vector<Op> edit_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  const long n = static_cast<long>(a.size()), m = static_cast<long>(b.size()), max = n + m;
  const long offset = max + 1;
  std::vector<long> v(2 * max + 3, 0);
  std::vector<std::vector<long>> trace;
  for (long d = 0; d <= max; ++d) {
    trace.push_back(v);
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1]
                                                                              : v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        // Walk the trace back from (n, m).
        std::vector<Op> ops;
        long cx = n, cy = m;
        for (long step = d; step > 0; --step) {
          const std::vector<long>& pv = trace[step];
          const long ck = cx - cy;
          const bool down = ck == -step || (ck != step && pv[offset + ck - 1] < pv[offset + ck + 1]);
          const long pk = down ? ck + 1 : ck - 1;
          const long px = pv[offset + pk], py = px - pk;
          while (cx > px && cy > py) ops.push_back(Op::Keep), --cx, --cy;
          ops.push_back(down ? Op::Add : Op::Remove);
          cx = px;
          cy = py;
        }
        while (cx > 0 && cy > 0) ops.push_back(Op::Keep), --cx, --cy;
        std::reverse(ops.begin(), ops.end());
        return ops;
      }
    }
  }
  return {};
}

// A line of the diff: its control characters escaped (printable()) but for its line break, a CR
// before it included (CRLF files), so that no line of the diff starts a workflow command or moves
// the terminal's cursor. A line that holds one no longer applies, which is the lesser harm.
void append_line(std::string& out, char mark, std::string_view line) {
  std::size_t body = line.size();
  if (body > 0 && line[body - 1] == '\n') --body;
  if (body > 0 && line[body - 1] == '\r') --body;
  out += mark;
  out += printable(line.substr(0, body));
  out += line.substr(body);
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

// One byte of a quoted name, escaped as git's quote_c_style() escapes it.
void append_quoted_byte(std::string& out, unsigned char c) {
  static constexpr std::string_view kControls = "\a\b\t\n\v\f\r", kLetters = "abtnvfr";
  if (c == '"' || c == '\\') {
    out += '\\';
    out += static_cast<char>(c);
  } else if (const auto at = kControls.find(static_cast<char>(c)); at != std::string_view::npos) {
    out += '\\';
    out += kLetters[at];
  } else if (c < 0x20 || c >= 0x7f) {
    out += '\\';
    for (const int shift : {6, 3, 0}) out += static_cast<char>('0' + ((c >> shift) & 7));
  } else {
    out += static_cast<char>(c);
  }
}

// A header's name as git writes it: in double quotes with C escapes (octal for the other control
// bytes and for non-ASCII ones) when it holds a control character, a quote or a backslash, so
// that a newline in a file name cannot end the header line; `git apply` and GNU patch unquote it.
std::string header_name(std::string_view prefix, std::string_view path) {
  std::string name = std::string(prefix) + std::string(path);
  if (is_printable(path) && path.find_first_of("\t\"\\") == std::string_view::npos) return name;
  std::string out = "\"";
  for (const char c : name) append_quoted_byte(out, static_cast<unsigned char>(c));
  return out + "\"";
}

}  // namespace

std::string unified_diff(std::string_view path, std::string_view before, std::string_view after) {
  if (before == after) return "";
  const auto a = split_lines(before), b = split_lines(after);
  const std::vector<Op> ops = edit_script(a, b);
  constexpr std::size_t kContext = 3;
  std::string out = "--- " + header_name("a/", path) + "\n+++ " + header_name("b/", path) + "\n";
  // Hunks: runs of changes with up to 2 x kContext kept lines between them, plus kContext around.
  std::size_t i = 0;
  while (i < ops.size()) {
    if (ops[i] == Op::Keep) {
      ++i;
      continue;
    }
    std::size_t start = i >= kContext ? i - kContext : 0;
    std::size_t end = i;
    for (std::size_t keep_run = 0; end < ops.size(); ++end) {
      keep_run = ops[end] == Op::Keep ? keep_run + 1 : 0;
      if (keep_run > 2 * kContext) break;
    }
    // Trim trailing kept lines to kContext.
    std::size_t trailing = 0;
    while (end > i && ops[end - 1] == Op::Keep) --end, ++trailing;
    end += std::min(trailing, kContext);
    // Positions of `start` in a and b.
    std::size_t a_line = 0, b_line = 0;
    for (std::size_t k = 0; k < start; ++k) {
      if (ops[k] != Op::Add) ++a_line;
      if (ops[k] != Op::Remove) ++b_line;
    }
    std::string body;
    std::size_t a_count = 0, b_count = 0, ai = a_line, bi = b_line;
    for (std::size_t k = start; k < end; ++k) {
      if (ops[k] == Op::Keep) append_line(body, ' ', a[ai++]), ++a_count, ++b_count, ++bi;
      else if (ops[k] == Op::Remove) append_line(body, '-', a[ai++]), ++a_count;
      else append_line(body, '+', b[bi++]), ++b_count;
    }
    out += "@@ -" + std::to_string(a_count ? a_line + 1 : a_line) + "," + std::to_string(a_count) + " +" +
           std::to_string(b_count ? b_line + 1 : b_line) + "," + std::to_string(b_count) + " @@\n" + body;
    i = end;
  }
  return out;
}

}  // namespace cudnnlint
