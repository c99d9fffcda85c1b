#include "client/jsonl_import.h"

#include <nlohmann/json.hpp>
#include <variant>
#include <vector>

namespace pc {
namespace {

struct Line {
  int64_t number;
  Json entry;
  size_t bytes;
};

Result<std::vector<Line>> ReadLines(std::istream& in) {
  std::vector<Line> out;
  std::string text;
  for (int64_t number = 1; std::getline(in, text); ++number) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json entry = Json::parse(text, nullptr, false);
    if (entry.is_discarded() || !entry.is_object())
      return InvalidArgument("line " + std::to_string(number) +
                             " is not a JSON object (one entry a line: " +
                             "{\"kind\": \"fact\", \"text\": \"…\"}); nothing was imported")
          .WithDetail("line", number);
    out.push_back({number, std::move(entry), text.size()});
  }
  if (in.bad()) return InvalidArgument("the file could not be read to its end");
  return out;
}

// The server's error for a batch, naming the file's line of the entry it names.
Status AtLine(const Status& s, const std::vector<Line>& lines, size_t from) {
  for (const Detail& d : s.details())
    if (d.key == "entry" && std::holds_alternative<int64_t>(d.value)) {
      const size_t at = from + static_cast<size_t>(std::get<int64_t>(d.value));
      if (at < lines.size())
        return Status(s.code(),
                      "line " + std::to_string(lines[at].number) + ": " + s.message() +
                          " (the batches before it were written; fix it and import again: entries "
                          "already there change nothing)");
    }
  return s;
}

}  // namespace

Result<JsonlImport> ImportJsonl(const CallRoute& call, const std::string& scope, std::istream& in) {
  PC_ASSIGN_OR_RETURN(std::vector<Line> lines, ReadLines(in));
  JsonlImport out;
  out.lines = static_cast<int64_t>(lines.size());
  for (size_t from = 0; from < lines.size();) {
    Json entries = Json::array();
    size_t to = from, bytes = 0;
    while (to < lines.size() && to - from < kImportBatchEntries &&
           (to == from || bytes + lines[to].bytes <= kImportBatchBytes))
      bytes += lines[to].bytes, entries.push_back(lines[to++].entry);
    Result<Json> answer = call("POST", "/v1/memory/remember/batch", {},
                               Json{{"scope_id", scope}, {"entries", entries}});
    if (!answer.ok()) return AtLine(answer.status(), lines, from);
    ++out.batches;
    for (const Json& e : (*answer)["entries"])
      (e.value("changed", false) ? out.added : out.duplicates)++;
    out.revision = (*answer)["memory"].value("revision", int64_t{0});
    from = to;
  }
  return out;
}

}  // namespace pc
