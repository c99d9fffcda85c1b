#include "memory_md/memory_md.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "common/bounded_read.h"
#include "common/sha256.h"
#include "common/utf8.h"

namespace pc {
using Json = nlohmann::json;

namespace {

constexpr const char* kIndexMark = "<!-- powercontext:index";
constexpr const char* kCiteMark = "  — cite: `";
constexpr size_t kSourceChunkBytes = 200 * 1024;  // under the default 256 KiB source limit
constexpr size_t kSourceBatch = 100;
constexpr size_t kSourceBatchBytes = 4u << 20;
constexpr int kMaxFlushes = 200;
// What an import reads at most (docs/memory-md.md): the seed's grown MEMORY.md is 92,000
// characters; these are two orders of magnitude past any memory file an agent keeps.
constexpr size_t kMaxImportFileBytes = 8u << 20;
constexpr size_t kMaxImportBytes = 64u << 20;
constexpr size_t kMaxImportFiles = 10000;

size_t Chars(const std::string& s) {
  auto n = CountCodePoints(s);
  return n ? *n : s.size();
}

// A file name for a kind: the kind itself when it is lower-case ASCII letters, digits, '-' and '_'
// (not starting with '_', which names our own files); otherwise those characters with a hash of
// the kind, so two kinds never share a file ("Decision" and "decision", "API notes" and
// "api-notes", two Chinese kinds).
std::string Slug(const std::string& kind) {
  std::string out;
  for (unsigned char c : kind)
    out.push_back(
        (std::isalnum(c) && !std::isupper(c)) || c == '-' || c == '_' ? static_cast<char>(c) : '-');
  if (out == kind && !out.empty() && out[0] != '_') return out;
  while (!out.empty() && (out.back() == '-' || out.front() == '_' || out.front() == '-'))
    out.erase(out.back() == '-' ? out.size() - 1 : 0, 1);
  return (out.empty() ? "kind" : out.substr(0, 40)) + "-" + Sha256Hex(kind).substr(0, 8);
}

std::string OneLine(const std::string& text, size_t max_bytes) {
  std::string flat;
  for (char c : text) flat.push_back(c == '\n' || c == '\r' || c == '|' ? ' ' : c);
  return CutUtf8(flat, max_bytes, "…");
}

struct Entry {
  std::string kind, text, cite;
  int64_t revision = 0;
  std::string id;
};

std::string Index(const std::string& scope, int64_t revision,
                  const std::map<std::string, std::vector<Entry>>& by_kind,
                  const std::vector<Entry>& recent, size_t recent_bytes, bool topics_inline,
                  std::string* topics_file) {
  std::string topics = "| topic | entries | latest | file |\n| --- | --- | --- | --- |\n";
  for (const auto& [kind, list] : by_kind)
    topics += "| " + OneLine(kind, 80) + " | " + std::to_string(list.size()) + " | r" +
              std::to_string(list.back().revision) + " | memory/" + Slug(kind) + ".md |\n";
  std::string out = "# MEMORY\n\n" + std::string(kIndexMark) + " scope=" + OneLine(scope, 256) +
                    " revision=" + std::to_string(revision) +
                    ": pointers only; every entry, with its citation, is in memory/*.md -->\n\n";
  out += "## Topics\n\n";
  if (topics_inline) {
    out += topics;
  } else {
    *topics_file = "# Topics\n\n" + std::string(kIndexMark) + " scope=" + OneLine(scope, 256) +
                   " revision=" + std::to_string(revision) +
                   ": the topic table of MEMORY.md -->\n\n" + topics;
    out += "See memory/_topics.md (" + std::to_string(by_kind.size()) + " topics).\n";
  }
  out += "\n## Recent (last " + std::to_string(kMemoryMdRecent) + ")\n\n";
  if (recent.empty()) out += "Nothing yet.\n";
  for (const Entry& e : recent)
    out += "- r" + std::to_string(e.revision) + " " + OneLine(e.kind, 40) + ": " +
           OneLine(e.text, recent_bytes) + " (memory/" + Slug(e.kind) + ".md)\n";
  return out;
}

// A memory file: a regular file, never a link (in a cloned repository one could point anywhere).
Result<std::string> ReadFile(const std::string& path) {
  return ReadBoundedFile(path, kMaxImportFileBytes);
}

// A Markdown list item: ` ?([-*+]|[0-9]+[.)])\s+(.*)`, its text after the marker and the white
// space that follows it. A linear scan: std::regex recursed per character and a 5 MB bullet line
// overflowed the stack.
std::optional<std::string> BulletText(const std::string& line) {
  size_t at = line.rfind(' ', 0) == 0 ? 1 : 0;
  if (at < line.size() && (line[at] == '-' || line[at] == '*' || line[at] == '+')) {
    ++at;
  } else {
    const size_t digits = at;
    while (at < line.size() && line[at] >= '0' && line[at] <= '9') ++at;
    if (at == digits || at >= line.size() || (line[at] != '.' && line[at] != ')'))
      return std::nullopt;
    ++at;
  }
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  if (at >= line.size() || !space(line[at])) return std::nullopt;
  while (at < line.size() && space(line[at])) ++at;
  return line.substr(at);
}

std::string KindOfHeading(const std::string& heading, const std::string& fallback) {
  std::string h;
  for (unsigned char c : heading) h.push_back(static_cast<char>(std::tolower(c)));
  auto has = [&](std::initializer_list<const char*> words) {
    for (const char* w : words)
      if (h.find(w) != std::string::npos) return true;
    return false;
  };
  if (has({"decision", "决策", "决定"})) return "decision";
  if (has({"constraint", "rule", "limit", "约束", "规则", "限制"})) return "constraint";
  if (has({"preference", "偏好"})) return "preference";
  if (has({"todo", "next", "recent", "待办", "最近", "下一步"})) return "working_note";
  if (has({"user", "project", "infra", "contact", "service", "用户", "项目", "基础设施"}))
    return "fact";
  return fallback;
}

// A Markdown table row's cells ("| a | b |"), each trimmed.
std::vector<std::string> TableCells(const std::string& row) {
  std::vector<std::string> c;
  std::string cur;
  for (size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '|') {
      size_t a = cur.find_first_not_of(" \t"), b = cur.find_last_not_of(" \t");
      c.push_back(a == std::string::npos ? "" : cur.substr(a, b - a + 1));
      cur.clear();
    } else {
      cur.push_back(row[i]);
    }
  }
  return c;
}

// The row under a table's header: |---|:--:|.
bool IsSeparatorRow(const std::vector<std::string>& row) {
  return std::all_of(row.begin(), row.end(), [](const std::string& c) {
    return !c.empty() && c.find_first_not_of("-: ") == std::string::npos;
  });
}

// A table row as one item's text: "header: cell; header: cell", empty cells left out.
std::string TableRowText(const std::vector<std::string>& row,
                         const std::vector<std::string>& header) {
  std::string text;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i].empty()) continue;
    text += (text.empty() ? "" : "; ") +
            (i < header.size() && !header[i].empty() ? header[i] + ": " : "") + row[i];
  }
  return text;
}

}  // namespace

