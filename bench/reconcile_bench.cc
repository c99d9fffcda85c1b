// The reconcile gate's threshold (docs/write-gates.md), measured on labelled pairs built from real
// statements: MADial-Bench's memories (Chinese and English) and what MemoryBank's users said.
//
//   build/bench/reconcile_bench [--data ../shared/data] [--threshold T] [--examples N] [--lookup
//   0|1]
//
// Neither dataset has natural near-duplicate pairs, so the positives are CONSTRUCTED from each
// statement by edits a memory writer makes when it restates a fact: a clause dropped, a hedge
// ("I remember that …", "记得…") or a date added, the subject replaced by a pronoun, punctuation
// and case changed. The negatives are natural: every pair of distinct statements of the same person
// (MADial's user, MemoryBank's speaker), which share names, places and topics; the hard
// negatives are, for each statement, the most similar other statement of the same person. For
// each threshold it prints precision and recall of "similarity ≥ threshold" (near_duplicate.h),
// then the false positives and negatives at --threshold for a person to read. Exits 0 with a
// message when the data is absent.
//
// The lookup (on unless --lookup 0): the gate compares a write only with the candidates it looks
// up, so the threshold's recall is reached only if the lookup finds the entry restated. Every
// statement of a language is remembered into one memory of a real SQLite store (zh: MADial zh and
// MemoryBank cn; en: the English ones), then each constructed positive at or above the threshold is
// looked up as the gate does (FindNearDuplicates) and counted found when its original is among the
// near-duplicates named. The lookup before issue 28 (full-text search's best 8) runs beside it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_util.h"
#include "bulk_fill.h"
#include "json_lines.h"
#include "search/near_duplicate.h"
#include "service/core/actor.h"
#include "service/memory/memory_service.h"
#include "service/memory/write_gates.h"
#include "store/sqlite/sqlite_store.h"

namespace {

using nlohmann::json;

struct Statement {
  std::string person, text;
  bool zh = false;
};

struct Pair {
  std::string a, b, how;
  bool positive = false;
  double sim = 0;
};

bool EndsWith(const std::string& s, const std::string& t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

std::string StripEnd(std::string s) {
  for (const char* p : {"。", "！", "？", ".", "!", "?"})
    if (EndsWith(s, p)) return s.substr(0, s.size() - std::string(p).size());
  return s;
}

// `s` with every pair (from, to) of `table` replaced; empty when nothing changed.
std::string Substituted(std::string s,
                        const std::vector<std::pair<std::string, std::string>>& table) {
  bool changed = false;
  for (const auto& [from, to] : table)
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
      changed = true;
    }
  return changed ? s : "";
}

// Words a restatement changes (a paraphrase in the memory writer's own words).
const std::vector<std::pair<std::string, std::string>> kZhParaphrase = {
    {"非常", "特别"}, {"开心", "高兴"}, {"感到", "觉得"},   {"感觉", "觉得"}, {"喜欢", "爱"},
    {"今天", "今日"}, {"我们", "咱们"}, {"一起", "一块儿"}, {"朋友", "伙伴"}, {"学校", "校园"},
    {"难过", "伤心"}, {"生气", "恼火"}, {"参加", "参与"},   {"获得", "得到"}, {"尝试", "试"},
    {"因为", "由于"}, {"所以", "因此"}};
const std::vector<std::pair<std::string, std::string>> kEnParaphrase = {
    {"very happy", "really glad"},
    {"felt", "was"},
    {"feeling", "being"},
    {"very", "really"},
    {"happy", "glad"},
    {"sad", "upset"},
    {"angry", "annoyed"},
    {"friends", "pals"},
    {"friend", "pal"},
    {"school", "campus"},
    {"went to", "visited"},
    {"won", "took"},
    {"tried", "tested"},
    {"because", "since"},
    {"I really", "I truly"},
    {"I want", "I'd like"},
    {"like", "enjoy"}};

// The constructed restatements of `s` (each a positive pair with `s`).
std::vector<std::pair<std::string, std::string>> Variants(const Statement& s) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string& t = s.text;
  const std::string bare = StripEnd(t);
  if (s.zh) {
    out.push_back({"hedge", "记得" + t});
    out.push_back({"date", bare + "，那天是五月中旬。"});
    const size_t comma = bare.rfind("，");
    if (comma != std::string::npos && comma > bare.size() * 3 / 5)
      out.push_back({"clause dropped", bare.substr(0, comma) + "。"});
    if (!s.person.empty() && t.rfind(s.person, 0) == 0)
      out.push_back({"pronoun", "他" + t.substr(s.person.size())});
    out.push_back({"punctuation", bare});
    if (std::string p = Substituted(t, kZhParaphrase); !p.empty()) {
      out.push_back({"paraphrase", p});
      if (comma != std::string::npos && comma > bare.size() * 3 / 5)
        if (std::string q = Substituted(bare.substr(0, comma) + "。", kZhParaphrase); !q.empty())
          out.push_back({"paraphrase + clause dropped", q});
    }
  } else {
    out.push_back({"hedge", "I remember that " + t});
    out.push_back({"date", bare + ", in the middle of May."});
    const size_t comma = bare.rfind(", ");
    if (comma != std::string::npos && comma > bare.size() * 3 / 5)
      out.push_back({"clause dropped", bare.substr(0, comma) + "."});
    const size_t space = t.find(' ');
    if (space != std::string::npos && space > 0 && std::isupper(static_cast<unsigned char>(t[0])))
      out.push_back({"pronoun", "They" + t.substr(space)});
    std::string lower = bare;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back({"punctuation and case", lower});
    if (std::string p = Substituted(t, kEnParaphrase); !p.empty()) {
      out.push_back({"paraphrase", p});
      if (comma != std::string::npos && comma > bare.size() * 3 / 5)
        if (std::string q = Substituted(bare.substr(0, comma) + ".", kEnParaphrase); !q.empty())
          out.push_back({"paraphrase + clause dropped", q});
    }
  }
  return out;
}

