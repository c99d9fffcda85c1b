// The graph channel (docs/graph.md): triples in the model's answer, validated like operations;
// the projection per revision, written in the flush's transaction; search mode graph and its
// fusion in hybrid, with matched_by; on both stores.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "extract/operations.h"
#include "fake_chat.h"
#include "fake_openai.h"
#include "providers/openai_chat_extractor.h"
#include "search/entity_graph.h"
#include "service/core/validation.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "service/memory/write_policy.h"
#include "service/review/review_service.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc {
namespace {

GraphEdge Edge(const std::string& entry, const std::string& s, const std::string& r,
               const std::string& o) {
  EntryVersion v;
  v.entry_id = entry;
  v.entry_version_id = entry + "-v1";
  return MakeGraphEdge(GraphTriple{s, r, o, {}}, v);
}

std::vector<std::string> Entries(const std::vector<EntityGraph::Hit>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(h.entry_id);
  return out;
}

TEST(EntityGraph, NamedEntitiesThenHopsBestFirst) {
  EntityGraph g({Edge("e1", "Alice", "owns", "billing service"),
                 Edge("e2", "Billing Service", "uses", "PostgreSQL"),
                 Edge("e3", "张三", "负责", "支付系统"), Edge("e4", "Bob", "likes", "tea"),
                 Edge("e5", "PostgreSQL", "runs on", "Debian")});
  EXPECT_EQ(g.edge_count(), 5u);
  EXPECT_EQ(g.entity_count(), 8u) << "entities are folded: Billing Service is billing service";
  // One hop: the edges on the entities the query names.
  EXPECT_EQ(Entries(g.Search("What does ALICE own?", 1, 10)), std::vector<std::string>{"e1"});
  // Two hops: alice → billing service → postgresql; three: → debian.
  EXPECT_EQ(Entries(g.Search("What does Alice own?", 2, 10)),
            (std::vector<std::string>{"e1", "e2"}));
  EXPECT_EQ(Entries(g.Search("What does Alice own?", 3, 10)),
            (std::vector<std::string>{"e1", "e2", "e5"}));
  auto hits = g.Search("What does Alice own?", 2, 10);
  EXPECT_EQ(hits[0].hops, 1);
  EXPECT_EQ(hits[1].hops, 2);
  EXPECT_GT(hits[0].score, hits[1].score);
  // An entry touching two named entities ranks first among the one-hop ones.
  auto both = g.Search("billing service on postgresql", 1, 10);
  ASSERT_EQ(both.size(), 3u);
  EXPECT_EQ(both[0].entry_id, "e2");
  EXPECT_EQ(both[0].named, 2);
  // Chinese names match inside a sentence; ASCII names only as whole words ("tea" not in "steady").
  EXPECT_EQ(Entries(g.Search("张三现在在做什么？", 1, 10)), std::vector<std::string>{"e3"});
  EXPECT_TRUE(g.Search("a steady pace", 2, 10).empty());
  EXPECT_EQ(g.NamedEntities("Bob and tea"), (std::vector<std::string>{"bob", "tea"}));
  EXPECT_EQ(g.Search("What does Alice own?", 3, 2).size(), 2u) << "the limit holds";
  EXPECT_TRUE(EntityGraph({}).Search("Alice", 2, 10).empty());
}

TEST(ParseAnswerTriples, EachTripleIsCheckedOnItsOwn) {
  auto parsed = ParseAnswer(
      R"({"operations": [{"op": "add", "kind": "fact", "text": "Alice owns billing.", "evidence": ["S1"]}],
    "triples": [
      {"subject": "Alice", "relation": "owns", "object": "billing", "evidence": ["S1", "S1"]},
      {"subject": "Alice", "relation": "owns", "evidence": ["S1"]},
      {"subject": "A", "relation": "is", "object": "billing", "evidence": ["S1"]},
      {"subject": "Alice", "relation": "owns", "object": "billing", "evidence": ["S9"]},
      {"subject": "Alice", "relation": "owns", "object": "billing", "evidence": []},
      {"subject": "Alice", "relation": "", "object": "billing", "evidence": ["S1"]},
      "Alice owns billing"]})",
      1, 0, 16384);
  PC_ASSERT_OK(parsed);
  ASSERT_EQ(parsed->triples.size(), 1u);
  EXPECT_EQ(parsed->triples[0].subject, "Alice");
  EXPECT_EQ(parsed->triples[0].evidence, std::vector<size_t>{0}) << "each source once";
  ASSERT_EQ(parsed->rejected.size(), 6u);
  for (const Rejection& r : parsed->rejected)
    EXPECT_EQ(r.reason.rfind("triple: ", 0), 0u) << r.reason;
  EXPECT_NE(parsed->rejected[0].reason.find("no object"), std::string::npos);
  EXPECT_NE(parsed->rejected[1].reason.find("entity"), std::string::npos);
  EXPECT_NE(parsed->rejected[2].reason.find("S9"), std::string::npos);
  EXPECT_EQ(parsed->valid.size(), 1u) << "the operations are not affected";

  auto not_array = ParseAnswer(R"({"operations": [], "triples": {"subject": "x"}})", 1, 0, 16384);
  PC_ASSERT_OK(not_array);
  ASSERT_EQ(not_array->rejected.size(), 1u);
  EXPECT_EQ(not_array->rejected[0].reason, "triples: not an array");

  std::string many = R"({"operations": [], "triples": [)";
  for (size_t i = 0; i <= kMaxTriples; ++i)
    many += std::string(i ? "," : "") +
            R"({"subject": "Alice", "relation": "knows", "object": "Bob )" + std::to_string(i) +
            R"(", "evidence": ["S1"]})";
  auto capped = ParseAnswer(many + "]}", 1, 0, 16384);
  PC_ASSERT_OK(capped);
  EXPECT_EQ(capped->triples.size(), kMaxTriples);
  EXPECT_EQ(capped->rejected.size(), 1u);
}