std::vector<MemoryMdItem> MemoryMdItems(const std::string& markdown,
                                        const std::string& default_kind) {
  std::vector<MemoryMdItem> out;
  if (markdown.find(kIndexMark) != std::string::npos) return out;  // our pointer-only index
  // Our topic files name their kind exactly in their heading.
  const bool ours = markdown.find("<!-- powercontext: scope=") != std::string::npos;
  std::string kind = default_kind;
  std::vector<std::string> header;  // the current table's header cells
  bool in_bullet = false, in_comment = false;
  std::istringstream in(markdown);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (in_comment) {
      in_comment = line.find("-->") == std::string::npos;
      continue;
    }
    if (line.rfind("<!--", 0) == 0) {
      in_comment = line.find("-->") == std::string::npos;
      continue;
    }
    if (line.rfind(kCiteMark, 0) == 0) continue;
    if (line.rfind("#", 0) == 0) {
      std::string heading = line.substr(std::min(line.size(), line.find_first_not_of('#')));
      heading.erase(0, std::min(heading.size(), heading.find_first_not_of(' ')));
      kind = ours && !heading.empty() ? heading : KindOfHeading(heading, default_kind);
      in_bullet = false;
      header.clear();
      continue;
    }
    if (std::optional<std::string> bullet = BulletText(line)) {
      const std::string text = std::move(*bullet);
      if (!text.empty()) out.push_back({kind, text});
      in_bullet = !text.empty();
      header.clear();
      continue;
    }
    if (in_bullet &&
        line.rfind("  ", 0) == 0) {  // a continuation; "  " alone is a blank line in it
      const size_t at = line.find_first_not_of(' ');
      out.back().text += "\n" + (at == std::string::npos ? std::string() : line.substr(at));
      continue;
    }
    in_bullet = false;
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '|') {
      std::vector<std::string> row = TableCells(line.substr(first));
      if (IsSeparatorRow(row)) continue;
      if (header.empty()) {
        header = row;
        continue;
      }
      if (std::string text = TableRowText(row, header); !text.empty()) out.push_back({kind, text});
      continue;
    }
    header.clear();
  }
  return out;
}