// MADial-Bench: each line {"id": {event, user-id (zh only)}}; the English file shares the ids.
void LoadMadial(const std::string& dir, std::vector<Statement>& out) {
  std::map<std::string, std::string> user_of;
  for (const json& line : pc::ReadJsonLines(dir + "/MADial-Bench-zh-memory.json"))
    for (const auto& [id, m] : line.items()) {
      user_of[id] = std::to_string(m.value("user-id", 0));
      out.push_back({"madial-" + user_of[id], m.value("event", ""), true});
    }
  for (const json& line : pc::ReadJsonLines(dir + "/MADial-Bench-en-memory.json"))
    for (const auto& [id, m] : line.items())
      out.push_back({"madial-en-" + user_of[id], m.value("event", ""), false});
}

// MemoryBank's turns of at least 40 bytes, per language: `field` "query" is what each person said
// (the statements); "response" the assistant's answers, text of the same kind that says other
// things, to grow a lookup's memory (--pad; no person).
void LoadMemoryBank(const std::string& dir, const char* field, std::vector<Statement>& out) {
  const bool said = std::string(field) == "query";
  for (const auto& [file, zh] : {std::pair<const char*, bool>{"memory_bank_cn.json", true},
                                 {"memory_bank_en.json", false}}) {
    std::ifstream in(dir + "/" + file);
    if (!in) continue;
    json all = json::parse(in);
    for (const auto& [name, person] : all.items()) {
      if (!person.contains("history")) continue;
      for (const auto& [date, turns] : person["history"].items())
        for (const json& turn : turns) {
          std::string q = turn.value(field, "");
          if (q.size() >= 40)
            out.push_back({said ? std::string(zh ? "mb-cn-" : "mb-en-") + name : "", q, zh});
        }
    }
  }
}

struct Score {
  int tp = 0, fp = 0, fn = 0, tn = 0;
  double precision() const { return tp + fp ? double(tp) / (tp + fp) : 1.0; }
  double recall() const { return tp + fn ? double(tp) / (tp + fn) : 1.0; }
};

Score Measure(const std::vector<Pair>& pairs, double threshold) {
  Score s;
  for (const Pair& p : pairs) {
    const bool said = p.sim >= threshold;
    (p.positive ? (said ? s.tp : s.fn) : (said ? s.fp : s.tn))++;
  }
  return s;
}

