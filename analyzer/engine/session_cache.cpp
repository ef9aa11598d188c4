#include "engine/session_cache.h"

namespace cudnnlint {

std::optional<PythonFileResult> SessionCache::find(const cache::Hash128& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  ++hits_;
  return it->second;
}

void SessionCache::put(const cache::Hash128& key, const PythonFileResult& result) {
  const std::lock_guard lock(mutex_);
  if (!entries_.insert_or_assign(key, result).second) return;  // known already
  order_.push_back(key);
  while (entries_.size() > max_entries_ && !order_.empty()) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
}

std::size_t SessionCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t SessionCache::hits() const {
  const std::lock_guard lock(mutex_);
  return hits_;
}

std::optional<PythonFileResult> SessionFirstPass::after_read(std::size_t file, std::string_view bytes) {
  const ModuleInfo& module = modules_.of(file);
  cache::KeyBuilder key;
  key.add("session python").add(fingerprint_).add(files_[file]).add(module.name);
  key.add(static_cast<std::uint64_t>(module.is_package)).add(cache::hash_bytes(bytes));
  keys_[file] = key.key();
  return session_.find(*keys_[file]);
}

void SessionFirstPass::store(std::size_t file, const PythonFileResult& result) {
  if (keys_[file] && result.cacheable) session_.put(*keys_[file], result);
}

}  // namespace cudnnlint
