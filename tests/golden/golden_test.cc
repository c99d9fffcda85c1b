// Data-driven tests: each file in tests/golden is a list of records
//
//   command line
//   ----
//   expected output lines
//   (blank line)
//
// run in order against a fresh real store. Lines starting with '#' are comments.
// Commands (NAME names an entry; the runner remembers the citation each write returned):
//   canon "json string"                 canonical form, as a JSON string
//   hash KIND "json string"             first 12 hex digits of the content hash
//   remember NAME KIND TEXT             (remember@R … with expected_revision R)
//   revise NAME TEXT                    cites NAME's last citation (stale once the head moves)
//   revise-kind NAME KIND TEXT
//   retire NAME
//   refresh NAME                        re-cite NAME at the head, as an agent re-listing would
//   entries [R] [all]                   the manifest at head or R; all = include retired
//   read NAME R                         the exact text NAME had at revision R
//   history                             revisions, newest first
//   tokenize doc|query "json string"    tokens; a colocated token is prefixed with +
//   search MODE QUERY                   names of the hits, best first (or the error)
//   search-all MODE QUERY               the same, retired entries included
//   candidate TYPE REF LABEL "json"     adds a prepared-context candidate (handoff, memory,
//                                       experience; LABEL - for none)
//   candidates TYPE N "json"            adds N candidates, "{i}" in the text replaced by 1…N
//   build MAX_BYTES                     runs the context builder on the candidates so far; the
//                                       content's lines are shown after "| "
//   clear                               forgets the candidates
//   prepare MAX_BYTES QUERY             prepare_context through the service, on this store
//   extraction-prompt                   the prompt in use: its version, then what it asks (its
//   numbered
//                                       gates and its rules, one line each)
//   prune FILE [key=value …]            session/prune.h on tests/golden/prune/FILE.json (a message
//                                       list, now = its "now"); keys ttl, min, ratio, keep, window
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/clock.h"
#include "context/builder.h"
#include "extract/prompt.h"
#include "model/canonical.h"
#include "model/citation.h"
#include "search/tokenizer.h"
#include "service/context/context_service.h"
#include "service/search/search_service.h"
#include "session/prune.h"
#include "test_util.h"

namespace pc {
namespace {

struct Record {
  int line = 0;
  std::string command;
  std::string expected;
};

std::vector<Record> ParseFile(const std::string& path) {
  std::ifstream in(path);
  std::vector<Record> out;
  std::string line;
  int n = 0;
  Record cur;
  enum { kCommand, kExpected } state = kCommand;
  while (std::getline(in, line)) {
    ++n;
    if (state == kCommand) {
      if (line.empty() || line[0] == '#') continue;
      if (line == "----") {
        state = kExpected;
        continue;
      }
      cur = Record{n, line, ""};
      continue;
    }
    if (line.empty()) {
      out.push_back(cur);
      state = kCommand;
      continue;
    }
    cur.expected += line + "\n";
  }
  if (state == kExpected) out.push_back(cur);
  return out;
}

std::string Error(const Status& s) {
  std::string out = std::string("error ") + CodeName(s.code());
  for (const Detail& d : s.details())
    if (d.key == "current_revision")
      out += " current_revision=" + std::to_string(std::get<int64_t>(d.value));
  return out + "\n";
}

class Runner {
 public:
  Runner() : scope_(f_.NewScope()) {}

  std::string Run(const std::string& command) {
    std::istringstream in(command);
    std::string verb;
    in >> verb;
    std::string rest;
    std::getline(in, rest);
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    if (verb == "canon") return Canon(rest);
    if (verb == "hash") return Hash(rest);
    if (verb.rfind("remember", 0) == 0) return Remember(verb, rest);
    if (verb == "revise" || verb == "revise-kind") return Revise(verb == "revise-kind", rest);
    if (verb == "retire") return Retire(rest);
    if (verb == "refresh") return Refresh(rest);
    if (verb == "entries") return Entries(rest);
    if (verb == "read") return Read(rest);
    if (verb == "history") return History();
    if (verb == "tokenize") return TokenizeCmd(rest);
    if (verb == "search" || verb == "search-all") return Search(verb == "search-all", rest);
    if (verb == "candidate" || verb == "candidates")
      return AddCandidate(verb == "candidates", rest);
    if (verb == "build") return Build(std::stoull(rest));
    if (verb == "clear") {
      candidates_.clear();
      return "cleared\n";
    }
    if (verb == "prepare") return Prepare(rest);
    if (verb == "prune") return Prune(rest);
    if (verb == "extraction-prompt") return ExtractionPrompt();
    return "unknown command " + verb + "\n";
  }

