#include "cache/file_stat.h"

#include <sys/stat.h>

namespace cudnnlint::cache {

FileStat to_file_stat(const struct stat& st) {
  FileStat out;
  out.size = static_cast<std::uint64_t>(st.st_size);
  out.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  out.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  out.inode = static_cast<std::uint64_t>(st.st_ino);
  out.device = static_cast<std::uint64_t>(st.st_dev);
  return out;
}

}  // namespace cudnnlint::cache
