// Search recall on labelled public benchmarks, through the real write and search paths
// (docs/quality.md).
//
//   build/bench/recall [--bench madial|memorybank] [--data DIR] [--modes fts,vector,hybrid,graph]
//                      [--store postgresql://… (the same measurement on the PostgreSQL store)]
//                      [--min-recall10 MODE[@SPLIT]=VALUE ...]
//                      [--embedder hash|static|static=FILE (the vector channel's embedder; hash by
//                      default)] madial only: [--distractors N] [--graph [--graph-hops N]]
//                      memorybank only: [--labels bench/memorybank_labels.json]
//
// madial (the default; MIT; Chinese and English memories with labelled recall targets, data in
// ../shared/data/madial-bench): loads each language's memories through the real write path
// (MemoryService::Remember into a SQLite store in a temp dir, one scope per language), queries with
// the dialogue turns before the first test-turn, and prints recall@1/5/10/20 per mode and language:
// for each dialogue the share of its relevant memories found in the top k, averaged over dialogues,
// over all of them and per split: dialogues at even positions of the file are dev, odd held-out.
//
// Every mode searches as a request does by default, with the request's `feedback`: pseudo-relevance
// feedback and neighbour propagation (service/search/text_channel.h); a mode with the suffix
// `-plain` (fts-plain, hybrid-plain) turns it off. PC_PRF overrides their options, for tuning on
// the dev splits only.
//
// A mode with the suffix `-rerank-oracle` or `-rerank-shuffle` (fts-rerank-oracle) searches with
// `rerank` through the chat model's listwise reranker (rerank_provider = chat) answered by a
// scripted fake model on loopback: the oracle ranks by the labels (an upper bound), the shuffle
// at random (a lower bound). Neither is a language model: they bound what one can do with the pool.
//
// memorybank (MIT; ten days of dialogue per person in Chinese and English, data in
// ../shared/data/memorybank): remembers every utterance of each person, in order and dated, in the
// person's own scope, searches each probing question there, and prints the same recall per mode,
// language and split (dev / held-out, by person) against the labels of bench/memorybank_labels.py.
//
// With --min-recall10 MODE=V it exits 1 when a mode's recall@10 over all queries falls below V in
// a language (MODE@SPLIT=V: over a split's queries) — a regression guard for CI. When the data
// directory is absent it says so and exits 77 (ctest's skip). Each mode's query latency (p50/p95,
// in process) is printed with it.
//
// --distractors N adds up to N more memories of the same language first — what users and the
// assistant said in MemoryBank's dialogues (real text, none of it a recall target) — to see how
// recall and its cost hold up in a larger memory.
//
// --graph loads the memories through the flush instead (each as a source, kept verbatim) with a
// fake model that also states triples, so the graph channel (docs/graph.md) joins hybrid and
// `graph` can be measured. The fake's triples are (person, "mentions", term) for the terms of the
// memory that are rare in the dataset (in at most 2 % of its memories): a stand-in for a model's
// entities, not one. Figures with it measure the channel's mechanics, not a model's graph quality.
#include "recall.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "common/ids.h"
#include "common/utf8.h"
#include "extract/extractor.h"
#include "json_lines.h"
#include "search/feedback.h"
#include "service/core/validation.h"
#include "service/flush/flush_service.h"
#include "service/flush/source_service.h"
#include "store/postgres/pg_store.h"
#include "store/sqlite/sqlite_store.h"

