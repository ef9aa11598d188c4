#include "engine/session_cache.h"

namespace cudnnlint {

std::optional<PythonFileResult> SessionCache::find(const cache::Hash128& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  ++hits_;
  return it->second;
}

void SessionCache::put(const cache::Hash128& key, const cache::Hash128& slot, const PythonFileResult& result) {
  const std::lock_guard lock(mutex_);
  if (const auto previous = slots_.find(slot); previous != slots_.end() && previous->second != key)
    entries_.erase(previous->second);  // the file's earlier bytes in this role
  slots_.insert_or_assign(slot, key);
  if (!entries_.insert_or_assign(key, result).second) return;  // known already
  order_.push_back(key);
  while (entries_.size() > max_entries_ && !order_.empty()) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
  // Keys replaced in their slot linger in order_: dropped once they outnumber the live ones.
  if (order_.size() > 2 * max_entries_) std::erase_if(order_, [&](const cache::Hash128& k) { return !entries_.contains(k); });
}

std::size_t SessionCache::size() const {
  const std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t SessionCache::hits() const {
  const std::lock_guard lock(mutex_);
  return hits_;
}

std::shared_ptr<const python::ModuleExports> SessionCache::find_exports(const cache::Hash128& key) const {
  const std::lock_guard lock(mutex_);
  const auto it = exports_.find(key);
  return it == exports_.end() ? nullptr : it->second;
}

void SessionCache::put_exports(const cache::Hash128& key, const cache::Hash128& slot,
                               std::shared_ptr<const python::ModuleExports> exports) {
  const std::lock_guard lock(mutex_);
  if (const auto previous = export_slots_.find(slot); previous != export_slots_.end() && previous->second != key)
    exports_.erase(previous->second);
  export_slots_.insert_or_assign(slot, key);
  if (exports_.size() >= max_entries_) exports_.clear();  // a session's worth of modules; rarely reached
  exports_.insert_or_assign(key, std::move(exports));
}

std::optional<PythonFileResult> SessionFirstPass::after_read(std::size_t file, std::string_view bytes) {
  if (open_ != nullptr && open_->contains(files_[file])) return std::nullopt;
  const ModuleInfo& module = modules_.of(file);
  cache::KeyBuilder slot;
  slot.add("session python").add(fingerprint_).add(files_[file]).add(module.name);
  slot.add(static_cast<std::uint64_t>(module.is_package));
  const cache::Hash128 slot_key = slot.key();
  const cache::Hash128 key = cache::KeyBuilder().add(slot_key).add(cache::hash_bytes(bytes)).key();
  keys_[file] = std::pair{key, slot_key};
  return session_.find(key);
}

void SessionFirstPass::store(std::size_t file, const PythonFileResult& result) {
  if (keys_[file] && result.cacheable) session_.put(keys_[file]->first, keys_[file]->second, result);
}

}  // namespace cudnnlint
