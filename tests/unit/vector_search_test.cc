// Vectors: the hash embedder, fusion, and vector/hybrid search through the services, including an
// embedding endpoint that goes down (a fake OpenAI-compatible server on loopback).
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cmath>
#include <random>
#include <set>
#include <thread>

#include "fake_openai.h"
#include "providers/endpoint.h"
#include "providers/openai_embedder.h"
#include "providers/openai_reranker.h"
#include "providers/resilient.h"
#include "random_unit.h"
#include "search/fusion.h"
#include "search/hash_embedder.h"
#include "search/vector_index.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc {
namespace {

double Norm(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

TEST(HashEmbedder, DeterministicUnitVectorsWithLexicalSimilarity) {
  HashEmbedder e;
  auto a = e.EmbedOne("Run contract tests after the schema migration");
  EXPECT_EQ(a.size(), 384u);
  EXPECT_NEAR(Norm(a), 1.0, 1e-5);
  EXPECT_EQ(a, e.EmbedOne("Run contract tests after the schema migration"));
  auto near = e.EmbedOne("contract testing after migrations");
  auto far = e.EmbedOne("Bart danced at the Christmas party");
  EXPECT_GT(Dot(a.data(), near.data(), a.size()), Dot(a.data(), far.data(), a.size()));
  auto zh = e.EmbedOne("订单导入器使用数据库");
  auto zh_near = e.EmbedOne("导入器的数据库");
  auto zh_far = e.EmbedOne("圣诞节晚会跳舞");
  EXPECT_GT(Dot(zh.data(), zh_near.data(), zh.size()), Dot(zh.data(), zh_far.data(), zh.size()));
  EXPECT_EQ(e.profile().Key(), "hash/char-ngram-v1/384/l2");
  auto empty = e.EmbedOne("   ");
  EXPECT_EQ(Norm(empty), 0.0);
}

TEST(Fusion, ReciprocalRankFusionWithDeterministicTies) {
  EXPECT_NEAR(CosineFromL2(0.0), 1.0, 1e-12);
  EXPECT_NEAR(CosineFromL2(std::sqrt(2.0)), 0.0, 1e-12);
  auto fused = FuseRrf({"a", "b", "c"}, {"c", "a", "d"});
  ASSERT_EQ(fused.size(), 4u);
  EXPECT_EQ(fused[0].id, "a");  // 1/61 + 1/62
  EXPECT_NEAR(fused[0].score, 1.0 / 61 + 1.0 / 62, 1e-12);
  EXPECT_EQ(fused[1].id, "c");  // 1/63 + 1/61
  EXPECT_TRUE(fused[1].in_first && fused[1].in_second);
  EXPECT_EQ(fused[2].id, "b");
  EXPECT_EQ(fused[3].id, "d");
  EXPECT_FALSE(fused[3].in_first);
  // Equal scores: the better first-list rank wins, then the id.
  auto tie = FuseRrf({"x", "y"}, {"y", "x"});
  EXPECT_EQ(tie[0].id, "x");
  auto tie2 = FuseRrf({}, {"q", "p"});
  EXPECT_EQ(tie2[0].id, "q");
  auto dup = FuseRrf({"a", "a"}, {});
  ASSERT_EQ(dup.size(), 1u);
  EXPECT_NEAR(dup[0].score, 1.0 / 61, 1e-12);
}

class VectorSearchTest : public ::testing::Test {
 protected:
  testing::Fixture f;
  HashEmbedder embedder;
  std::unique_ptr<MemoryService> memory =
      std::make_unique<MemoryService>(*f.store, ServiceLimits{}, &embedder);
  SearchService search{*f.store, &embedder};
  std::string scope = f.NewScope();

  WriteOutcome Remember(const std::string& text) {
    auto r = memory->Remember({scope, "fact", text, "", "test", {}});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : WriteOutcome{};
  }
  Result<SearchResult> Search(const std::string& q, SearchMode mode, bool inactive = false) {
    return search.Search({scope, q, mode, 10, inactive, std::nullopt});
  }
};

TEST_F(VectorSearchTest, VectorHybridAndAuto) {
  Remember("Run contract tests after the schema migration.");
  Remember("订单导入器使用 PostgreSQL 15 数据库。");
  Remember("Bart danced at the Christmas party.");
  auto v = Search("contract tests migration", SearchMode::kVector);
  PC_ASSERT_OK(v);
  ASSERT_FALSE(v->hits.empty());
  EXPECT_EQ(v->hits[0].item.version.text, "Run contract tests after the schema migration.");
  EXPECT_EQ(v->hits[0].matched_by, std::vector<std::string>{"vector"});
  EXPECT_LE(v->hits[0].score, 1.0 + 1e-6);
  auto h = Search("contract tests migration", SearchMode::kHybrid);
  PC_ASSERT_OK(h);
  EXPECT_EQ(h->mode_used, SearchMode::kHybrid);
  EXPECT_EQ(h->hits[0].matched_by, (std::vector<std::string>{"fts", "vector"}));
  auto a = Search("数据库", SearchMode::kAuto);
  PC_ASSERT_OK(a);
  EXPECT_EQ(a->mode_used, SearchMode::kHybrid);
  EXPECT_EQ(a->hits[0].item.version.text, "订单导入器使用 PostgreSQL 15 数据库。");
  // Admission: nothing is admitted above a similarity of 1.
  auto strict = search.Search({scope, "contract", SearchMode::kVector, 10, false, 0.999});
  PC_ASSERT_OK(strict);
  EXPECT_TRUE(strict->hits.empty());
}

TEST_F(VectorSearchTest, RetiredAndSupersededVersionsNeverComeBack) {
  WriteOutcome a = Remember("The cache lives in Redis.");
  auto rev = memory->Revise(
      {scope, *a.citation, "The cache lives in Memcached now.", std::nullopt, "", ""});
  PC_ASSERT_OK(rev);
  auto v = Search("cache lives Redis", SearchMode::kVector);
  PC_ASSERT_OK(v);
  for (const SearchHit& h : v->hits) EXPECT_NE(h.item.version.text, "The cache lives in Redis.");
  PC_ASSERT_OK(memory->Retire({scope, *rev->citation, "", ""}));
  for (SearchMode m : {SearchMode::kVector, SearchMode::kHybrid}) {
    auto r = Search("cache lives", m);
    PC_ASSERT_OK(r);
    EXPECT_TRUE(r->hits.empty()) << SearchModeName(m);
    auto all = Search("cache lives", m, true);
    PC_ASSERT_OK(all);
    ASSERT_EQ(all->hits.size(), 1u);
    EXPECT_FALSE(all->hits[0].item.active);
  }
}

TEST_F(VectorSearchTest, CacheEvictsLeastRecentlySearchedMemories) {
  std::string other = f.NewScope("project:other");
  for (int i = 0; i < 8; ++i) {
    Remember("entry about deployments " + std::to_string(i));
    PC_ASSERT_OK(memory->Remember({other, "fact", "other note " + std::to_string(i), "", "", {}}));
  }
  VectorCacheOptions small;
  small.max_vectors = 10;
  VectorCache cache(small);
  std::vector<float> q = embedder.EmbedOne("deployments");
  auto search = [&](const std::string& scope_id) -> Result<std::vector<VectorIndex::Hit>> {
    std::vector<VectorIndex::Hit> hits;
    PC_RETURN_IF_ERROR(f.store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(Scope s, [&]() -> Result<Scope> {
        auto found = txn.FindScope(scope_id);
        if (!found.ok() || !*found) return NotFound("scope");
        return **found;
      }());
      PC_ASSIGN_OR_RETURN(hits, cache.Nearest(txn, s.memory_artifact_id, s.memory_head_revision,
                                              embedder.profile().Key(), q, false, -1, 3));
      return Status::Ok();
    }));
    return hits;
  };
  PC_ASSERT_OK(search(scope));
  EXPECT_EQ(cache.stats().cached_vectors, 8u);
  PC_ASSERT_OK(search(other));  // 16 > 10: the first memory goes
  EXPECT_EQ(cache.stats().cached_vectors, 8u);
  auto again = search(scope);  // and comes back, with the same answer
  PC_ASSERT_OK(again);
  EXPECT_EQ(again->size(), 3u);
  EXPECT_EQ(cache.stats().cached_vectors, 8u);
  // The total is kept as indexes grow (a catch-up by one revision) and go, not summed per search.
  Remember("one more about deployments");
  PC_ASSERT_OK(search(scope));
  EXPECT_EQ(cache.stats().cached_vectors, 9u);
  PC_ASSERT_OK(search(other));  // 9 + 8 > 10: the first memory goes again
  EXPECT_EQ(cache.stats().cached_vectors, 8u);
  Remember("two more about deployments");
  Remember("three more about deployments");
  PC_ASSERT_OK(
      search(scope));  // 11 alone is over the limit: the one searched stays, the other goes
  EXPECT_EQ(cache.stats().cached_vectors, 11u);
  PC_ASSERT_OK(search(other));
  EXPECT_EQ(cache.stats().cached_vectors, 8u);
}

