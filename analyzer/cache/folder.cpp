#include "cache/folder.h"

#include "core/tree_bounds.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <cstring>

namespace cudnnlint::cache {

namespace {

constexpr std::string_view kTemporarySuffix = ".tmp";
constexpr std::size_t kTemporaryRandomDigits = 16;

bool all_hex(std::string_view text) {
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return !text.empty();
}

std::string error_text(int error) { return std::strerror(error); }

// Opens `name` in `at` as a folder, never through a link; creates it first when `create`.
UniqueFd open_folder(int at, const char* name, bool create, std::string& problem) {
  if (create && ::mkdirat(at, name, 0755) != 0 && errno != EEXIST) {
    problem = "cannot create it: " + error_text(errno);
    return UniqueFd();
  }
  UniqueFd fd(::openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    const int error = errno;
    struct stat st {};
    if (::fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      problem = "it is a symbolic link, which the cache never follows";
    else
      problem = error == ENOTDIR ? "not a folder" : error_text(error);
  }
  return fd;
}

std::string temporary_name(std::string_view name) {
  static constexpr char kHex[] = "0123456789abcdef";
  unsigned char random[kTemporaryRandomDigits / 2];
  if (::getrandom(random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) return {};
  std::string out = ".";
  out += name;
  out += '.';
  for (const unsigned char byte : random) {
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  out += kTemporarySuffix;
  return out;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The names in folder `fd` (a duplicate is read, so `fd`'s own position is untouched).
std::vector<std::string> names_in(int fd) {
  std::vector<std::string> names;
  const int copy = ::dup(fd);
  if (copy < 0) return names;
  DIR* dir = ::fdopendir(copy);
  if (dir == nullptr) {
    ::close(copy);
    return names;
  }
  ::rewinddir(dir);
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  ::closedir(dir);
  return names;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

bool is_run_name(std::string_view name) { return name.size() == 32 && all_hex(name); }

bool is_cache_temporary_name(std::string_view name) {
  // ".<owned name>.<16 hex digits>.tmp", the owned names being index, pack and run names.
  if (!name.starts_with('.') || !name.ends_with(kTemporarySuffix)) return false;
  name.remove_prefix(1);
  name.remove_suffix(kTemporarySuffix.size());
  if (name.size() < kTemporaryRandomDigits + 1 || name[name.size() - kTemporaryRandomDigits - 1] != '.') return false;
  if (!all_hex(name.substr(name.size() - kTemporaryRandomDigits))) return false;
  const std::string_view owned = name.substr(0, name.size() - kTemporaryRandomDigits - 1);
  return owned == "index" || owned == "pack" || is_run_name(owned);
}

std::unique_ptr<CacheFolder> CacheFolder::open(const std::filesystem::path& dir, std::string& problem) {
  // The folders above the cache folder are the user's choice (the working directory, --cache-dir):
  // they are created as asked. The cache folder and runs/ are what a tree can plant.
  std::error_code ec;
  if (const auto link = linked_folder_below_cwd(dir); !link.empty()) {
    problem = "cannot use the cache folder " + dir.string() + ": " + link.string() +
              " is a symbolic link, which the cache never follows";
    return nullptr;
  }
  const std::filesystem::path parent = dir.has_parent_path() ? dir.parent_path() : std::filesystem::path(".");
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  const std::string leaf = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
  UniqueFd parent_fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent_fd) {
    problem = "cannot use the cache folder " + dir.string() + ": " + error_text(errno);
    return nullptr;
  }
  std::string why;
  UniqueFd top = open_folder(parent_fd.get(), leaf.c_str(), true, why);
  if (!top) {
    problem = "cannot use the cache folder " + dir.string() + ": " + why;
    return nullptr;
  }
  UniqueFd runs = open_folder(top.get(), "runs", true, why);
  if (!runs) {
    problem = "cannot use the cache folder " + dir.string() + ": " + (dir / "runs").string() + ": " + why;
    return nullptr;
  }
  return std::unique_ptr<CacheFolder>(new CacheFolder(dir, std::move(top), std::move(runs)));
}

std::optional<std::string> CacheFolder::read(Place place, std::string_view name, std::uint64_t max_bytes,
                                             std::string& problem) const {
  const std::string file(name);
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  UniqueFd fd(::openat(folder_fd(place), file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    if (errno != ENOENT) problem = errno == ELOOP ? "a symbolic link, not followed" : error_text(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = "not a regular file";
    return std::nullopt;
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    problem = "larger than the cache's size limit";
    return std::nullopt;
  }
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // shorter than stat said: what was read is judged by its checks
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

std::string CacheFolder::write(Place place, std::string_view name, std::string_view bytes) const {
  const std::string target(name);
  const std::string where = (place == Place::Top ? path_ : path_ / "runs").string() + "/" + target;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::string temp = temporary_name(name);
    if (temp.empty()) return "cannot write " + where + ": no random name";
    UniqueFd fd(::openat(folder_fd(place), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd) {
      if (errno == EEXIST) continue;
      return "cannot create a file in " + path_.string() + ": " + error_text(errno);
    }
    // Held until the file is renamed and closed: a lock a later run can take marks it abandoned.
    // Taken before the first byte is written: remove_abandoned_temporaries reads an empty
    // temporary as possibly not locked yet.
    (void)::flock(fd.get(), LOCK_EX | LOCK_NB);
    if (!write_all(fd.get(), bytes) || ::renameat(folder_fd(place), temp.c_str(), folder_fd(place), target.c_str()) != 0) {
      const std::string why = error_text(errno);
      ::unlinkat(folder_fd(place), temp.c_str(), 0);
      return "cannot write " + where + ": " + why;
    }
    return {};
  }
  return "cannot write " + where + ": no free temporary name";
}

void CacheFolder::create_if_absent(Place place, std::string_view name, std::string_view bytes) const {
  const std::string file(name);
  UniqueFd fd(::openat(folder_fd(place), file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (fd) (void)write_all(fd.get(), bytes);
}

std::optional<FileStat> CacheFolder::stat(Place place, std::string_view name) const {
  const std::string file(name);
  struct stat st {};
  if (::fstatat(folder_fd(place), file.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return to_file_stat(st);
}

std::vector<CacheFolder::RunFile> CacheFolder::runs() const {
  std::vector<RunFile> out;
  for (const std::string& name : names_in(runs_.get())) {
    if (!is_run_name(name)) continue;
    if (const auto st = stat(Place::Runs, name)) out.push_back({name, st->mtime_ns, st->size});
  }
  return out;
}

void CacheFolder::remove_run(std::string_view name) const {
  // Checked again here, not only by the caller: this is the one deletion a tree could aim.
  if (!is_run_name(name) || !stat(Place::Runs, name)) return;
  ::unlinkat(runs_.get(), std::string(name).c_str(), 0);
}

void CacheFolder::touch_run(std::string_view name) const {
  if (is_run_name(name)) ::utimensat(runs_.get(), std::string(name).c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

std::size_t CacheFolder::remove_abandoned_temporaries() const {
  std::size_t removed = 0;
  for (const Place place : {Place::Top, Place::Runs}) {
    for (const std::string& name : names_in(folder_fd(place))) {
      if (!is_cache_temporary_name(name)) continue;
      UniqueFd fd(::openat(folder_fd(place), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
      struct stat st {};
      if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      // A writer creates its temporary, locks it, and only then writes: an empty temporary may be
      // one between its creation and its lock, so it is left until it is a minute old (removing
      // one made a concurrent writer's rename fail with ENOENT under CI's load). A temporary with
      // bytes in it was locked first: a live writer still holds the lock, a killed one's went with
      // its process.
      if (st.st_size == 0 && std::time(nullptr) - st.st_mtime < 60) continue;
      if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;
      if (::unlinkat(folder_fd(place), name.c_str(), 0) == 0) ++removed;
    }
  }
  return removed;
}

}  // namespace cudnnlint::cache
