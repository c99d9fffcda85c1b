// The approximate graph (hnswlib) and how a VectorIndex uses it: recall against the exact scan,
// stale versions never returned, vectors that changed since the build searched exactly, and
// saved graphs checked against the store before they are trusted.
#include "search/ann_graph.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "random_unit.h"
#include "search/hash_embedder.h"
#include "search/int8_code.h"
#include "search/vector_index.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc {
namespace {

constexpr size_t kDim = 48;

std::vector<float> RandomUnit(std::mt19937& rng) { return testing::RandomUnit(rng, kDim); }

std::string Version(int i) { return "env_" + std::to_string(i); }

// The same random entries in an exact index and in one with a graph.
struct Pair {
  VectorIndex exact{kDim}, approx{kDim};
  std::mt19937 rng{7};
  void Upsert(int entry, const std::string& version, bool active, const std::vector<float>& v) {
    exact.Upsert("ent_" + std::to_string(entry), version, active, v.data());
    approx.Upsert("ent_" + std::to_string(entry), version, active, v.data());
  }
  void BuildGraph() {
    auto snap = approx.TakeSnapshot();
    auto g = AnnGraph::Build(kDim, snap.rows.data(), std::move(snap.members));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    approx.AttachGraph(std::move(g).value());
  }
  // Share of the exact top 10 the approximate search finds, over `queries` random queries.
  double Recall(int queries) {
    double found = 0;
    for (int q = 0; q < queries; ++q) {
      auto query = RandomUnit(rng);
      std::set<std::string> truth;
      for (const auto& h : exact.Nearest(query, false, -1, 10)) truth.insert(h.version_id);
      for (const auto& h : approx.Nearest(query, false, -1, 10)) found += truth.count(h.version_id);
    }
    return found / (10.0 * queries);
  }
};

TEST(AnnGraph, RecallAgainstTheExactScan) {
  Pair p;
  for (int i = 0; i < 3000; ++i) p.Upsert(i, Version(i), true, RandomUnit(p.rng));
  p.BuildGraph();
  EXPECT_TRUE(p.approx.has_graph());
  EXPECT_EQ(p.approx.tail_size(), 0u);
  EXPECT_GE(p.Recall(100), 0.95);
}

// Inserting from several threads at once (how the vector cache builds): every row is in the graph
// once, and recall is what one thread gets.
TEST(AnnGraph, BuiltFromSeveralThreadsHoldsEveryRowAndKeepsItsRecall) {
  Pair p;
  for (int i = 0; i < 3000; ++i) p.Upsert(i, Version(i), true, RandomUnit(p.rng));
  auto snap = p.approx.TakeSnapshot();
  const size_t rows = snap.members.size();
  auto g = AnnGraph::Build(kDim, snap.rows.data(), std::move(snap.members), nullptr, 3);
  PC_ASSERT_OK(g);
  EXPECT_EQ((*g)->size(), rows);
  std::set<uint32_t> labels;
  for (const auto& m : (*g)->members()) labels.insert(m.label);
  EXPECT_EQ(labels.size(), rows);
  p.approx.AttachGraph(std::move(g).value());
  EXPECT_EQ(p.approx.tail_size(), 0u) << "a row's vector in the graph differs from the index's";
  EXPECT_GE(p.Recall(100), 0.95);
  std::atomic<bool> stop{true};
  auto again = p.approx.TakeSnapshot();
  auto stopped = AnnGraph::Build(kDim, again.rows.data(), std::move(again.members), &stop, 3);
  ASSERT_FALSE(stopped.ok());
  EXPECT_NE(stopped.status().message().find("cancelled"), std::string::npos);
}

TEST(AnnGraph, ChangedRetiredAndRemovedVectorsAfterTheBuild) {
  Pair p;
  std::vector<std::vector<float>> vecs;
  for (int i = 0; i < 2000; ++i) {
    vecs.push_back(RandomUnit(p.rng));
    p.Upsert(i, Version(i), true, vecs.back());
  }
  p.BuildGraph();
  // New versions of 100 entries (new vectors), 100 retired, 100 removed, 100 new entries.
  for (int i = 0; i < 100; ++i) p.Upsert(i, Version(10000 + i), true, RandomUnit(p.rng));
  for (int i = 100; i < 200; ++i) p.Upsert(i, Version(i), false, vecs[i]);
  for (int i = 200; i < 300; ++i) {
    p.exact.Remove("ent_" + std::to_string(i));
    p.approx.Remove("ent_" + std::to_string(i));
  }
  for (int i = 2000; i < 2100; ++i) p.Upsert(i, Version(i), true, RandomUnit(p.rng));
  EXPECT_EQ(p.approx.tail_size(), 400u);  // changed, retired, removed (stale in the graph), new
  EXPECT_GE(p.Recall(100), 0.95);
  // A superseded, retired or removed vector is never returned, even asked for exactly.
  for (int i : {5, 150, 250}) {
    for (const auto& h : p.approx.Nearest(vecs[i], false, -1, 10)) {
      EXPECT_NE(h.version_id, Version(i)) << i;
      EXPECT_TRUE(h.active);
    }
  }
  // A new version is found at once (from the tail).
  auto fresh = RandomUnit(p.rng);
  p.Upsert(7, Version(20000), true, fresh);
  EXPECT_EQ(p.approx.Nearest(fresh, false, -1, 1).at(0).version_id, Version(20000));
  // Retired entries come back only when asked for, exactly.
  auto with_inactive = p.approx.Nearest(vecs[150], true, -1, 1);
  EXPECT_EQ(with_inactive.at(0).version_id, Version(150));
  EXPECT_FALSE(with_inactive.at(0).active);
}

TEST(AnnGraph, SavedGraphsAreCheckedBeforeTheyAreTrusted) {
  testing::TempDir dir;
  std::string path = dir.path() + "/g.hnsw";
  Pair p;
  std::vector<std::vector<float>> vecs;
  for (int i = 0; i < 1000; ++i) {
    vecs.push_back(RandomUnit(p.rng));
    p.Upsert(i, Version(i), true, vecs.back());
  }
  auto snap = p.approx.TakeSnapshot();
  auto g = AnnGraph::Build(kDim, snap.rows.data(), std::move(snap.members));
  PC_ASSERT_OK(g);
  PC_ASSERT_OK((*g)->Save(path));
  auto loaded = AnnGraph::Load(path, kDim);
  PC_ASSERT_OK(loaded);
  EXPECT_EQ((*loaded)->size(), 1000u);
  EXPECT_EQ((*loaded)->members().size(), 1000u);
  EXPECT_EQ((*loaded)->Search(vecs[3].data(), 1).at(0), (*g)->Search(vecs[3].data(), 1).at(0));
  EXPECT_FALSE(AnnGraph::Load(path, kDim + 1).ok());  // another dimension
  EXPECT_FALSE(AnnGraph::Load(dir.path() + "/none.hnsw", kDim).ok());

  // Loaded into an index of another process: rows in another order, one entry revised, one
  // retired, and one whose vector (same version id) differs from the saved one.
  VectorIndex other(kDim);
  std::vector<float> v12 = RandomUnit(p.rng);
  for (int i = 999; i >= 0; --i) {
    std::vector<float> v = vecs[i];
    std::string version = Version(i);
    if (i == 10) version = Version(5000), v = RandomUnit(p.rng);
    if (i == 12) v = v12;
    other.Upsert("ent_" + std::to_string(i), version, i != 11, v.data());
  }
  other.AttachGraph(std::move(loaded).value());
  EXPECT_EQ(other.tail_size(), 2u);  // entry 10 (new version) and 12 (vector differs)
  EXPECT_EQ(other.Nearest(vecs[3], false, -1, 1).at(0).version_id, Version(3));
  for (int i : {10, 11, 12})
    for (const auto& h : other.Nearest(vecs[i], false, -1, 5)) {
      EXPECT_NE(h.version_id, Version(10));
      EXPECT_NE(h.version_id, Version(11));
    }
  // Entry 12 is scored with the vector the store holds now, not the saved one.
  auto hit12 = other.Nearest(v12, false, -1, 1).at(0);
  EXPECT_EQ(hit12.version_id, Version(12));
  EXPECT_NEAR(hit12.similarity, 1.0, 1e-5);

  // Loaded in the same order (each member's label is its row again, the usual restart), with
  // entry 10 revised and entry 11 retired: those two rows do not hold their members' versions.
  {
    auto again = AnnGraph::Load(path, kDim);
    PC_ASSERT_OK(again);
    VectorIndex same_order(kDim);
    for (int i = 0; i < 1000; ++i) {
      const bool revised = i == 10;
      const std::vector<float> v = revised ? RandomUnit(p.rng) : vecs[i];
      same_order.Upsert("ent_" + std::to_string(i), revised ? Version(6000) : Version(i), i != 11,
                        v.data());
    }
    same_order.AttachGraph(std::move(again).value());
    EXPECT_EQ(same_order.tail_size(), 1u);  // entry 10's new version
    EXPECT_EQ(same_order.Nearest(vecs[3], false, -1, 1).at(0).version_id, Version(3));
    for (int i : {10, 11})
      for (const auto& h : same_order.Nearest(vecs[i], false, -1, 5)) {
        EXPECT_NE(h.version_id, Version(10));
        EXPECT_NE(h.version_id, Version(11));
      }
  }

  // A link that names no node (the first neighbour of node 0, right after hnswlib's 96-byte
  // header and the list's 4-byte count) is refused: the walk follows links unchecked.
  PC_ASSERT_OK((*g)->Save(path));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(96 + 4);
    const uint32_t nowhere = 0xFFFFFFF0u;
    f.write(reinterpret_cast<const char*>(&nowhere), sizeof nowhere);
  }
  auto bad_link = AnnGraph::Load(path, kDim);
  ASSERT_FALSE(bad_link.ok());
  EXPECT_NE(bad_link.status().message().find("a link names no node"), std::string::npos)
      << bad_link.status().ToString();