class GraphFlushTest : public testing::ChatModelTest {
 protected:
  std::string scope = f.NewScope("project:graph");
  FlushService flush{*f.store, chat.get(), nullptr, {}};
  SearchService search{*f.store};

  void Add(const std::string& content) {
    ASSERT_TRUE(sources.Add(scope, {{"work_log", "", content, "{}", std::nullopt}}).ok());
  }
  // The window: Alice owns billing (S1), billing uses PostgreSQL (S2), and a remark nothing is kept
  // from (S3) whose triple has nothing to go with.
  FlushOutcome FlushThree() {
    Add("Alice owns the billing service now.");
    Add("The billing service uses PostgreSQL 15.");
    Add("Bob mentioned that he likes tea.");
    fake.ScriptChat({{R"({"operations": [
        {"op": "add", "kind": "fact", "text": "Alice owns the billing service.", "evidence": ["S1"]},
        {"op": "add", "kind": "fact", "text": "The billing service uses PostgreSQL 15.", "evidence": ["S2"]}],
      "triples": [
        {"subject": "Alice", "relation": "owns", "object": "billing service", "evidence": ["S1"]},
        {"subject": "billing service", "relation": "uses", "object": "PostgreSQL", "evidence": ["S2"]},
        {"subject": "Bob", "relation": "likes", "object": "tea", "evidence": ["S3"]}]})"}});
    auto out = flush.Flush(scope);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : FlushOutcome{};
  }
  std::vector<GraphEdge> EdgesAt(int64_t revision) {
    std::vector<GraphEdge> out;
    EXPECT_TRUE(f.store
                    ->Read([&](ReadTxn& txn) -> Status {
                      PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope));
                      PC_ASSIGN_OR_RETURN(out, txn.ListGraphEdges(memory.artifact_id, revision));
                      return Status::Ok();
                    })
                    .ok());
    return out;
  }
  Result<SearchResult> Search(const std::string& q, SearchMode mode, int hops = kDefaultGraphHops) {
    SearchRequest r;
    r.scope_id = scope;
    r.query = q;
    r.mode = mode;
    r.graph_hops = hops;
    return search.Search(r);
  }
};