 private:
  static std::pair<std::string, std::string> Split(const std::string& s) {
    size_t sp = s.find(' ');
    if (sp == std::string::npos) return {s, ""};
    return {s.substr(0, sp), s.substr(sp + 1)};
  }

  std::string Canon(const std::string& arg) {
    auto r = CanonicalText(nlohmann::json::parse(arg).get<std::string>());
    if (!r.ok()) return Error(r.status());
    return nlohmann::json(*r).dump() + "\n";
  }

  std::string Hash(const std::string& arg) {
    auto [kind, text] = Split(arg);
    auto r = ContentHash(kind, nlohmann::json::parse(text).get<std::string>());
    if (!r.ok()) return Error(r.status());
    return r->substr(0, 12) + "\n";
  }

  std::string Describe(const WriteOutcome& w, const std::string& name) {
    if (!w.changed)
      return "no change at r" + std::to_string(w.memory.revision) + ", same as " +
             names_[w.duplicate_of->entry_id] + "\n";
    cite_[name] = *w.citation;
    names_[w.entry->entry_id] = name;
    return "r" + std::to_string(w.memory.revision) + " " + ChangeOpName(w.change->op) + " " + name +
           " v" + std::to_string(w.entry->version) + "\n";
  }

  std::string Remember(const std::string& verb, const std::string& rest) {
    auto [name, tail] = Split(rest);
    auto [kind, text] = Split(tail);
    std::optional<int64_t> expected;
    if (verb.size() > 9) expected = std::stoll(verb.substr(9));  // remember@R
    auto r = f_.memory->Remember({scope_, kind, text, "", "golden", expected});
    if (!r.ok()) return Error(r.status());
    return Describe(*r, name);
  }

  std::string Revise(bool with_kind, const std::string& rest) {
    auto [name, tail] = Split(rest);
    std::optional<std::string> kind;
    if (with_kind) {
      auto [k, t] = Split(tail);
      kind = k;
      tail = t;
    }
    auto r = f_.memory->Revise({scope_, cite_[name], tail, kind, "", "golden"});
    if (!r.ok()) return Error(r.status());
    return Describe(*r, name);
  }

  std::string Retire(const std::string& name) {
    auto r = f_.memory->Retire({scope_, cite_[name], "", "golden"});
    if (!r.ok()) return Error(r.status());
    return Describe(*r, name);
  }

  std::string Refresh(const std::string& name) {
    auto page = f_.memory->ListEntries({scope_, std::nullopt, true, {1000, ""}});
    if (!page.ok()) return Error(page.status());
    for (const auto& m : page->items)
      if (names_[m.version.entry_id] == name) {
        cite_[name] = Citation{page->memory, m.version.entry_id, m.version.entry_version_id};
        return "cited " + name + " at r" + std::to_string(page->memory.revision) + "\n";
      }
    return "no entry " + name + "\n";
  }

  std::string Entries(const std::string& args) {
    std::istringstream in(args);
    std::optional<int64_t> revision;
    bool all = false;
    std::string word;
    while (in >> word) {
      if (word == "all")
        all = true;
      else
        revision = std::stoll(word);
    }
    auto page = f_.memory->ListEntries({scope_, revision, all, {1000, ""}});
    if (!page.ok()) return Error(page.status());
    std::string out = "at r" + std::to_string(page->memory.revision) + "\n";
    for (const auto& m : page->items)
      out += names_[m.version.entry_id] + " v" + std::to_string(m.version.version) + " [" +
             m.version.kind + "] " + m.version.text + (m.active ? "" : " (retired)") + "\n";
    return out;
  }

  std::string Read(const std::string& args) {
    auto [name, rev] = Split(args);
    int64_t r = std::stoll(rev);
    auto page = f_.memory->ListEntries({scope_, r, true, {1000, ""}});
    if (!page.ok()) return Error(page.status());
    for (const auto& m : page->items) {
      if (names_[m.version.entry_id] != name) continue;
      auto read = f_.memory->Read(
          scope_, Citation{page->memory, m.version.entry_id, m.version.entry_version_id});
      if (!read.ok()) return Error(read.status());
      return read->version.text + (read->current ? " (current)" : " (not current)") + "\n";
    }
    return "no entry " + name + " at r" + rev + "\n";
  }

  std::string History() {
    auto page = f_.memory->ListRevisions(scope_, {1000, ""});
    if (!page.ok()) return Error(page.status());
    std::string out;
    for (const auto& r : page->items) {
      out += "r" + std::to_string(r.memory.revision);
      for (const auto& c : r.changes)
        out += std::string(" ") + ChangeOpName(c.op) + " " + names_[c.entry_id];
      out += "\n";
    }
    return out;
  }