namespace pc {

BenchStore::BenchStore(const std::string& name, const std::string& store_url,
                       const std::string& embedder) {
  if (embedder == "hash") {
    embedder_ = std::make_unique<HashEmbedder>();
  } else if (embedder == "static" || embedder.rfind("static=", 0) == 0) {
    // PC_STATIC="A,COMPONENTS,WEIGHT" overrides the embedder's SIF a, principal directions removed
    // and convex fusion weight, for tuning on the dev splits only.
    StaticEmbedderOptions o;
    if (const char* env = std::getenv("PC_STATIC"))
      std::sscanf(env, "%lf,%d,%lf", &o.sif_a, &o.remove_components, &o.convex_fusion_weight);
    auto opened = StaticEmbedder::Open(
        embedder == "static" ? DefaultStaticVectorsFile() : embedder.substr(7), o);
    if (!opened.ok()) {
      std::cerr << opened.status().message() << "\n";
      std::exit(2);
    }
    embedder_ = std::move(opened).value();
  } else {
    std::cerr << "--embedder is hash, static or static=FILE\n";
    std::exit(2);
  }
  if (store_url.empty()) {
    dir_ = ScratchDir("pc-recall-" + name);
    sqlite::SqliteOptions o;
    o.data_dir = dir_;
    o.durability = sqlite::Durability::kNormal;  // a measurement of quality, not of durability
    store_ = std::move(sqlite::SqliteStore::Open(o)).value();
  } else {
    pg::PgOptions o;
    o.url = store_url;
    auto opened = pg::PgStore::Open(o);
    if (!opened.ok()) {
      std::cerr << opened.status().message() << "\n";
      std::exit(2);
    }
    store_ = std::move(opened).value();
  }
  memory_ = std::make_unique<MemoryService>(*store_, ServiceLimits{}, embedder_.get());
  search_ = std::make_unique<SearchService>(*store_, embedder_.get());
}

BenchStore::~BenchStore() {
  search_.reset();
  memory_.reset();
  store_.reset();
  if (!dir_.empty()) std::filesystem::remove_all(dir_);
}

std::string NewScope(MemoryService& memory, const std::string& key) {
  auto scope = memory.CreateScope(key + ":" + NewId("run_"));
  if (!scope.ok()) {
    std::cerr << "create scope failed: " << scope.status().ToString() << "\n";
    std::exit(2);
  }
  return scope->scope.scope_id;
}

void RememberAs(MemoryService& memory, const std::string& scope, const std::string& text,
                const std::string& id, Corpus& corpus) {
  RememberRequest req;
  req.scope_id = scope;
  req.kind = "fact";
  req.text = text;
  req.actor = "recall";
  auto r = memory.Remember(req);
  if (!r.ok()) {
    std::cerr << "remember failed: " << r.status().ToString() << "\n";
    std::exit(2);
  }
  if (id.empty()) return;
  corpus.ids_of_entry[r->changed ? r->entry->entry_id : r->duplicate_of->entry_id].push_back(id);
  corpus.ids_of_text[text].push_back(id);
  if (r->changed && r->entry->text != text) corpus.ids_of_text[r->entry->text].push_back(id);
}

namespace {

// Tuning only (never the figures reported):
// PC_PRF=docs,terms,keep,pool,max_query_phrases,lenders,lend overrides the feedback options.
void TuneFeedback(FeedbackOptions& o) {
  const char* env = std::getenv("PC_PRF");
  if (!env) return;
  double v[7] = {
      double(o.docs),    double(o.terms), o.keep, double(o.pool), double(o.max_query_phrases),
      double(o.lenders), o.lend};
  std::sscanf(env, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]);
  o = {int(v[0]), int(v[1]), v[2], int(v[3]), int(v[4]), int(v[5]), v[6]};
}

// The share of `q`'s relevant memories among the memories of the top `k` hits.
double RecallAt(const RecallQuery& q, const std::vector<std::vector<std::string>>& hit_ids, int k) {
  std::set<std::string> top;
  for (size_t i = 0; i < hit_ids.size() && i < static_cast<size_t>(k); ++i)
    top.insert(hit_ids[i].begin(), hit_ids[i].end());
  int found = 0;
  for (const std::string& rel : q.relevant) found += top.count(rel) ? 1 : 0;
  return q.relevant.empty() ? 0
                            : static_cast<double>(found) / static_cast<double>(q.relevant.size());
}

}  // namespace

std::map<std::string, ModeResult> Measure(SearchService& search, const Corpus& corpus,
                                          SearchMode mode, int graph_hops, bool feedback,
                                          bool rerank,
                                          const std::function<void(const RecallQuery&)>& before) {
  std::map<std::string, ModeResult> out;
  std::map<std::string, std::vector<double>> ms;
  SearchRequest req;
  req.mode = mode;
  req.feedback = feedback;
  req.rerank = rerank;
  TuneFeedback(req.feedback_options);
  req.limit = kMaxDepth;
  req.graph_hops = graph_hops;
  for (const RecallQuery& q : corpus.queries) {
    req.scope_id = q.scope_id;
    req.query = q.text;
    if (before) before(q);
    auto t0 = std::chrono::steady_clock::now();
    auto r = search.Search(req);
    double took = MillisSince(t0);
    if (!r.ok()) {
      ModeResult failed;
      failed.error = r.status().ToString();
      return {{"all", failed}};
    }
    std::vector<std::vector<std::string>> hit_ids;
    for (const SearchHit& h : r->hits) {
      auto ids = corpus.ids_of_entry.find(h.item.version.entry_id);
      hit_ids.push_back(ids == corpus.ids_of_entry.end() ? std::vector<std::string>{}
                                                         : ids->second);
    }
    for (const std::string& group : {std::string("all"), q.group}) {
      if (group.empty()) continue;
      ModeResult& res = out[group];
      for (int k : kDepths) res.recall[k] += RecallAt(q, hit_ids, k);
      ++res.queries;
      ms[group].push_back(took);
    }
  }
  for (auto& [group, res] : out) {
    for (int k : kDepths) res.recall[k] /= static_cast<double>(res.queries);
    res.p50_ms = Percentile(ms[group], 0.50);
    res.p95_ms = Percentile(ms[group], 0.95);
  }
  return out;
}