TEST_F(VectorSearchTest, ChangingTheProfileNeedsAReindex) {
  Remember("one entry about deployments");
  HashEmbedder smaller(128);
  SearchService other(*f.store, &smaller);
  auto refused = other.Search({scope, "deployments", SearchMode::kVector, 10, false, std::nullopt});
  EXPECT_EQ(refused.status().code(), Code::kCapabilityUnavailable);
  auto fallback = other.Search({scope, "deployments", SearchMode::kAuto, 10, false, std::nullopt});
  PC_ASSERT_OK(fallback);
  EXPECT_EQ(fallback->mode_used, SearchMode::kFts);
  auto caps = other.Capabilities(scope);
  PC_ASSERT_OK(caps);
  EXPECT_FALSE((*caps)[1].available);
  EXPECT_NE((*caps)[1].reason.find("reindex"), std::string::npos);
  auto done = other.Reindex(scope);
  PC_ASSERT_OK(done);
  EXPECT_EQ(done->embedded, 1);
  auto now = other.Search({scope, "deployments", SearchMode::kVector, 10, false, std::nullopt});
  PC_ASSERT_OK(now);
  EXPECT_EQ(now->hits.size(), 1u);
  // And the first profile is now the stale one.
  EXPECT_EQ(Search("deployments", SearchMode::kVector).status().code(),
            Code::kCapabilityUnavailable);
}

