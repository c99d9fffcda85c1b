#include "store/postgres/pg_gate_lists.h"

#include <algorithm>
#include <functional>
#include <map>

namespace pc::pg {

struct GateLists::Noted {
  std::vector<Change> changes;  // in the revision's order: its newest change is the last
  size_t cost = 0;              // in `listed`: its versions'
};

struct GateLists::Memory {
  explicit Memory(size_t max_version_units) : max_version_units(max_version_units) {}
  const size_t max_version_units;
  uint64_t used = 0;     // the tick of its last lookup
  int64_t claimed = -1;  // the revision a lookup is reading the changes up to (Claim), or -1
  int64_t revision = -1;
  size_t cap = 0;                                               // of every list (0: none put yet)
  std::unordered_map<std::string, std::vector<int64_t>> lists;  // term → documents, descending
  // A document → the terms whose lists hold it (keys of `lists`, whose nodes never move).
  std::unordered_map<int64_t, std::vector<const std::string*>> holding;
  std::vector<int64_t> recent;  // the newest changes' documents, newest first (FindRecent)
  size_t recent_cap = 0;        // how many `recent` stands for (0: not kept)
  std::map<int64_t, EntryVersion> versions;  // active documents' (candidates'), by document
  size_t version_units = 0;                  // versions' VersionCost, in all
  size_t listed = kTermCost;  // its documents in lists, kTermCost a list and one for itself,
                              // version_units and the noted revisions' cost

  using List = std::unordered_map<std::string, std::vector<int64_t>>::iterator;

  static bool Holds(const std::vector<int64_t>& docs, int64_t doc) {
    return std::binary_search(docs.begin(), docs.end(), doc, std::greater<>());
  }
  void Hold(int64_t doc, const std::string* term) { holding[doc].push_back(term); }
  void Unhold(int64_t doc, const std::string* term) {
    auto h = holding.find(doc);
    if (h == holding.end()) return;
    auto& terms = h->second;
    terms.erase(std::remove(terms.begin(), terms.end(), term), terms.end());
    if (terms.empty()) holding.erase(h);
  }
  void Insert(List l, int64_t doc) {
    auto& docs = l->second;
    docs.insert(std::lower_bound(docs.begin(), docs.end(), doc, std::greater<>()), doc);
    Hold(doc, &l->first);
    ++listed;
  }
  void Erase(List l, int64_t doc) {
    auto& docs = l->second;
    auto at = std::lower_bound(docs.begin(), docs.end(), doc, std::greater<>());
    if (at == docs.end() || *at != doc) return;
    docs.erase(at);
    Unhold(doc, &l->first);
    --listed;
  }
  void Forget(List l) {
    for (int64_t doc : l->second) Unhold(doc, &l->first);
    listed -= l->second.size() + kTermCost;
    lists.erase(l);
  }

  static size_t VersionCost(const EntryVersion& v) {  // in listed documents (8 bytes)
    size_t bytes = 256 + v.text.size() + v.reason.size();
    for (const std::string& ref : v.source_refs) bytes += 32 + ref.size();
    return bytes / 8;
  }
  void KeepVersion(int64_t doc, EntryVersion v) {
    DropVersion(doc);
    const size_t cost = VersionCost(v);
    versions.emplace(doc, std::move(v));
    version_units += cost;
    listed += cost;
    while (version_units > max_version_units) DropVersion(versions.begin());  // oldest first
  }
  void DropVersion(int64_t doc) {
    if (auto it = versions.find(doc); it != versions.end()) DropVersion(it);
  }
  void DropVersion(std::map<int64_t, EntryVersion>::iterator it) {
    const size_t cost = VersionCost(it->second);
    version_units -= cost;
    listed -= cost;
    versions.erase(it);
  }

  // Revisions this server wrote past `revision` (GateLists::Note); past kMaxNoted, the newest are
  // not kept (the lists follow them only from `revision` on, one after another).
  std::map<int64_t, Noted> noted;
  void KeepNoted(int64_t at, Noted n) {
    if (noted.size() >= kMaxNoted) return;
    for (const Change& c : n.changes) n.cost += c.active ? VersionCost(c.version) : 1;
    const size_t cost = n.cost;
    if (noted.emplace(at, std::move(n)).second) listed += cost;
  }
  void DropNoted(std::map<int64_t, Noted>::iterator it) {
    listed -= it->second.cost;
    noted.erase(it);
  }
  void DropNoted() {  // what the lists are at or past
    while (!noted.empty() && noted.begin()->first <= revision) DropNoted(noted.begin());
  }
  // The noted revisions that follow the lists' own one another, up to `to`.
  void FollowNoted(int64_t to) {
    for (auto it = noted.find(revision + 1); it != noted.end() && it->first <= to;
         it = noted.find(revision + 1)) {
      std::vector<int64_t> recent;  // its changes' documents, newest first
      for (const Change& c : it->second.changes) {
        Follow(c);
        recent.push_back(c.doc);
      }
      std::reverse(recent.begin(), recent.end());
      FollowRecent(recent, recent_cap);
      revision = it->first;
    }
    DropNoted();
  }

