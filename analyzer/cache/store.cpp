#include "cache/store.h"

#include "core/source_file.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace cudnnlint::cache {

namespace {

constexpr std::string_view kIndexMagic = "cudnnlint cache index 1\n";
constexpr std::string_view kPackMagic = "cudnnlint cache pack 1\n";
constexpr std::uint64_t kRacyWindowNs = 2'000'000'000;
constexpr std::uint64_t kRefreshSeconds = 24 * 3600;  // a hit older than this is re-stamped (LRU by day)
constexpr std::size_t kMaxRuns = 64;

std::uint64_t seconds_now() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::int64_t nanoseconds_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A file's body between its magic line and its checksum; throws naming what is wrong.
std::string_view unframe(std::string_view bytes, std::string_view magic, std::string_view what) {
  if (!bytes.starts_with(magic)) {
    std::string message = "not a cache ";
    message += what;
    message += " of this version";
    throw std::runtime_error(message);
  }
  if (bytes.size() < magic.size() + 8) throw std::runtime_error("truncated");
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  const std::string_view body = bytes.substr(0, bytes.size() - 8);
  if (checksum64(body) != stored) throw std::runtime_error("checksum mismatch (a damaged file)");
  return body.substr(magic.size());
}

class PackWriter {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void text(std::string_view s) {
    u64(s.size());
    out.append(s);
  }
  void hash(const Hash128& h) {
    u64(h.low);
    u64(h.high);
  }
  std::string out;

 private:
  void raw(const void* p, std::size_t n) { out.append(static_cast<const char*>(p), n); }
};

class PackReader {
 public:
  explicit PackReader(std::string_view bytes) : in_(bytes) {}
  std::uint64_t u64() {
    std::uint64_t v;
    raw(&v, sizeof v);
    return v;
  }
  std::int64_t i64() {
    std::int64_t v;
    raw(&v, sizeof v);
    return v;
  }
  std::string_view text() {
    const std::uint64_t n = u64();
    if (n > in_.size() - at_) throw std::runtime_error("truncated");
    const std::string_view s = in_.substr(at_, n);
    at_ += n;
    return s;
  }
  Hash128 hash() {
    Hash128 h;
    h.low = u64();
    h.high = u64();
    return h;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  void raw(void* p, std::size_t n) {
    if (n > in_.size() - at_) throw std::runtime_error("truncated");
    std::memcpy(p, in_.data() + at_, n);
    at_ += n;
  }
  std::string_view in_;
  std::size_t at_ = 0;
};

}  // namespace

std::optional<FileStat> stat_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return to_file_stat(st);
}

bool stat_is_settled(const FileStat& stat) {
  const std::int64_t now = nanoseconds_now();
  return stat.mtime_ns <= now - static_cast<std::int64_t>(kRacyWindowNs) &&
         stat.ctime_ns <= now - static_cast<std::int64_t>(kRacyWindowNs);
}

std::string encode_index(const std::unordered_map<std::string, Store::Record>& records) {
  PackWriter w;
  w.out.append(kIndexMagic);
  w.u64(records.size());
  for (const auto& [path, r] : records) {
    w.text(path);
    w.u64(r.stat.size);
    w.i64(r.stat.mtime_ns);
    w.i64(r.stat.ctime_ns);
    w.u64(r.stat.inode);
    w.u64(r.stat.device);
    w.hash(r.hash);
    w.u64(r.used);
  }
  w.u64(checksum64(w.out));
  return std::move(w.out);
}

void decode_index(std::string_view bytes, std::unordered_map<std::string, Store::Record>& records) {
  PackReader r(unframe(bytes, kIndexMagic, "index"));
  for (std::uint64_t n = r.u64(); n > 0; --n) {
    std::string path(r.text());
    Store::Record rec;
    rec.stat.size = r.u64();
    rec.stat.mtime_ns = r.i64();
    rec.stat.ctime_ns = r.i64();
    rec.stat.inode = r.u64();
    rec.stat.device = r.u64();
    rec.hash = r.hash();
    rec.used = r.u64();
    records.insert_or_assign(std::move(path), rec);
  }
  if (!r.done()) throw std::runtime_error("trailing bytes");
}

std::string encode_pack(const std::unordered_map<Hash128, Store::Entry, Hash128Hasher>& entries) {
  PackWriter w;
  w.out.append(kPackMagic);
  w.u64(entries.size());
  for (const auto& [key, e] : entries) {
    w.hash(key);
    w.u64(e.used);
    w.text(e.bytes);
  }
  w.u64(checksum64(w.out));
  return std::move(w.out);
}