// The scope's vector mode is unavailable, and its reason says `why`.
void ExpectVectorUnavailable(SearchService& search, const std::string& scope,
                             const std::string& why) {
  auto caps = search.Capabilities(scope);
  ASSERT_TRUE(caps.ok()) << caps.status().ToString();
  ASSERT_EQ((*caps)[1].mode, "vector");
  EXPECT_FALSE((*caps)[1].available);
  EXPECT_NE((*caps)[1].reason.find(why), std::string::npos) << (*caps)[1].reason;
}

// An embedder on the fake endpoint, learning its dimension from the first answer.
std::unique_ptr<OpenAiEmbedder> FakeEmbedder(const testing::FakeOpenAi& fake, int retries,
                                             int timeout_seconds = 10, int dimension = 0) {
  OpenAiEmbedderOptions o;
  o.base_url = fake.base_url();
  o.model = "fake-embed";
  o.retries = retries;
  o.timeout_seconds = timeout_seconds;
  o.dimension = dimension;
  auto created = OpenAiEmbedder::Create(o);
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  return created.ok() ? std::move(created).value() : nullptr;
}

TEST(OpenAiEmbedderTest, EndpointDownWritesGoOnAndReindexCompletes) {
  testing::FakeOpenAi fake(64);
  auto created = FakeEmbedder(fake, 1);
  ASSERT_TRUE(created);
  OpenAiEmbedder& embedder = *created;
  EXPECT_EQ(embedder.profile().dimension, 0);  // learned from the first answer
  auto vs = embedder.Embed({"alpha", "beta", "gamma"});
  PC_ASSERT_OK(vs);
  EXPECT_EQ(embedder.profile().Key(), "openai/fake-embed/64/l2");
  EXPECT_EQ(embedder.Unavailable(), "");
  EXPECT_NEAR(Norm((*vs)[0]), 1.0, 1e-5);

  testing::Fixture f;
  MemoryService memory(*f.store, ServiceLimits{}, &embedder);
  SearchService search(*f.store, &embedder);
  std::string scope = f.NewScope();
  PC_ASSERT_OK(
      memory.Remember({scope, "fact", "Contract tests run after migrations.", "", "", {}}));
  fake.set_failing(true);
  // The write still succeeds: nothing is lost; the vector is recorded as missing.
  auto written = memory.Remember({scope, "fact", "Deploys happen on Tuesdays.", "", "", {}});
  PC_ASSERT_OK(written);
  EXPECT_TRUE(written->changed);
  fake.set_failing(false);
  EXPECT_EQ(search.Search({scope, "deploys", SearchMode::kVector, 10, false, std::nullopt})
                .status()
                .code(),
            Code::kCapabilityUnavailable);
  auto fallback =
      search.Search({scope, "deploys tuesdays", SearchMode::kAuto, 10, false, std::nullopt});
  PC_ASSERT_OK(fallback);
  EXPECT_EQ(fallback->mode_used, SearchMode::kFts);
  ASSERT_EQ(fallback->hits.size(), 1u);
  auto done = search.Reindex(scope);
  PC_ASSERT_OK(done);
  EXPECT_EQ(done->embedded, 1);
  EXPECT_EQ(done->missing, 0);
  auto v = search.Search({scope, "deploys tuesdays", SearchMode::kVector, 10, false, std::nullopt});
  PC_ASSERT_OK(v);
  ASSERT_FALSE(v->hits.empty());
  EXPECT_EQ(v->hits[0].item.version.text, "Deploys happen on Tuesdays.");
  // The endpoint failing at query time: explicit vector is a provider error, auto falls back.
  fake.set_failing(true);
  EXPECT_EQ(search.Search({scope, "deploys", SearchMode::kVector, 10, false, std::nullopt})
                .status()
                .code(),
            Code::kProviderUnavailable);
  auto degraded = search.Search({scope, "deploys", SearchMode::kAuto, 10, false, std::nullopt});
  PC_ASSERT_OK(degraded);
  EXPECT_EQ(degraded->mode_used, SearchMode::kFts);
}

