// Crash trials (issue 12). Several clients write to several scopes at once — remember (some with
// expected_revision), revise and retire at the head, sources (single and batches, some archive),
// flushes through the fake model — and the server is killed with SIGKILL at a random moment (or,
// in some trials, while the model thinks, or just after it answered), N times on one data
// directory. After each restart, for every scope:
//   - every acknowledged write is there exactly: its revision holds exactly its change and its
//     citation reads back its text; an acknowledged source is listed as it was answered; an
//     acknowledged flush's revision and cursor are there;
//   - revisions are 1..head without a gap, each with a non-empty set of changes that is one
//     consistent step of the history; earlier revisions are as they were; the head manifest is
//     the history replayed, and full text finds a sample of what this trial remembered;
//   - the extraction cursor (read through a flush whose model answers nonsense: "the cursor stays
//     at N") and the flush revisions agree: positions 1..cursor are the windows of flush
//     revisions (each revision's lineage exactly its window's usable sources) and archive-only
//     stretches; no flush revision's window ends past the cursor;
//   - a write whose answer the kill cut off is wholly there (one revision that is exactly it, a
//     batch with all its sources) or wholly absent; a refused write (4xx) is absent, and nothing
//     fails with a 5xx.
// POWERCONTEXT_CRASH_TRIALS sets N (default 10); the seed is printed, and POWERCONTEXT_CRASH_SEED
// replays a run's kill moments and operation mix (the threads' interleaving is the machine's):
//   POWERCONTEXT_CRASH_TRIALS=100 build/tests/e2e_tests --gtest_filter='CrashTrials.*'
// A failing trial keeps a copy of the data directory (and the server's log) and names it.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "fake_openai.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kScopes = 3;
constexpr int kRememberers = 2;
constexpr int kWindow = 4;  // --source-window-limit: many small windows, some half-read logs

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return std::strtoll(v, nullptr, 10);
}

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// One HTTP client; status 0 = no answer (the connection was cut, or never made).
struct Reply {
  int status = 0;
  json body;
};

class Http {
 public:
  explicit Http(int port) : c_("127.0.0.1", port) {
    c_.set_connection_timeout(2, 0);
    c_.set_read_timeout(20, 0);
    c_.set_write_timeout(5, 0);
  }
  Reply Post(const std::string& path, const json& body) {
    auto res = c_.Post(path, body.dump(), "application/json");
    return Wrap(res);
  }
  Reply Get(const std::string& path) { return Wrap(c_.Get(path)); }

 private:
  static Reply Wrap(const httplib::Result& res) {
    if (!res) return {};
    return {res->status, json::parse(res->body, nullptr, false)};
  }
  httplib::Client c_;
};

// The model: for each window, an add from its first source (and, at random, an add from its
// second source and a revise of a shown entry), after a pause of 0-29 ms. Texts derive from the
// sources' contents, which are unique: the adds are always valid (so a window with a usable
// source always makes a revision; only the revise can be refused, when its entry changed
// meanwhile), and every text traces back to the window it came from.
class Model {
 public:
  explicit Model(uint64_t seed) : rng_(seed) {}

  FakeOpenAi::ChatReply Answer(const std::string& body) {
    if (probe_) return FakeOpenAi::ChatReply("no JSON here, for the cursor probe");
    json request = json::parse(body, nullptr, false);
    json input;
    if (request.is_object() && request["messages"].size() == 2)
      input = json::parse(request["messages"][1].value("content", ""), nullptr, false);
    if (!input.is_object() || !input["sources"].is_array() || input["sources"].empty() ||
        !input["entries"].is_array()) {
      ++malformed_;
      return FakeOpenAi::ChatReply("", 400);
    }
    ++thinking_;
    std::vector<std::string> sources;
    for (const json& s : input["sources"]) sources.push_back(s.value("text", ""));
    int delay_ms = 0;
    bool second = false;
    int revise = -1;
    {
      std::lock_guard<std::mutex> lock(mu_);
      delay_ms = static_cast<int>(rng_() % 30);
      second = sources.size() > 1 && rng_() % 2 == 0;
      if (!input["entries"].empty() && rng_() % 2 == 0)
        revise = static_cast<int>(rng_() % input["entries"].size());
    }
    json ops = json::array();
    std::vector<std::string> texts;
    auto add = [&](json op) {
      texts.push_back(op["text"]);
      ops.push_back(std::move(op));
    };
    add({{"op", "add"},
         {"kind", "fact"},
         {"text", "Extracted from " + sources[0]},
         {"evidence", {"S1"}}});
    if (second)
      add({{"op", "add"},
           {"kind", "decision"},
           {"text", "Also from " + sources[1]},
           {"evidence", {"S2"}}});
    if (revise >= 0)
      add({{"op", "revise"},
           {"target", "E" + std::to_string(revise + 1)},
           {"text", "Revised after " + sources[0]},
           {"evidence", {"S1"}}});
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_[Join(sources)].push_back(texts);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ++answered_;
    --thinking_;
    return FakeOpenAi::ChatReply(json{{"operations", ops}}.dump());
  }

  static std::string Join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += p + "\x1f";
    return out;
  }
  // What the model answered when shown exactly these sources (each answer's texts).
  std::vector<std::vector<std::string>> AnswersFor(const std::vector<std::string>& sources) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = calls_.find(Join(sources));
    return it == calls_.end() ? std::vector<std::vector<std::string>>{} : it->second;
  }
  void set_probe(bool probe) { probe_ = probe; }
  int thinking() const { return thinking_; }
  int64_t answered() const { return answered_; }
  int malformed() const { return malformed_; }

 private:
  std::mutex mu_;
  std::mt19937_64 rng_;
  std::map<std::string, std::vector<std::vector<std::string>>> calls_;
  std::atomic<bool> probe_{false};
  std::atomic<int> thinking_{0};
  std::atomic<int64_t> answered_{0};
  std::atomic<int> malformed_{0};
};

// ---- What the test knows for sure, across trials -------------------------------------------

struct SourceRec {
  std::string source_id, content, purpose;
  std::string ref;  // source/ID@POSITION, ID the id it is known by (its idempotency key here)
};

struct RevisionRec {
  json changes;  // normalized
  std::string actor, reason;
  json lineage;
};

