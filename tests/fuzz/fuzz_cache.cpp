// libFuzzer harness for the cache's decoders: a cache folder may be a tree's own, so every byte
// of an entry, the index and the pack is untrusted. Each must be refused or decoded, never crash,
// recurse without bound or allocate past the input's size.
#include "cache/codec.h"
#include "cache/msgpack_bounds.h"
#include "cache/store.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cudnnlint::cache;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)check_msgpack_bounds(bytes, 64);
  (void)decode_run(bytes);
  (void)decode_python(bytes);
  (void)decode_cpp(bytes);
  std::unordered_map<std::string, Store::Record> records;
  std::unordered_map<Hash128, Store::Entry, Hash128Hasher> entries;
  try {
    decode_index(bytes, records);
  } catch (const std::runtime_error&) {
  }
  try {
    decode_pack(bytes, entries);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
