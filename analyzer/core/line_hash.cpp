#include "core/line_hash.h"

#include <array>
#include <cstdint>
#include <unordered_map>

namespace cudnnlint {

namespace {

constexpr int kBlock = 100;
constexpr std::uint64_t kMod = 37;
constexpr std::uint32_t kEof = 0xFFFF;

class RollingHasher {
 public:
  RollingHasher() {
    first_mod_ = 1;
    for (int k = 0; k < kBlock; ++k) first_mod_ *= kMod;  // wraps mod 2^64 like the reference
    window_.fill(0);
    line_numbers_.fill(-1);
  }

  void process(std::uint32_t unit) {
    if (unit == 0x20 || unit == 0x09 || (after_cr_ && unit == 0x0A)) {
      after_cr_ = false;
      return;
    }
    if (unit == 0x0D) {
      unit = 0x0A;
      after_cr_ = true;
    } else {
      after_cr_ = false;
    }
    if (line_numbers_[index_] != -1) output();
    if (at_line_start_) {
      at_line_start_ = false;
      ++line_;
      line_numbers_[index_] = line_;
    }
    if (unit == 0x0A) at_line_start_ = true;
    update(unit);
  }

  std::vector<std::string> finish() {
    process(kEof);
    for (int k = 0; k < kBlock; ++k) {
      if (line_numbers_[index_] != -1) output();
      update(0);
    }
    return std::move(hashes_);
  }

 private:
  void update(std::uint32_t unit) {
    const std::uint64_t begin = window_[index_];
    window_[index_] = unit;
    hash_ = kMod * hash_ + unit - first_mod_ * begin;
    index_ = (index_ + 1) % kBlock;
  }

  void output() {
    char hex[17];
    int n = 0;
    std::uint64_t value = hash_;
    do {
      hex[n++] = "0123456789abcdef"[value & 0xF];
      value >>= 4;
    } while (value != 0);
    std::string text(hex, hex + n);
    text.assign(text.rbegin(), text.rend());
    const int count = ++counts_[hash_];
    const auto line = static_cast<std::size_t>(line_numbers_[index_]);
    if (hashes_.size() < line) hashes_.resize(line);
    hashes_[line - 1] = text + ":" + std::to_string(count);
    line_numbers_[index_] = -1;
  }

  std::uint64_t first_mod_ = 1;
  std::uint64_t hash_ = 0;
  int index_ = 0;
  int line_ = 0;
  bool at_line_start_ = true;
  bool after_cr_ = false;
  std::array<std::uint64_t, kBlock> window_{};
  std::array<int, kBlock> line_numbers_{};
  std::unordered_map<std::uint64_t, int> counts_;
  std::vector<std::string> hashes_;
};

}  // namespace

std::vector<std::string> primary_location_line_hashes(std::string_view utf8_text) {
  RollingHasher hasher;
  const auto* bytes = reinterpret_cast<const unsigned char*>(utf8_text.data());
  const std::size_t n = utf8_text.size();
  for (std::size_t i = 0; i < n;) {
    std::uint32_t cp = bytes[i];
    std::size_t len = 1;
    if (cp >= 0xF0 && i + 3 < n) {
      cp = ((cp & 0x07u) << 18) | ((bytes[i + 1] & 0x3Fu) << 12) | ((bytes[i + 2] & 0x3Fu) << 6) | (bytes[i + 3] & 0x3Fu);
      len = 4;
    } else if (cp >= 0xE0 && i + 2 < n) {
      cp = ((cp & 0x0Fu) << 12) | ((bytes[i + 1] & 0x3Fu) << 6) | (bytes[i + 2] & 0x3Fu);
      len = 3;
    } else if (cp >= 0xC0 && i + 1 < n) {
      cp = ((cp & 0x1Fu) << 6) | (bytes[i + 1] & 0x3Fu);
      len = 2;
    }
    i += len;
    if (cp >= 0x10000) {  // JavaScript strings hold astral code points as surrogate pairs
      cp -= 0x10000;
      hasher.process(0xD800 + (cp >> 10));
      hasher.process(0xDC00 + (cp & 0x3FF));
    } else {
      hasher.process(cp);
    }
  }
  return hasher.finish();
}

}  // namespace cudnnlint