TEST_F(GraphFlushTest, TriplesGoWithTheOperationsOfTheirSourcesInTheFlushRevision) {
  ASSERT_TRUE(
      f.memory->Remember({scope, "fact", "Deploys happen on Fridays.", "", "t", std::nullopt, {}})
          .ok());
  FlushOutcome out = FlushThree();
  ASSERT_EQ(out.changes.size(), 2u);
  ASSERT_EQ(out.rejected.size(), 1u);
  EXPECT_EQ(out.rejected[0].reason, "triple: no operation kept from its sources to attach it to");
  ASSERT_TRUE(out.memory);
  auto edges = EdgesAt(out.memory->revision);
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[0].triple.subject, "Alice");
  EXPECT_EQ(edges[0].subject_key, "alice");
  EXPECT_EQ(edges[0].entry_version_id, out.changes[0].version.entry_version_id);
  EXPECT_EQ(edges[0].revision, out.memory->revision);
  EXPECT_EQ(edges[0].triple.evidence, out.changes[0].version.source_refs);
  EXPECT_EQ(edges[1].entry_id, out.changes[1].version.entry_id);
  ASSERT_EQ(out.memory->revision, 2);
  EXPECT_TRUE(EdgesAt(1).empty()) << "the projection is per revision: none before the flush";
}

TEST_F(GraphFlushTest, GraphModeHybridFusionAndCapabilities) {
  auto none = Search("Alice", SearchMode::kGraph);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), Code::kCapabilityUnavailable);
  auto caps = search.Capabilities(scope);
  PC_ASSERT_OK(caps);
  auto graph_cap = std::find_if(caps->begin(), caps->end(),
                                [](const Capability& c) { return c.mode == "graph"; });
  ASSERT_NE(graph_cap, caps->end());
  EXPECT_FALSE(graph_cap->available);
  auto fts_only = Search("Alice", SearchMode::kAuto);
  PC_ASSERT_OK(fts_only);
  EXPECT_EQ(fts_only->mode_used, SearchMode::kFts) << "no embedder and no graph: auto is fts";

  FlushOutcome out = FlushThree();
  const std::string alice = out.changes[0].version.entry_id,
                    billing = out.changes[1].version.entry_id;
  // "What does Alice run on?" names Alice; billing is two hops away (alice → billing service).
  auto graph = Search("What does Alice run on?", SearchMode::kGraph);
  PC_ASSERT_OK(graph);
  EXPECT_EQ(graph->mode_used, SearchMode::kGraph);
  ASSERT_EQ(graph->hits.size(), 2u);
  EXPECT_EQ(graph->hits[0].item.version.entry_id, alice);
  EXPECT_EQ(graph->hits[1].item.version.entry_id, billing);
  EXPECT_EQ(graph->hits[0].matched_by, std::vector<std::string>{"graph"});
  auto one_hop = Search("What does Alice run on?", SearchMode::kGraph, 1);
  PC_ASSERT_OK(one_hop);
  EXPECT_EQ(one_hop->hits.size(), 1u);
  auto bad_hops = Search("Alice", SearchMode::kGraph, kMaxGraphHops + 1);
  ASSERT_FALSE(bad_hops.ok());
  EXPECT_EQ(bad_hops.status().code(), Code::kInvalidArgument);

  // Auto is now hybrid (fts + graph): the billing entry comes by the graph alone, and says so.
  auto hybrid = Search("What does Alice run on?", SearchMode::kAuto);
  PC_ASSERT_OK(hybrid);
  EXPECT_EQ(hybrid->mode_used, SearchMode::kHybrid);
  bool graph_only = false, both = false;
  for (const SearchHit& h : hybrid->hits) {
    EXPECT_LE(h.score, 1.0);
    if (h.item.version.entry_id == billing)
      graph_only = h.matched_by == std::vector<std::string>{"graph"};
    if (h.item.version.entry_id == alice)
      both = h.matched_by == std::vector<std::string>{"fts", "graph"};
  }
  EXPECT_TRUE(graph_only);
  EXPECT_TRUE(both);
  caps = search.Capabilities(scope);
  PC_ASSERT_OK(caps);
  for (const Capability& c : *caps) {
    if (c.mode == "graph" || c.mode == "hybrid") {
      EXPECT_TRUE(c.available) << c.mode;
    } else if (c.mode == "vector") {
      EXPECT_FALSE(c.available);
    }
  }
}

