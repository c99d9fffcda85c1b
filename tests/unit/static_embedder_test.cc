// The offline word-vector embedder (search/static_embedder.h) on a small vector file made here,
// and the convex fusion hybrid search uses with it (search/fusion.h).
#include "search/static_embedder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "app/config.h"
#include "app/providers.h"
#include "search/fusion.h"
#include "service/memory/memory_service.h"
#include "service/search/search_service.h"
#include "test_util.h"

namespace pc {
namespace {

constexpr int kDim = 16;

// Two topics (pets, music) along their own directions, plus filler words in random directions.
std::string WriteFixture(const std::string& dir) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.1f);
  std::vector<std::string> words;
  std::vector<std::vector<float>> rows;
  auto add = [&](const std::string& w, int axis) {
    std::vector<float> v(kDim);
    for (float& x : v) x = noise(rng);
    if (axis >= 0) v[static_cast<size_t>(axis)] += 1.0f;
    words.push_back(w);
    rows.push_back(v);
  };
  for (const char* w : {"cat", "kitten", "dog", "puppy"}) add(w, 0);
  for (const char* w : {"guitar", "piano", "violin", "music"}) add(w, 1);
  for (int i = 0; i < 40; ++i) add("filler" + std::to_string(i), 2 + i % (kDim - 2));
  std::string path = dir + "/fixture.pcwv";
  EXPECT_TRUE(WriteStaticVectors(path, kDim, words, rows).ok());
  return path;
}

float VectorDot(const std::vector<float>& a, const std::vector<float>& b) {
  float s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(StaticEmbedder, LoadsTheFileAndEmbedsDeterministically) {
  testing::TempDir dir;
  auto opened = StaticEmbedder::Open(WriteFixture(dir.path()));
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  StaticEmbedder& e = **opened;
  EXPECT_EQ(e.profile().provider, "static");
  // The file's name, its checksum and the options: other vectors are another profile.
  EXPECT_EQ(e.profile().model.rfind("fixture@", 0), 0u) << e.profile().model;
  EXPECT_EQ(e.profile().model.size(), std::string("fixture@01234567-c0").size())
      << e.profile().model;
  StaticEmbedderOptions none;
  none.remove_components = 0;
  auto other = StaticEmbedder::Open(WriteFixture(dir.path()), none);
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)->profile().model, e.profile().model);
  EXPECT_EQ(e.profile().dimension, kDim);
  EXPECT_GT(e.convex_fusion_weight(), 0);
  auto a = e.EmbedOne("The Kitten and the puppy");
  auto b = e.Embed({"The Kitten and the puppy"});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a, (*b)[0]);
  ASSERT_EQ(a.size(), static_cast<size_t>(kDim));
  EXPECT_NEAR(VectorDot(a, a), 1.0f, 1e-4);
}

TEST(StaticEmbedder, SimilarWordsAreCloserThanUnrelatedOnes) {
  testing::TempDir dir;
  StaticEmbedderOptions o;
  o.remove_components = 0;  // the fixture's two topics are its top directions
  auto e = StaticEmbedder::Open(WriteFixture(dir.path()), o);
  ASSERT_TRUE(e.ok()) << e.status().message();
  auto cat = (*e)->EmbedOne("my cat");
  auto kitten = (*e)->EmbedOne("a kitten, a puppy");
  auto violin = (*e)->EmbedOne("the violin and piano");
  EXPECT_GT(VectorDot(cat, kitten), 0.8f);
  EXPECT_GT(VectorDot(cat, kitten), VectorDot(cat, violin) + 0.5f);
}

TEST(StaticEmbedder, TextWithoutKnownWordsIsTheZeroVector) {
  testing::TempDir dir;
  auto e = StaticEmbedder::Open(WriteFixture(dir.path()));
  ASSERT_TRUE(e.ok());
  for (const char* text : {"我喜欢弹吉他", "", "zzzunknown qqqword"}) {
    auto v = (*e)->EmbedOne(text);
    ASSERT_EQ(v.size(), static_cast<size_t>(kDim));
    for (float x : v) EXPECT_EQ(x, 0.0f) << text;
  }
}

