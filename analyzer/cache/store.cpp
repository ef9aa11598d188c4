#include "cache/store.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace cudnnlint::cache {

namespace {

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

std::string read_whole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Writes `bytes` to `path` whole or not at all: a temporary file in the same folder, renamed.
std::string write_atomically(const std::filesystem::path& path, std::string_view bytes) {
  std::string temp = (path.parent_path() / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) return "cannot create a file in " + path.parent_path().string() + ": " + std::strerror(errno);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      return "cannot write " + path.string() + ": " + why;
    }
    done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  if (::close(fd) != 0 || ::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    return "cannot write " + path.string() + ": " + why;
  }
  return {};
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

void write_if_absent(const std::filesystem::path& path, std::string_view text) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) (void)write_atomically(path, text);
}

}  // namespace

std::optional<FileStat> stat_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  FileStat out;
  out.size = static_cast<std::uint64_t>(st.st_size);
  out.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  out.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  out.inode = static_cast<std::uint64_t>(st.st_ino);
  out.device = static_cast<std::uint64_t>(st.st_dev);
  return out;
}

std::string encode_pack(const std::unordered_map<std::string, Store::Record>& records,
                        const std::unordered_map<Hash128, Store::Entry, Hash128Hasher>& entries) {
  PackWriter w;
  w.out.append(kPackMagic);
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
  w.u64(entries.size());
  for (const auto& [key, e] : entries) {
    w.hash(key);
    w.u64(e.used);
    w.text(e.bytes);
  }
  w.u64(checksum64(w.out));
  return std::move(w.out);
}

void decode_pack(std::string_view bytes, std::unordered_map<std::string, Store::Record>& records,
                 std::unordered_map<Hash128, Store::Entry, Hash128Hasher>& entries) {
  if (!bytes.starts_with(kPackMagic)) throw std::runtime_error("not a cache pack of this version");
  if (bytes.size() < kPackMagic.size() + 8) throw std::runtime_error("truncated");
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  const std::string_view body = bytes.substr(0, bytes.size() - 8);
  if (checksum64(body) != stored) throw std::runtime_error("checksum mismatch (a damaged file)");
  PackReader r(body.substr(kPackMagic.size()));
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
  for (std::uint64_t n = r.u64(); n > 0; --n) {
    const Hash128 key = r.hash();
    Store::Entry e;
    e.used = r.u64();
    e.bytes = std::string(r.text());
    entries.insert_or_assign(key, std::move(e));
  }
  if (!r.done()) throw std::runtime_error("trailing bytes");
}

Store::Store(std::filesystem::path dir, std::uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes), now_(seconds_now()) {}

Store::~Store() = default;

std::unique_ptr<Store> Store::open(const std::filesystem::path& dir, std::uint64_t max_bytes, std::string& problem) {
  std::error_code ec;
  std::filesystem::create_directories(dir / "runs", ec);
  if (ec || !std::filesystem::is_directory(dir / "runs", ec)) {
    problem = "cannot use the cache folder " + dir.string() + ": " + (ec ? ec.message() : "not a folder");
    return nullptr;
  }
  write_if_absent(dir / "CACHEDIR.TAG",
                  "Signature: 8a477f597d28d172789f06886806bc55\n"
                  "# This file is a cache directory tag created by cudnnlint.\n"
                  "# For information about cache directory tags see https://bford.info/cachedir/\n");
  write_if_absent(dir / ".gitignore", "# Created by cudnnlint: its cache, never to be committed.\n*\n");
  std::unique_ptr<Store> store(new Store(dir, max_bytes));
  store->load();
  return store;
}

void Store::load() {
  const auto path = dir_ / "pack";
  pack_stat_ = stat_file(path.string());
  if (!pack_stat_) return;
  const std::string bytes = read_whole(path);
  try {
    decode_pack(bytes, records_, entries_);
  } catch (const std::exception& e) {
    records_.clear();
    entries_.clear();
    load_problem_ = path.string() + ": " + e.what() + "; it is rebuilt";
    dirty_ = true;
  }
}

std::optional<Hash128> Store::known_hash(const std::string& absolute_path, const FileStat& now) const {
  std::lock_guard lock(mutex_);
  const auto it = records_.find(absolute_path);
  if (it == records_.end() || it->second.stat != now) return std::nullopt;
  return it->second.hash;
}

