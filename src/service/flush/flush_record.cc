#include "service/flush/flush_record.h"

#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "common/utf8.h"

namespace pc {
using Json = nlohmann::json;

namespace {

constexpr const char* kFormat = "powercontext.last_flush.v1";

Json RefJson(const MemoryRef& m) {
  return Json{{"family", m.family}, {"artifact_id", m.artifact_id}, {"revision", m.revision}};
}

MemoryRef RefFrom(const Json& j) {
  return MemoryRef{j.at("family").get<std::string>(), j.at("artifact_id").get<std::string>(),
                   j.at("revision").get<int64_t>()};
}

}  // namespace

std::string EncodeFlushRecord(const FlushRecord& record) {
  const FlushOutcome& o = record.outcome;
  Json changes = Json::array();
  for (const FlushChange& c : o.changes) {
    Json j{{"op", ChangeOpName(c.change.op)},
           {"entry_id", c.change.entry_id},
           {"to_version_id", c.change.to_version_id},
           {"memory", RefJson(c.citation.memory)}};
    if (c.change.from_version_id) j["from_version_id"] = *c.change.from_version_id;
    changes.push_back(std::move(j));
  }
  Json rejected = Json::array();
  size_t omitted = record.rejected_omitted;
  for (const Rejection& r : o.rejected) {
    if (rejected.size() == kMaxRecordedRejections) {
      ++omitted;
      continue;
    }
    rejected.push_back({{"candidate", CutUtf8(r.candidate_json, kMaxRecordedCandidateBytes)},
                        {"reason", r.reason}});
  }
  Json j{{"format", kFormat},
         {"at_ms", record.at_ms},
         {"actor", record.actor},
         {"processed", o.processed},
         {"previous_cursor", o.previous_cursor},
         {"current_cursor", o.current_cursor},
         {"high_watermark", o.high_watermark},
         {"processed_source_count", o.processed_source_count},
         {"memory", o.memory ? RefJson(*o.memory) : Json()},
         {"changes", std::move(changes)},
         {"candidates", o.candidates},
         {"rejected", std::move(rejected)},
         {"rejected_omitted", omitted}};
  // Never throws: bytes that are not UTF-8 (a reason quoting a model's text, say) become U+FFFD
  // instead of aborting the flush's transaction.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<FlushRecord> DecodeFlushRecord(std::string_view text) {
  Result<Json> parsed = ParseJson(text);
  if (!parsed.ok())
    return Internal("a last-flush record that does not parse: " + parsed.status().message());
  const Json& j = *parsed;
  try {
    if (j.at("format") != kFormat)
      return Internal("a last-flush record of an unknown format: " + j.at("format").dump());
    FlushRecord r;
    r.at_ms = j.at("at_ms").get<int64_t>();
    r.actor = j.at("actor").get<std::string>();
    r.rejected_omitted = j.at("rejected_omitted").get<size_t>();
    FlushOutcome& o = r.outcome;
    o.processed = j.at("processed").get<bool>();
    o.previous_cursor = j.at("previous_cursor").get<int64_t>();
    o.current_cursor = j.at("current_cursor").get<int64_t>();
    o.high_watermark = j.at("high_watermark").get<int64_t>();
    o.processed_source_count = j.at("processed_source_count").get<int64_t>();
    if (!j.at("memory").is_null()) o.memory = RefFrom(j.at("memory"));
    for (const Json& c : j.at("changes")) {
      std::optional<ChangeOp> op = ParseChangeOp(c.at("op").get<std::string>());
      if (!op) return Internal("a last-flush record names an unknown change: " + c.at("op").dump());
      FlushChange fc;
      fc.change.op = *op;
      fc.change.entry_id = c.at("entry_id").get<std::string>();
      fc.change.to_version_id = c.at("to_version_id").get<std::string>();
      if (c.contains("from_version_id"))
        fc.change.from_version_id = c.at("from_version_id").get<std::string>();
      fc.citation = Citation{RefFrom(c.at("memory")), fc.change.entry_id, fc.change.to_version_id};
      o.changes.push_back(std::move(fc));
    }
    o.candidates = j.at("candidates").get<std::vector<std::string>>();
    for (const Json& x : j.at("rejected"))
      o.rejected.push_back(
          {x.at("candidate").get<std::string>(), x.at("reason").get<std::string>()});
    return r;
  } catch (const Json::exception& e) {
    return Internal(std::string("a last-flush record that does not read: ") + e.what());
  }
}

}  // namespace pc