struct EntryState {
  std::string version_id;
  bool active = true;
};

struct ScopeWorld {
  std::string key, scope_id, artifact_id;
  std::map<int64_t, RevisionRec> revisions;            // 1..head, as verified
  std::map<std::string, EntryState> entries;           // the head, replayed from the revisions
  std::unordered_map<std::string, std::string> texts;  // entry_version_id -> text
  std::vector<SourceRec> sources;                      // position p at [p - 1]
  int64_t cursor = 0;
};

// ---- One trial's requests -----------------------------------------------------------------------

enum class Op { kRemember, kRevise, kRetire, kSource, kFlush };
const char* OpName(Op op) {
  switch (op) {
    case Op::kRemember:
      return "remember";
    case Op::kRevise:
      return "revise";
    case Op::kRetire:
      return "retire";
    case Op::kSource:
      return "source";
    case Op::kFlush:
      return "flush";
  }
  return "?";
}

struct Attempt {
  Op op = Op::kRemember;
  int scope = 0;
  Reply reply;                       // status 0: cut off by the kill
  std::string kind, text;            // remember, revise
  std::string entry_id, version_id;  // revise, retire: the version cited at the head
  std::vector<SourceRec> items;      // source: one, or a batch (source_id unknown here)
  bool batch = false;
  bool cut() const { return reply.status == 0; }
  bool acked() const { return reply.status == 200 || reply.status == 201; }
};

struct Counts {
  int acked = 0, refused = 0, cut = 0, cut_present = 0, cut_absent = 0, idle_flushes = 0;
  std::map<std::string, int> acked_by_op;
  int64_t new_revisions = 0, new_sources = 0;
  int reads_checked = 0, searches_checked = 0;
};

json Norm(const json& change) {
  json out = json::object();
  for (const char* k : {"op", "entry_id", "entry_version_id", "from_version_id", "to_version_id"})
    if (change.contains(k) && !change[k].is_null()) out[k] = change[k];
  return out;
}

json NormAll(const json& changes) {
  json out = json::array();
  for (const json& c : changes) out.push_back(Norm(c));
  return out;
}

std::string CitationRef(const ScopeWorld& w, int64_t revision, const std::string& entry_id,
                        const std::string& version_id) {
  return "memory/" + w.artifact_id + "@" + std::to_string(revision) + "#" + entry_id + "@" +
         version_id;
}

