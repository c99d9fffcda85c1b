// The scripted chat models that bound the listwise rerank (recall.h ScriptedRerank): a fake
// OpenAI-compatible server on loopback reads each rerank request as the real chat client sends it
// and answers {"ranking": [...]} without a language model.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "common/utf8.h"
#include "fake_openai.h"
#include "providers/chat_reranker.h"
#include "providers/openai_chat_extractor.h"
#include "recall.h"

namespace pc {

using nlohmann::json;

struct ScriptedRerank::Impl {
  const Corpus& corpus;
  ScriptedRanking how;
  std::atomic<const RecallQuery*> asking{nullptr};
  testing::FakeOpenAi fake;
  std::unique_ptr<ChatReranker> reranker;
  std::unique_ptr<SearchService> search;

  Impl(Store& store, const Corpus& c, ScriptedRanking h) : corpus(c), how(h) {
    OpenAiChatOptions o;
    o.base_url = fake.base_url();
    o.model = how == ScriptedRanking::kOracle ? "scripted-oracle" : "scripted-shuffle";
    o.timeout_seconds = 30;
    o.retries = 0;
    auto chat = OpenAiChatExtractor::Create(o);
    if (!chat.ok()) {
      std::fprintf(stderr, "%s\n", chat.status().ToString().c_str());
      std::exit(2);
    }
    reranker = std::make_unique<ChatReranker>(std::move(chat).value());
    search = std::make_unique<SearchService>(store, nullptr, reranker.get());
    for (const auto& [text, ids] : corpus.ids_of_text) {
      auto& to = ids_of_shown[CutUtf8(text, kListwiseCandidateBytes)];
      to.insert(to.end(), ids.begin(), ids.end());
    }
    fake.set_chat_responder([this](const std::string& body) { return Answer(body); });
  }

  // Whether a candidate's text (as shown: cut to kListwiseCandidateBytes) holds a memory of `q`.
  bool Relevant(const RecallQuery& q, const std::string& shown) const {
    auto it = ids_of_shown.find(shown);
    if (it == ids_of_shown.end()) return false;
    for (const std::string& id : it->second)
      if (std::find(q.relevant.begin(), q.relevant.end(), id) != q.relevant.end()) return true;
    return false;
  }
  std::map<std::string, std::vector<std::string>> ids_of_shown;  // by text as the model is shown it

  testing::FakeOpenAi::ChatReply Answer(const std::string& body) {
    const json request = json::parse(body);
    const json shown = json::parse(request["messages"][1]["content"].get<std::string>());
    const json& candidates = shown["candidates"];
    std::vector<int> ranking;
    if (how == ScriptedRanking::kShuffle) {
      for (const json& c : candidates) ranking.push_back(c["n"].get<int>());
      std::mt19937 rng(
          static_cast<uint32_t>(std::hash<std::string>()(shown["query"].get<std::string>())));
      std::shuffle(ranking.begin(), ranking.end(), rng);
    } else {
      const RecallQuery* q = asking.load();
      for (const json& c : candidates)
        if (q && Relevant(*q, c["text"].get<std::string>())) ranking.push_back(c["n"].get<int>());
      // Nothing relevant in the pool: the coarse order is the best there is (and an empty ranking
      // would be refused).
      if (ranking.empty())
        for (const json& c : candidates) ranking.push_back(c["n"].get<int>());
    }
    return {json{{"ranking", ranking}}.dump()};
  }
};

ScriptedRerank::ScriptedRerank(Store& store, const Corpus& corpus, ScriptedRanking how)
    : impl_(std::make_unique<Impl>(store, corpus, how)) {}
ScriptedRerank::~ScriptedRerank() = default;
SearchService& ScriptedRerank::search() { return *impl_->search; }
void ScriptedRerank::Asking(const RecallQuery& q) { impl_->asking = &q; }

}  // namespace pc