void decode_pack(std::string_view bytes, std::unordered_map<Hash128, Store::Entry, Hash128Hasher>& entries) {
  PackReader r(unframe(bytes, kPackMagic, "pack"));
  for (std::uint64_t n = r.u64(); n > 0; --n) {
    const Hash128 key = r.hash();
    Store::Entry e;
    e.used = r.u64();
    e.bytes = std::string(r.text());
    entries.insert_or_assign(key, std::move(e));
  }
  if (!r.done()) throw std::runtime_error("trailing bytes");
}

namespace {

// Keeps the most recently used items of `table` within `budget` bytes (`size` of each).
template <typename Table, typename Size>
void keep_within(Table& table, std::uint64_t budget, Size size) {
  std::vector<std::pair<std::uint64_t, typename Table::key_type>> by_use;
  by_use.reserve(table.size());
  for (const auto& [key, value] : table) by_use.emplace_back(value.used, key);
  std::sort(by_use.begin(), by_use.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::uint64_t total = 0;
  for (const auto& [used, key] : by_use) {
    const auto it = table.find(key);
    total += size(it->first, it->second);
    if (total > budget) table.erase(it);
  }
}

}  // namespace

Store::Store(std::unique_ptr<CacheFolder> folder, Authenticator authenticator, std::uint64_t max_bytes)
    : folder_(std::move(folder)), authenticator_(std::move(authenticator)), max_bytes_(max_bytes), now_(seconds_now()) {}

Store::~Store() = default;

std::unique_ptr<Store> Store::open(const std::filesystem::path& dir, std::uint64_t max_bytes, std::string& problem) {
  auto authenticator = Authenticator::for_user(problem);
  if (!authenticator) return nullptr;
  auto folder = CacheFolder::open(dir, problem);
  if (!folder) return nullptr;
  folder->create_if_absent(Place::Top, "CACHEDIR.TAG",
                           "Signature: 8a477f597d28d172789f06886806bc55\n"
                           "# This file is a cache directory tag created by cudnnlint.\n"
                           "# For information about cache directory tags see https://bford.info/cachedir/\n");
  folder->create_if_absent(Place::Top, ".gitignore", "# Created by cudnnlint: its cache, never to be committed.\n*\n");
  std::unique_ptr<Store> store(new Store(std::move(folder), std::move(*authenticator), max_bytes));
  store->load_index();
  return store;
}

// Reads one of the store's files into `table` with `decode`; a file that is not one (or does not
// carry this user's tag) is a problem to report, and is replaced at the next save (`dirty`).
template <typename Table, typename Decode>
void Store::load_file(std::string_view name, Table& table, Decode decode, std::optional<FileStat>& stat, bool& dirty) {
  stat = folder_->stat(Place::Top, name);
  std::string refused;
  const auto bytes = folder_->read(Place::Top, name, max_bytes_, refused);
  const std::string where = (folder_->path() / std::string(name)).string();
  if (!bytes) {
    if (!refused.empty()) {
      load_problems_.push_back(where + ": " + refused + "; it is rebuilt");
      dirty = true;
    }
    return;
  }
  try {
    const auto body = authenticator_.open(name, *bytes);
    if (!body) throw std::runtime_error("damaged, or not written by this user's cudnnlint (its tag does not verify)");
    decode(*body, table);
  } catch (const std::exception& e) {
    table.clear();
    load_problems_.push_back(where + ": " + e.what() + "; it is rebuilt");
    dirty = true;
  }
}

// Before a save: what another run saved since this one loaded, kept beside this run's (the most
// recent use wins).
template <typename Table, typename Decode>
void Store::merge_from_disk(std::string_view name, const std::optional<FileStat>& loaded, Table& table, Decode decode) {
  const auto on_disk = folder_->stat(Place::Top, name);
  if (!on_disk || on_disk == loaded) return;
  std::string refused;
  const auto bytes = folder_->read(Place::Top, name, max_bytes_, refused);
  const auto body = bytes ? authenticator_.open(name, *bytes) : std::nullopt;
  if (!body) return;  // not readable: this run's replaces it
  Table theirs;
  try {
    decode(*body, theirs);
  } catch (const std::exception&) {
    return;
  }
  for (auto& [key, value] : theirs) {
    auto [it, added] = table.try_emplace(key, value);
    if (!added && value.used > it->second.used) it->second.used = value.used;
  }
}

void Store::load_index() { load_file("index", records_, decode_index, index_stat_, records_dirty_); }

void Store::load_entries() {
  if (entries_loaded_) return;
  entries_loaded_ = true;
  load_file("pack", entries_, decode_pack, pack_stat_, entries_dirty_);
}

std::vector<std::string> Store::load_problems() const {
  std::lock_guard lock(mutex_);
  return load_problems_;
}

std::optional<Hash128> Store::known_hash(const std::string& absolute_path, const FileStat& now) const {
  std::lock_guard lock(mutex_);
  const auto it = records_.find(absolute_path);
  if (it == records_.end() || it->second.stat != now) return std::nullopt;
  return it->second.hash;
}

void Store::remember(const std::string& absolute_path, const FileStat& stat, const Hash128& hash) {
  if (!stat_is_settled(stat)) return;
  std::lock_guard lock(mutex_);
  auto [it, added] = records_.try_emplace(absolute_path);
  if (!added && it->second.stat == stat && it->second.hash == hash) return;
  it->second = Record{stat, hash, now_};
  records_dirty_ = true;
}

std::optional<std::string> Store::entry(const Hash128& key) {
  std::lock_guard lock(mutex_);
  load_entries();
  const auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++counters_.entry_misses;
    return std::nullopt;
  }
  ++counters_.entry_hits;
  if (it->second.used + kRefreshSeconds < now_) {
    it->second.used = now_;
    entries_dirty_ = true;
  }
  return it->second.bytes;
}