  std::string TokenizeCmd(const std::string& args) {
    auto [mode, text] = Split(args);
    auto tokens = Tokenize(nlohmann::json::parse(text).get<std::string>(),
                           mode == "query" ? TokenizeMode::kQuery : TokenizeMode::kDocument);
    std::string out;
    for (const Token& t : tokens)
      out += (out.empty() ? "" : " ") + std::string(t.colocated ? "+" : "") + t.text;
    return (out.empty() ? "(none)" : out) + "\n";
  }

  std::string Search(bool all, const std::string& args) {
    auto [mode, query] = Split(args);
    SearchRequest req;
    req.scope_id = scope_;
    req.query = query;
    req.mode = ParseSearchMode(mode).value();
    req.include_inactive = all;
    auto r = search_.Search(req);
    if (!r.ok()) return Error(r.status());
    std::string out = std::string(SearchModeName(r->mode_used)) + ":";
    for (const SearchHit& h : r->hits) out += " " + names_[h.item.version.entry_id];
    return out + "\n";
  }

  static ContextItemType TypeOf(const std::string& t) {
    return t == "handoff"      ? ContextItemType::kHandoff
           : t == "experience" ? ContextItemType::kExperience
                               : ContextItemType::kMemory;
  }

  std::string AddCandidate(bool many, const std::string& args) {
    auto [type, tail] = Split(args);
    if (many) {
      auto [count, text] = Split(tail);
      std::string templ = nlohmann::json::parse(text).get<std::string>();
      for (int i = 1; i <= std::stoi(count); ++i) {
        std::string t = templ;
        if (size_t at = t.find("{i}"); at != std::string::npos) t.replace(at, 3, std::to_string(i));
        candidates_.push_back({TypeOf(type), type + "/" + std::to_string(i), "", t, 1.0 / i, ""});
      }
      return "candidates " + std::to_string(candidates_.size()) + "\n";
    }
    auto [ref, tail2] = Split(tail);
    auto [label, text] = Split(tail2);
    candidates_.push_back({TypeOf(type), ref, label == "-" ? "" : label,
                           nlohmann::json::parse(text).get<std::string>(), 0, ""});
    return "candidates " + std::to_string(candidates_.size()) + "\n";
  }

  static std::string Show(const std::string& content, const std::vector<ContextItem>& items) {
    std::string out = std::string(content.empty() ? "empty" : "ready") +
                      " bytes=" + std::to_string(content.size()) +
                      " items=" + std::to_string(items.size()) + "\n";
    for (const ContextItem& i : items)
      out += std::string(ContextItemTypeName(i.type)) + " " + i.ref + " " +
             std::to_string(i.bytes) + (i.cut ? " cut" : "") + "\n";
    std::istringstream lines(content);
    for (std::string line; std::getline(lines, line);) out += "| " + line + "\n";
    return out;
  }

  std::string Build(size_t max_bytes) {
    BuiltContext built = BuildContext(candidates_, max_bytes);
    return Show(built.content, built.items);
  }

  std::string Prepare(const std::string& args) {
    auto [max, query] = Split(args);
    ContextService context(*f_.store, search_);
    auto r = context.Prepare({scope_, query, std::stoll(max), SearchMode::kAuto, true});
    if (!r.ok()) return Error(r.status());
    std::string out = Show(r->content, r->items);
    for (const auto& [entry, name] : names_) {  // citations by name, for readability
      size_t at;
      while ((at = out.find(entry)) != std::string::npos) out.replace(at, entry.size(), name);
    }
    static const std::regex kIds("(mem|env|src|hnd)_[0-9A-Z]{26}");  // differ from run to run
    return std::regex_replace(out, kIds, "$1_*");
  }

  // What the extraction prompt asks of the model, item by item (an item's wrapped lines joined).
  static std::string ExtractionPrompt() {
    std::string out = std::string(kPromptVersion) + "\n";
    std::istringstream in(ExtractionInstructions());
    std::string item;
    auto flush = [&] {
      if (!item.empty()) out += item + "\n";
      item.clear();
    };
    static const std::regex kItem(R"(^([0-9]+\.|-) (.*)$)");
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_match(line, m, kItem)) {
        flush();
        item = m[1].str() + " " + m[2].str();
      } else if (!item.empty() && line.rfind("  ", 0) == 0) {
        item += " " + line.substr(line.find_first_not_of(' '));
      } else {
        flush();
      }
    }
    flush();
    return out;
  }