TEST_F(GraphFlushTest, RetireAndReviseEndAnEntrysEdgesAndPastRevisionsKeepThem) {
  FlushOutcome out = FlushThree();
  const int64_t flushed = out.memory->revision;
  // Revising the billing entry by hand: its edge was about the old text, so it leaves the head.
  Citation billing = out.changes[1].citation;
  PC_ASSERT_OK(f.memory->Revise(
      {scope, billing, "The billing service uses PostgreSQL 16.", std::nullopt, "", "t", {}}));
  EXPECT_EQ(EdgesAt(flushed + 1).size(), 1u);
  Citation alice = out.changes[0].citation;
  alice.memory.revision = flushed + 1;
  PC_ASSERT_OK(f.memory->Retire({scope, alice, "", "t"}));
  EXPECT_TRUE(EdgesAt(flushed + 2).empty());
  EXPECT_EQ(EdgesAt(flushed).size(), 2u) << "the flush's revision still reads as it was";
  auto gone = Search("Alice", SearchMode::kGraph);
  ASSERT_FALSE(gone.ok()) << "the head has no graph left";
  EXPECT_EQ(gone.status().code(), Code::kCapabilityUnavailable);
}

// In review mode the triples ride with the memory candidate, and its approval adds them.
TEST_F(GraphFlushTest, ReviewModeCarriesTriplesToTheApproval) {
  PC_ASSERT_OK(f.memory->SetSettings(scope, {{kSettingExtractionReview, std::string("review")}}));
  FlushOutcome out = FlushThree();
  ASSERT_EQ(out.candidates.size(), 2u);
  ReviewService review{*f.store};
  auto c = review.Get(scope, out.candidates[0]);
  PC_ASSERT_OK(c);
  ASSERT_TRUE(c->current.memory);
  ASSERT_EQ(c->current.memory->triples.size(), 1u);
  EXPECT_EQ(c->current.memory->triples[0].object, "billing service");
  // A reviewer's edit drops the model's triples (they described the model's text); the other
  // candidate, approved as proposed, keeps its own.
  ReviseCandidateRequest edit{
      scope,
      out.candidates[1],
      1,
      {},
      {},
      std::nullopt,
      std::nullopt,
      std::make_pair(std::string("fact"), std::string("Billing runs on PostgreSQL 15."))};
  auto edited = review.Revise(edit, "reviewer");
  PC_ASSERT_OK(edited);
  EXPECT_TRUE(edited->current.memory->triples.empty());
  auto approved = review.Approve(scope, out.candidates[0], 1, "reviewer");
  PC_ASSERT_OK(approved);
  auto edges = EdgesAt(approved->result->revision);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].triple.subject, "Alice");
}