  // A damaged file is refused, not trusted.
  PC_ASSERT_OK((*g)->Save(path));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  EXPECT_FALSE(AnnGraph::Load(path, kDim).ok());
}

// A graph saved before the int8 rows holds kDim floats a row: hnswlib would read it with the int8
// space (the row size comes from the space, not the file), so Load refuses it and the cache builds
// anew. (hnswlib's header cannot be included in a second file of one program, so the old file is
// made by a graph whose int8 rows have exactly the floats' size: 4 + (4·kDim − 4) bytes.)
TEST(AnnGraph, AGraphOfFloatRowsSavedByAnEarlierVersionIsRefused) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/old.hnsw";
  const size_t float_row_dim = 4 * kDim - 4;
  ASSERT_EQ(int8::RowBytes(float_row_dim), kDim * sizeof(float));
  std::mt19937 rng(11);
  std::normal_distribution<float> n(0, 1);
  std::vector<uint8_t> rows;
  std::vector<AnnGraph::Member> members;
  std::vector<float> v(float_row_dim);
  for (uint32_t i = 0; i < 100; ++i) {
    for (float& x : v) x = n(rng);
    rows.resize(rows.size() + int8::RowBytes(float_row_dim));
    int8::EncodeRow(v.data(), float_row_dim, &rows[rows.size() - int8::RowBytes(float_row_dim)]);
    members.push_back({i, Version(static_cast<int>(i))});
  }
  auto old = AnnGraph::Build(float_row_dim, rows.data(), std::move(members));
  PC_ASSERT_OK(old);
  PC_ASSERT_OK((*old)->Save(path));
  auto loaded = AnnGraph::Load(path, kDim);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("another row layout"), std::string::npos)
      << loaded.status().ToString();
}

