// The work-continuity commands (RFC 1223, docs/work-continuity.md): `work contract | handoff |
// acknowledge | outcome`. Each stores one record under the caller's --source-id; the record (or,
// for acknowledge, the request's other fields) is a JSON document, as the spec writes it.
#include <nlohmann/json.hpp>

#include "cli/command_table.h"
#include "cli/format.h"
#include "wire/json.h"

namespace pc {
namespace {

// acknowledge: the request's fields from a JSON object (receiver, status, selection, …); the
// scope and the source id come from their options.
Status RequestFields(const Opts& o, const OptionSpec& spec, Request& request) {
  PC_ASSIGN_OR_RETURN(Json fields, JsonArgument(TextOf(o, spec)));
  if (!fields.is_object())
    return InvalidArgument(TextOf(o, spec) + ": must be a JSON object of the request's fields");
  for (const auto& [key, value] : fields.items()) request.Set(key, value);
  return Status::Ok();
}

OptionSpec SourceId() {
  return Opt("--source-id", "the id this record is kept under (the same again is a retry)",
             &Opts::source_id)
      .Required()
      .To("source_id");
}

// A kept record's receipt (WorkSourceReceipt), one line.
std::string FormatWorkReceipt(const Json& r) {
  return "kept " + r.value("kind", "") + " " + r["source"].value("source_id", "") +
         " at position " + std::to_string(r.value("position", int64_t{0})) + " (" +
         r.value("content_digest", "") + ")\n";
}

std::string FormatPreparedWork(const Json& r) {
  return FormatWorkReceipt(r["boundary"]) + FormatPreparedHandoff(r["handoff"]);
}

std::string FormatAcknowledgement(const Json& r) {
  return FormatWorkReceipt(r["receipt"]) + FormatHandoffResolution(r["resolution"]);
}

}  // namespace

const std::vector<Row>& WorkRows() {
  static const std::vector<Row> rows = {
      {"work",
       "work continuity (RFC 1223): a contract, the current work handed off, the receiver's "
       "receipt, the outcome"},
      {"work contract",
       "keep a Work Contract: the goal and boundary agreed before work starts",
       {ScopeOption(), SourceId(),
        JsonFile("contract", "the contract's JSON (a file, or - for standard input)", "contract")},
       {"POST", "/v1/work/contracts/create"},
       FormatWorkReceipt},
      {"work handoff",
       "hand off the current work: keep its boundary and print a prepared handoff (not committed)",
       {ScopeOption(), SourceId(),
        JsonFile("boundary", "the boundary's JSON (a file, or - for standard input)", "handoff")},
       {"POST", "/v1/work/handoffs/prepare-current"},
       FormatPreparedWork},
      {"work acknowledge",
       "the receiver's receipt of a prepared or exact handoff: accepted only when every check is "
       "confirmed",
       {ScopeOption(), SourceId(),
        Opt("fields",
            "the request's other fields as JSON (receiver, status, selection, receiver_checks, "
            "prepared or revision, message): a file, or - for standard input",
            &Opts::file)
            .Required()
            .Via(RequestFields, nullptr, Stage::kInput)},
       {"POST", "/v1/work/handoffs/acknowledge"},
       FormatAcknowledgement},
      {"work outcome",
       "record a Task Outcome: what actually happened, with its checks",
       {ScopeOption(), SourceId(),
        JsonFile("outcome", "the outcome's JSON (a file, or - for standard input)", "outcome")},
       {"POST", "/v1/work/outcomes/record"},
       FormatWorkReceipt},
  };
  return rows;
}

}  // namespace pc