Result<MemoryMdExport> ExportMemoryMd(const CallRoute& call, const std::string& scope) {
  std::vector<Entry> entries;
  MemoryMdExport out;
  std::string cursor;
  while (true) {
    std::map<std::string, std::string> q{{"scope_id", scope}, {"limit", "100"}};
    if (!cursor.empty()) {
      q["cursor"] = cursor;
      q["revision"] = std::to_string(out.revision);  // every page from the first page's revision
    }
    PC_ASSIGN_OR_RETURN(Json page, call("GET", "/v1/memory/entries", q, Json()));
    if (page["memory"].is_object()) out.revision = page["memory"]["revision"].get<int64_t>();
    for (const Json& e : page["entries"])
      entries.push_back(Entry{e.value("kind", ""), e.value("text", ""), e.value("citation_ref", ""),
                              e.value("created_by_revision", int64_t{0}), e.value("entry_id", "")});
    if (!page["next_cursor"].is_string()) break;
    cursor = page["next_cursor"].get<std::string>();
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.revision != b.revision ? a.revision < b.revision : a.id < b.id;
  });
  std::map<std::string, std::vector<Entry>> by_kind;
  for (const Entry& e : entries) by_kind[e.kind].push_back(e);
  for (const auto& [kind, list] : by_kind) {
    std::string text = "# " + OneLine(kind, 80) +
                       "\n\n<!-- powercontext: scope=" + OneLine(scope, 256) +
                       " revision=" + std::to_string(out.revision) + ", " +
                       std::to_string(list.size()) + " entries -->\n\n";
    for (const Entry& e : list) {
      std::string body;
      for (char c : e.text) body += c == '\n' ? std::string("\n  ") : std::string(1, c);
      text += "- " + body + "\n" + kCiteMark + e.cite + "`\n";
    }
    out.files["memory/" + Slug(kind) + ".md"] = text;
  }
  std::vector<Entry> recent(
      entries.end() - static_cast<std::ptrdiff_t>(std::min(entries.size(), kMemoryMdRecent)),
      entries.end());
  std::reverse(recent.begin(), recent.end());
  // The limit is enforced: shorter recent lines first, then the topic table behind a pointer.
  std::string topics_file, index;
  for (size_t recent_bytes : {size_t{160}, size_t{60}}) {
    index = Index(scope, out.revision, by_kind, recent, recent_bytes, true, nullptr);
    if (Chars(index) <= kMemoryMdMaxChars) break;
  }
  if (Chars(index) > kMemoryMdMaxChars) {
    index = Index(scope, out.revision, by_kind, recent, 60, false, &topics_file);
    out.files["memory/_topics.md"] = topics_file;
  }
  if (Chars(index) > kMemoryMdMaxChars)
    index = CutUtf8(index, kMemoryMdMaxChars, "\n");  // only a huge scope name
  out.files["MEMORY.md"] = index;
  out.index_chars = Chars(index);
  out.entries = entries.size();
  return out;
}

Status WriteMemoryMd(const MemoryMdExport& e, const std::string& out_dir) {
  namespace fs = std::filesystem;
  // A MEMORY.md this command did not write is someone's notes: never overwritten.
  const fs::path index = fs::path(out_dir) / "MEMORY.md";
  if (fs::exists(index)) {
    auto existing = ReadFile(index.string());
    if (!existing.ok() || existing->find(kIndexMark) == std::string::npos)
      return InvalidArgument(index.string() +
                             " was not written by export memory-md; move it (or import it first)")
          .WithDetail("file", index.string());
  }
  // Topic files of an earlier export that this one no longer has (a kind with no active entry).
  std::error_code ec;
  for (auto it = fs::directory_iterator(fs::path(out_dir) / "memory", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string rel = "memory/" + it->path().filename().string();
    if (!it->is_regular_file() || it->path().extension() != ".md" || e.files.count(rel)) continue;
    auto old = ReadFile(it->path().string());
    if (old.ok() && (old->find("<!-- powercontext: scope=") != std::string::npos ||
                     old->find(kIndexMark) != std::string::npos))
      fs::remove(it->path(), ec);
  }
  for (const auto& [rel, text] : e.files) {
    const std::filesystem::path path = std::filesystem::path(out_dir) / rel;
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out)
      return InvalidArgument("cannot write " + path.string()).WithDetail("file", path.string());
  }
  return Status::Ok();
}