namespace {

using nlohmann::json;

constexpr int kSkipped = 77;  // ctest's SKIP_RETURN_CODE: the data is not on this machine

struct Options {
  std::string bench = "madial";
  std::string data;  // empty: the bench's directory under ../shared/data
  std::string labels = "bench/memorybank_labels.json";
  std::vector<std::string> modes = {"fts", "vector", "hybrid"};
  std::map<std::string, double>
      minimum;  // MODE (over all queries) or MODE@SPLIT -> minimum recall@10
  size_t distractors = 0;
  std::string store_url;  // empty: SQLite in a temp dir
  bool graph = false;
  int graph_hops = kDefaultGraphHops;
  std::string embedder = "hash";  // the vector channel's: hash, static or static=FILE
};

struct Dialogue {
  std::string query;
  std::vector<std::string> relevant;  // memory ids
};

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
        if (t.contains("query") && t["query"].is_string())
          users.push_back(t["query"].get<std::string>());
        if (t.contains("response") && t["response"].is_string())
          assistant.push_back(t["response"].get<std::string>());
      }
  users.insert(users.end(), assistant.begin(), assistant.end());
  if (users.size() > n) users.resize(n);
  return users;
}

// The terms a fake model would call entities: words (4+ letters) and CJK bigrams, no stop words.
std::set<std::string> Terms(const std::string& text) {
  std::vector<std::string> terms = TopicTerms(text, 4);
  return {terms.begin(), terms.end()};
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
      const std::string person = text.substr(
          0, text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"));
      if (person.size() < 2) continue;
      for (const std::string& term : Terms(text))
        if (rare_.count(term) && term != FoldForMatch(person))
          triples.push_back({{"subject", person},
                             {"relation", "mentions"},
                             {"object", term},
                             {"evidence", {id}}});
    }
    return json{{"operations", ops}, {"triples", triples}}.dump();
  }

 private:
  std::set<std::string> rare_;
};

using Events = std::vector<std::pair<std::string, std::string>>;  // id, text

// Remembers `events` through the flush with the fake triple model, so the graph channel has edges.
void RememberThroughFlush(BenchStore& b, const std::string& scope, const Events& events,
                          Corpus& corpus, const std::string& lang) {
  std::map<std::string, int> df;
  for (const auto& [id, text] : events)
    for (const std::string& t : Terms(text)) ++df[t];
  std::set<std::string> rare;
  for (const auto& [t, n] : df)
    if (n * 50 <= static_cast<int>(events.size())) rare.insert(t);
  FakeTripleModel model(std::move(rare));
  SourceService sources(b.store());
  FlushOptions windows;
  windows.source_window_limit = 10;  // an answer holds at most kMaxTriples (100): 10 per memory
  FlushService flush(b.store(), &model, &b.embedder(), windows);
  for (const auto& [id, text] : events)
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
    auto page = b.memory().ListEntries({scope, std::nullopt, false, {500, after}, std::nullopt});
    if (!page.ok() || page->items.empty()) break;
    for (const ManifestItem& m : page->items) entry_of_text[m.version.text] = m.version.entry_id;
    if (!page->next_cursor) break;
    after = *page->next_cursor;
  }
  for (const auto& [id, text] : events) corpus.ids_of_entry[entry_of_text[text]].push_back(id);
  size_t edges = 0;
  (void)b.store().Read([&](ReadTxn& txn) -> Status {
    PC_ASSIGN_OR_RETURN(Artifact m, LoadMemory(txn, scope));
    PC_ASSIGN_OR_RETURN(auto all, txn.ListGraphEdges(m.artifact_id, m.head_revision));
    edges = all.size();
    return Status::Ok();
  });
  std::fprintf(stderr, "%s: %zu memories, %zu graph edges (fake model)\n", lang.c_str(),
               events.size(), edges);
}

