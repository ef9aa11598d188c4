// The cache folder as the file system sees it, opened once and used only through its descriptors:
// every file is opened relative to the folder (openat) and never through a symbolic link
// (O_NOFOLLOW), so a link committed into a tree (`.cudnnlint_cache -> .git`, `runs -> ../..`)
// cannot redirect a read, a write or a deletion outside the folder. The folder itself, or its
// runs/ subfolder, being a link is refused. Only regular files are read (a FIFO or a device is
// refused without blocking), up to a size bound; only names the cache itself writes are deleted.
#pragma once

#include "cache/file_stat.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnlint::cache {

// A file descriptor closed when it goes.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// Which of the cache's two folders a name is in.
enum class Place { Top, Runs };

class CacheFolder {
 public:
  // Opens (creating) `dir` and `dir/runs`; nullptr with `problem` set when either is a symbolic
  // link or not a folder, or cannot be created.
  static std::unique_ptr<CacheFolder> open(const std::filesystem::path& dir, std::string& problem);

  const std::filesystem::path& path() const { return path_; }

  // A regular file's bytes; nullopt when it is absent (problem empty) or refused (problem set:
  // a link, a FIFO, a device, larger than `max_bytes`, unreadable).
  std::optional<std::string> read(Place place, std::string_view name, std::uint64_t max_bytes,
                                  std::string& problem) const;
  // Whole or not at all: a temporary created exclusively in the same folder, locked while it is
  // written (so that another run can tell a live one from an abandoned one), then renamed over
  // `name`. Empty on success, else the reason.
  std::string write(Place place, std::string_view name, std::string_view bytes) const;
  // Creates `name` with `bytes` unless something (anything, a link included) has that name.
  void create_if_absent(Place place, std::string_view name, std::string_view bytes) const;
  std::optional<FileStat> stat(Place place, std::string_view name) const;  // regular files only

  struct RunFile {
    std::string name;
    std::int64_t mtime_ns = 0;
    std::uint64_t size = 0;
  };
  // The run entries: regular files whose names are 32 hex digits, as the cache writes them.
  std::vector<RunFile> runs() const;
  void remove_run(std::string_view name) const;
  void touch_run(std::string_view name) const;
  // Removes the temporaries that runs killed while saving left behind (no live run holds their
  // lock); returns how many.
  std::size_t remove_abandoned_temporaries() const;

 private:
  CacheFolder(std::filesystem::path path, UniqueFd top, UniqueFd runs)
      : path_(std::move(path)), top_(std::move(top)), runs_(std::move(runs)) {}
  int folder_fd(Place place) const { return place == Place::Top ? top_.get() : runs_.get(); }

  std::filesystem::path path_;
  UniqueFd top_, runs_;
};

// Whether `name` is one of the temporaries CacheFolder::write makes for a file the cache owns.
bool is_cache_temporary_name(std::string_view name);
// Whether `name` is a run entry's name (32 lowercase hex digits).
bool is_run_name(std::string_view name);

}  // namespace cudnnlint::cache