void Store::put(const Hash128& key, std::string bytes) {
  std::lock_guard lock(mutex_);
  load_entries();
  entries_.insert_or_assign(key, Entry{std::move(bytes), now_});
  ++counters_.entries_written;
  entries_dirty_ = true;
}

std::optional<std::string> Store::run_entry(const Hash128& key) const {
  const std::string name = key.hex();
  std::string refused;
  const auto bytes = folder_->read(Place::Runs, name, max_bytes_, refused);
  if (!bytes) return std::nullopt;
  const auto body = authenticator_.open(name, *bytes);
  if (!body) return std::nullopt;
  folder_->touch_run(name);  // used: trimming keeps the most recently used runs
  return std::string(*body);
}

void Store::put_run(const Hash128& key, std::string_view bytes) {
  const std::string name = key.hex();
  (void)folder_->write(Place::Runs, name, authenticator_.seal(name, std::string(bytes)));
  std::lock_guard lock(mutex_);
  runs_dirty_ = true;
}

// runs/: the newest kMaxRuns within a quarter of the budget. Only the run entries' own names
// are listed and removed (CacheFolder checks them again).
void Store::trim_runs() {
  auto runs = folder_->runs();
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.mtime_ns > b.mtime_ns; });
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    total += runs[i].size;
    if (i >= kMaxRuns || total > max_bytes_ / 4) folder_->remove_run(runs[i].name);
  }
}

std::vector<std::string> Store::save() {
  std::vector<std::string> problems;
  std::lock_guard lock(mutex_);
  // What a run killed while saving left behind would otherwise stay, uncounted, for ever.
  folder_->remove_abandoned_temporaries();
  if (runs_dirty_) {
    trim_runs();
    runs_dirty_ = false;
  }
  // The stat records within a sixteenth of the budget, the entries within the rest of three quarters.
  auto write = [&](std::string_view name, std::string bytes, std::optional<FileStat>& stat) {
    if (std::string problem = folder_->write(Place::Top, name, authenticator_.seal(name, std::move(bytes)));
        !problem.empty())
      problems.push_back(std::move(problem));
    stat = folder_->stat(Place::Top, name);
  };
  if (records_dirty_) {
    merge_from_disk("index", index_stat_, records_, decode_index);
    keep_within(records_, max_bytes_ / 16, [](const std::string& path, const Record&) { return path.size() + 80; });
    write("index", encode_index(records_), index_stat_);
    records_dirty_ = false;
  }
  if (entries_dirty_) {
    merge_from_disk("pack", pack_stat_, entries_, decode_pack);
    keep_within(entries_, max_bytes_ - max_bytes_ / 4 - max_bytes_ / 16,
                [](const Hash128&, const Entry& e) { return e.bytes.size() + 48; });
    write("pack", encode_pack(entries_), pack_stat_);
    entries_dirty_ = false;
  }
  return problems;
}

}  // namespace cudnnlint::cache
