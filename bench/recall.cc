// Recall on MADial-Bench (MIT; Chinese and English memories with labelled recall targets).
//
//   build/bench/recall [--data ../shared/data/madial-bench] [--modes fts,vector,hybrid]
//                      [--store postgresql://… (the same measurement on the PostgreSQL store)]
//                      [--min-recall10 MODE=VALUE ...] [--distractors N]
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
#include "search/hash_embedder.h"
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

// recall@k per depth for one mode, or an error message.
struct ModeResult {
  std::string error;
  std::map<int, double> recall;
  double p50_ms = 0, p95_ms = 0;
};

std::map<std::string, ModeResult> Evaluate(const Language& lang, const std::string& data,
                                           const std::vector<std::string>& modes, size_t distractors,
                                           const std::string& store_url) {
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
  std::map<std::string, std::set<std::string>> memory_to_entries;
  for (const json& line : ReadJsonLines(data + "/" + lang.memory_file)) {
    for (const auto& [id, m] : line.items()) {
      auto r = memory.Remember({scope, "fact", m["event"].get<std::string>(), "", "recall", {}});
      if (!r.ok()) {
        std::cerr << "remember failed: " << r.status().ToString() << "\n";
        std::exit(2);
      }
      const std::string& entry = r->changed ? r->entry->entry_id : r->duplicate_of->entry_id;
      entry_to_memory[entry] = id;
      memory_to_entries[id].insert(entry);
    }
  }
  std::vector<Dialogue> dialogues = LoadDialogues(data + "/" + lang.dialogue_file);

  std::map<std::string, ModeResult> out;
  for (const std::string& mode_name : modes) {
    ModeResult& res = out[mode_name];
    SearchRequest req;
    req.scope_id = scope;
    req.mode = ParseSearchMode(mode_name).value();
    req.limit = kMaxDepth;
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
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--data" && i + 1 < argc) data = argv[++i];
    else if (a == "--modes" && i + 1 < argc) modes = pc::Split(argv[++i], ',');
    else if (a == "--distractors" && i + 1 < argc) distractors = std::stoul(argv[++i]);
    else if (a == "--store" && i + 1 < argc) store_url = argv[++i];
    else if (a == "--min-recall10" && i + 1 < argc) {
      auto kv = pc::Split(argv[++i], '=');
      if (kv.size() != 2) { std::cerr << "--min-recall10 takes MODE=VALUE\n"; return 2; }
      minimum[kv[0]] = std::stod(kv[1]);
    } else {
      std::cerr << "usage: recall [--data DIR] [--modes fts,vector,hybrid] [--min-recall10 MODE=V] [--distractors N] [--store postgresql://…]\n";
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
    for (const auto& [mode, res] : pc::Evaluate(lang, data, modes, distractors, store_url)) {
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