// The lookup before issue 28: full-text search for the reconcile terms, the best 8 compared.
std::vector<std::string> OldLookup(pc::ReadTxn& txn, const pc::Artifact& memory,
                                   const std::string& text) {
  std::vector<std::string> out;
  auto hits = txn.SearchText(memory.artifact_id, pc::ReconcileQuery(text), false, 8);
  if (!hits.ok()) return out;
  const auto mine = pc::SimilarityTerms(text);
  for (const auto& h : *hits)
    if (pc::TermSimilarity(mine, pc::SimilarityTerms(h.item.version.text)) >=
        pc::kNearDuplicateThreshold)
      out.push_back(h.item.version.text);
  return out;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Lookup recall and cost, per language, of the gate's lookup and of the old one.
void MeasureLookup(const std::vector<Statement>& all, const std::vector<Statement>& pad,
                   size_t pad_entries, double threshold) {
  std::printf("\n## lookup (the gate's candidates, through a real store)\n\n");
  std::printf(
      "| language | memory entries | positives looked up | found: gate | found: old (fts best 8) |"
      " median us: gate | median us: old |\n|---|---|---|---|---|---|---|\n");
  for (bool zh : {true, false}) {
    std::vector<std::string> texts;
    for (const Statement& s : all)
      if (s.zh == zh) texts.push_back(s.text);
    for (size_t i = 0; i < pad.size() && i < pad_entries; ++i)
      if (pad[i].zh == zh) texts.push_back(pad[i].text);
    const std::string dir = pc::ScratchDir("pcreconcile");
    pc::sqlite::SqliteOptions o;
    o.data_dir = dir;
    auto store = std::move(pc::sqlite::SqliteStore::Open(o)).value();
    pc::MemoryService service(*store, pc::ServiceLimits{});
    pc::Scope scope = service.CreateScope(zh ? "zh" : "en").value().scope;
    if (!pc::FillMemory(
             *store, scope, static_cast<int64_t>(texts.size()),
             [&](int64_t i) { return texts[static_cast<size_t>(i)]; }, nullptr)
             .ok())
      std::abort();
    int looked = 0, found = 0, found_old = 0;
    std::vector<double> us, us_old;
    for (const Statement& s : all) {
      if (s.zh != zh) continue;
      for (const auto& [how, text] : Variants(s)) {
        if (pc::TextSimilarity(s.text, text) < threshold)
          continue;  // the threshold's miss, not the lookup's
        ++looked;
        // In a write's transaction, where the gate looks up on SQLite (its reads kept between
        // writes on the writer's connection, store/sqlite/gate_reads.h).
        (void)store->Write(pc::RequestActor(), [&](pc::WriteTxn& txn) -> pc::Status {
          auto scope_row = txn.FindScope(scope.scope_id);
          auto memory = txn.FindArtifact((*scope_row)->memory_artifact_id);
          auto t0 = std::chrono::steady_clock::now();
          auto near = pc::FindNearDuplicates(txn, **memory, text, std::nullopt, "", "");
          auto t1 = std::chrono::steady_clock::now();
          auto old = OldLookup(txn, **memory, text);
          auto t2 = std::chrono::steady_clock::now();
          us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
          us_old.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
          // Found: the original is named, or the gate named as many near-duplicates as it names at
          // most, each at least as similar (a memory that repeats itself: any of them is right).
          bool hit = false;
          if (near.ok()) {
            const double want = pc::TextSimilarity(s.text, text);
            bool all_closer = near->size() == pc::kMaxNearDuplicates;
            for (const auto& d : *near) {
              hit = hit || d.text == s.text;
              all_closer = all_closer && d.similarity >= want;
            }
            hit = hit || all_closer;
          }
          found += hit;
          found_old += std::find(old.begin(), old.end(), s.text) != old.end();
          return pc::Status::Ok();
        });
      }
    }
    std::printf("| %s | %zu | %d | %.4f | %.4f | %.0f | %.0f |\n", zh ? "zh" : "en", texts.size(),
                looked, looked ? double(found) / looked : 1.0,
                looked ? double(found_old) / looked : 1.0, Median(us), Median(us_old));
    store.reset();
    std::filesystem::remove_all(dir);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string data = "../shared/data";
  double chosen = pc::kNearDuplicateThreshold;
  int examples = 5;
  bool lookup = true;
  size_t pad_entries = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--data")
      data = argv[i + 1];
    else if (flag == "--threshold")
      chosen = std::stod(argv[i + 1]);
    else if (flag == "--examples")
      examples = std::stoi(argv[i + 1]);
    else if (flag == "--lookup")
      lookup = std::string(argv[i + 1]) != "0";
    else if (flag == "--pad")
      pad_entries = std::stoul(argv[i + 1]);
    else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  if (!std::filesystem::exists(data + "/madial-bench") ||
      !std::filesystem::exists(data + "/memorybank")) {
    std::cout << "skipped: MADial-Bench and MemoryBank not found under " << data << "\n";
    return 0;
  }
  std::vector<Statement> all;
  LoadMadial(data + "/madial-bench", all);
  LoadMemoryBank(data + "/memorybank", "query", all);
  std::map<std::string, std::vector<size_t>> by_person;
  for (size_t i = 0; i < all.size(); ++i) by_person[all[i].person].push_back(i);

  std::vector<Pair> pairs, hard;
  std::vector<std::vector<std::string>> terms(all.size());
  for (size_t i = 0; i < all.size(); ++i) terms[i] = pc::SimilarityTerms(all[i].text);
  const auto start = std::chrono::steady_clock::now();
  size_t compared = 0;
  for (const auto& [person, ids] : by_person) {
    for (size_t x = 0; x < ids.size(); ++x) {
      Pair best{all[ids[x]].text, "", "hard negative", false, -1};
      for (size_t y = 0; y < ids.size(); ++y) {
        if (x == y || all[ids[x]].text == all[ids[y]].text) continue;
        const double sim = pc::TermSimilarity(terms[ids[x]], terms[ids[y]]);
        ++compared;
        if (y > x) pairs.push_back({all[ids[x]].text, all[ids[y]].text, "same person", false, sim});
        if (sim > best.sim)
          best = {all[ids[x]].text, all[ids[y]].text, "hard negative", false, sim};
      }
      if (best.sim >= 0) hard.push_back(best);
    }
  }
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  std::vector<Pair> positives;
  for (const Statement& s : all)
    for (const auto& [how, text] : Variants(s))
      positives.push_back({s.text, text, how, true, pc::TextSimilarity(s.text, text)});

  std::printf("statements: %zu (MADial zh+en memories, MemoryBank cn+en user turns), people: %zu\n",
              all.size(), by_person.size());
  std::printf(
      "pairs: %zu constructed positives, %zu natural negatives (same person), %zu hard negatives\n",
      positives.size(), pairs.size(), hard.size());
  std::printf("term similarity: %.2f us per pair (%zu pairs)\n\n",
              us / double(std::max<size_t>(1, compared)), compared);
  std::vector<Pair> everything = positives, hardset = positives;
  everything.insert(everything.end(), pairs.begin(), pairs.end());
  hardset.insert(hardset.end(), hard.begin(), hard.end());
  std::printf(
      "| threshold | precision (all negatives) | recall | precision (hard negatives) | false "
      "positives |\n");
  std::printf("|---|---|---|---|---|\n");
  for (double t = 0.30; t < 0.951; t += 0.05) {
    Score s = Measure(everything, t), h = Measure(hardset, t);
    std::printf("| %.2f%s | %.4f | %.4f | %.4f | %d |\n", t,
                std::abs(t - chosen) < 1e-9 ? " (chosen)" : "", s.precision(), s.recall(),
                h.precision(), s.fp);
  }
  std::map<std::string, std::pair<int, int>> per_edit;
  for (const Pair& p : positives) {
    auto& [hit, n] = per_edit[p.how];
    ++n;
    if (p.sim >= chosen) ++hit;
  }
  std::printf("\nrecall at %.2f by edit:", chosen);
  for (const auto& [how, c] : per_edit) std::printf(" %s %d/%d;", how.c_str(), c.first, c.second);
  std::printf("\n");
  std::vector<const Pair*> fps, fns;
  for (const Pair& p : everything)
    if (!p.positive && p.sim >= chosen)
      fps.push_back(&p);
    else if (p.positive && p.sim < chosen)
      fns.push_back(&p);
  auto by_sim = [](const Pair* a, const Pair* b) { return a->sim > b->sim; };
  std::sort(fps.begin(), fps.end(), by_sim);
  std::sort(fns.begin(), fns.end(), [](const Pair* a, const Pair* b) { return a->sim < b->sim; });
  std::printf("\nfalse positives at %.2f (most similar first):\n", chosen);
  for (int i = 0; i < examples && i < static_cast<int>(fps.size()); ++i)
    std::printf("  %.3f  %s\n         %s\n", fps[i]->sim, fps[i]->a.c_str(), fps[i]->b.c_str());
  std::printf("false negatives at %.2f (least similar first):\n", chosen);
  for (int i = 0; i < examples && i < static_cast<int>(fns.size()); ++i)
    std::printf("  %.3f  [%s] %s\n         %s\n", fns[i]->sim, fns[i]->how.c_str(),
                fns[i]->a.c_str(), fns[i]->b.c_str());
  if (lookup) {
    std::vector<Statement> responses;
    LoadMemoryBank(data + "/memorybank", "response", responses);
    MeasureLookup(all, responses, pad_entries, chosen);
  }
  return 0;
}