TEST(StaticEmbedder, RejectsAMissingCorruptOrTruncatedFile) {
  testing::TempDir dir;
  const std::string good = WriteFixture(dir.path());
  const std::string bytes = ReadAll(good);
  auto error = [&](const std::string& content) {
    std::string path = dir.path() + "/bad.pcwv";
    WriteAll(path, content);
    auto r = StaticEmbedder::Open(path);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  auto missing = StaticEmbedder::Open(dir.path() + "/none.pcwv");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("none.pcwv: cannot open"), std::string::npos);
  EXPECT_NE(missing.status().message().find("scripts/install-deps vectors"), std::string::npos);

  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x01;
  EXPECT_NE(error(flipped).find("checksum mismatch"), std::string::npos);
  EXPECT_NE(error(bytes.substr(0, bytes.size() - 100)).find("truncated"), std::string::npos);
  EXPECT_NE(error(bytes.substr(0, 10)).find("not a PCWVEC01"), std::string::npos);
  EXPECT_NE(error("PCWVEC02" + bytes.substr(8)).find("not a PCWVEC01"), std::string::npos);
  const std::string empty = dir.path() + "/empty.pcwv";
  ASSERT_TRUE(WriteStaticVectors(empty, kDim, {}, {}).ok());
  EXPECT_NE(error(ReadAll(empty)).find("holds no words"), std::string::npos);
}

TEST(StaticEmbedder, TheConfiguredProviderFailsClearlyWithoutItsFile) {
  Config c;
  c.embed_provider = "static";
  c.embed_model = "/nonexistent/vectors.pcwv";
  auto e = MakeEmbedder(c);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("/nonexistent/vectors.pcwv"), std::string::npos);
  testing::TempDir dir;
  c.embed_model = WriteFixture(dir.path());
  auto ok = MakeEmbedder(c);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)->profile().Key().rfind("static/fixture@", 0), 0u) << (*ok)->profile().Key();
  EXPECT_EQ((*ok)->profile().Key().substr((*ok)->profile().Key().size() - 6), "/16/l2");
}

// Through the services: an English query finds a memory that shares none of its words but its
// topic (vector, and hybrid with fts); a Chinese query, which the vectors do not cover, gets
// exactly fts's ranking from hybrid.
TEST(StaticEmbedder, HybridAddsTheTopicAndLeavesUncoveredLanguagesToFts) {
  testing::TempDir dir;
  StaticEmbedderOptions o;
  o.remove_components = 0;
  auto opened = StaticEmbedder::Open(WriteFixture(dir.path()), o);
  ASSERT_TRUE(opened.ok());
  StaticEmbedder& embedder = **opened;
  testing::Fixture f;
  MemoryService memory(*f.store, ServiceLimits{}, &embedder);
  SearchService search(*f.store, &embedder);
  std::string scope = f.NewScope();
  for (const char* t : {"Anna adopted a kitten in May.", "Anna plays the violin on Sundays.",
                        "订单导入器使用数据库。", "数据库每天备份一次。", "我们在周五部署。"})
    PC_ASSERT_OK(memory.Remember({scope, "fact", t, "", "", {}}));
  auto v = search.Search({scope, "her puppy", SearchMode::kVector, 10, false, std::nullopt});
  PC_ASSERT_OK(v);
  ASSERT_FALSE(v->hits.empty());
  EXPECT_EQ(v->hits[0].item.version.text, "Anna adopted a kitten in May.");
  auto h = search.Search({scope, "Anna puppy", SearchMode::kHybrid, 10, false, std::nullopt});
  PC_ASSERT_OK(h);
  ASSERT_FALSE(h->hits.empty());
  EXPECT_EQ(h->hits[0].item.version.text, "Anna adopted a kitten in May.");
  EXPECT_EQ(h->hits[0].matched_by, (std::vector<std::string>{"fts", "vector"}));

  auto fts = search.Search({scope, "数据库备份", SearchMode::kFts, 10, false, std::nullopt});
  auto hybrid = search.Search({scope, "数据库备份", SearchMode::kHybrid, 10, false, std::nullopt});
  PC_ASSERT_OK(fts);
  PC_ASSERT_OK(hybrid);
  ASSERT_FALSE(fts->hits.empty());
  ASSERT_EQ(hybrid->hits.size(), fts->hits.size());
  for (size_t i = 0; i < fts->hits.size(); ++i) {
    EXPECT_EQ(hybrid->hits[i].item.version.text, fts->hits[i].item.version.text);
    EXPECT_EQ(hybrid->hits[i].matched_by, std::vector<std::string>{"fts"});
  }
  // Even with no similarity floor, where the zero vector admits every entry at cosine 0.
  SearchRequest no_floor{scope, "数据库备份", SearchMode::kHybrid, 10, false, std::nullopt};
  no_floor.min_similarity = 0.0;
  auto unfloored = search.Search(no_floor);
  PC_ASSERT_OK(unfloored);
  ASSERT_EQ(unfloored->hits.size(), fts->hits.size());
  for (size_t i = 0; i < fts->hits.size(); ++i)
    EXPECT_EQ(unfloored->hits[i].item.version.text, fts->hits[i].item.version.text);
}