std::string Str(const json& j) { return j.dump(); }
std::string S(const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// ---- The checks after a restart ----------------------------------------------------------------

class Verifier {
 public:
  Verifier(Http& http, ScopeWorld& world, std::vector<Attempt*> attempts, Model& model,
           Counts& counts, std::vector<std::string>& problems)
      : http_(http),
        w_(world),
        attempts_(std::move(attempts)),
        model_(model),
        counts_(counts),
        problems_(problems) {}

  void Run() {
    if (!FetchRevisions() || !FetchSources()) return;
    CheckSources();
    CheckRevisions();
    CheckHeadListing();
    CheckReads();
    CheckSearch();
    CheckCursor();
  }

 private:
  template <typename... Args>
  void Problem(Args&&... args) {
    std::ostringstream out;
    out << "scope " << w_.key << ": ";
    (out << ... << args);
    problems_.push_back(out.str());
  }

  bool FetchRevisions() {
    std::string cursor;
    bool first = true;
    do {
      Reply r = http_.Get("/v1/memory/revisions?scope_id=" + w_.scope_id + "&limit=1000" +
                          (cursor.empty() ? "" : "&cursor=" + cursor));
      if (r.status != 200) {
        Problem("GET /v1/memory/revisions answered ", r.status, " ", Str(r.body));
        return false;
      }
      if (first) head_ = r.body["head"]["revision"];
      first = false;
      for (const json& rev : r.body["revisions"])
        revs_[rev["memory"]["revision"].get<int64_t>()] = rev;
      cursor = r.body["next_cursor"].is_string() ? r.body["next_cursor"].get<std::string>() : "";
    } while (!cursor.empty());
    old_head_ = w_.revisions.empty() ? 0 : w_.revisions.rbegin()->first;
    if (head_ < old_head_) Problem("head went back from ", old_head_, " to ", head_);
    if (static_cast<int64_t>(revs_.size()) != head_ ||
        (!revs_.empty() && (revs_.begin()->first != 1 || revs_.rbegin()->first != head_)))
      Problem("revisions are not 1..", head_, ": ", revs_.size(), " listed, from ",
              revs_.empty() ? 0 : revs_.begin()->first, " to ",
              revs_.empty() ? 0 : revs_.rbegin()->first);
    for (auto& [n, rev] : revs_) {
      if (!rev["changes"].is_array() || rev["changes"].empty())
        Problem("revision ", n, " has no changes");
      std::set<std::string> seen;
      for (const json& c : rev["changes"])
        if (!seen.insert(S(c["entry_id"])).second)
          Problem("revision ", n, " changes entry ", c.value("entry_id", ""), " twice");
    }
    // Revisions verified before are exactly as they were.
    for (auto& [n, rec] : w_.revisions) {
      auto it = revs_.find(n);
      if (it == revs_.end()) {
        Problem("revision ", n, " (verified after an earlier restart) is gone");
        continue;
      }
      if (NormAll(it->second["changes"]) != rec.changes || it->second["reason"] != rec.reason ||
          it->second["lineage"] != rec.lineage || it->second["actor"] != rec.actor)
        Problem("revision ", n, " changed since it was verified: ", Str(it->second));
    }
    counts_.new_revisions += head_ - old_head_;
    return problems_.empty();
  }

  bool FetchSources() {
    int64_t after = 0;
    while (true) {
      Reply r = http_.Get("/v1/sources?scope_id=" + w_.scope_id +
                          "&limit=1000&after=" + std::to_string(after));
      if (r.status != 200) {
        Problem("GET /v1/sources answered ", r.status, " ", Str(r.body));
        return false;
      }
      high_watermark_ = r.body["high_watermark"];
      for (const json& s : r.body["sources"]) {
        int64_t pos = s["position"];
        if (pos != static_cast<int64_t>(listed_.size()) + 1)
          Problem("source positions jump from ", listed_.size(), " to ", pos);
        listed_.push_back(
            {S(s["source_id"]), S(s["content"]), S(s["purpose"]), S(s["source_ref"])});
      }
      if (r.body["next_after"].is_null()) break;
      after = r.body["next_after"];
    }
    if (high_watermark_ != static_cast<int64_t>(listed_.size()))
      Problem("high_watermark ", high_watermark_, " but ", listed_.size(), " sources listed");
    return true;
  }

  void CheckSources() {
    if (listed_.size() < w_.sources.size())
      Problem("the source log shrank from ", w_.sources.size(), " to ", listed_.size());
    for (size_t i = 0; i < std::min(listed_.size(), w_.sources.size()); ++i) {
      const SourceRec& a = w_.sources[i];
      const SourceRec& b = listed_[i];
      if (a.source_id != b.source_id || a.content != b.content || a.purpose != b.purpose)
        Problem("source at position ", i + 1, " changed: was ", a.source_id, " ", a.content,
                ", now ", b.source_id, " ", b.content);
    }
    // Each new source comes from exactly one request this trial, and each request is all or none.
    std::unordered_map<std::string, std::pair<Attempt*, size_t>> by_content;
    for (Attempt* a : attempts_)
      if (a->op == Op::kSource)
        for (size_t k = 0; k < a->items.size(); ++k) by_content[a->items[k].content] = {a, k};
    std::map<Attempt*, std::vector<int64_t>>
        found;  // positions of each request's items, in item order
    std::set<std::string> seen;
    for (size_t i = w_.sources.size(); i < listed_.size(); ++i) {
      const SourceRec& s = listed_[i];
      auto it = by_content.find(s.content);
      if (it == by_content.end()) {
        Problem("source at position ", i + 1, " (", s.content, ") came from no request");
        continue;
      }
      if (!seen.insert(s.content).second) Problem("source ", s.content, " is in the log twice");
      auto& [a, k] = it->second;
      if (s.purpose != a->items[k].purpose)
        Problem("source ", s.content, " has purpose ", s.purpose);
      auto& pos = found[a];
      pos.resize(a->items.size(), 0);
      pos[k] = static_cast<int64_t>(i) + 1;
    }
    for (Attempt* a : attempts_) {
      if (a->op != Op::kSource) continue;
      auto it = found.find(a);
      size_t present = 0;
      if (it != found.end())
        for (int64_t p : it->second) present += p > 0 ? 1 : 0;
      if (a->acked()) {
        if (a->reply.status != 201)
          Problem("a source request with new idempotency keys answered ", a->reply.status);
        json answered = a->batch ? a->reply.body["sources"] : json::array({a->reply.body});
        for (size_t k = 0; k < a->items.size(); ++k) {
          int64_t pos = answered[k]["position"];
          if (pos < 1 || pos > static_cast<int64_t>(listed_.size()) ||
              listed_[pos - 1].source_id != answered[k]["source_id"] ||
              listed_[pos - 1].content != a->items[k].content)
            Problem("acknowledged source ", a->items[k].content, " (",
                    Str(answered[k]["source_ref"]), ") is not listed as answered");
        }
      } else if (a->cut()) {
        if (present != 0 && present != a->items.size())
          Problem("a cut-off batch is half there: ", present, " of ", a->items.size(),
                  " sources, first ", a->items[0].content);
        if (present == a->items.size()) {
          for (size_t k = 1; k < a->items.size(); ++k)
            if (it->second[k] != it->second[k - 1] + 1)
              Problem("a cut-off batch landed out of order or apart: ", a->items[0].content);
          ++counts_.cut_present;
        } else {
          ++counts_.cut_absent;
        }
      } else if (present != 0) {
        Problem("refused source request (", a->reply.status,
                ") is in the log: ", a->items[0].content);
      }
    }
  }

  // The text of an entry version written at revision n: known, or read through its citation.
  std::optional<json> ReadVersion(int64_t n, const std::string& entry_id,
                                  const std::string& version_id) {
    Reply r = http_.Post(
        "/v1/memory/entries/get",
        {{"scope_id", w_.scope_id}, {"citation", CitationRef(w_, n, entry_id, version_id)}});
    ++counts_.reads_checked;
    if (r.status != 200) {
      Problem("version ", version_id, " of revision ", n, " cannot be read: ", r.status, " ",
              Str(r.body));
      return std::nullopt;
    }
    return r.body;  // a MemoryEntry: text, kind, source_refs
  }

  void CheckRevisions() {
    // What the acknowledged writes say each revision holds.
    std::map<int64_t, Attempt*> claimed;
    for (Attempt* a : attempts_) {
      if (!a->acked() || a->op == Op::kSource) continue;
      const json& b = a->reply.body;
      if (a->op == Op::kFlush && b["status"] == "processed" && b["changes"].empty() &&
          b["processed_source_count"] != 0)
        Problem("acknowledged flush of ", S(b["processed_source_count"]),
                " usable sources made no change: ", Str(b));
      if (a->op == Op::kFlush && (b["status"] != "processed" || b["changes"].empty())) continue;
      if (a->op != Op::kFlush && b["changed"] != true) {
        Problem(OpName(a->op), " answered ", a->reply.status, " without a change: ", Str(b));
        continue;
      }
      int64_t n = b["memory"]["revision"];
      if (n <= old_head_)
        Problem("acknowledged ", OpName(a->op), " answered revision ", n, ", verified before");
      if (!claimed.emplace(n, a).second) Problem("two acknowledged writes answered revision ", n);
    }
    std::set<Attempt*> matched;
    for (int64_t n = old_head_ + 1; n <= head_; ++n) {
      auto rit = revs_.find(n);
      if (rit == revs_.end()) continue;  // reported
      const json& rev = rit->second;
      json changes = NormAll(rev["changes"]);
      bool is_flush = S(rev["actor"]).rfind("extraction:", 0) == 0;
      Attempt* owner = nullptr;
      auto cit = claimed.find(n);
      if (cit != claimed.end()) {
        owner = cit->second;
        const json& b = owner->reply.body;
        json expected =
            owner->op == Op::kFlush ? NormAll(b["changes"]) : json::array({Norm(b["change"])});
        if (changes != expected)
          Problem("acknowledged ", OpName(owner->op), " answered revision ", n, " with ",
                  Str(expected), " but the revision holds ", Str(changes));
        if ((owner->op == Op::kFlush) != is_flush)
          Problem("revision ", n, " has actor ", Str(rev["actor"]), " for a ", OpName(owner->op));
        if (owner->op == Op::kFlush) {
          std::string reason = "flush of sources " +
                               std::to_string(b["previous_cursor"].get<int64_t>() + 1) + ".." +
                               std::to_string(b["current_cursor"].get<int64_t>());
          if (rev["reason"] != reason)
            Problem("acknowledged flush of revision ", n, " has reason ", Str(rev["reason"]),
                    " not ", reason);
        }
        matched.insert(owner);
      }
      // Texts of the versions this revision wrote (adds and revises).
      std::map<std::string, json> written;  // version id -> entry version
      for (const json& c : rev["changes"]) {
        std::string op = S(c["op"]);
        if (op == "retire") continue;
        std::string vid = S(op == "add" ? c["entry_version_id"] : c["to_version_id"]);
        if (auto v = ReadVersion(n, S(c["entry_id"]), vid)) written[vid] = *v;
      }
      if (is_flush) {
        CheckFlushRevision(n, rev, written);
        if (!owner) owner = MatchCut(Op::kFlush, matched, [](Attempt*) { return true; });
      } else {
        if (!rev["lineage"].empty() || rev["actor"] != "api")
          Problem("explicit revision ", n, " has actor ", Str(rev["actor"]), " lineage ",
                  Str(rev["lineage"]));
        if (changes.size() != 1) {
          Problem("explicit revision ", n, " has ", changes.size(), " changes");
          continue;
        }
        const json& c = changes[0];
        const std::string op = S(c["op"]), entry_id = S(c["entry_id"]);
        const std::string text = written.empty() ? "" : S(written.begin()->second["text"]);
        const std::string kind = written.empty() ? "" : S(written.begin()->second["kind"]);
        if (op == "add" && !written.empty() && !written.begin()->second["source_refs"].empty())
          Problem("remembered entry of revision ", n,
                  " has source_refs");  // (a revise keeps the entry's)
        if (owner) {
          if (!written.empty() && text != owner->text)
            Problem("acknowledged ", OpName(owner->op), " of revision ", n, " reads back ", text,
                    " not ", owner->text);
        } else if (op == "add" && !written.empty()) {
          owner = MatchCut(Op::kRemember, matched,
                           [&](Attempt* a) { return a->text == text && a->kind == kind; });
        } else if (op == "revise" && !written.empty()) {
          owner = MatchCut(Op::kRevise, matched, [&](Attempt* a) {
            return a->version_id == S(c["from_version_id"]) && a->entry_id == entry_id &&
                   a->text == text;
          });
        } else if (op == "retire") {
          owner = MatchCut(Op::kRetire, matched, [&](Attempt* a) {
            return a->version_id == S(c["entry_version_id"]) && a->entry_id == entry_id;
          });
        }
      }
      if (!owner) {
        Problem("revision ", n, " was made by no request that went unanswered: ", Str(rev));
        continue;
      }
      if (owner->cut()) ++counts_.cut_present;
      matched.insert(owner);
      Apply(n, rev, written);
      w_.revisions[n] = {changes, S(rev["actor"]), S(rev["reason"]), rev["lineage"]};
    }
    for (auto& [n, a] : claimed)
      if (n > head_)
        Problem("acknowledged ", OpName(a->op), " of revision ", n, " is lost: the head is ",
                head_);
    for (Attempt* a : attempts_)
      if (a->op != Op::kSource && a->cut() && !matched.count(a)) ++counts_.cut_absent;
  }

  template <typename Pred>
  Attempt* MatchCut(Op op, const std::set<Attempt*>& matched, Pred pred) {
    for (Attempt* a : attempts_)
      if (a->op == op && a->cut() && !matched.count(a) && pred(a)) return a;
    return nullptr;
  }

  // A flush revision: its window (from the reason) is a stretch of the log; its lineage is the
  // window's usable sources; its texts are what the model answered for exactly those sources.
  void CheckFlushRevision(int64_t n, const json& rev, const std::map<std::string, json>& written) {
    const std::string reason = S(rev["reason"]);
    long long a = 0, b = 0;
    if (std::sscanf(reason.c_str(), "flush of sources %lld..%lld", &a, &b) != 2 || a < 1 || b < a ||
        b - a + 1 > kWindow || b > static_cast<long long>(listed_.size())) {
      Problem("flush revision ", n, " has reason ", Str(reason), " (", listed_.size(), " sources)");
      return;
    }
    json lineage = json::array();
    std::vector<std::string> shown;
    for (long long p = a; p <= b; ++p)
      if (listed_[p - 1].purpose != "archive") {
        lineage.push_back(listed_[p - 1].ref);
        shown.push_back(listed_[p - 1].content);
      }
    if (rev["lineage"] != lineage)
      Problem("flush revision ", n, " (", reason, ") has lineage ", Str(rev["lineage"]),
              ", not its window's ", Str(lineage));
    for (auto& [vid, v] : written) {
      bool cited = !v["source_refs"].empty();
      for (const json& ref : v["source_refs"])  // {name, source_id}
        cited = cited && std::any_of(lineage.begin(), lineage.end(), [&](const json& l) {
                  return S(l).rfind("source/" + S(ref["source_id"]) + "@", 0) == 0;
                });
      if (!cited)
        Problem("flush revision ", n, " wrote ", vid, " citing ", Str(v["source_refs"]),
                ", not its window");
    }
    auto answers = model_.AnswersFor(shown);
    if (answers.empty()) {
      Problem("flush revision ", n, ": the model was never shown its window ", reason);
      return;
    }
    bool explained = false;
    for (const auto& texts : answers) {
      bool all = true, first = false;
      for (auto& [vid, v] : written) {
        const std::string text = S(v["text"]);
        all = all && std::find(texts.begin(), texts.end(), text) != texts.end();
        first = first || text == texts[0];
      }
      explained = explained || (all && first);
    }
    if (!explained)
      Problem("flush revision ", n, " holds texts the model did not answer for its window");
  }

  // Applies revision n to the replayed head, checking it is a step the history allows.
  void Apply(int64_t n, const json& rev, const std::map<std::string, json>& written) {
    for (const json& c : rev["changes"]) {
      const std::string op = S(c["op"]), e = S(c["entry_id"]);
      auto it = w_.entries.find(e);
      if (op == "add") {
        if (it != w_.entries.end()) Problem("revision ", n, " adds entry ", e, " which exists");
        w_.entries[e] = {S(c["entry_version_id"]), true};
      } else if (op == "revise") {
        if (it == w_.entries.end() || !it->second.active ||
            it->second.version_id != c["from_version_id"])
          Problem("revision ", n, " revises ", e, " from ", Str(c["from_version_id"]),
                  " which is not its active version");
        w_.entries[e] = {S(c["to_version_id"]), true};
      } else if (op == "retire") {
        if (it == w_.entries.end() || !it->second.active ||
            it->second.version_id != c["entry_version_id"])
          Problem("revision ", n, " retires ", e, " at ", Str(c["entry_version_id"]),
                  " which is not its active version");
        w_.entries[e] = {S(c["entry_version_id"]), false};
      } else {
        Problem("revision ", n, " has a change with op ", op);
      }
    }
    for (auto& [vid, v] : written) w_.texts[vid] = S(v["text"]);
  }

  void CheckHeadListing() {
    std::map<std::string, json> listed;
    std::string cursor;
    do {
      Reply r = http_.Get("/v1/memory/entries?scope_id=" + w_.scope_id +
                          "&include_inactive=true&limit=1000" +
                          (cursor.empty() ? "" : "&cursor=" + cursor));
      if (r.status != 200) {
        Problem("GET /v1/memory/entries answered ", r.status, " ", Str(r.body));
        return;
      }
      if (head_ > 0 && r.body["memory"]["revision"] != head_)
        Problem("the entry listing is at revision ", Str(r.body["memory"]), ", the head at ",
                head_);
      for (const json& e : r.body["entries"]) listed[S(e["entry_id"])] = e;
      cursor = r.body["next_cursor"].is_string() ? r.body["next_cursor"].get<std::string>() : "";
    } while (!cursor.empty());
    if (listed.size() != w_.entries.size())
      Problem("the head lists ", listed.size(), " entries, the history replayed has ",
              w_.entries.size());
    for (auto& [id, state] : w_.entries) {
      auto it = listed.find(id);
      if (it == listed.end()) {
        Problem("entry ", id, " is missing from the head listing");
        continue;
      }
      const json& e = it->second;
      if (S(e["entry_version_id"]) != state.version_id || e["active"] != state.active)
        Problem("entry ", id, " is listed at ", Str(e["entry_version_id"]), " active ",
                Str(e["active"]), ", the history says ", state.version_id, " active ",
                state.active);
      auto t = w_.texts.find(state.version_id);
      if (t == w_.texts.end() || S(e["text"]) != t->second)
        Problem("entry ", id, " is listed with text ", Str(e["text"]));
    }
  }

  // Each acknowledged write of this trial reads back through the citation it was given.
  void CheckReads() {
    for (Attempt* a : attempts_) {
      if (!a->acked() || a->op == Op::kSource) continue;
      const json& b = a->reply.body;
      std::vector<std::pair<json, std::string>> cites;  // citation, text expected ("" = retire)
      if (a->op == Op::kFlush) {
        for (const json& c : b["changes"]) cites.push_back({c["citation"], S(c["entry"]["text"])});
      } else if (b["changed"] == true) {
        cites.push_back({b["entry"]["citation"], a->op == Op::kRetire ? "" : a->text});
      }
      for (auto& [citation, text] : cites) {
        Reply r = http_.Post("/v1/memory/entries/get",
                             {{"scope_id", w_.scope_id}, {"citation", citation}});
        ++counts_.reads_checked;
        if (r.status != 200) {
          Problem("acknowledged ", OpName(a->op), " citation ", Str(citation), " reads ", r.status,
                  " ", Str(r.body));
          continue;
        }
        if (a->op == Op::kRetire) {
          if (r.body["state"] != "inactive" ||
              S(r.body["citation"]["entry_version_id"]) != a->version_id)
            Problem("acknowledged retire ", Str(citation), " reads ", Str(r.body));
        } else if (S(r.body["text"]) != text) {
          Problem("acknowledged ", OpName(a->op), " ", Str(citation), " reads back ",
                  Str(r.body["text"]), " not ", Str(text));
        }
      }
    }
  }

  // Full text finds this trial's remembered entries that are still as written (a few per scope).
  void CheckSearch() {
    int checked = 0;
    for (Attempt* a : attempts_) {
      if (a->op != Op::kRemember || !a->acked() || checked >= 6) continue;
      const json& entry = a->reply.body["entry"]["citation"];
      auto it = w_.entries.find(S(entry["entry_id"]));
      if (it == w_.entries.end() || !it->second.active ||
          it->second.version_id != S(entry["entry_version_id"]))
        continue;
      std::string token = a->text.substr(0, a->text.find(' '));
      Reply r =
          http_.Post("/v1/memory/search",
                     {{"scope_id", w_.scope_id}, {"query", token}, {"mode", "fts"}, {"limit", 5}});
      ++checked;
      ++counts_.searches_checked;
      bool hit = false;
      if (r.status == 200)
        for (const json& h : r.body["hits"])
          hit = hit || h["citation"]["entry_id"] == entry["entry_id"];
      if (!hit)
        Problem("full text does not find ", token, " (", Str(entry["entry_id"]), "): ", r.status,
                " ", Str(r.body));
    }
  }

  // The extraction cursor, through the API: a flush whose model answers nonsense commits nothing
  // and says where the cursor stays; with nothing pending, it answers idle at the cursor.
  void CheckCursor() {
    // A window of archive sources only moves the cursor without asking the model: probe again.
    model_.set_probe(true);
    int64_t cursor = -1, at_restart = -1;
    for (int probes = 0; probes < 1000; ++probes) {
      Reply r = http_.Post("/v1/memory/flush", {{"scope_id", w_.scope_id}, {"explain", true}});
      cursor = -1;
      if (r.status == 200 && r.body["status"] == "idle") {
        cursor = r.body["current_cursor"];
      } else if (r.status == 200 && r.body["status"] == "processed" && r.body["changes"].empty() &&
                 r.body["processed_source_count"] == 0) {
        if (at_restart < 0) at_restart = r.body["previous_cursor"];
        continue;
      } else if (r.status == 502) {
        std::string msg = S(r.body["error"]["message"]);
        const std::string marker = "the cursor stays at ";
        auto at = msg.find(marker);
        if (at != std::string::npos)
          cursor = std::strtoll(msg.c_str() + at + marker.size(), nullptr, 10);
      }
      if (cursor < 0) Problem("the cursor probe answered ", r.status, " ", Str(r.body));
      break;
    }
    model_.set_probe(false);
    if (cursor < 0) return;
    if (at_restart < 0) at_restart = cursor;
    if (at_restart < w_.cursor)
      Problem("the cursor went back from ", w_.cursor, " to ", at_restart);
    if (cursor > high_watermark_)
      Problem("the cursor ", cursor, " is past the log's end ", high_watermark_);
    for (Attempt* a : attempts_)
      if (a->op == Op::kFlush && a->acked() &&
          a->reply.body["current_cursor"].get<int64_t>() > at_restart)
        Problem("an acknowledged flush moved the cursor to ", Str(a->reply.body["current_cursor"]),
                " but after the restart it is at ", at_restart);
    // Positions 1..cursor: the windows of flush revisions, in revision order, and archive-only
    // stretches between them (windows without a usable source make no revision).
    std::vector<std::pair<long long, long long>> windows;
    for (auto& [n, rec] : w_.revisions) {
      long long a = 0, b = 0;
      if (rec.actor.rfind("extraction:", 0) == 0 &&
          std::sscanf(rec.reason.c_str(), "flush of sources %lld..%lld", &a, &b) == 2)
        windows.push_back({a, b});
    }
    long long done = 0;
    auto archive_only = [&](long long from, long long to, const char* where) {
      for (long long p = from; p <= to && p <= static_cast<long long>(listed_.size()); ++p)
        if (listed_[p - 1].purpose != "archive")
          Problem("source ", p, " (", listed_[p - 1].content, ") is ", where,
                  " but in no flush revision's window");
    };
    for (auto& [a, b] : windows) {
      if (a <= done) Problem("flush windows overlap or go back: ", a, "..", b, " after ", done);
      archive_only(done + 1, a - 1, "before a later window");
      done = std::max(done, b);
    }
    if (done > cursor)
      Problem("a flush revision's window ends at ", done, ", past the cursor ", cursor);
    archive_only(done + 1, cursor, "behind the cursor");
    w_.cursor = cursor;
  }

 public:
  // What this restart showed becomes what the next one is checked against.
  void Commit() {
    counts_.new_sources +=
        static_cast<int64_t>(listed_.size()) - static_cast<int64_t>(w_.sources.size());
    w_.sources = listed_;
  }

 private:
  Http& http_;
  ScopeWorld& w_;
  std::vector<Attempt*> attempts_;
  Model& model_;
  Counts& counts_;
  std::vector<std::string>& problems_;
  std::map<int64_t, json> revs_;
  int64_t head_ = 0, old_head_ = 0, high_watermark_ = 0;
  std::vector<SourceRec> listed_;
};

// ---- The clients --------------------------------------------------------------------------------

struct Shared {
  std::vector<ScopeWorld>* worlds;
  int trial;
  std::atomic<bool> stop{false};
  std::atomic<int> flush_in_flight{0};
  std::atomic<int64_t> model_answered_at_flush{0};
  std::mutex mu;
  std::vector<std::unique_ptr<Attempt>> attempts;
  Attempt* Record(std::unique_ptr<Attempt> a) {
    std::lock_guard<std::mutex> lock(mu);
    attempts.push_back(std::move(a));
    return attempts.back().get();
  }
};

const std::string& ScopeId(Shared& s, int scope) { return (*s.worlds)[scope].scope_id; }

void Rememberer(Shared& s, int port, int who, uint64_t seed) {
  Http http(port);
  std::mt19937_64 rng(seed);
  static const char* kKinds[] = {"fact", "decision", "constraint", "preference", "working_note"};
  int64_t seen_head[kScopes] = {};
  for (int i = 0; !s.stop; ++i) {
    auto a = std::make_unique<Attempt>();
    a->op = Op::kRemember;
    a->scope = static_cast<int>(rng() % kScopes);
    a->kind = kKinds[rng() % 5];
    a->text = "tok_t" + std::to_string(s.trial) + "_r" + std::to_string(who) + "_n" +
              std::to_string(i) + " remembered while the server may die";
    json body{{"scope_id", ScopeId(s, a->scope)},
              {"kind", a->kind},
              {"text", a->text},
              {"explain", true}};
    if (rng() % 5 == 0 && seen_head[a->scope] > 0)
      body["expected_revision"] = seen_head[a->scope];  // often stale: 409
    a->reply = http.Post("/v1/memory/remember", body);
    if (a->reply.status == 200) seen_head[a->scope] = a->reply.body["memory"]["revision"];
    bool gone = a->cut();
    s.Record(std::move(a));
    if (gone) return;
  }
}

void Editor(Shared& s, int port, uint64_t seed) {
  Http http(port);
  std::mt19937_64 rng(seed);
  for (int i = 0; !s.stop; ++i) {
    int scope = static_cast<int>(rng() % kScopes);
    Reply list = http.Get("/v1/memory/entries?scope_id=" + ScopeId(s, scope) + "&limit=100");
    if (list.status == 0) return;
    if (list.status != 200 || list.body["entries"].empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    const json& entries = list.body["entries"];
    const json& e = entries[rng() % entries.size()];
    auto a = std::make_unique<Attempt>();
    a->scope = scope;
    a->entry_id = S(e["entry_id"]);
    a->version_id = S(e["entry_version_id"]);
    if (rng() % 10 < 7) {
      a->op = Op::kRevise;
      a->kind = S(e["kind"]);
      a->text =
          "tok_t" + std::to_string(s.trial) + "_e_n" + std::to_string(i) + " revised at the head";
      a->reply = http.Post("/v1/memory/entries/revise", {{"scope_id", ScopeId(s, scope)},
                                                         {"citation", e["citation"]},
                                                         {"text", a->text},
                                                         {"explain", true}});
    } else {
      a->op = Op::kRetire;
      a->reply =
          http.Post("/v1/memory/entries/retire", {{"scope_id", ScopeId(s, scope)},
                                                  {"citation", e["citation"]},
                                                  {"reason", "trial " + std::to_string(s.trial)},
                                                  {"explain", true}});
    }
    bool gone = a->cut();
    s.Record(std::move(a));
    if (gone) return;
  }
}

void SourceWriter(Shared& s, int port, uint64_t seed) {
  Http http(port);
  std::mt19937_64 rng(seed);
  for (int i = 0; !s.stop; ++i) {
    auto a = std::make_unique<Attempt>();
    a->op = Op::kSource;
    a->scope = static_cast<int>(rng() % kScopes);
    a->batch = rng() % 5 < 2;
    size_t n = a->batch ? 2 + rng() % 3 : 1;
    json items = json::array();
    for (size_t k = 0; k < n; ++k) {
      SourceRec item;
      item.content = "work record t" + std::to_string(s.trial) + " n" + std::to_string(i) + " k" +
                     std::to_string(k) + ": the importer now checks row " +
                     std::to_string(rng() % 100000);
      item.purpose = rng() % 4 == 0 ? "archive" : "memory";
      items.push_back({{"kind", "work_log"},
                       {"purpose", item.purpose},
                       {"content", item.content},
                       {"idempotency_key", "t" + std::to_string(s.trial) + "-" + std::to_string(i) +
                                               "-" + std::to_string(k)}});
      a->items.push_back(std::move(item));
    }
    if (a->batch) {
      a->reply =
          http.Post("/v1/sources/batch", {{"scope_id", ScopeId(s, a->scope)}, {"sources", items}});
    } else {
      json body = items[0];
      body["scope_id"] = ScopeId(s, a->scope);
      a->reply = http.Post("/v1/sources", body);
    }
    bool gone = a->cut();
    s.Record(std::move(a));
    if (gone) return;
  }
}

void Flusher(Shared& s, int port, uint64_t seed, Model& model) {
  Http http(port);
  std::mt19937_64 rng(seed);
  while (!s.stop) {
    auto a = std::make_unique<Attempt>();
    a->op = Op::kFlush;
    a->scope = static_cast<int>(rng() % kScopes);
    s.model_answered_at_flush = model.answered();
    ++s.flush_in_flight;
    a->reply =
        http.Post("/v1/memory/flush", {{"scope_id", ScopeId(s, a->scope)}, {"explain", true}});
    --s.flush_in_flight;
    bool gone = a->cut();
    s.Record(std::move(a));
    if (gone) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 10));
  }
}