// One language of MADial-Bench: its events (after the distractors) in one scope, its dialogues.
Corpus LoadMadial(BenchStore& b, const Language& lang, const Options& opt) {
  Corpus corpus;
  const std::string scope = NewScope(b.memory(), "madial:" + lang.name);
  for (const std::string& text :
       Distractors(opt.data + "/../memorybank/" + lang.distractor_file, opt.distractors))
    RememberAs(b.memory(), scope, text, "", corpus);
  Events events;
  for (const json& line : ReadJsonLines(opt.data + "/" + lang.memory_file))
    for (const auto& [id, m] : line.items()) events.emplace_back(id, m["event"].get<std::string>());
  if (opt.graph) {
    RememberThroughFlush(b, scope, events, corpus, lang.name);
  } else {
    for (const auto& [id, text] : events) RememberAs(b.memory(), scope, text, id, corpus);
  }
  // The split (issue 29): dialogues at even positions of the file are dev, odd ones held-out.
  size_t position = 0;
  for (Dialogue& d : LoadDialogues(opt.data + "/" + lang.dialogue_file))
    corpus.queries.push_back({scope, std::move(d.query), position++ % 2 == 0 ? "dev" : "held-out",
                              std::move(d.relevant)});
  return corpus;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep))
    if (!part.empty()) out.push_back(part);
  return out;
}

