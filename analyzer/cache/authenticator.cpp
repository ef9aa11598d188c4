#include "cache/authenticator.h"

#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace cudnnlint::cache {

// The fetched HMAC implementation, shared by every tag this authenticator makes.
struct Authenticator::Mac {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  ~Mac() { EVP_MAC_free(mac); }
};

Authenticator::Authenticator(const Key& key) : key_(key), mac_(std::make_unique<Mac>()) {
  if (mac_->mac == nullptr) throw std::runtime_error("OpenSSL has no HMAC");
}
Authenticator::~Authenticator() { OPENSSL_cleanse(key_.data(), key_.size()); }
Authenticator::Authenticator(Authenticator&&) noexcept = default;
Authenticator& Authenticator::operator=(Authenticator&&) noexcept = default;

Authenticator::Tag Authenticator::tag(std::string_view name, std::string_view bytes) const {
  Tag out{};
  std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_new(mac_->mac), EVP_MAC_CTX_free);
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  // The name's length first, so that (name, bytes) pairs cannot run into each other.
  const std::uint64_t name_size = name.size();
  std::size_t written = 0;
  if (!ctx || EVP_MAC_init(ctx.get(), key_.data(), key_.size(), params) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(&name_size), sizeof name_size) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(name.data()), name.size()) != 1 ||
      EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()) != 1 ||
      EVP_MAC_final(ctx.get(), out.data(), &written, out.size()) != 1 || written != out.size())
    throw std::runtime_error("HMAC-SHA256 failed");
  return out;
}

std::optional<std::string_view> Authenticator::open(std::string_view name, std::string_view signed_bytes) const {
  if (signed_bytes.size() < kTagSize) return std::nullopt;
  const std::string_view body = signed_bytes.substr(0, signed_bytes.size() - kTagSize);
  const Tag expected = tag(name, body);
  if (CRYPTO_memcmp(expected.data(), signed_bytes.data() + body.size(), kTagSize) != 0) return std::nullopt;
  return body;
}

std::string Authenticator::seal(std::string_view name, std::string bytes) const {
  const Tag t = tag(name, bytes);
  bytes.append(reinterpret_cast<const char*>(t.data()), t.size());
  return bytes;
}

namespace {

std::filesystem::path key_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
    return std::filesystem::path(xdg) / "cudnnlint";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    return std::filesystem::path(home) / ".cache" / "cudnnlint";
  return {};
}

// Reads the key from an open file that must be the user's own, private and exactly a key long.
bool read_key(int fd, Authenticator::Key& key, std::string& problem) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = "not a regular file";
    return false;
  }
  if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    problem = "not private to this user (it must be theirs, mode 0600)";
    return false;
  }
  std::size_t done = 0;
  while (done < key.size()) {
    const ssize_t n = ::read(fd, key.data() + done, key.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done != key.size() || static_cast<std::size_t>(st.st_size) != key.size()) {
    problem = "not a key (" + std::to_string(st.st_size) + " bytes)";
    return false;
  }
  return true;
}

}  // namespace

std::optional<Authenticator> Authenticator::for_user(std::string& problem) {
  const std::filesystem::path folder = key_folder();
  if (folder.empty()) {
    problem = "no place for the cache's key: neither $XDG_CACHE_HOME nor $HOME is an absolute path";
    return std::nullopt;
  }
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  const std::filesystem::path file = folder / "key";
  Key key{};
  std::string why;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int existing = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (existing >= 0) {
      const bool ok = read_key(existing, key, why);
      ::close(existing);
      if (ok) return Authenticator(key);
      problem = "the cache's key " + file.string() + ": " + why;
      return std::nullopt;
    }
    if (errno != ENOENT) break;
    // Written under a temporary name and linked into place, so a reader never sees half a key
    // (not core/atomic_file: its rename would replace a key another run linked meanwhile).
    if (::getrandom(key.data(), key.size(), 0) != static_cast<ssize_t>(key.size())) break;
    const std::string temp = file.string() + "." + std::to_string(::getpid()) + ".new";
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) break;
    const bool written = ::write(fd, key.data(), key.size()) == static_cast<ssize_t>(key.size());
    ::close(fd);
    // link() fails when another run made the key first: then that one is read.
    if (written && ::link(temp.c_str(), file.c_str()) == 0) {
      ::unlink(temp.c_str());
      return Authenticator(key);
    }
    ::unlink(temp.c_str());
  }
  problem = "cannot create the cache's key " + file.string() + ": " + std::strerror(errno);
  return std::nullopt;
}

}  // namespace cudnnlint::cache