// ---- The trials ---------------------------------------------------------------------------------

std::vector<std::string> ServerFlags(const FakeOpenAi& fake) {
  return {"--extract-provider",        "openai",
          "--extract-base-url",        fake.base_url(),
          "--extract-model",           "m",
          "--extract-timeout-seconds", "10",
          "--source-window-limit",     std::to_string(kWindow)};
}

std::string Describe(int status) {
  if (status == -1) return "not running";
  if (WIFSIGNALED(status))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

std::string KeepForInspection(const std::string& dir, uint64_t seed, int trial) {
  std::string kept =
      (std::filesystem::temp_directory_path() /
       ("powercontext-crash-" + std::to_string(seed) + "-trial" + std::to_string(trial)))
          .string();
  std::error_code ec;
  std::filesystem::remove_all(kept, ec);
  std::filesystem::copy(dir, kept, std::filesystem::copy_options::recursive, ec);
  return ec ? "(copy failed: " + ec.message() + ")" : kept;
}

TEST(CrashTrials, KillAtRandomMomentsKeepsAcknowledgedWritesWholeRevisionsAndCursors) {
  const int64_t trials = EnvInt("POWERCONTEXT_CRASH_TRIALS", 10);
  const char* seed_env = std::getenv("POWERCONTEXT_CRASH_SEED");
  uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 0;
  if (seed == 0)
    seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  std::printf("crash trials: %lld, POWERCONTEXT_CRASH_SEED=%llu\n", static_cast<long long>(trials),
              static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  RecordProperty("seed", std::to_string(seed));

  TempDir dir;
  const std::string data = dir.path() + "/data";
  Model model(SplitMix(seed));  // outlives the fake, which calls it
  FakeOpenAi fake;
  fake.set_chat_responder([&model](const std::string& body) { return model.Answer(body); });
  ServerProcess server(data, ServerFlags(fake));
  ASSERT_TRUE(server.Start());

  std::vector<ScopeWorld> worlds(kScopes);
  {
    Http http(server.port());
    for (int i = 0; i < kScopes; ++i) {
      worlds[i].key = "crash:scope-" + std::to_string(i);
      Reply r = http.Post("/v1/scopes", {{"key", worlds[i].key}});
      ASSERT_EQ(r.status, 201) << Str(r.body);
      worlds[i].scope_id = r.body["scope_id"];
      worlds[i].artifact_id = r.body["memory"]["artifact_id"];
    }
  }

  struct Totals {
    int64_t acked = 0, refused = 0, cut = 0, cut_present = 0, cut_absent = 0, reads = 0,
            searches = 0;
    int64_t mid_flush = 0, mid_model = 0, mid_commit = 0;
    double max_trial_ms = 0;
  } totals;
  const auto run_started = Clock::now();

  for (int trial = 1; trial <= trials; ++trial) {
    const auto trial_started = Clock::now();
    const uint64_t trial_seed = SplitMix(seed ^ (static_cast<uint64_t>(trial) * 0x100000001b3ULL));
    std::mt19937_64 rng(trial_seed);
    Shared shared;
    shared.worlds = &worlds;
    shared.trial = trial;
    const int port = server.port();
    std::vector<std::thread> clients;
    for (int r = 0; r < kRememberers; ++r)
      clients.emplace_back(Rememberer, std::ref(shared), port, r, rng());
    clients.emplace_back(Editor, std::ref(shared), port, rng());
    clients.emplace_back(SourceWriter, std::ref(shared), port, rng());
    clients.emplace_back(Flusher, std::ref(shared), port, rng(), std::ref(model));

    // When to kill: at a random moment (half the trials), or, after a random delay, while the
    // model thinks, or just after it answered (the flush validating and committing).
    const int mode = static_cast<int>(rng() % 4);
    const int delay_ms = 30 + static_cast<int>(rng() % 700);
    const int extra_us = static_cast<int>(rng() % 1000);
    const char* mode_name[] = {"random", "random", "model thinking", "model answered"};
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    if (mode >= 2) {
      const auto give_up = Clock::now() + std::chrono::milliseconds(500);
      if (mode == 2) {
        while (model.thinking() == 0 && Clock::now() < give_up)
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::this_thread::sleep_for(std::chrono::microseconds(extra_us));
      } else {
        const int64_t before = model.answered();
        while (model.answered() == before && Clock::now() < give_up) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::microseconds(extra_us));
      }
    }
    const bool flush_in_flight = shared.flush_in_flight > 0;
    const bool model_thinking = model.thinking() > 0;
    const bool model_answered = model.answered() > shared.model_answered_at_flush;
    const double killed_at_ms = Ms(Clock::now() - trial_started);
    const int status = server.Kill();
    shared.stop = true;
    for (auto& t : clients) t.join();

    std::vector<std::string> problems;
    if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
      problems.push_back("the server was not alive when killed: " + Describe(status));
    std::string when = "between flushes";
    if (flush_in_flight) {
      ++totals.mid_flush;
      if (model_thinking) {
        when = "mid-flush, model thinking";
        ++totals.mid_model;
      } else if (model_answered) {
        when = "mid-flush, after the model answered";
        ++totals.mid_commit;
      } else {
        when = "mid-flush, before the model call";
      }
    }

    const auto restart_started = Clock::now();
    if (!server.Start()) {
      problems.push_back("the server does not start again after the kill (see " + data +
                         ".server.log)");
    } else {
      const double restart_ms = Ms(Clock::now() - restart_started);
      const auto verify_started = Clock::now();
      Http http(server.port());
      Counts counts;
      for (auto& a : shared.attempts) {
        if (a->acked() && a->op == Op::kFlush && a->reply.body["status"] == "idle") {
          ++counts.idle_flushes;  // not a write
        } else if (a->acked()) {
          ++counts.acked;
          ++counts.acked_by_op[OpName(a->op)];
        } else if (a->cut()) {
          ++counts.cut;
        } else {
          ++counts.refused;
          if (a->reply.status >= 500)  // nothing here should fail on the server's side
            problems.push_back(std::string(OpName(a->op)) + " failed with " +
                               std::to_string(a->reply.status) + ": " + Str(a->reply.body));
        }
      }
      if (model.malformed() > 0)
        problems.push_back("the model was sent a request it could not read");
      for (int i = 0; i < kScopes && problems.empty(); ++i) {
        std::vector<Attempt*> mine;
        for (auto& a : shared.attempts)
          if (a->scope == i) mine.push_back(a.get());
        Verifier v(http, worlds[i], mine, model, counts, problems);
        v.Run();
        v.Commit();
      }
      const double trial_ms = Ms(Clock::now() - trial_started);
      const double verify_ms = Ms(Clock::now() - verify_started);
      totals.acked += counts.acked;
      totals.refused += counts.refused;
      totals.cut += counts.cut;
      totals.cut_present += counts.cut_present;
      totals.cut_absent += counts.cut_absent;
      totals.reads += counts.reads_checked;
      totals.searches += counts.searches_checked;
      totals.max_trial_ms = std::max(totals.max_trial_ms, trial_ms);
      std::string by_op;
      for (auto& [op, n] : counts.acked_by_op)
        by_op += (by_op.empty() ? "" : " ") + op + " " + std::to_string(n);
      int64_t head_total = 0;
      for (auto& w : worlds) head_total += w.revisions.empty() ? 0 : w.revisions.rbegin()->first;
      std::printf(
          "trial %d/%lld: killed at %.0f ms (%s; %s); acknowledged writes %d (%s; idle flushes "
          "%d), "
          "refused %d, cut off %d (%d landed whole, %d absent); +%lld revisions (%lld in all), "
          "+%lld "
          "sources; %d reads, %d searches; restart %.0f ms, checks %.0f ms, trial %.0f ms\n",
          trial, static_cast<long long>(trials), killed_at_ms, mode_name[mode], when.c_str(),
          counts.acked, by_op.c_str(), counts.idle_flushes, counts.refused, counts.cut,
          counts.cut_present, counts.cut_absent, static_cast<long long>(counts.new_revisions),
          static_cast<long long>(head_total), static_cast<long long>(counts.new_sources),
          counts.reads_checked, counts.searches_checked, restart_ms, verify_ms, trial_ms);
      std::fflush(stdout);
    }
    if (!problems.empty()) {
      server.Kill();
      std::string report;
      for (size_t i = 0; i < problems.size() && i < 30; ++i) report += "  " + problems[i] + "\n";
      if (problems.size() > 30)
        report += "  … and " + std::to_string(problems.size() - 30) + " more\n";
      FAIL() << "trial " << trial << " of POWERCONTEXT_CRASH_SEED=" << seed << " (killed " << when
             << "):\n"
             << report << "data directory kept at " << KeepForInspection(dir.path(), seed, trial);
    }
  }
  std::printf(
      "crash trials: %lld passed in %.1f s (slowest %.0f ms); acknowledged writes %lld, refused "
      "%lld, "
      "cut off %lld (%lld landed whole, %lld absent); %lld reads and %lld searches checked; killed "
      "mid-flush %lld times (%lld while the model thought, %lld after it answered); "
      "POWERCONTEXT_CRASH_SEED=%llu\n",
      static_cast<long long>(trials), Ms(Clock::now() - run_started) / 1000, totals.max_trial_ms,
      static_cast<long long>(totals.acked), static_cast<long long>(totals.refused),
      static_cast<long long>(totals.cut), static_cast<long long>(totals.cut_present),
      static_cast<long long>(totals.cut_absent), static_cast<long long>(totals.reads),
      static_cast<long long>(totals.searches), static_cast<long long>(totals.mid_flush),
      static_cast<long long>(totals.mid_model), static_cast<long long>(totals.mid_commit),
      static_cast<unsigned long long>(seed));
}

}  // namespace
}  // namespace pc::testing
