#pragma once
// What the user imports while the program runs (a transformer from a config.json, a graph from
// an ONNX file): kept for the life of the process at stable addresses (references handed out
// stay valid), found by id, and guarded by one mutex (the GUI may import off its thread).
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace core::util {

template <class T>
class ImportRegistry {
public:
  using IdOf = const std::string& (*)(const T&);
  // `cap`: how many may be imported; past it add() throws, so a runaway caller (a script, a
  // fuzzer) is stopped rather than let grow.
  ImportRegistry(IdOf idOf, std::size_t cap) : m_idOf(idOf), m_cap(cap) {}

  const T* find(const std::string& id) const {
    std::lock_guard lock(m_mutex);
    return findLocked(id);
  }

  std::vector<const T*> items() const {
    std::lock_guard lock(m_mutex);
    std::vector<const T*> out;
    for (const auto& i : m_items) out.push_back(i.get());
    return out;
  }

  // Stores `item` unless `admit`, called under the lock as admit(item, lookup) with lookup(id)
  // finding a stored item, returns a stored one to hand back instead. `admit` may rename `item`
  // or throw; it must not call find() (the lock is held).
  template <class Admit>
  const T& add(T item, Admit admit) {
    std::lock_guard lock(m_mutex);
    if (const T* existing = admit(item, [this](const std::string& id) { return findLocked(id); })) return *existing;
    if (m_items.size() >= m_cap)
      throw Error("model '" + m_idOf(item) + "': " + std::to_string(m_cap) +
                  " models imported already; restart AccelLab to import more");
    m_items.push_back(std::make_unique<T>(std::move(item)));
    return *m_items.back();
  }

private:
  const T* findLocked(const std::string& id) const {
    for (const auto& i : m_items)
      if (m_idOf(*i) == id) return i.get();
    return nullptr;
  }

  IdOf m_idOf;
  std::size_t m_cap;
  mutable std::mutex m_mutex;
  std::deque<std::unique_ptr<T>> m_items;
};

}  // namespace core::util
