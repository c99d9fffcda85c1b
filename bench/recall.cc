// Recall on MADial-Bench (MIT; Chinese and English memories with labelled recall targets).
//
//   build/bench/recall [--data ../shared/data/madial-bench] [--modes fts,vector,hybrid,graph]
//                      [--store postgresql://… (the same measurement on the PostgreSQL store)]
//                      [--min-recall10 MODE=VALUE ...] [--distractors N] [--graph [--graph-hops N]]
//
// Loads each language's memories through the real write path (MemoryService::Remember into a
// SQLite store in a temp dir, one scope per language), queries with the dialogue turns before the
// first test-turn, and prints recall@1/5/10/20 per mode and language: for each dialogue the share
// of its relevant memories found in the top k, averaged over dialogues. With --min-recall10 it
// exits 1 when a mode's recall@10 falls below the value (a regression guard for CI). When the data
// directory is absent it says so and exits 0. --distractors N adds up to N more memories of the
// same language first — what users and the assistant said in MemoryBank's dialogues (real text,
// none of it a recall target) — to see how recall and its cost hold up in a larger memory. Each
// mode's query latency (p50/p95, in process) is printed with it.
//
// --graph loads the memories through the flush instead (each as a source, kept verbatim) with a
// fake model that also states triples, so the graph channel (docs/graph.md) joins hybrid and
// `graph` can be measured. The fake's triples are (person, "mentions", term) for the terms of the
// memory that are rare in the dataset (in at most 2 % of its memories): a stand-in for a model's
// entities, not one. Figures with it measure the channel's mechanics, not a model's graph quality.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_util.h"
#include "extract/extractor.h"
#include "search/hash_embedder.h"
#include "search/stopwords.h"
#include "search/tokenizer.h"
#include "service/flush_service.h"
#include "service/source_service.h"
#include "service/validation.h"
#include "common/utf8.h"
#include "service/memory_service.h"
#include "service/search_service.h"
#include "common/ids.h"
#include "store/postgres/pg_store.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {
namespace {

using nlohmann::json;

constexpr int kDepths[] = {1, 5, 10, 20};
constexpr int kMaxDepth = 20;

struct Dialogue {
  std::string query;
  std::vector<std::string> relevant;  // memory ids
};

std::vector<json> ReadJsonLines(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(json::parse(line));
  return out;
}

// "<Bart>: \"text\"\n" → "text"
std::string TurnText(const std::string& turn) {
  size_t colon = turn.find(">:");
  std::string t = colon == std::string::npos ? turn : turn.substr(colon + 2);
  std::string out;
  for (char c : t)
    if (c != '"' && c != '\n') out.push_back(c);
  return out;
}

std::vector<Dialogue> LoadDialogues(const std::string& path) {
  std::vector<Dialogue> out;
  for (const json& d : ReadJsonLines(path)) {
    Dialogue dlg;
    int first_test = d["test-turn"][0].get<int>();
    const json& turns = d["dialogue"];
    for (int i = 0; i < first_test && i < static_cast<int>(turns.size()); ++i) {
      std::string t = turns[static_cast<size_t>(i)].get<std::string>();
      if (t.rfind("<BOD>", 0) == 0) continue;
      dlg.query += TurnText(t) + " ";
    }
    for (const json& id : d["relevant-id"]) dlg.relevant.push_back(std::to_string(id.get<int>()));
    out.push_back(std::move(dlg));
  }
  return out;
}

struct Language {
  std::string name, memory_file, dialogue_file, distractor_file;
};

// Up to `n` texts said in MemoryBank's dialogues (users' turns, then the assistant's).
std::vector<std::string> Distractors(const std::string& path, size_t n) {
  std::vector<std::string> users, assistant;
  std::ifstream in(path);
  if (!in || n == 0) return {};
  json bank = json::parse(in);
  for (const auto& [name, person] : bank.items())
    for (const auto& [date, turns] : person["history"].items())
      for (const json& t : turns) {
        if (t.contains("query") && t["query"].is_string()) users.push_back(t["query"].get<std::string>());
        if (t.contains("response") && t["response"].is_string())
          assistant.push_back(t["response"].get<std::string>());
      }
  users.insert(users.end(), assistant.begin(), assistant.end());
  if (users.size() > n) users.resize(n);
  return users;
}

// The terms a fake model would call entities: words (4+ letters) and CJK bigrams, no stop words.
std::set<std::string> Terms(const std::string& text) {
  std::set<std::string> out;
  for (const QueryUnit& u : QueryUnits(text)) {
    if (u.kind == UnitKind::kWord) {
      if (u.text.size() >= 4 && !IsStopWord(u.text)) out.insert(u.text);
      continue;
    }
    for (size_t i = 0; i + 1 < u.chars.size(); ++i)
      if (!IsFunctionChar(u.chars[i]) && !IsFunctionChar(u.chars[i + 1])) out.insert(u.chars[i] + u.chars[i + 1]);
  }
  return out;
}

// A fake extraction model (this bench only): keeps every source verbatim as a fact, and states
// (person, mentions, term) for each term of it that is rare in the whole dataset (`rare`).
class FakeTripleModel : public Extractor {
 public:
  explicit FakeTripleModel(std::set<std::string> rare) : rare_(std::move(rare)) {}
  std::string name() const override { return "fake-triples"; }
  Result<std::string> Extract(const ExtractionRequest& request) override {
    json in = json::parse(request.input_json);
    json ops = json::array(), triples = json::array();
    for (const json& s : in["sources"]) {
      const std::string text = s["text"].get<std::string>(), id = s["id"].get<std::string>();
      ops.push_back({{"op", "add"}, {"kind", "fact"}, {"text", text}, {"evidence", {id}}});
      const std::string person = text.substr(0, text.find_first_not_of(
                                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"));
      if (person.size() < 2) continue;
      for (const std::string& term : Terms(text))
        if (rare_.count(term) && term != FoldForMatch(person))
          triples.push_back({{"subject", person}, {"relation", "mentions"}, {"object", term}, {"evidence", {id}}});
    }
    return json{{"operations", ops}, {"triples", triples}}.dump();
  }

 private:
  std::set<std::string> rare_;
};

// recall@k per depth for one mode, or an error message.
struct ModeResult {
  std::string error;
  std::map<int, double> recall;
  double p50_ms = 0, p95_ms = 0;
};

std::map<std::string, ModeResult> Evaluate(const Language& lang, const std::string& data,
                                           const std::vector<std::string>& modes, size_t distractors,
                                           const std::string& store_url, bool graph, int graph_hops) {
  std::unique_ptr<Store> store;
  std::string dir;  // SQLite's, removed after
  if (store_url.empty()) {
    dir = (std::filesystem::temp_directory_path() / ("pc-recall-" + lang.name)).string();
    std::filesystem::remove_all(dir);
    sqlite::SqliteOptions o;
    o.data_dir = dir;
    o.durability = sqlite::Durability::kNormal;  // a measurement of quality, not of durability
    store = std::move(sqlite::SqliteStore::Open(o)).value();
  } else {
    pg::PgOptions o;
    o.url = store_url;
    auto opened = pg::PgStore::Open(o);
    if (!opened.ok()) {
      std::cerr << opened.status().message() << "\n";
      std::exit(2);
    }
    store = std::move(opened).value();
  }
  HashEmbedder embedder;
  MemoryService memory(*store, ServiceLimits{}, &embedder);
  SearchService search(*store, &embedder);
  // A fresh scope each run: a PostgreSQL database outlives the run.
  std::string scope = memory.CreateScope("madial:" + lang.name + ":" + NewId("run_")).value().scope.scope_id;

  for (const std::string& text : Distractors(data + "/../memorybank/" + lang.distractor_file, distractors)) {
    if (!memory.Remember({scope, "fact", text, "", "recall", {}}).ok()) {
      std::cerr << "remember failed for a distractor\n";
      std::exit(2);
    }
  }
  std::map<std::string, std::string> entry_to_memory;  // entry_id -> benchmark memory id
  std::vector<std::pair<std::string, std::string>> memories;  // id, text
  for (const json& line : ReadJsonLines(data + "/" + lang.memory_file))
    for (const auto& [id, m] : line.items()) memories.emplace_back(id, m["event"].get<std::string>());
  if (!graph) {
    for (const auto& [id, text] : memories) {
      auto r = memory.Remember({scope, "fact", text, "", "recall", {}});
      if (!r.ok()) {
        std::cerr << "remember failed: " << r.status().ToString() << "\n";
        std::exit(2);
      }
      entry_to_memory[r->changed ? r->entry->entry_id : r->duplicate_of->entry_id] = id;
    }
  } else {
    std::map<std::string, int> df;
    for (const auto& [id, text] : memories)
      for (const std::string& t : Terms(text)) ++df[t];
    std::set<std::string> rare;
    for (const auto& [t, n] : df)
      if (n * 50 <= static_cast<int>(memories.size())) rare.insert(t);
    FakeTripleModel model(std::move(rare));
    SourceService sources(*store);
    FlushOptions windows;
    windows.source_window_limit = 10;  // an answer holds at most kMaxTriples (100): 10 per memory
    FlushService flush(*store, &model, &embedder, windows);
    for (const auto& [id, text] : memories)
      if (!sources.Add(scope, {{"chat", "", text, "{}", std::nullopt}}).ok()) std::exit(2);
    while (true) {
      auto r = flush.Flush(scope);
      if (!r.ok()) {
        std::cerr << "flush failed: " << r.status().ToString() << "\n";
        std::exit(2);
      }
      if (!r->processed) break;
    }
    // Entries by text (a memory whose text another already has shares its entry).
    std::map<std::string, std::string> entry_of_text;
    std::string after;
    while (true) {
      auto page = memory.ListEntries({scope, std::nullopt, false, {500, after}, std::nullopt});
      if (!page.ok() || page->items.empty()) break;
      for (const ManifestItem& m : page->items) entry_of_text[m.version.text] = m.version.entry_id;
      if (!page->next_cursor) break;
      after = *page->next_cursor;
    }
    for (const auto& [id, text] : memories) entry_to_memory[entry_of_text[text]] = id;
    size_t edges = 0;
    (void)store->Read([&](ReadTxn& txn) -> Status {
      PC_ASSIGN_OR_RETURN(Artifact m, LoadMemory(txn, scope));
      PC_ASSIGN_OR_RETURN(auto all, txn.ListGraphEdges(m.artifact_id, m.head_revision));
      edges = all.size();
      return Status::Ok();
    });
    std::fprintf(stderr, "%s: %zu memories, %zu graph edges (fake model)\n", lang.name.c_str(), memories.size(), edges);
  }
  std::vector<Dialogue> dialogues = LoadDialogues(data + "/" + lang.dialogue_file);

  std::map<std::string, ModeResult> out;
  for (const std::string& mode_name : modes) {
    ModeResult& res = out[mode_name];
    SearchRequest req;
    req.scope_id = scope;
    req.mode = ParseSearchMode(mode_name).value();
    req.limit = kMaxDepth;
    req.graph_hops = graph_hops;
    std::map<int, double> sum;
    std::vector<double> ms;
    for (const Dialogue& d : dialogues) {
      req.query = d.query;
      auto t0 = std::chrono::steady_clock::now();
      auto r = search.Search(req);
      ms.push_back(MillisSince(t0));
      if (!r.ok()) {
        res.error = r.status().ToString();
        break;
      }
      std::vector<std::string> ranked;
      for (const SearchHit& h : r->hits) ranked.push_back(entry_to_memory[h.item.version.entry_id]);
      for (int k : kDepths) {
        std::set<std::string> top(ranked.begin(), ranked.begin() + std::min<size_t>(k, ranked.size()));
        int found = 0;
        for (const std::string& rel : d.relevant) found += top.count(rel) ? 1 : 0;
        sum[k] += d.relevant.empty() ? 0 : static_cast<double>(found) / d.relevant.size();
      }
    }
    if (res.error.empty()) {
      for (int k : kDepths) res.recall[k] = sum[k] / static_cast<double>(dialogues.size());
      res.p50_ms = Percentile(ms, 0.50);
      res.p95_ms = Percentile(ms, 0.95);
    }
  }
  store.reset();
  if (!dir.empty()) std::filesystem::remove_all(dir);
  return out;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  std::string data = "../shared/data/madial-bench";
  std::vector<std::string> modes = {"fts", "vector", "hybrid"};
  std::map<std::string, double> minimum;  // mode -> minimum recall@10 in every language
  size_t distractors = 0;
  std::string store_url;  // empty: SQLite in a temp dir
  bool graph = false;
  int graph_hops = pc::kDefaultGraphHops;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--modes" && i + 1 < argc) modes = pc::Split(argv[++i], ',');
    else if (a == "--distractors" && i + 1 < argc) distractors = std::stoul(argv[++i]);
    else if (a == "--store" && i + 1 < argc) store_url = argv[++i];
    else if (a == "--graph") graph = true;
    else if (a == "--graph-hops" && i + 1 < argc) graph_hops = std::stoi(argv[++i]);
    else if (a == "--min-recall10" && i + 1 < argc) {
      auto kv = pc::Split(argv[++i], '=');
      if (kv.size() != 2) { std::cerr << "--min-recall10 takes MODE=VALUE\n"; return 2; }
      minimum[kv[0]] = std::stod(kv[1]);
    } else {
      std::cerr << "usage: recall [--data DIR] [--modes fts,vector,hybrid] [--min-recall10 MODE=V] [--distractors N] [--store postgresql://…] [--graph [--graph-hops N]]\n";
      return 2;
    }
  }
  if (!std::filesystem::exists(data + "/MADial-Bench-zh-memory.json")) {
    std::cout << "skipped: MADial-Bench not found at " << data << " (it lives in the project's shared/data)\n";
    return 0;
  }
  const pc::Language langs[] = {
      {"zh", "MADial-Bench-zh-memory.json", "MADial-Bench-zh-dialogue.json", "memory_bank_cn.json"},
      {"en", "MADial-Bench-en-memory.json", "MADial-Bench-en-dialogue.json", "memory_bank_en.json"}};
  int rc = 0;
  std::printf("| language | mode | R@1 | R@5 | R@10 | R@20 | p50 ms | p95 ms |\n|---|---|---|---|---|---|---|---|\n");
  for (const pc::Language& lang : langs) {
    for (const auto& [mode, res] : pc::Evaluate(lang, data, modes, distractors, store_url, graph, graph_hops)) {
      if (!res.error.empty()) {
        std::printf("| %s | %s | n/a: %s |||\n", lang.name.c_str(), mode.c_str(), res.error.c_str());
        continue;
      }
      std::printf("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", lang.name.c_str(), mode.c_str(),
                  res.recall.at(1), res.recall.at(5), res.recall.at(10), res.recall.at(20), res.p50_ms,
                  res.p95_ms);
      auto want = minimum.find(mode);
      if (want != minimum.end() && res.recall.at(10) < want->second) {
        std::fprintf(stderr, "%s %s recall@10 %.3f is below %.3f\n", lang.name.c_str(),
                     mode.c_str(), res.recall.at(10), want->second);
        rc = 1;
      }
    }
  }
  return rc;
}
