#include "model/citation.h"

#include <charconv>
#include <cstdio>

#include "common/ids.h"

namespace pc {

std::string FormatMemoryRef(const MemoryRef& m) {
  return m.family + "/" + m.artifact_id + "@" + std::to_string(m.revision);
}

std::string QuoteJson(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

std::string ArtifactRefJson(const MemoryRef& m) {
  return "{\"family\":" + QuoteJson(m.family) + ",\"artifact_id\":" + QuoteJson(m.artifact_id) +
         ",\"revision\":" + std::to_string(m.revision) + "}";
}

std::string CitationJson(const Citation& c) {
  return "{\"memory_ref\":" + ArtifactRefJson(c.memory) + ",\"entry_id\":" + QuoteJson(c.entry_id) +
         ",\"entry_version_id\":" + QuoteJson(c.entry_version_id) + "}";
}

std::string SourceRefJsonText(const Source& s) {
  return "{\"name\":" + QuoteJson(kContentSourceName) +
         ",\"source_id\":" + QuoteJson(s.idempotency_key.value_or(s.source_id)) + "}";
}

std::string FormatCitation(const Citation& c) {
  return FormatMemoryRef(c.memory) + "#" + c.entry_id + "@" + c.entry_version_id;
}

Status ValidateCitation(const Citation& c) {
  if (c.memory.family != kMemoryFamily)
    return InvalidArgument("citation family must be \"memory\", got \"" + c.memory.family + "\"");
  if (!IsWellFormedId(c.memory.artifact_id, kMemoryPrefix))
    return InvalidArgument("citation artifact_id is not a memory id");
  if (c.memory.revision < 1) return InvalidArgument("citation revision must be 1 or more");
  if (!IsWellFormedId(c.entry_id, kEntryPrefix))
    return InvalidArgument("citation entry_id is not an entry id");
  if (!IsWellFormedId(c.entry_version_id, kEntryVersionPrefix))
    return InvalidArgument("citation entry_version_id is not an entry version id");
  return Status::Ok();
}

Result<Citation> ParseCitation(std::string_view s) {
  auto bad = [&] {
    return InvalidArgument("citation must look like memory/mem_…@REVISION#ent_…@env_…");
  };
  size_t slash = s.find('/');
  size_t hash = s.find('#');
  if (slash == std::string_view::npos || hash == std::string_view::npos || hash < slash)
    return bad();
  std::string_view ref = s.substr(slash + 1, hash - slash - 1);
  std::string_view entry = s.substr(hash + 1);
  size_t at1 = ref.rfind('@');
  size_t at2 = entry.find('@');
  if (at1 == std::string_view::npos || at2 == std::string_view::npos) return bad();

  Citation c;
  c.memory.family = std::string(s.substr(0, slash));
  c.memory.artifact_id = std::string(ref.substr(0, at1));
  std::string_view rev = ref.substr(at1 + 1);
  auto [ptr, ec] = std::from_chars(rev.data(), rev.data() + rev.size(), c.memory.revision);
  if (ec != std::errc() || ptr != rev.data() + rev.size() || rev.empty()) return bad();
  c.entry_id = std::string(entry.substr(0, at2));
  c.entry_version_id = std::string(entry.substr(at2 + 1));
  PC_RETURN_IF_ERROR(ValidateCitation(c));
  return c;
}

}  // namespace pc
