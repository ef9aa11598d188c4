// What makes a cache entry trustworthy: an HMAC-SHA256 tag over the entry's name and bytes, keyed
// by a secret that lives in the user's cache home ($XDG_CACHE_HOME/cudnnlint/key, else
// ~/.cache/cudnnlint/key), never in the analysed tree. A tree can commit a cache folder, or a file
// at any entry's name (the names are content hashes anyone can compute), but without the key it
// cannot make a tag that verifies: its entries are misses, as a damaged one is.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace cudnnlint::cache {

class Authenticator {
 public:
  static constexpr std::size_t kTagSize = 32;
  using Tag = std::array<unsigned char, kTagSize>;
  using Key = std::array<unsigned char, 32>;

  explicit Authenticator(const Key& key);
  ~Authenticator();
  Authenticator(Authenticator&&) noexcept;
  Authenticator& operator=(Authenticator&&) noexcept;
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;

  // The user's key, created (32 random bytes, mode 0600) on first use; nullopt with `problem`
  // set when there is no cache home, or the key file is not a regular file of the user's own
  // that only the user can read.
  static std::optional<Authenticator> for_user(std::string& problem);

  Tag tag(std::string_view name, std::string_view bytes) const;
  // `signed_bytes` ends with a tag over `name` and what precedes it: that part, when it verifies.
  std::optional<std::string_view> open(std::string_view name, std::string_view signed_bytes) const;
  std::string seal(std::string_view name, std::string bytes) const;  // bytes + tag

 private:
  struct Mac;
  Key key_;
  std::unique_ptr<Mac> mac_;
};

}  // namespace cudnnlint::cache
