#include "core/atomic_file.h"

#include "core/tree_bounds.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace cudnnlint {

bool FdStreamBuf::write_all(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (error_.empty()) error_ = std::strerror(errno);
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool FdStreamBuf::drain() {
  const bool ok = error_.empty() && write_all(pbase(), static_cast<std::size_t>(pptr() - pbase()));
  setp(buffer_, buffer_ + sizeof buffer_);
  return ok;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type ch) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

int FdStreamBuf::sync() { return drain() ? 0 : -1; }

std::streamsize FdStreamBuf::xsputn(const char* s, std::streamsize n) {
  if (n >= static_cast<std::streamsize>(sizeof buffer_)) {  // a large piece goes straight through
    if (!drain() || !write_all(s, static_cast<std::size_t>(n))) return 0;
    return n;
  }
  return std::streambuf::xsputn(s, n);
}

namespace {

// A fresh name beside the target: ".<name>.<16 random hex digits>.tmp", created exclusively.
int create_temporary(const std::filesystem::path& target, unsigned mode, std::filesystem::path& temporary) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int attempt = 0; attempt < 16; ++attempt) {
    unsigned char random[8];
    if (::getrandom(random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) return -1;
    std::string name = ".";
    name += target.filename().string();
    name += '.';
    for (const unsigned char byte : random) {
      name += kHex[byte >> 4];
      name += kHex[byte & 15];
    }
    name += ".tmp";
    temporary = target.parent_path() / name;
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

AtomicOutputFile::AtomicOutputFile(std::filesystem::path target, unsigned mode)
    : target_(std::move(target)), stream_(nullptr) {
  if (target_.filename().empty()) throw std::runtime_error("cannot write " + target_.string() + ": not a file name");
  if (const auto link = linked_folder_below_cwd(target_); !link.empty())
    throw std::runtime_error("cannot write " + target_.string() + ": " + link.string() +
                             " is a symbolic link, which cudnnlint does not write through");
  fd_ = create_temporary(target_, mode, temporary_);  // a new file: `mode` less the umask
  if (fd_ < 0) throw std::runtime_error("cannot write " + target_.string() + ": " + std::strerror(errno));
  // An existing regular file keeps its permissions (a link at the name is not followed to ask).
  struct stat existing {};
  if (::lstat(target_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) ::fchmod(fd_, existing.st_mode & 07777);
  buffer_.attach(fd_);
  stream_.rdbuf(&buffer_);
}

AtomicOutputFile::~AtomicOutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temporary_.c_str());
}

std::string AtomicOutputFile::commit() {
  stream_.flush();
  std::string why = buffer_.error();
  if (why.empty() && !stream_) why = "the report could not be written";
  if (why.empty() && ::fsync(fd_) != 0) why = std::strerror(errno);
  if (::close(fd_) != 0 && why.empty()) why = std::strerror(errno);
  fd_ = -1;
  if (why.empty() && ::rename(temporary_.c_str(), target_.c_str()) != 0) why = std::strerror(errno);
  if (!why.empty()) {
    ::unlink(temporary_.c_str());
    return "cannot write " + target_.string() + ": " + why + " (it was left as it was)";
  }
  committed_ = true;
  return {};
}

std::string write_file_atomically(const std::filesystem::path& target, std::string_view bytes, unsigned mode) {
  try {
    AtomicOutputFile file(target, mode);
    file.stream().write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return file.commit();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
}

}  // namespace cudnnlint