TEST(Fusion, ConvexCombinationOfNormalizedScores) {
  // fts: a 10, b 5; vector: c 0.9, b 0.8, a 0.5 (min-max: c 1, b 0.75, a 0).
  auto fused = FuseConvex({{"a", 10}, {"b", 5}}, {{"c", 0.9}, {"b", 0.8}, {"a", 0.5}}, 1.0);
  ASSERT_EQ(fused.size(), 3u);
  EXPECT_EQ(fused[0].id, "b");  // 0.5 + 0.75
  EXPECT_NEAR(fused[0].score, 1.25, 1e-9);
  EXPECT_EQ(fused[0].in, 3u);
  EXPECT_EQ(fused[1].id, "a");  // 1 + 0
  EXPECT_EQ(fused[2].id, "c");  // 0 + 1, tied with a: a's text rank wins
  EXPECT_EQ(fused[2].in, 2u);
  // A small weight keeps the text order.
  auto text_first = FuseConvex({{"a", 10}, {"b", 5}}, {{"b", 0.9}, {"a", 0.1}}, 0.1);
  EXPECT_EQ(text_first[0].id, "a");
  // A list without a range counts its cosine as it is: a lone weak vector hit stays below the
  // text hits, and zero similarities (a zero query vector) add no hit at all.
  auto lone = FuseConvex({{"a", 10}, {"b", 5}}, {{"c", 0.06}}, 1.0);
  ASSERT_EQ(lone.size(), 3u);
  EXPECT_EQ(lone[0].id, "a");
  EXPECT_EQ(lone[1].id, "b");
  EXPECT_EQ(lone[2].id, "c");
  EXPECT_NEAR(lone[2].score, 0.06, 1e-9);
  auto zeros = FuseConvex({{"a", 10}}, {{"a", 0.0}, {"x", 0.0}, {"y", 0.0}}, 1.0);
  ASSERT_EQ(zeros.size(), 1u);
  EXPECT_EQ(zeros[0].id, "a");
  EXPECT_EQ(zeros[0].in, 3u);
  EXPECT_NEAR(zeros[0].score, 1.0, 1e-9);
  // No vector hits: the text ranking as it was.
  auto only_text = FuseConvex({{"x", 3}, {"y", 2}}, {}, 1.0);
  ASSERT_EQ(only_text.size(), 2u);
  EXPECT_EQ(only_text[0].id, "x");
}

}  // namespace
}  // namespace pc