// After a failure the endpoint is rested: writes and auto searches skip it at once (a dead
// endpoint made every remember pay its retries, forever), capabilities say why, and one call
// tries it again when the rest is over.
TEST(OpenAiEmbedderTest, AFailedEndpointIsRestedThenTriedAgain) {
  testing::FakeOpenAi fake(64);
  auto created = FakeEmbedder(fake, 2);
  ASSERT_TRUE(created);
  ResilientEmbedder embedder(std::move(created), std::chrono::milliseconds(400));
  testing::Fixture f;
  MemoryService memory(*f.store, ServiceLimits{}, &embedder);
  SearchService search(*f.store, &embedder);
  std::string scope = f.NewScope();
  PC_ASSERT_OK(
      memory.Remember({scope, "fact", "Contract tests run after migrations.", "", "", {}}));
  fake.set_failing(true);
  const int before = fake.requests();
  for (int i = 0; i < 5; ++i)
    PC_ASSERT_OK(memory.Remember({scope, "fact", "Outage note " + std::to_string(i), "", "", {}}));
  EXPECT_EQ(fake.requests() - before, 3) << "only the first write asks (3 attempts); the rest skip";
  EXPECT_NE(embedder.Unavailable().find("rested"), std::string::npos) << embedder.Unavailable();
  ExpectVectorUnavailable(search, scope, "embedding endpoint failed");
  auto quick = search.Search({scope, "outage", SearchMode::kAuto, 10, false, std::nullopt});
  PC_ASSERT_OK(quick);
  EXPECT_EQ(quick->mode_used, SearchMode::kFts);
  EXPECT_EQ(fake.requests() - before, 3);
  // The rest is over and the endpoint is back: one call tries it, and it is used again.
  fake.set_failing(false);
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  EXPECT_EQ(embedder.Unavailable(), "");
  auto done = search.Reindex(scope);
  PC_ASSERT_OK(done);
  EXPECT_EQ(done->embedded, 5);
  auto v = search.Search({scope, "outage note", SearchMode::kVector, 10, false, std::nullopt});
  PC_ASSERT_OK(v);
  ASSERT_GE(v->hits.size(), 5u);
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(v->hits[i].item.version.text.rfind("Outage note", 0), 0u)
        << v->hits[i].item.version.text;
}

