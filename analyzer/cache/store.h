// The cache folder (default .cudnnlint_cache/ in the working directory):
//   CACHEDIR.TAG, .gitignore  so that backups and git leave it alone
//   index                     stat records: path, size, times, inode -> the hash of its bytes, so
//                             that an unchanged file is not read
//   pack                      what each file's analysis gave, content-addressed: entries by key (a
//                             hash of the file's bytes, its path and module, the tool and the flags
//                             that change facts); read only when an entry is needed
//   runs/<key>                a whole run's findings, by a key over every file's hash and the run's
//                             options: a second run over an unchanged tree reads the index and this
// Untrusted: the folder may be a tree's own (committed, or a link). It is opened through
// CacheFolder (no link followed, only regular files read, only its own names deleted), and
// every file ends with an Authenticator tag that only the user's key makes: a file that does not
// verify is a miss and is replaced at the next save.
// Safe under concurrent runs: every file is written whole under a temporary name and renamed
// into place, and a reader sees either the old file or the new one. Two runs saving at once
// merge what they find on disk; what one of them loses is a miss, never a wrong answer.
// Bounded: the least recently used entries, records and runs go when the folder outgrows its budget.
#pragma once

#include "cache/authenticator.h"
#include "cache/file_stat.h"
#include "cache/folder.h"
#include "cache/hash.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cudnnlint::cache {

std::optional<FileStat> stat_file(const std::string& path);
// Whether a stat is old enough to vouch for the bytes read after it: a file modified in the last
// two seconds is not, since a second change within the file system's timestamp granularity would
// leave its stat alike (git's "racily clean" entries).
bool stat_is_settled(const FileStat& stat);

struct StoreCounters {
  std::atomic<std::size_t> entry_hits{0}, entry_misses{0}, entries_written{0};
  std::atomic<std::size_t> hashes_known{0}, files_hashed{0};
};

class Store {
 public:
  // Opens the folder, creating it; nullptr with `problem` set when it cannot be used.
  static std::unique_ptr<Store> open(const std::filesystem::path& dir, std::uint64_t max_bytes, std::string& problem);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::filesystem::path& dir() const { return folder_->path(); }

  // The hash of a file's bytes when a stat record says it and `now` matches it. Thread-safe.
  std::optional<Hash128> known_hash(const std::string& absolute_path, const FileStat& now) const;
  // Records a file's hash, taken from bytes read after `stat` was taken, when the stat is settled.
  void remember(const std::string& absolute_path, const FileStat& stat, const Hash128& hash);

  std::optional<std::string> entry(const Hash128& key);
  void put(const Hash128& key, std::string bytes);

  std::optional<std::string> run_entry(const Hash128& key) const;
  void put_run(const Hash128& key, std::string_view bytes);

  // Writes the index and the pack where this run changed them, merged with what another run
  // saved meanwhile, within the budget; trims runs/. Problems (a full disk) are returned, never thrown.
  std::vector<std::string> save();

  StoreCounters& counters() { return counters_; }
  // Why the index or the pack on disk was not used (empty when they were, or there were none).
  std::vector<std::string> load_problems() const;

  struct Record {
    FileStat stat;
    Hash128 hash;
    std::uint64_t used = 0;  // seconds since the epoch
  };
  struct Entry {
    std::string bytes;
    std::uint64_t used = 0;
  };

 private:
  Store(std::unique_ptr<CacheFolder> folder, Authenticator authenticator, std::uint64_t max_bytes);
  void load_index();
  void load_entries();  // on first need; the caller holds mutex_
  void trim_runs();     // the caller holds mutex_
  template <typename Table, typename Decode>
  void load_file(std::string_view name, Table& table, Decode decode, std::optional<FileStat>& stat, bool& dirty);
  template <typename Table, typename Decode>
  void merge_from_disk(std::string_view name, const std::optional<FileStat>& loaded, Table& table, Decode decode);

  std::unique_ptr<CacheFolder> folder_;
  Authenticator authenticator_;
  std::uint64_t max_bytes_;
  std::uint64_t now_;
  std::optional<FileStat> index_stat_, pack_stat_;  // as loaded
  std::vector<std::string> load_problems_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Record> records_;
  std::unordered_map<Hash128, Entry, Hash128Hasher> entries_;
  bool entries_loaded_ = false;
  bool records_dirty_ = false, entries_dirty_ = false, runs_dirty_ = false;
  StoreCounters counters_;
};

// The index's and the pack's formats, for the store and its tests. Decoding throws
// std::runtime_error naming what is wrong when `bytes` is not such a file.
std::string encode_index(const std::unordered_map<std::string, Store::Record>& records);
void decode_index(std::string_view bytes, std::unordered_map<std::string, Store::Record>& records);
std::string encode_pack(const std::unordered_map<Hash128, Store::Entry, Hash128Hasher>& entries);
void decode_pack(std::string_view bytes, std::unordered_map<Hash128, Store::Entry, Hash128Hasher>& entries);

}  // namespace cudnnlint::cache
