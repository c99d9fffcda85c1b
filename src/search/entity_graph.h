// The graph channel (docs/graph.md): one memory revision's graph projection in memory — entities
// (subjects and objects of triples, folded) and the entry versions their edges are attached to —
// searched by the entities a query names and the entries linked to them within N hops.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace pc {

inline constexpr int kDefaultGraphHops = 2;
inline constexpr int kMaxGraphHops = 3;

// An edge for `triple` on version `v` (its entities' keys computed; revision left for the commit).
GraphEdge MakeGraphEdge(const GraphTriple& triple, const EntryVersion& v);

class EntityGraph {
 public:
  explicit EntityGraph(const std::vector<GraphEdge>& edges);

  // The next revision's graph from this one and what changed between them (ReadTxn::GraphDelta):
  // the edges of `removed_versions` leave, `added` join. Costs the graph's size in memory, not a
  // read of every edge from the store.
  EntityGraph Changed(const std::vector<std::string>& removed_versions,
                      const std::vector<GraphEdge>& added) const;
  // Whether any of `versions` has an edge here (if none has and nothing is added, a change leaves
  // the graph as it is).
  bool HasAnyVersion(const std::vector<std::string>& versions) const;

  size_t edge_count() const { return edges_.size(); }
  size_t entity_count() const { return entities_.size(); }

  struct Hit {
    std::string entry_id, entry_version_id;
    int hops = 0;      // 1: an edge of the entry touches an entity the query names
    int named = 0;     // how many entities the query names its edges touch
    double score = 0;  // in (0, 1): 1 / (hops + 1 / (1 + named))
  };
  // The entities whose name occurs in the query (case- and width-folded; ASCII names as whole
  // words), then breadth first over edges: an entry is at hop h when one of its edges touches an
  // entity reached in h - 1 hops. Best first: fewer hops, more named entities, then entry id.
  std::vector<Hit> Search(std::string_view query, int hops, size_t limit) const;
  // The entities the query names (their keys), for explanations and tests.
  std::vector<std::string> NamedEntities(std::string_view query) const;

 private:
  struct Edge {
    size_t subject, object, version;
  };
  std::vector<std::string> entities_;                     // keys
  std::unordered_map<std::string, size_t> entity_index_;  // key → entities_
  std::vector<std::vector<size_t>> edges_of_;             // entity → edges_
  std::vector<Edge> edges_;
  std::vector<std::pair<std::string, std::string>> versions_;  // entry_id, entry_version_id
  std::unordered_map<std::string, size_t> version_index_;      // entry_version_id → versions_

  void Add(const std::string& subject_key, const std::string& object_key,
           const std::string& entry_id, const std::string& entry_version_id);
  std::vector<size_t> Named(const std::string& folded_query) const;
};

}  // namespace pc