  // `newer`: the documents of the newest changes after `recent`'s, newest first, up to `cap`.
  void FollowRecent(const std::vector<int64_t>& newer, size_t cap) {
    if (cap == 0 || cap != recent_cap) {
      recent.clear();
      recent_cap = 0;
      return;
    }
    std::vector<int64_t> now(newer.begin(), newer.begin() + std::min(newer.size(), cap));
    for (size_t i = 0; now.size() < cap && i < recent.size(); ++i) now.push_back(recent[i]);
    recent = std::move(now);
  }

  void Follow(const Change& c) {
    if (c.active)
      KeepVersion(c.doc, c.version);  // a changed document is the next writes' recent candidate
    else
      DropVersion(c.doc);
    const std::vector<std::string>& terms = c.terms;
    if (auto h = holding.find(c.doc); h != holding.end()) {
      const std::vector<const std::string*> held = h->second;  // changed below
      for (const std::string* term : held) {
        if (c.active && std::binary_search(terms.begin(), terms.end(), *term)) continue;
        List l = lists.find(*term);
        if (l->second.size() >= cap)
          Forget(l);  // full: the document after its last is unknown
        else
          Erase(l, c.doc);
      }
    }
    if (!c.active) return;
    for (const std::string& term : terms) {
      List l = lists.find(term);
      if (l == lists.end() || Holds(l->second, c.doc)) continue;
      if (l->second.size() < cap) {  // every active document with the term: it joins
        Insert(l, c.doc);
      } else if (c.doc > l->second.back()) {  // among the newest `cap`: the last leaves
        const int64_t last = l->second.back();
        l->second.pop_back();
        Unhold(last, &l->first);
        --listed;
        Insert(l, c.doc);
      }
    }
  }
};

GateLists::GateLists(size_t max_listed, std::chrono::milliseconds claim_wait)
    : max_listed_(max_listed), claim_wait_(claim_wait) {}
GateLists::~GateLists() = default;

void GateLists::Fit() {
  while (listed_ > max_listed_ && !memories_.empty()) {
    auto oldest = memories_.begin();
    for (auto it = memories_.begin(); it != memories_.end(); ++it)
      if (it->second->used < oldest->second->used) oldest = it;
    listed_ -= oldest->second->listed;
    memories_.erase(oldest);
  }
}

int64_t GateLists::Revision(const std::string& memory) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  return it == memories_.end() ? -1 : it->second->revision;
}

int64_t GateLists::Claim(const std::string& memory, int64_t to) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + claim_wait_;
  for (bool late = false;;) {
    auto it = memories_.find(memory);
    if (it == memories_.end()) return -1;
    Memory& m = *it->second;
    if (m.revision >= to || to - m.revision > kMaxCatchUp) return m.revision;
    if (m.claimed < 0) {
      m.claimed = to;
      const size_t before = m.listed;
      m.FollowNoted(to);  // what this server wrote needs no read
      listed_ = listed_ - before + m.listed;
      return m.revision;
    }
    // An older snapshot's lookup has nothing to wait for (it reads the index: the lists will be
    // past it); one at a later head waits, then brings them on from where the other left them.
    if (to < m.claimed || late) return m.revision;  // or the other is slow: read alongside
    late = caught_up_.wait_until(lock, deadline) == std::cv_status::timeout;
  }
}

void GateLists::Unclaim(const std::string& memory, int64_t to) {
  std::lock_guard<std::mutex> lock(mu_);
  Unclaimed(memory, to);
}

void GateLists::Unclaimed(const std::string& memory, int64_t to) {
  if (auto it = memories_.find(memory); it != memories_.end() && it->second->claimed == to)
    it->second->claimed = -1;
  caught_up_.notify_all();
}