  // The summary, what was pruned, each note, then every changed message's new text.
  std::string Prune(const std::string& args) {
    std::istringstream in(args);
    std::string file, option;
    in >> file;
    std::ifstream data(std::string(PC_GOLDEN_DIR) + "/prune/" + file + ".json");
    if (!data) return "no file " + file + "\n";
    nlohmann::json input = nlohmann::json::parse(data);
    nlohmann::json messages = input["messages"];
    const nlohmann::json before = messages;
    PrunePolicy policy;
    policy.now_ms = ParseRfc3339(input["now"].get<std::string>());
    while (in >> option) {
      auto [key, value] = Split(option.replace(option.find('='), 1, " "));
      if (key == "ttl")
        policy.ttl_seconds = std::stod(value);
      else if (key == "min")
        policy.min_prunable_tool_chars = std::stoll(value);
      else if (key == "ratio")
        policy.hard_clear_ratio = std::stod(value);
      else if (key == "keep")
        policy.keep_recent_turns = std::stoll(value);
      else if (key == "window")
        policy.context_window_tokens = std::stoll(value);
      else
        return "unknown option " + key + "\n";
    }
    auto r = PruneMessages(messages, policy, 0);
    if (!r.ok())
      return Error(r.status()) + (messages == before ? "" : "and the messages changed\n");
    std::ostringstream out;
    out << r->format << ": " << r->pruned.size() << " of " << r->tool_results
        << " tool results pruned, " << r->chars_before << " -> " << r->chars_after << " chars\n";
    for (const PrunedItem& p : r->pruned)
      out << "  " << p.why << " m" << p.message_index
          << (p.block_index ? "b" + std::to_string(*p.block_index) : "") << " "
          << (p.tool.empty() ? "-" : p.tool) << " -" << p.chars << " age "
          << (p.age_seconds ? std::to_string(*p.age_seconds) : "?") << "\n";
    for (const std::string& note : r->notes) out << "  note: " << note << "\n";
    auto show = [&](const std::string& where, const nlohmann::json& text) {
      out << "| " << where << " " << (text.is_string() ? text.get<std::string>() : text.dump())
          << "\n";
    };
    for (size_t i = 0; i < messages.size(); ++i) {
      const nlohmann::json& c = messages[i]["content"];
      if (!c.is_array()) {
        if (c != before[i]["content"]) show("m" + std::to_string(i), c);
        continue;
      }
      for (size_t b = 0; b < c.size(); ++b)
        if (c[b] != before[i]["content"][b])
          show("m" + std::to_string(i) + "b" + std::to_string(b), c[b]["content"]);
    }
    return out.str();
  }

  testing::Fixture f_;
  SearchService search_{*f_.store};
  std::vector<ContextCandidate> candidates_;
  std::string scope_;
  std::map<std::string, Citation> cite_;      // name -> last citation issued to it
  std::map<std::string, std::string> names_;  // entry_id -> name
};

class GoldenTest : public ::testing::TestWithParam<std::string> {};

// With PC_GOLDEN_UPDATE=1 in the environment, the file is rewritten with the actual outputs
// (comments and commands kept): review the diff before committing it.
void Rewrite(const std::string& path, const std::map<int, std::string>& actual) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i] + "\n";
    auto it = actual.find(static_cast<int>(i) + 1);
    if (it == actual.end() || i + 1 >= lines.size() || lines[i + 1] != "----") continue;
    out += "----\n" + it->second;
    for (i += 2; i < lines.size() && !lines[i].empty(); ++i) {
    }
    if (i < lines.size()) out += "\n";
  }
  std::ofstream(path, std::ios::trunc) << out;
}

TEST_P(GoldenTest, Matches) {
  const std::string path = std::string(PC_GOLDEN_DIR) + "/" + GetParam();
  std::vector<Record> records = ParseFile(path);
  ASSERT_FALSE(records.empty()) << "no records in " << path;
  Runner runner;
  std::map<int, std::string> actual;
  for (const Record& r : records) {
    std::string got = runner.Run(r.command);
    actual[r.line] = got;
    EXPECT_EQ(got, r.expected) << GetParam() << ":" << r.line << ": " << r.command;
  }
  if (std::getenv("PC_GOLDEN_UPDATE")) Rewrite(path, actual);
}

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(PC_GOLDEN_DIR))
    if (e.path().extension() == ".test") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Files, GoldenTest, ::testing::ValuesIn(GoldenFiles()),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.size() - 5);
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
}  // namespace pc
