#include "cli/format.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/utf8.h"

namespace pc {
namespace {

std::string MemoryRefText(const Json& m) {
  return m.value("family", "") + "/" + m.value("artifact_id", "") + "@" +
         std::to_string(m.value("revision", int64_t{0}));
}

// A citation object ({memory_ref, entry_id, entry_version_id}) in its string form, which every
// command that takes a citation accepts.
std::string CitationText(const Json& c) {
  if (!c.is_object()) return "";
  return MemoryRefText(c["memory_ref"]) + "#" + c.value("entry_id", "") + "@" +
         c.value("entry_version_id", "");
}

std::string Indent(const std::string& text, const std::string& pad) {
  std::string out = pad;
  for (char c : text) {
    out.push_back(c);
    if (c == '\n') out += pad;
  }
  return out;
}

std::string More(const Json& page) {
  if (page.contains("next_cursor") && page["next_cursor"].is_string())
    return "(more: --cursor " + page["next_cursor"].get<std::string>() + ")\n";
  return "";
}

std::string ChangeText(const Json& c) {
  std::string op = c.value("op", "");
  if (op == "revise")
    return "revise " + c.value("entry_id", "") + " " + c.value("from_version_id", "") + " -> " +
           c.value("to_version_id", "");
  return op + " " + c.value("entry_id", "") + " " + c.value("entry_version_id", "");
}

}  // namespace

std::string FormatScope(const Json& s) {
  return s.value("scope_id", "") + "  " + s.value("key", "") + "  memory " +
         MemoryRefText(s["memory"]) + "\n";
}

std::string FormatScopes(const Json& page) {
  std::string out;
  for (const Json& s : page["scopes"]) out += FormatScope(s);
  return out + More(page);
}

std::string FormatScopeSettings(const Json& v) {
  std::string out = "scope " + v.value("scope_id", "") + "\n";
  for (const auto& [name, value] : v["effective"].items())
    out += "  " + name + " = " + value.get<std::string>() +
           (v["overrides"].contains(name) ? "  (this scope)" : "  (server default)") + "\n";
  return out;
}

std::string FormatSearchModes(const Json& r) {
  std::string out;
  for (const auto& [mode, c] : r["modes"].items())
    out += mode + ": " +
           (c["available"].get<bool>() ? "available"
                                       : "unavailable — " + c["reason"].get<std::string>()) +
           "\n";
  return out;
}

std::string FormatReindex(const Json& r) {
  return "embedded " + std::to_string(r["embedded"].get<int64_t>()) + " entries; " +
         std::to_string(r["missing"].get<int64_t>()) + " still missing\n";
}

// A MemoryMutationResponse asked with explain (changed, duplicate_of).
std::string FormatWrite(const Json& w) {
  if (!w.value("changed", false)) {
    std::string out = "no change: memory stays at " + MemoryRefText(w["memory"]) + "\n";
    if (w["duplicate_of"].is_object())
      out += "already said by " + CitationText(w["duplicate_of"]) + "\n";
    return out;
  }
  const Json& e = w["entry"];
  std::string verb = w["change"].is_object() ? w["change"].value("op", "") + " " : "";
  std::string out = verb + e["citation"].value("entry_id", "") + " v" +
                    std::to_string(e.value("version", int64_t{0})) + " [" + e.value("kind", "") +
                    "] " + e.value("state", "") + " -> " + MemoryRefText(w["memory"]) + "\n";
  out += "citation: " + CitationText(e["citation"]) + "\n";
  if (e.contains("valid_until") && e["valid_until"].is_string())
    out += "valid until: " + e["valid_until"].get<std::string>() + "\n";
  if (w.value("hypothesis", false))
    out += "hypothesis: no evidence recorded (revise with --evidence to support it)\n";
  if (w.contains("near_duplicates") && w["near_duplicates"].is_array())
    for (const Json& d : w["near_duplicates"])
      out += "warning: nearly the same as " + CitationText(d["citation"]) + ": \"" +
             d.value("text", "") + "\" (consider revising that entry instead)\n";
  return out;
}

std::string FormatEntries(const Json& page) {
  if (page["memory"].is_object() && page["memory"].value("revision", int64_t{0}) == 0 &&
      page["entries"].empty())
    return "(no entries: nothing remembered in this scope yet)\n";
  std::string out = "memory " + MemoryRefText(page["memory"]) + ", " +
                    std::to_string(page["entries"].size()) + " entries\n";
  for (const Json& e : page["entries"]) {
    out += "\n[" + e.value("kind", "") + "] v" + std::to_string(e.value("version", int64_t{0}));
    if (!e.value("active", true)) out += " (retired)";
    out += "\n" + Indent(e.value("text", ""), "  ") + "\n";
    out += "  cite: " + CitationText(e["citation"]) + "\n";
    if (e.contains("valid_until") && e["valid_until"].is_string())
      out += "  valid until: " + e["valid_until"].get<std::string>() + "\n";
  }
  return out + More(page);
}

std::string FormatRevisions(const Json& page) {
  std::string out = "memory " + MemoryRefText(page["head"]) + " (head)\n";
  for (const Json& r : page["revisions"]) {
    out += "r" + std::to_string(r["memory"].value("revision", int64_t{0})) + "  " +
           r.value("created_at", "") + "  " + r.value("actor", "");
    if (!r.value("reason", "").empty()) out += "  \"" + r.value("reason", "") + "\"";
    out += "\n";
    for (const Json& c : r["changes"]) out += "    " + ChangeText(c) + "\n";
  }
  return out + More(page);
}

std::string FormatRevision(const Json& r) {
  std::string out = "revision " + MemoryRefText(r["memory"]) + "  " + r.value("created_at", "") +
                    "  " + r.value("actor", "") + "\n";
  if (!r.value("reason", "").empty()) out += "reason: " + r.value("reason", "") + "\n";
  out += "changes:\n";
  for (const Json& c : r["changes"]) out += "  " + ChangeText(c) + "\n";
  out += "manifest:\n";
  for (const Json& e : r["manifest"])
    out += "  " + e.value("entry_id", "") + " v" + std::to_string(e.value("version", int64_t{0})) +
           (e.value("active", true) ? "" : " (retired)") + "  " +
           e.value("content_hash", "").substr(0, 12) + "\n";
  return out + More(r);
}

std::string FormatVersions(const Json& page) {
  std::string out = "entry " + page.value("entry_id", "") + "\n";
  for (const Json& v : page["versions"]) {
    out += "\nv" + std::to_string(v.value("version", int64_t{0})) + " " +
           v.value("entry_version_id", "") + " [" + v.value("kind", "") + "] revision " +
           std::to_string(v.value("created_by_revision", int64_t{0})) + "  " +
           v.value("created_at", "") + "\n";
    out += Indent(v.value("text", ""), "  ") + "\n";
  }
  return out + More(page);
}

// A MemoryEntry asked with explain (head, current).
std::string FormatRead(const Json& r) {
  std::string out = r.value("text", "") + "\n\n";
  out += "citation: " + CitationText(r["citation"]) + "\n";
  out += "kind: " + r.value("kind", "") + ", version " +
         std::to_string(r.value("version", int64_t{0}));
  out +=
      r.value("state", "") == "active" ? ", active at that revision" : ", retired at that revision";
  out += r.value("current", false) ? "; still current at the head "
                                   : "; no longer current at the head ";
  out += MemoryRefText(r["head"]) + "\n";
  return out;
}

namespace {

// A hit's score as a person reads it: a percentage of the answer's best score, so the top hit is
// 100% even in a tiny memory, where full text's bm25 (and so the wire's [0, 1] score) is near 0
// because every word is common. A positive score never rounds to 0%; the raw score is in --json.
std::string Relevance(double score, double best) {
  if (!(best > 0) || !(score > 0)) return "0%";
  const double pct = 100.0 * score / best;
  if (pct < 1.0) return "<1%";
  return std::to_string(static_cast<int>(std::lround(std::min(pct, 100.0)))) + "%";
}

}  // namespace

std::string FormatSearch(const Json& r) {
  if (!r["memory"].is_object()) return "hits: 0 (nothing remembered in this scope yet)\n";
  std::string out = "hits: " + std::to_string(r["hits"].size()) + " (" + r.value("mode", "") +
                    ") in " + MemoryRefText(r["memory"]) + "\n";
  double best = 0;
  for (const Json& h : r["hits"]) best = std::max(best, h.value("score", 0.0));
  int rank = 0;
  for (const Json& h : r["hits"]) {
    std::string by;
    for (const Json& m : h["matched_by"]) by += (by.empty() ? "" : "+") + m.get<std::string>();
    out += "\n" + std::to_string(++rank) + ". [" + h.value("kind", "") + "] relevance " +
           Relevance(h.value("score", 0.0), best) + " (" + by + ")" +
           (h.value("state", "active") == "active" ? "" : " (retired)") + "\n";
    out += Indent(h.value("text", ""), "  ") + "\n";
    out += "  cite: " + CitationText(h["citation"]) + "\n";
    if (h.contains("valid_until") && h["valid_until"].is_string())
      out += "  valid until: " + h["valid_until"].get<std::string>() + "\n";
  }
  return out;
}

std::string FormatSource(const Json& s) {
  std::string out =
      s.value("source_ref", "") + "  " + s.value("kind", "") + "  (" + s.value("purpose", "") + ")";
  if (s.contains("created") && !s.value("created", true))
    out += "  already added with this idempotency key";
  std::string content = s.value("content", "");
  if (content.size() > 200) content = CutUtf8(content, 200, " …");
  return out + "\n" + Indent(content, "  ") + "\n";
}

std::string FormatSources(const Json& page) {
  std::string out;
  for (const Json& s : page["sources"]) out += FormatSource(s);
  out += "high watermark " + std::to_string(page.value("high_watermark", int64_t{0})) + "\n";
  if (page["next_after"].is_number())
    out += "(more: --after " + std::to_string(page["next_after"].get<int64_t>()) + ")\n";
  return out;
}

// A FlushMemoryResponse asked with explain (changes, rejected).
std::string FormatFlush(const Json& f) {
  std::string out =
      f.value("status", "") + ": cursor " + std::to_string(f.value("previous_cursor", int64_t{0})) +
      " -> " + std::to_string(f.value("current_cursor", int64_t{0})) + " of " +
      std::to_string(f.value("high_watermark", int64_t{0})) + ", " +
      std::to_string(f.value("processed_source_count", int64_t{0})) + " sources to the model\n";
  if (f["memory"].is_object()) out += "memory " + MemoryRefText(f["memory"]) + "\n";
  for (const Json& c : f["changes"])
    out += "  " + ChangeText(c) + "  " + c["entry"].value("text", "") + "\n";
  for (const Json& r : f["rejected"]) out += "  rejected: " + r.value("reason", "") + "\n";
  return out;
}

std::string FormatLastFlush(const Json& response) {
  const Json& f = response["last_flush"];
  if (!f.is_object()) return "(no flush has processed a window of this scope yet)\n";
  std::string out =
      "last flush " + f.value("at", "") + " by " + f.value("actor", "") + "\n" + FormatFlush(f);
  for (const Json& id : f["candidates"]) out += "  proposed: " + id.get<std::string>() + "\n";
  if (f.value("rejected_omitted", int64_t{0}) > 0)
    out += "  (" + std::to_string(f.value("rejected_omitted", int64_t{0})) +
           " more rejections not kept)\n";
  return out;
}

std::string FormatPrepared(const Json& p) {
  if (p.value("status", "") != "ready") return "(empty: nothing relevant fits the budget)\n";
  return p.value("content", "");
}

// Our GET /v1/handoff: {reference, ref, content, text, actor, created_at}.
std::string FormatHandoff(const Json& h) {
  return h.value("ref", "") + "  " + h.value("created_at", "") + "  " + h.value("actor", "") +
         "\n" + Indent(h.value("text", ""), "  ") + "\n";
}

namespace {

// A HandoffContent or HandoffDraft: objective, cited statements, disposition, next action,
// omissions.
std::string HandoffContentText(const Json& c) {
  std::string out = "objective: " + c.value("objective", "") + "\n";
  for (const Json& st : c.value("state", Json::array()))
    out += "  - " + st.value("text", "") + " (" +
           std::to_string(st.value("citations", Json::array()).size()) + " citations)\n";
  out += "disposition: " + c.value("disposition", "") + "\n";
  if (c.contains("next_action") && c["next_action"].is_object())
    out += "next: " + c["next_action"].value("text", "") + "\n";
  for (const Json& om : c.value("omissions", Json::array()))
    out += "  omitted: " + om.value("text", "") + "\n";
  return out;
}

}  // namespace

std::string FormatHandoffDraft(const Json& d) {
  return HandoffContentText(d) + "(inspect it; then: handoff finalize with this draft's --json)\n";
}

std::string FormatPreparedHandoff(const Json& p) {
  std::string base = p["base"].is_object() ? MemoryRefText(p["base"]) : "none yet";
  return HandoffContentText(p["content"]) + "base: " + base + " (commit with this --json)\n";
}

std::string FormatCommittedHandoff(const Json& c) {
  return "committed " + MemoryRefText(c["reference"]) + "\n" + HandoffContentText(c["content"]);
}

std::string FormatHandoffResolution(const Json& r) {
  if (r.value("status", "") != "resolved") return "(no handoff yet)\n";
  std::string out = "untrusted history: " + MemoryRefText(r["selected_revision"]) + "\n" +
                    HandoffContentText(r["content"]);
  for (const Json& check : r.value("evidence_checks", Json::array()))
    if (check.value("status", "") != "available")
      out += "  unavailable evidence for " + check.value("claim", "") +
             (check["state_index"].is_number()
                  ? " " + std::to_string(check["state_index"].get<int64_t>())
                  : "") +
             ": re-establish it from current facts\n";
  return out;
}

std::string FormatHandoffs(const Json& page) {
  std::string out;
  for (const Json& h : page["handoffs"]) out += FormatHandoff(h);
  return out + More(page);
}

}  // namespace pc