bool GateLists::Advance(const std::string& memory, int64_t from, int64_t to,
                        const std::vector<Change>& changes, const std::vector<int64_t>& recent,
                        size_t recent_cap) {
  std::lock_guard<std::mutex> lock(mu_);
  Unclaimed(memory, to);
  auto it = memories_.find(memory);
  const int64_t now = it == memories_.end() ? -1 : it->second->revision;
  if (now == to) return true;
  if (now != from || to < from) return false;
  if (from < 0 || to - from > kMaxCatchUp) {  // start empty at `to`
    if (it != memories_.end()) listed_ -= it->second->listed;
    auto fresh = std::make_unique<Memory>(max_listed_ / 4);
    fresh->revision = to;
    fresh->used = ++ticks_;
    listed_ += fresh->listed;
    memories_[memory] = std::move(fresh);
  } else {
    Memory& m = *it->second;
    const size_t before = m.listed;
    for (const Change& c : changes) m.Follow(c);
    m.FollowRecent(recent, recent_cap);
    m.revision = to;
    m.DropNoted();
    m.used = ++ticks_;
    listed_ = listed_ - before + m.listed;
  }
  Fit();
  return true;
}

void GateLists::Note(const std::string& memory, int64_t revision,
                     const std::vector<Change>& changes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  if (it == memories_.end() || revision <= it->second->revision ||
      revision - it->second->revision > kMaxCatchUp)
    return;
  Memory& m = *it->second;
  const size_t before = m.listed;
  m.KeepNoted(revision, Noted{changes});
  listed_ = listed_ - before + m.listed;
  Fit();
}

void GateLists::Find(const std::string& memory, int64_t at, size_t cap,
                     const std::vector<std::string>& terms,
                     std::vector<std::vector<int64_t>>& lists, std::vector<bool>& found) const {
  lists.assign(terms.size(), {});
  found.assign(terms.size(), false);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  if (it == memories_.end() || it->second->revision != at || it->second->cap != cap) return;
  const Memory& m = *it->second;
  it->second->used = ++ticks_;
  for (size_t i = 0; i < terms.size(); ++i)
    if (auto l = m.lists.find(terms[i]); l != m.lists.end()) {
      lists[i] = l->second;
      found[i] = true;
    }
}

void GateLists::Put(const std::string& memory, int64_t at, size_t cap, const std::string& term,
                    std::vector<int64_t> docs) {
  if (cap == 0 || docs.size() > cap) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  if (it == memories_.end() || it->second->revision != at) return;
  Memory& m = *it->second;
  const size_t before = m.listed;
  if (m.cap != cap) {  // another cap's lists: forgotten (the gate uses one)
    while (!m.lists.empty()) m.Forget(m.lists.begin());
    m.cap = cap;
  }
  auto [l, added] = m.lists.try_emplace(term);
  if (added) {
    std::sort(docs.begin(), docs.end(), std::greater<>());
    l->second = std::move(docs);
    for (int64_t doc : l->second) m.Hold(doc, &l->first);
    m.listed += l->second.size() + kTermCost;
  }
  listed_ = listed_ - before + m.listed;
  Fit();
}

void GateLists::FindVersions(const std::string& memory, int64_t at,
                             const std::vector<int64_t>& docs,
                             std::vector<std::optional<EntryVersion>>& versions) const {
  versions.assign(docs.size(), std::nullopt);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  if (it == memories_.end() || it->second->revision != at) return;
  const Memory& m = *it->second;
  for (size_t i = 0; i < docs.size(); ++i)
    if (auto v = m.versions.find(docs[i]); v != m.versions.end()) versions[i] = v->second;
}

void GateLists::PutVersions(const std::string& memory, int64_t at,
                            std::vector<std::pair<int64_t, EntryVersion>> versions) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  if (it == memories_.end() || it->second->revision != at) return;
  Memory& m = *it->second;
  const size_t before = m.listed;
  for (auto& [doc, v] : versions) m.KeepVersion(doc, std::move(v));
  listed_ = listed_ - before + m.listed;
  Fit();
}

bool GateLists::FindRecent(const std::string& memory, int64_t at, size_t cap,
                           std::vector<int64_t>& docs) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  if (it == memories_.end() || it->second->revision != at || it->second->recent_cap != cap ||
      cap == 0)
    return false;
  docs = it->second->recent;
  return true;
}

void GateLists::PutRecent(const std::string& memory, int64_t at, size_t cap,
                          std::vector<int64_t> docs) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memories_.find(memory);
  if (it == memories_.end() || it->second->revision != at || docs.size() > cap) return;
  it->second->recent = std::move(docs);
  it->second->recent_cap = cap;
}

void GateLists::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  memories_.clear();
  listed_ = 0;
}

size_t GateLists::listed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return listed_;
}

}  // namespace pc::pg