// The search graph follows each new head from what changed since the cached one (a flush's
// triples, a revise, a retire, a write without triples). At every head the store's delta applied
// to the previous projection is the projection, and the warm service (moving its graph along)
// answers exactly as a cold one that builds the graph from every edge.
TEST_F(GraphFlushTest, EachHeadsGraphMovedByTheChangesIsTheGraphOfAllItsEdges) {
  auto key = [](const GraphEdge& e) {
    return e.entry_version_id + "|" + e.subject_key + "|" + e.object_key;
  };
  auto same_graph_everywhere = [&](int64_t before, int64_t head) {
    std::multiset<std::string> moved, built;
    for (const GraphEdge& e : EdgesAt(before)) moved.insert(key(e));
    PC_ASSERT_OK(f.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope));
      PC_ASSIGN_OR_RETURN(ReadTxn::GraphDelta delta,
                          txn.ListGraphChanges(memory.artifact_id, before, head));
      for (const std::string& v : delta.removed_versions)
        for (auto it = moved.begin(); it != moved.end();)
          it = it->rfind(v + "|", 0) == 0 ? moved.erase(it) : ++it;
      for (const GraphEdge& e : delta.added) moved.insert(key(e));
      return Status::Ok();
    }));
    for (const GraphEdge& e : EdgesAt(head)) built.insert(key(e));
    EXPECT_EQ(moved, built) << "from revision " << before << " to " << head;
    SearchService cold{*f.store};
    for (const char* q :
         {"What does Alice run on?", "Carol", "billing service", "PostgreSQL", "tea"}) {
      SearchRequest r;
      r.scope_id = scope;
      r.query = q;
      r.mode = SearchMode::kGraph;
      r.graph_hops = 3;
      auto warm = search.Search(r), fresh = cold.Search(r);
      ASSERT_EQ(warm.ok(), fresh.ok()) << q << " at " << head;
      if (!warm.ok()) {
        EXPECT_EQ(warm.status().code(), fresh.status().code());
        continue;
      }
      ASSERT_EQ(warm->hits.size(), fresh->hits.size()) << q << " at " << head;
      for (size_t i = 0; i < warm->hits.size(); ++i) {
        EXPECT_EQ(warm->hits[i].item.version.entry_version_id,
                  fresh->hits[i].item.version.entry_version_id)
            << q;
        EXPECT_EQ(warm->hits[i].score, fresh->hits[i].score) << q;
      }
    }
  };
  auto head = [&] {
    int64_t at = 0;
    EXPECT_TRUE(f.store
                    ->Read([&](ReadTxn& txn) -> Status {
                      PC_ASSIGN_OR_RETURN(Artifact memory, LoadMemory(txn, scope));
                      at = memory.head_revision;
                      return Status::Ok();
                    })
                    .ok());
    return at;
  };
  PC_ASSERT_OK(
      f.memory->Remember({scope, "fact", "Deploys happen on Fridays.", "", "t", std::nullopt, {}}));
  FlushOutcome first = FlushThree();
  ASSERT_TRUE(first.memory);
  same_graph_everywhere(1, first.memory->revision);
  int64_t at = head();
  // A write without triples: the graph stays.
  PC_ASSERT_OK(f.memory->Remember(
      {scope, "fact", "Releases are tagged on Mondays.", "", "t", std::nullopt, {}}));
  same_graph_everywhere(at, head());
  // A second flush: Carol joins, through billing service to the rest.
  at = head();
  Add("Carol reads the billing service reports.");
  fake.ScriptChat({{R"({"operations": [
      {"op": "add", "kind": "fact", "text": "Carol reads the billing service reports.", "evidence": ["S1"]}],
    "triples": [{"subject": "Carol", "relation": "reads", "object": "billing service", "evidence": ["S1"]}]})"}});
  auto second = flush.Flush(scope);
  PC_ASSERT_OK(second);
  same_graph_everywhere(at, head());
  // A revise ends the billing entry's edge; a retire ends Alice's.
  at = head();
  Citation billing = first.changes[1].citation;
  billing.memory.revision = at;
  PC_ASSERT_OK(f.memory->Revise(
      {scope, billing, "The billing service uses PostgreSQL 16.", std::nullopt, "", "t", {}}));
  same_graph_everywhere(at, head());
  Citation alice = first.changes[0].citation;
  alice.memory.revision = head();
  PC_ASSERT_OK(f.memory->Retire({scope, alice, "", "t"}));
  same_graph_everywhere(at, head());  // two heads at once
  same_graph_everywhere(1, head());   // and from the start
}

}  // namespace
}  // namespace pc
