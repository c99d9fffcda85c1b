#include "search/entity_graph.h"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "common/utf8.h"

namespace pc {

GraphEdge MakeGraphEdge(const GraphTriple& triple, const EntryVersion& v) {
  GraphEdge e;
  e.entry_id = v.entry_id;
  e.entry_version_id = v.entry_version_id;
  e.triple = triple;
  e.subject_key = FoldForMatch(triple.subject);
  e.object_key = FoldForMatch(triple.object);
  return e;
}

EntityGraph::EntityGraph(const std::vector<GraphEdge>& edges) {
  for (const GraphEdge& e : edges) Add(e.subject_key, e.object_key, e.entry_id, e.entry_version_id);
}

void EntityGraph::Add(const std::string& subject_key, const std::string& object_key,
                      const std::string& entry_id, const std::string& entry_version_id) {
  auto entity = [&](const std::string& key) {
    auto [it, added] = entity_index_.emplace(key, entities_.size());
    if (added) {
      entities_.push_back(key);
      edges_of_.emplace_back();
    }
    return it->second;
  };
  auto [v, added] = version_index_.emplace(entry_version_id, versions_.size());
  if (added) versions_.emplace_back(entry_id, entry_version_id);
  const size_t s = entity(subject_key), o = entity(object_key);
  edges_.push_back(Edge{s, o, v->second});
  edges_of_[s].push_back(edges_.size() - 1);
  if (o != s) edges_of_[o].push_back(edges_.size() - 1);
}

bool EntityGraph::HasAnyVersion(const std::vector<std::string>& versions) const {
  return std::any_of(versions.begin(), versions.end(),
                     [&](const std::string& v) { return version_index_.count(v) > 0; });
}

EntityGraph EntityGraph::Changed(const std::vector<std::string>& removed_versions,
                                 const std::vector<GraphEdge>& added) const {
  EntityGraph out({});
  if (!HasAnyVersion(removed_versions)) {
    out = *this;  // nothing leaves: the same graph, then the new edges
  } else {
    // Rebuilt from the edges kept, in their order: entities left without an edge go with them.
    std::unordered_set<std::string> gone(removed_versions.begin(), removed_versions.end());
    for (const Edge& e : edges_) {
      const auto& [entry_id, version_id] = versions_[e.version];
      if (!gone.count(version_id))
        out.Add(entities_[e.subject], entities_[e.object], entry_id, version_id);
    }
  }
  for (const GraphEdge& e : added)
    out.Add(e.subject_key, e.object_key, e.entry_id, e.entry_version_id);
  return out;
}

std::vector<size_t> EntityGraph::Named(const std::string& folded_query) const {
  std::vector<size_t> out;
  for (size_t i = 0; i < entities_.size(); ++i)
    if (FoldedContains(folded_query, entities_[i])) out.push_back(i);
  return out;
}

std::vector<std::string> EntityGraph::NamedEntities(std::string_view query) const {
  std::vector<std::string> out;
  for (size_t i : Named(FoldForMatch(query))) out.push_back(entities_[i]);
  return out;
}

std::vector<EntityGraph::Hit> EntityGraph::Search(std::string_view query, int hops,
                                                  size_t limit) const {
  constexpr int kUnreached = std::numeric_limits<int>::max();
  const std::vector<size_t> named = Named(FoldForMatch(query));
  if (named.empty() || limit == 0) return {};
  std::vector<int> entity_hops(entities_.size(), kUnreached),
      version_hops(versions_.size(), kUnreached);
  std::vector<int> version_named(versions_.size(), 0);
  std::vector<size_t> frontier = named;
  for (size_t e : named) entity_hops[e] = 0;
  // How many named entities each version's edges touch (each entity once per version).
  for (size_t e : named) {
    std::vector<size_t> seen;
    for (size_t edge : edges_of_[e]) {
      const size_t v = edges_[edge].version;
      if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
      seen.push_back(v);
      ++version_named[v];
    }
  }
  for (int h = 1; h <= hops && !frontier.empty(); ++h) {
    std::vector<size_t> next;
    for (size_t e : frontier)
      for (size_t edge : edges_of_[e]) {
        const Edge& x = edges_[edge];
        version_hops[x.version] = std::min(version_hops[x.version], h);
        for (size_t other : {x.subject, x.object})
          if (entity_hops[other] == kUnreached) {
            entity_hops[other] = h;
            next.push_back(other);
          }
      }
    frontier = std::move(next);
  }
  std::vector<Hit> out;
  for (size_t v = 0; v < versions_.size(); ++v) {
    if (version_hops[v] == kUnreached) continue;
    Hit hit{versions_[v].first, versions_[v].second, version_hops[v], version_named[v], 0};
    hit.score = 1.0 / (hit.hops + 1.0 / (1.0 + hit.named));
    out.push_back(std::move(hit));
  }
  std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) {
    if (a.hops != b.hops) return a.hops < b.hops;
    if (a.named != b.named) return a.named > b.named;
    return a.entry_id < b.entry_id;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace pc