TEST(VectorCacheGraphs, BuiltInTheBackgroundSavedAndLoadedAfterARestart) {
  testing::Fixture f;
  HashEmbedder embedder(64);
  MemoryService memory(*f.store, ServiceLimits{}, &embedder);
  std::string scope = f.NewScope();
  for (int i = 0; i < 400; ++i)
    PC_ASSERT_OK(
        memory.Remember({scope,
                         "fact",
                         "note " + std::to_string(i) + " about topic " + std::to_string(i % 37),
                         "",
                         "",
                         {}}));
  VectorCacheOptions options;
  options.ann_min_rows = 300;
  options.ann_dir = f.dir.path() + "/ann";
  SearchRequest req{scope, "note about topic 5", SearchMode::kVector, 10, false, std::nullopt};
  std::vector<std::string> exact;
  {
    SearchService plain(*f.store, &embedder);  // 400 < 5,000: exact
    auto r = plain.Search(req);
    PC_ASSERT_OK(r);
    for (const auto& h : r->hits) exact.push_back(h.item.version.entry_version_id);
    EXPECT_EQ(plain.vector_cache().stats().graphs, 0u);
  }
  {
    SearchService search(*f.store, &embedder, nullptr, options);
    PC_ASSERT_OK(search.Search(req));  // answers exactly, and queues a build
    search.vector_cache().WaitForBuilds();
    EXPECT_EQ(search.vector_cache().stats().graphs_built, 1u);
    EXPECT_EQ(search.vector_cache().stats().graphs, 1u);
    EXPECT_FALSE(std::filesystem::is_empty(options.ann_dir));
    auto r = search.Search(req);
    PC_ASSERT_OK(r);
    ASSERT_EQ(r->hits.size(), exact.size());
    EXPECT_EQ(r->hits[0].item.version.entry_version_id, exact[0]);
  }
  // A write while no server runs, then a restart: the saved graph is loaded, the new entry is
  // found beside it.
  PC_ASSERT_OK(memory.Remember({scope, "fact", "a brand new zebra crossing", "", "", {}}));
  SearchService restarted(*f.store, &embedder, nullptr, options);
  auto r = restarted.Search(
      {scope, "a brand new zebra crossing", SearchMode::kVector, 3, false, std::nullopt});
  PC_ASSERT_OK(r);
  EXPECT_EQ(restarted.vector_cache().stats().graphs_loaded, 1u);
  EXPECT_EQ(restarted.vector_cache().stats().graphs_built, 0u);
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].item.version.text, "a brand new zebra crossing");
  // Reindexing forgets the saved graphs.
  restarted.vector_cache().Invalidate(r->memory.artifact_id);
  EXPECT_TRUE(std::filesystem::is_empty(options.ann_dir));
}

}  // namespace
}  // namespace pc
