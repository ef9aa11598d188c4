// Writing a file whole or not at all, never through a symbolic link: the bytes go to a new
// temporary file beside the target (created exclusively, so no link can be in its place), which
// is renamed over the target once every byte is written and flushed. A rename replaces a link at
// the target's name instead of following it, so a link a tree committed where a report is
// written (`-o cudnnlint.sarif`) is replaced, and what it pointed at is untouched. On any failure
// (a full disk, a folder that cannot be written) the temporary is removed and the target is left
// as it was.
//
// The one opener of output files (reports with -o, baselines, fixes written back). Two writers in
// cache/ stay apart on purpose: cache/folder.cpp writes under the folder descriptor it holds
// (openat/renameat, so a folder swapped for a link meanwhile is never written through), and
// cache/authenticator.cpp links the user's key into place (link() refuses where another run made
// the key first, so concurrent runs end up with one key; a rename would replace it).
#pragma once

#include <filesystem>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace cudnnlint {

// A stream buffer over a file descriptor it does not own, remembering the first write error.
class FdStreamBuf : public std::streambuf {
 public:
  FdStreamBuf() { setp(buffer_, buffer_ + sizeof buffer_); }
  void attach(int fd) { fd_ = fd; }
  const std::string& error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  bool drain();
  bool write_all(const char* data, std::size_t size);
  int fd_ = -1;
  std::string error_;
  char buffer_[1 << 16];
};

class AtomicOutputFile {
 public:
  // Creates the temporary beside `target`; throws std::runtime_error naming the target and the
  // reason when it cannot. `mode` is used for a new file; an existing regular file keeps its own.
  explicit AtomicOutputFile(std::filesystem::path target, unsigned mode = 0644);
  ~AtomicOutputFile();  // removes the temporary unless commit() succeeded
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;

  std::ostream& stream() { return stream_; }
  // Flushes, closes and renames over the target. Empty on success, else why nothing was replaced.
  std::string commit();

 private:
  std::filesystem::path target_, temporary_;
  int fd_ = -1;
  FdStreamBuf buffer_;
  std::ostream stream_;
  bool committed_ = false;
};

// The whole of `bytes` written to `target` atomically; empty on success, else the reason.
std::string write_file_atomically(const std::filesystem::path& target, std::string_view bytes, unsigned mode = 0644);

}  // namespace cudnnlint