// A hanging endpoint costs at most its timeout per call, retries included, and says so.
TEST(OpenAiEmbedderTest, AHangingEndpointCostsItsTimeoutOnce) {
  testing::FakeOpenAi fake(64);
  fake.set_delay_ms(3000);
  auto created = FakeEmbedder(fake, 2, /*timeout_seconds=*/1, /*dimension=*/64);
  ASSERT_TRUE(created);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = created->Embed({"hello"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kProviderUnavailable);
  EXPECT_NE(r.status().message().find("timed out"), std::string::npos) << r.status().message();
  EXPECT_LT(seconds, 2.5) << "the timeout bounds the call, not each of its attempts";
}

TEST(RerankTest, ReordersTheSnapshotsHitsOnly) {
  testing::FakeOpenAi fake(64);
  auto reranker = HttpReranker::Create({fake.base_url(), "fake-rerank", "", 5});
  PC_ASSERT_OK(reranker);
  testing::Fixture f;
  SearchService plain(*f.store);
  SearchService search(*f.store, nullptr, reranker->get());
  std::string scope = f.NewScope();
  for (const char* t : {"deploy notes", "deploy notes for the orders importer",
                        "deploy notes for the orders importer on tuesdays"})
    PC_ASSERT_OK(f.memory->Remember({scope, "fact", t, "", "", {}}));
  SearchRequest req{scope, "deploy orders tuesdays", SearchMode::kFts, 10, false, std::nullopt,
                    true};
  auto before = plain.Search({scope, req.query, SearchMode::kFts, 10, false, std::nullopt});
  PC_ASSERT_OK(before);
  auto after = search.Search(req);
  PC_ASSERT_OK(after);
  ASSERT_EQ(after->hits.size(), before->hits.size());
  EXPECT_EQ(after->hits[0].item.version.text, "deploy notes for the orders importer on tuesdays");
  EXPECT_EQ(after->hits.back().item.version.text, "deploy notes");
  EXPECT_EQ(*after->hits[0].rerank_score, 3);
  EXPECT_EQ(after->memory, before->memory);
  EXPECT_EQ(plain.Search(req).status().code(), Code::kCapabilityUnavailable);
  fake.set_failing(true);
  EXPECT_EQ(search.Search(req).status().code(), Code::kProviderUnavailable);
  auto caps = search.Capabilities(scope);
  PC_ASSERT_OK(caps);
  EXPECT_TRUE((*caps)[3].available);
}

// A dead endpoint never stops start-up: the embedder starts without a dimension, says why, and
// searches and writes go on without vectors.
TEST(OpenAiEmbedderTest, UnreachableEndpointWithoutDimensionStartsDegraded) {
  OpenAiEmbedderOptions o;
  o.base_url = "http://127.0.0.1:1/v1";
  o.model = "m";
  o.retries = 0;
  o.timeout_seconds = 2;
  auto e = OpenAiEmbedder::Create(o);
  PC_ASSERT_OK(e);
  EXPECT_EQ((*e)->profile().dimension, 0);
  EXPECT_NE((*e)->Unavailable().find("embed_dimension"), std::string::npos);
  EXPECT_EQ((*e)->Embed({"x"}).status().code(), Code::kProviderUnavailable);
  testing::Fixture f;
  MemoryService memory(*f.store, ServiceLimits{}, e->get());
  SearchService search(*f.store, e->get());
  std::string scope = f.NewScope();
  auto written =
      memory.Remember({scope, "fact", "Written while the endpoint is down.", "", "", {}});
  PC_ASSERT_OK(written);
  ExpectVectorUnavailable(search, scope, "not known yet");
  auto found = search.Search({scope, "endpoint down", SearchMode::kAuto, 10, false, std::nullopt});
  PC_ASSERT_OK(found);
  EXPECT_EQ(found->mode_used, SearchMode::kFts);
  EXPECT_EQ(found->hits.size(), 1u);
  EXPECT_EQ(search.Search({scope, "endpoint", SearchMode::kVector, 10, false, std::nullopt})
                .status()
                .code(),
            Code::kProviderUnavailable);
  o.base_url = "not a url";
  EXPECT_EQ(OpenAiEmbedder::Create(o).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace pc

namespace pc {
namespace {

// The int8 first pass must not lose the true nearest neighbours: compare with a float brute force.
TEST(VectorIndexTest, QuantizedScanFindsTheExactNeighbours) {
  constexpr size_t kDim = 384, kRows = 6000, kK = 10;
  std::mt19937 rng(7);
  std::normal_distribution<float> gauss(0, 1);
  auto unit = [&] { return testing::RandomUnit(rng, kDim); };
  VectorIndex index(kDim);
  std::vector<std::vector<float>> rows;
  for (size_t i = 0; i < kRows; ++i) {
    rows.push_back(unit());
    index.Upsert("e" + std::to_string(i), "v" + std::to_string(i), true, rows.back().data());
  }
  size_t found = 0, total = 0;
  for (int q = 0; q < 50; ++q) {
    // Queries near a stored row, as real queries are near their answers.
    std::vector<float> query = rows[static_cast<size_t>(q) * 97];
    for (float& x : query) x += 0.02f * gauss(rng);
    std::vector<std::pair<float, size_t>> exact;
    for (size_t i = 0; i < kRows; ++i)
      exact.push_back({Dot(query.data(), rows[i].data(), kDim), i});
    std::partial_sort(exact.begin(), exact.begin() + kK, exact.end(), std::greater<>());
    std::set<std::string> truth;
    for (size_t i = 0; i < kK; ++i) truth.insert("v" + std::to_string(exact[i].second));
    for (const auto& hit : index.Nearest(query, false, -1.0, kK))
      found += truth.count(hit.version_id);
    total += kK;
  }
  EXPECT_GE(static_cast<double>(found) / static_cast<double>(total), 0.99);
  // Removing rows keeps the index consistent.
  for (size_t i = 0; i < kRows; i += 2) index.Remove("e" + std::to_string(i));
  EXPECT_EQ(index.size(), kRows / 2);
  auto hits = index.Nearest(rows[1], false, -1.0, 1);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].version_id, "v1");
}

}  // namespace
}  // namespace pc

namespace pc {
namespace {

// Connections to a model endpoint are kept alive and reused; one the server has closed meanwhile
// is replaced without failing the request, and concurrent requests each get a connection.
TEST(Endpoint, ReusesConnectionsAndSurvivesOnesTheServerClosed) {
  httplib::Server server;
  std::atomic<int> answered{0};
  server.Post("/v1/echo", [&](const httplib::Request& req, httplib::Response& res) {
    ++answered;
    res.set_content(req.body, "application/json");
  });
  server.set_keep_alive_max_count(2);  // says "Connection: close" on every second answer
  server.set_keep_alive_timeout(1);    // and silently closes connections idle for a second
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { server.listen_after_bind(); });
  auto endpoint =
      Endpoint::Open("test_url", "http://127.0.0.1:" + std::to_string(port) + "/v1", "", 5);
  PC_ASSERT_OK(endpoint);
  for (int i = 0; i < 7; ++i) {
    auto answer = (*endpoint)->PostJson("/echo", "{\"n\":" + std::to_string(i) + "}");
    PC_ASSERT_OK(answer);
    EXPECT_EQ(answer->status, 200);
    EXPECT_EQ(answer->body, "{\"n\":" + std::to_string(i) + "}");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // the idle connection is closed
  auto after_idle = (*endpoint)->PostJson("/echo", "{}");
  PC_ASSERT_OK(after_idle);
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        auto answer = (*endpoint)->PostJson("/echo", "{}");
        if (!answer.ok() || answer->status != 200) ++failed;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failed, 0);
  EXPECT_EQ(answered, 48);
  endpoint->reset();  // closes its idle connections, so the server stops at once
  server.stop();
  serving.join();
}

// A model endpoint's answer is read up to 32 MiB and no further (a 200 MB answer used to cost
// ~1 GB of memory): past it the call is a provider_error that says so, the connection is dropped,
// and the next call is answered.
TEST(Endpoint, AnAnswerPastItsLimitIsRefusedNotRead) {
  httplib::Server server;
  server.Post("/v1/huge", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(size_t{40} << 20, 'x'), "application/json");
  });
  server.Post("/v1/echo", [](const httplib::Request& req, httplib::Response& res) {
    res.set_content(req.body, "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { server.listen_after_bind(); });
  auto endpoint =
      Endpoint::Open("test_url", "http://127.0.0.1:" + std::to_string(port) + "/v1", "", 10);
  PC_ASSERT_OK(endpoint);
  auto huge = (*endpoint)->PostJson("/huge", "{}");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), Code::kProviderError);
  EXPECT_NE(huge.status().message().find("more than 32 MiB"), std::string::npos)
      << huge.status().message();
  auto next = (*endpoint)->PostJson("/echo", "{\"n\":1}");
  PC_ASSERT_OK(next);
  EXPECT_EQ(next->body, "{\"n\":1}");
  endpoint->reset();
  server.stop();
  serving.join();
}

}  // namespace
}  // namespace pc
