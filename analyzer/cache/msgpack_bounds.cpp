#include "cache/msgpack_bounds.h"

#include <cstdint>
#include <vector>

namespace cudnnlint::cache {

namespace {

// What one value's head says: bytes to skip after the head, or items that follow (a container).
struct Head {
  std::size_t head_size = 1;      // the type byte and its length field
  std::uint64_t payload = 0;      // bytes of data after the head
  std::uint64_t items = 0;        // values that follow, for arrays (n) and maps (2n)
  bool container = false;
  bool valid = true;
};

std::uint64_t big_endian(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

// The head of the value at `at`, or invalid when its head runs past the end.
Head read_head(std::string_view bytes, std::size_t at) {
  const auto type = static_cast<unsigned char>(bytes[at]);
  Head h;
  auto sized = [&](std::size_t width, std::uint64_t extra) {  // a length field of `width` bytes
    if (bytes.size() - at - 1 < width) {
      h.valid = false;
      return;
    }
    h.head_size = 1 + width;
    h.payload = big_endian(bytes, at + 1, width) + extra;
  };
  auto counted = [&](std::size_t width, std::uint64_t per_item) {
    if (bytes.size() - at - 1 < width) {
      h.valid = false;
      return;
    }
    h.head_size = 1 + width;
    h.items = big_endian(bytes, at + 1, width) * per_item;
    h.container = true;
  };
  if (type <= 0x7f || type >= 0xe0 || type == 0xc0 || type == 0xc2 || type == 0xc3) return h;
  if (type >= 0x80 && type <= 0x8f) counted(0, 2), h.items = (type & 0x0f) * 2u;
  else if (type >= 0x90 && type <= 0x9f) counted(0, 1), h.items = type & 0x0fu;
  else if (type >= 0xa0 && type <= 0xbf) h.payload = type & 0x1fu;
  else if (type >= 0xc4 && type <= 0xc6) sized(std::size_t{1} << (type - 0xc4), 0);      // bin 8/16/32
  else if (type >= 0xc7 && type <= 0xc9) sized(std::size_t{1} << (type - 0xc7), 1);      // ext 8/16/32
  else if (type == 0xca) h.payload = 4;
  else if (type == 0xcb) h.payload = 8;
  else if (type >= 0xcc && type <= 0xcf) h.payload = std::uint64_t{1} << (type - 0xcc);  // uint
  else if (type >= 0xd0 && type <= 0xd3) h.payload = std::uint64_t{1} << (type - 0xd0);  // int
  else if (type >= 0xd4 && type <= 0xd8) h.payload = 1 + (std::uint64_t{1} << (type - 0xd4));  // fixext
  else if (type >= 0xd9 && type <= 0xdb) sized(std::size_t{1} << (type - 0xd9), 0);      // str 8/16/32
  else if (type == 0xdc || type == 0xdd) counted(type == 0xdc ? 2 : 4, 1);
  else if (type == 0xde || type == 0xdf) counted(type == 0xde ? 2 : 4, 2);
  else h.valid = false;  // 0xc1, never used
  return h;
}

}  // namespace

std::string check_msgpack_bounds(std::string_view bytes, std::size_t max_depth) {
  std::vector<std::uint64_t> pending{1};  // values still to read at each open level
  std::size_t at = 0;
  while (!pending.empty()) {
    if (pending.back() == 0) {
      pending.pop_back();
      continue;
    }
    if (at >= bytes.size()) return "truncated";
    const Head head = read_head(bytes, at);
    if (!head.valid) return "malformed at byte " + std::to_string(at);
    at += head.head_size;
    const std::size_t left = bytes.size() - at;
    if (head.payload > left) return "a length past the end at byte " + std::to_string(at);
    at += static_cast<std::size_t>(head.payload);
    --pending.back();
    if (head.container && head.items > 0) {
      if (head.items > bytes.size() - at) return "a count past the end at byte " + std::to_string(at);  // >= 1 byte each
      if (pending.size() >= max_depth) return "nested deeper than " + std::to_string(max_depth);
      pending.push_back(head.items);
    }
  }
  if (at != bytes.size()) return "trailing bytes";
  return {};
}

}  // namespace cudnnlint::cache