void Store::remember(const std::string& absolute_path, const FileStat& stat, const Hash128& hash) {
  const std::int64_t now = nanoseconds_now();
  if (stat.mtime_ns > now - static_cast<std::int64_t>(kRacyWindowNs) ||
      stat.ctime_ns > now - static_cast<std::int64_t>(kRacyWindowNs))
    return;
  std::lock_guard lock(mutex_);
  auto [it, added] = records_.try_emplace(absolute_path);
  if (!added && it->second.stat == stat && it->second.hash == hash) return;
  it->second = Record{stat, hash, now_};
  dirty_ = true;
}

std::optional<std::string> Store::entry(const Hash128& key) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++counters_.entry_misses;
    return std::nullopt;
  }
  ++counters_.entry_hits;
  if (it->second.used + kRefreshSeconds < now_) {
    it->second.used = now_;
    dirty_ = true;
  }
  return it->second.bytes;
}

void Store::put(const Hash128& key, std::string bytes) {
  std::lock_guard lock(mutex_);
  entries_.insert_or_assign(key, Entry{std::move(bytes), now_});
  ++counters_.entries_written;
  dirty_ = true;
}

std::optional<std::string> Store::run_entry(const Hash128& key) const {
  const auto path = dir_ / "runs" / key.hex();
  std::string bytes = read_whole(path);
  if (bytes.size() < 8) return std::nullopt;
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
  bytes.resize(bytes.size() - 8);
  if (checksum64(bytes) != stored) return std::nullopt;
  // Used: trimming keeps the most recently used runs.
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return bytes;
}

void Store::put_run(const Hash128& key, std::string_view bytes) {
  std::string framed(bytes);
  const std::uint64_t sum = checksum64(bytes);
  framed.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  (void)write_atomically(dir_ / "runs" / key.hex(), framed);
  dirty_runs_ = true;
}

std::vector<std::string> Store::save() {
  std::vector<std::string> problems;
  // runs/: the newest kMaxRuns within a quarter of the budget.
  if (dirty_runs_) {
    struct Run {
      std::filesystem::path path;
      std::filesystem::file_time_type time;
      std::uintmax_t size;
    };
    std::vector<Run> runs;
    std::error_code ec;
    for (const auto& f : std::filesystem::directory_iterator(dir_ / "runs", ec)) {
      std::error_code ignored;
      if (f.path().filename().string().starts_with(".")) continue;
      runs.push_back({f.path(), f.last_write_time(ignored), f.file_size(ignored)});
    }
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.time > b.time; });
    std::uintmax_t total = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      total += runs[i].size;
      if (i >= kMaxRuns || total > max_bytes_ / 4) std::filesystem::remove(runs[i].path, ec);
    }
  }
  std::lock_guard lock(mutex_);
  if (!dirty_) return problems;
  // Another run may have saved since this one loaded: keep what it added.
  const auto path = dir_ / "pack";
  if (const auto on_disk = stat_file(path.string()); on_disk && on_disk != pack_stat_) {
    std::unordered_map<std::string, Record> their_records;
    std::unordered_map<Hash128, Entry, Hash128Hasher> their_entries;
    try {
      decode_pack(read_whole(path), their_records, their_entries);
      for (auto& [p, r] : their_records) {
        auto [it, added] = records_.try_emplace(p, r);
        if (!added && r.used > it->second.used) it->second = r;
      }
      for (auto& [k, e] : their_entries) {
        auto [it, added] = entries_.try_emplace(k, std::move(e));
        if (!added) it->second.used = std::max(it->second.used, e.used);
      }
    } catch (const std::exception&) {
      // Not readable: this run's pack replaces it.
    }
  }
  // Within three quarters of the budget: the most recently used entries, then stat records.
  const std::uint64_t budget = max_bytes_ - max_bytes_ / 4;
  std::vector<std::pair<std::uint64_t, Hash128>> by_use;
  by_use.reserve(entries_.size());
  for (const auto& [k, e] : entries_) by_use.emplace_back(e.used, k);
  std::sort(by_use.begin(), by_use.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::uint64_t total = 0;
  for (const auto& [used, key] : by_use) {
    const auto it = entries_.find(key);
    total += it->second.bytes.size() + 32;
    if (total > budget) entries_.erase(it);
  }
  std::vector<std::pair<std::uint64_t, std::string>> records_by_use;
  for (const auto& [p, r] : records_) records_by_use.emplace_back(r.used, p);
  std::sort(records_by_use.begin(), records_by_use.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [used, p] : records_by_use) {
    total += p.size() + 80;
    if (total > budget) records_.erase(p);
  }
  if (std::string problem = write_atomically(path, encode_pack(records_, entries_)); !problem.empty())
    problems.push_back(std::move(problem));
  pack_stat_ = stat_file(path.string());
  dirty_ = false;
  return problems;
}

}  // namespace cudnnlint::cache