namespace {

// The files an import reads: MEMORY.md (named, or in the named folder) and every memory/**/*.md
// beside it, in name order. Inside the folder nothing is followed: a symbolic link anywhere under
// memory/ (or a MEMORY.md or memory/ that is one) refuses the import, as does a *.md that is not
// a regular file, so a cloned repository cannot have a file from elsewhere uploaded.
Result<std::vector<std::filesystem::path>> ImportFiles(const std::string& path,
                                                       std::filesystem::path& base) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool folder = fs::is_directory(path, ec);  // the folder named: followed, the user chose it
  base = folder ? fs::path(path) : fs::path(path).parent_path();
  auto refuse = [&](const fs::path& p, const std::string& why) {
    return InvalidArgument(p.string() + " " + why + "; nothing was imported")
        .WithDetail("file", p.string());
  };
  const char* kLink =
      "is a symbolic link: import reads only regular files inside the folder (a link could point "
      "anywhere); copy the file in instead";
  std::vector<fs::path> files;
  const fs::path index = folder ? base / "MEMORY.md" : fs::path(path);
  const fs::file_status index_status = fs::symlink_status(index, ec);
  if (fs::is_symlink(index_status)) return refuse(index, kLink);
  if (fs::exists(index_status)) {
    if (!fs::is_regular_file(index_status)) return refuse(index, "is not a regular file");
    files.push_back(index);
  } else if (!folder) {
    return InvalidArgument("no file or folder " + path).WithDetail("file", path);
  }
  const fs::path memory = base / "memory";
  const fs::file_status memory_status = fs::symlink_status(memory, ec);
  if (fs::is_symlink(memory_status)) return refuse(memory, kLink);
  std::vector<fs::path> topics;
  if (fs::is_directory(memory_status)) {
    ec.clear();
    for (auto it = fs::recursive_directory_iterator(memory, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::file_status st = it->symlink_status(ec);
      if (ec) break;
      if (fs::is_symlink(st)) return refuse(it->path(), kLink);
      if (fs::is_directory(st) || it->path().extension() != ".md") continue;
      if (!fs::is_regular_file(st)) return refuse(it->path(), "is not a regular file");
      topics.push_back(it->path());
      if (topics.size() > kMaxImportFiles)
        return refuse(memory, "holds more than " + std::to_string(kMaxImportFiles) + " .md files");
    }
    if (ec) return refuse(memory, "cannot be listed (" + ec.message() + ")");
  }
  std::sort(topics.begin(), topics.end());
  files.insert(files.end(), topics.begin(), topics.end());
  if (files.empty())
    return InvalidArgument("no MEMORY.md or memory/*.md under " + path).WithDetail("file", path);
  return files;
}

// No model: one entry per bullet or table row; the server keeps one of each text.
void RememberItems(const CallRoute& call, const std::string& scope,
                   const std::vector<std::pair<std::string, std::string>>& texts,
                   MemoryMdImport& out) {
  namespace fs = std::filesystem;
  out.mode = "bullets";
  out.notes.push_back("no extraction provider: one entry per bullet or table row");
  for (const auto& [rel, text] : texts) {
    const std::string stem = fs::path(rel).stem().string();
    const std::string fallback = rel.rfind("memory/", 0) == 0
                                     ? KindOfHeading(stem, stem == "_topics" ? "fact" : stem)
                                     : "fact";
    for (const MemoryMdItem& item : MemoryMdItems(text, fallback)) {
      auto r = call("POST", "/v1/memory/remember", {},
                    Json{{"scope_id", scope},
                         {"kind", item.kind},
                         {"text", item.text},
                         {"actor", "memory-md-import"},
                         {"reason", "imported from " + rel},
                         {"explain", true}});
      if (!r.ok()) {
        ++out.skipped;
        if (out.notes.size() < 10) out.notes.push_back(rel + ": " + r.status().message());
        continue;
      }
      ((*r)["changed"] == true ? out.entries_added : out.duplicates)++;
    }
  }
}

// The file as evidence, in pieces at line boundaries under the source limit.
void AddSourceChunks(const std::string& rel, const std::string& text, Json& sources) {
  size_t at = 0, part = 0;
  while (at < text.size()) {
    size_t end = std::min(text.size(), at + kSourceChunkBytes);
    if (end < text.size()) {
      size_t nl = text.rfind('\n', end);
      end = nl != std::string::npos && nl > at
                ? nl + 1
                : at + Utf8Prefix(text.substr(at), kSourceChunkBytes).size();
    }
    const std::string chunk = text.substr(at, end - at);
    sources.push_back(Json{{"kind", "memory_md"},
                           {"content", chunk},
                           {"idempotency_key", "memory-md:" + rel + ":" + std::to_string(part) +
                                                   ":" + Sha256Hex(chunk).substr(0, 16)},
                           {"metadata", {{"file", rel}, {"part", part}}}});
    at = end;
    ++part;
  }
}

// The sources, in batches of at most 100 and a body well under the 8 MiB limit.
Status PostSources(const CallRoute& call, const std::string& scope, const Json& sources,
                   MemoryMdImport& out) {
  for (size_t at = 0; at < sources.size();) {
    Json batch = Json::array();
    for (size_t bytes = 0;
         at < sources.size() && batch.size() < kSourceBatch && bytes < kSourceBatchBytes; ++at) {
      bytes += sources[at]["content"].get_ref<const std::string&>().size();
      batch.push_back(sources[at]);
    }
    PC_ASSIGN_OR_RETURN(Json added, call("POST", "/v1/sources/batch", {},
                                         Json{{"scope_id", scope}, {"sources", batch}}));
    for (const Json& s : added["sources"])
      (s.value("created", false) ? out.sources_new : out.sources_existing)++;
  }
  return Status::Ok();
}

}  // namespace