// Whether `mode` ends with `suffix`; if so, cut it off.
bool CutSuffix(std::string& mode, const std::string& suffix) {
  if (mode.size() <= suffix.size() ||
      mode.compare(mode.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  mode.resize(mode.size() - suffix.size());
  return true;
}

// A mode as --modes names it: "fts" searches as a request does by default (with pseudo-relevance
// feedback and neighbour propagation, the request's `feedback`); "fts-plain" is plain BM25
// (`feedback: false`); "-rerank-oracle" / "-rerank-shuffle" after either rerank with the scripted
// chat models (ScriptedRerank).
struct ModeSpec {
  SearchMode mode = SearchMode::kFts;
  bool feedback = true;
  std::optional<ScriptedRanking> rerank;
};

ModeSpec ParseMode(std::string name) {
  ModeSpec spec;
  if (CutSuffix(name, "-rerank-oracle"))
    spec.rerank = ScriptedRanking::kOracle;
  else if (CutSuffix(name, "-rerank-shuffle"))
    spec.rerank = ScriptedRanking::kShuffle;
  spec.feedback = !CutSuffix(name, "-plain");
  auto mode = ParseSearchMode(name);
  if (!mode.ok()) {
    std::cerr << "unknown mode " << name << "\n";
    std::exit(2);
  }
  spec.mode = *mode;
  return spec;
}

// Measures every mode on one language's corpus and prints a row per mode (and per split when the
// queries have them). False when a row's recall@10 is below its minimum: MODE's for the row over
// all queries, MODE@SPLIT's for a split's.
bool Report(const std::string& lang, BenchStore& b, const Corpus& corpus, const Options& opt) {
  const bool splits = std::any_of(corpus.queries.begin(), corpus.queries.end(),
                                  [](const RecallQuery& q) { return !q.group.empty(); });
  std::map<std::string, std::map<std::string, ModeResult>> by_mode;
  for (const std::string& mode : opt.modes) {
    const ModeSpec spec = ParseMode(mode);
    if (!spec.rerank) {
      by_mode[mode] = Measure(b.search(), corpus, spec.mode, opt.graph_hops, spec.feedback);
      continue;
    }
    ScriptedRerank scripted(b.store(), corpus, *spec.rerank);
    by_mode[mode] = Measure(scripted.search(), corpus, spec.mode, opt.graph_hops, spec.feedback,
                            true, [&](const RecallQuery& q) { scripted.Asking(q); });
  }
  bool ok = true;
  for (const std::string& group : splits ? std::vector<std::string>{"dev", "held-out", "all"}
                                         : std::vector<std::string>{"all"}) {
    for (const std::string& mode : opt.modes) {
      std::string row = "| " + lang + (splits ? " | " + group : "") + " | " + mode;
      auto it = by_mode[mode].find(group);
      if (it == by_mode[mode].end()) continue;
      const ModeResult& res = it->second;
      if (!res.error.empty()) {
        std::printf("%s | n/a: %s |||\n", row.c_str(), res.error.c_str());
        continue;
      }
      if (splits) row += " | " + std::to_string(res.queries);
      std::printf("%s | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f |\n", row.c_str(), res.recall.at(1),
                  res.recall.at(5), res.recall.at(10), res.recall.at(20), res.p50_ms, res.p95_ms);
      auto want = opt.minimum.find(group == "all" ? mode : mode + "@" + group);
      if (want != opt.minimum.end() && res.recall.at(10) < want->second) {
        std::fprintf(stderr, "%s %s %s recall@10 %.3f is below %.3f\n", lang.c_str(), group.c_str(),
                     mode.c_str(), res.recall.at(10), want->second);
        ok = false;
      }
    }
  }
  return ok;
}

int RunMadial(Options opt) {
  if (opt.data.empty()) opt.data = "../shared/data/madial-bench";
  if (!std::filesystem::exists(opt.data + "/MADial-Bench-zh-memory.json")) {
    std::cout << "skipped: MADial-Bench not found at " << opt.data
              << " (it lives in the project's shared/data)\n";
    return kSkipped;
  }
  const Language langs[] = {
      {"zh", "MADial-Bench-zh-memory.json", "MADial-Bench-zh-dialogue.json", "memory_bank_cn.json"},
      {"en", "MADial-Bench-en-memory.json", "MADial-Bench-en-dialogue.json",
       "memory_bank_en.json"}};
  std::printf(
      "| language | split | mode | questions | R@1 | R@5 | R@10 | R@20 | p50 ms | p95 ms |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  int rc = 0;
  for (const Language& lang : langs) {
    BenchStore b(lang.name, opt.store_url, opt.embedder);
    if (!Report(lang.name, b, LoadMadial(b, lang, opt), opt)) rc = 1;
  }
  return rc;
}

int RunMemoryBank(Options opt) {
  if (opt.data.empty()) opt.data = "../shared/data/memorybank";
  if (!std::filesystem::exists(opt.data + "/memory_bank_en.json")) {
    std::cout << "skipped: MemoryBank not found at " << opt.data
              << " (it lives in the project's shared/data)\n";
    return kSkipped;
  }
  std::printf(
      "| language | split | mode | questions | R@1 | R@5 | R@10 | R@20 | p50 ms | p95 ms |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  int rc = 0;
  for (const std::string lang : {"zh", "en"}) {
    BenchStore b("memorybank-" + lang, opt.store_url, opt.embedder);
    if (!Report(lang, b, LoadMemoryBank(b.memory(), lang, opt.data, opt.labels), opt)) rc = 1;
  }
  return rc;
}

// False (after saying why) for arguments this program does not take.
bool ParseArgs(int argc, char** argv, Options& opt) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--bench" && has_value)
      opt.bench = argv[++i];
    else if (a == "--data" && has_value)
      opt.data = argv[++i];
    else if (a == "--labels" && has_value)
      opt.labels = argv[++i];
    else if (a == "--modes" && has_value)
      opt.modes = Split(argv[++i], ',');
    else if (a == "--distractors" && has_value)
      opt.distractors = std::stoul(argv[++i]);
    else if (a == "--store" && has_value)
      opt.store_url = argv[++i];
    else if (a == "--embedder" && has_value)
      opt.embedder = argv[++i];
    else if (a == "--graph")
      opt.graph = true;
    else if (a == "--graph-hops" && has_value)
      opt.graph_hops = std::stoi(argv[++i]);
    else if (a == "--min-recall10" && has_value) {
      auto kv = Split(argv[++i], '=');
      if (kv.size() != 2) {
        std::cerr << "--min-recall10 takes MODE=VALUE\n";
        return false;
      }
      opt.minimum[kv[0]] = std::stod(kv[1]);
    } else {
      return false;
    }
  }
  if (opt.bench == "madial") return true;
  if (opt.bench == "memorybank" && !opt.graph && opt.distractors == 0) return true;
  std::cerr << "--bench is madial or memorybank; --graph and --distractors are madial's\n";
  return false;
}

}  // namespace
}  // namespace pc

int main(int argc, char** argv) {
  pc::Options opt;
  if (!pc::ParseArgs(argc, argv, opt)) {
    std::cerr
        << "usage: recall [--bench madial|memorybank] [--data DIR] [--modes fts,vector,hybrid] "
           "[--min-recall10 MODE[@SPLIT]=V] [--store postgresql://…] [--distractors N] [--graph "
           "[--graph-hops N]] "
           "[--labels FILE] [--embedder hash|static|static=FILE]\n";
    return 2;
  }
  return opt.bench == "memorybank" ? pc::RunMemoryBank(opt) : pc::RunMadial(opt);
}
