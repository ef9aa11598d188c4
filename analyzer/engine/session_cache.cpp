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

std::optional<cache::Hash128> SessionCache::known_hash(const std::string& path, const cache::FileStat& now) const {
  const std::lock_guard lock(mutex_);
  const auto it = hashes_.find(path);
  if (it == hashes_.end() || it->second.first != now) return std::nullopt;
  return it->second.second;
}

void SessionCache::remember_hash(const std::string& path, const cache::FileStat& stat, const cache::Hash128& hash) {
  if (!cache::stat_is_settled(stat)) return;
  const std::lock_guard lock(mutex_);
  if (hashes_.size() >= max_entries_ && !hashes_.contains(path)) hashes_.clear();  // rarely reached
  hashes_.insert_or_assign(path, std::pair{stat, hash});
}

cache::Hash128 SessionFirstPass::slot_of(std::size_t file) const {
  const ModuleInfo& module = modules_.of(file);
  cache::KeyBuilder slot;
  slot.add("session python").add(fingerprint_).add(files_[file]).add(module.name);
  slot.add(static_cast<std::uint64_t>(module.is_package));
  return slot.key();
}

std::optional<PythonFileResult> SessionFirstPass::before_read(std::size_t file) {
  // An open document's text is the editor's buffer, not the file: it is read (from the overlay).
  if (open_ != nullptr && open_->contains(files_[file])) return std::nullopt;
  stats_[file] = cache::stat_file(files_[file]);
  if (!stats_[file]) return std::nullopt;
  const auto hash = session_.known_hash(files_[file], *stats_[file]);
  if (!hash) return std::nullopt;
  const cache::Hash128 slot_key = slot_of(file);
  const cache::Hash128 key = cache::KeyBuilder().add(slot_key).add(*hash).key();
  keys_[file] = std::pair{key, slot_key};
  return session_.find(key);
}

std::optional<PythonFileResult> SessionFirstPass::after_read(std::size_t file, std::string_view bytes) {
  if (open_ != nullptr && open_->contains(files_[file])) return std::nullopt;
  const cache::Hash128 slot_key = slot_of(file);
  const cache::Hash128 hash = cache::hash_bytes(bytes);
  if (stats_[file]) session_.remember_hash(files_[file], *stats_[file], hash);
  const cache::Hash128 key = cache::KeyBuilder().add(slot_key).add(hash).key();
  keys_[file] = std::pair{key, slot_key};
  return session_.find(key);
}

void SessionFirstPass::store(std::size_t file, const PythonFileResult& result) {
  if (keys_[file] && result.cacheable) session_.put(keys_[file]->first, keys_[file]->second, result);
}

}  // namespace cudnnlint