Result<MemoryMdImport> ImportMemoryMd(const CallRoute& call, const std::string& scope,
                                      const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path base;
  PC_ASSIGN_OR_RETURN(std::vector<fs::path> files, ImportFiles(path, base));

  MemoryMdImport out;
  std::vector<std::pair<std::string, std::string>> texts;  // relative path, text
  Json sources = Json::array();
  size_t total = 0;
  for (const fs::path& f : files) {
    PC_ASSIGN_OR_RETURN(std::string text,
                        ReadFile(f.string()));  // O_NOFOLLOW: swapped for a link since, refused
    total += text.size();
    if (total > kMaxImportBytes)
      return TooLarge("the memory files under " + base.string() + " are over the limit of " +
                      ByteLimitText(kMaxImportBytes) + " in all; nothing was imported")
          .WithDetail("file", f.string());
    if (!IsValidUtf8(text))
      return InvalidArgument(f.string() + " is not UTF-8 text").WithDetail("file", f.string());
    const std::string rel = fs::relative(f, base, ec).generic_string();
    AddSourceChunks(rel, text, sources);
    texts.emplace_back(rel, std::move(text));
  }
  out.files = files.size();
  PC_RETURN_IF_ERROR(PostSources(call, scope, sources, out));
  // Entries: through the extraction provider's flush (its validation), window by window.
  auto flushed = call("POST", "/v1/memory/flush", {}, Json{{"scope_id", scope}, {"explain", true}});
  if (flushed.ok()) {
    out.mode = "flush";
    for (int i = 0; i < kMaxFlushes && flushed.ok(); ++i) {
      if (flushed->contains("changes") && (*flushed)["changes"].is_array())
        out.entries_added += (*flushed)["changes"].size();
      if (flushed->contains("rejected") && (*flushed)["rejected"].is_array())
        out.skipped += (*flushed)["rejected"].size();
      if ((*flushed)["status"] != "processed" || (*flushed)["current_cursor"].get<int64_t>() >=
                                                     (*flushed)["high_watermark"].get<int64_t>())
        break;
      flushed = call("POST", "/v1/memory/flush", {}, Json{{"scope_id", scope}, {"explain", true}});
    }
    if (!flushed.ok()) return flushed.status();
    return out;
  }
  if (flushed.status().code() != Code::kCapabilityUnavailable) return flushed.status();
  RememberItems(call, scope, texts, out);
  return out;
}

}  // namespace pc
