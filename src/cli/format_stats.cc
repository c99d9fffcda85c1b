// The readable form of GET /v1/stats (powercontext stats): inventory, model usage, recall.
#include <nlohmann/json.hpp>

#include "cli/format.h"

namespace pc {
namespace {

std::string Count(const Json& v) {
  return v.is_number_integer() ? std::to_string(v.get<int64_t>()) : "unknown";
}

std::string UsageLine(const Json& u) {
  return Count(u["requests"]) + " requests, " + Count(u["input_tokens"]) + " input tokens, " +
         Count(u["output_tokens"]) + " output tokens";
}

}  // namespace

std::string FormatStats(const Json& s) {
  const Json& inv = s["inventory"];
  const Json& src = inv["sources"];
  const Json& entries = inv["memory"]["entries"];
  const Json& usage = s["usage"];
  const Json& period = usage["period"];
  std::string out = "scope " + s.value("scope_id", "") + " as of " + s.value("as_of", "") + "\n";
  out += "sources: " + Count(src["total"]) + " (" + Count(src["memory_processed"]) +
         " processed into memory, " + Count(src["memory_pending"]) + " pending)\n";
  out += "artifacts: " + Count(inv["artifacts"]["total"]);
  for (const Json& f : inv["artifacts"]["by_family"])
    out += "  " + f.value("family", "") + " " + Count(f["total"]);
  out += "\nmemory entries: " + Count(entries["total"]) + " (" + Count(entries["active"]) +
         " active, " + Count(entries["inactive"]) + " inactive)\n";
  for (const Json& k : entries["by_kind"])
    out += "  " + k.value("kind", "") + ": " + Count(k["total"]) + " (" + Count(k["active"]) +
           " active)\n";
  out += "candidates: " + Count(inv["candidates"]["total"]) + "\n";
  out += "model usage, " + period.value("preset", "") + " (" + period.value("start_date", "") +
         " .. " + period.value("end_date", "") + " UTC):\n";
  out += "  generation: " + UsageLine(usage["totals"]["generation"]) + "\n";
  out += "  embedding:  " + UsageLine(usage["totals"]["embedding"]) + "\n";
  for (const Json& p : usage["by_purpose"]) {
    out += "  " + p.value("purpose", "") + ":\n";
    if (p["generation"].value("requests", int64_t{0}) > 0)
      out += "    generation: " + UsageLine(p["generation"]) + "\n";
    if (p["embedding"].value("requests", int64_t{0}) > 0)
      out += "    embedding:  " + UsageLine(p["embedding"]) + "\n";
  }
  const Json& recall = s["recall"];
  const Json& t = recall["totals"];
  std::string estimator = recall["estimator"].is_object()
                              ? recall["estimator"].value("estimator_id", "") + " v" +
                                    recall["estimator"].value("version", "")
                              : "none";
  out += "recall (estimated tokens, " + estimator + "):\n";
  out += "  preparations: " + Count(t["preparations"]) + " (" + Count(t["ready_preparations"]) +
         " ready, " + Count(t["comparable_preparations"]) + " comparable)\n";
  out += "  sources " + Count(t["baseline_tokens"]) + " tokens, prepared context " +
         Count(t["recalled_tokens"]) + " tokens: reduction " + Count(t["token_reduction"]) +
         " over the comparable ones\n";
  return out;
}

}  // namespace pc
