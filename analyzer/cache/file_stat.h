// What stat says of a file: the cache trusts a recorded hash only while all of it is unchanged.
#pragma once

#include <cstdint>

struct stat;

namespace cudnnlint::cache {

struct FileStat {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  std::uint64_t inode = 0;
  std::uint64_t device = 0;
  bool operator==(const FileStat&) const = default;
};

FileStat to_file_stat(const struct stat& st);

}  // namespace cudnnlint::cache
