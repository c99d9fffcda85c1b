#include "store/store_rows.h"

namespace pc {

std::string JoinLines(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back('\n');
    out += items[i];
  }
  return out;
}

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace pc

#include <nlohmann/json.hpp>

namespace pc {
namespace {

using nlohmann::json;

json RefJson(const MemoryRef& r) {
  return {{"family", r.family}, {"artifact_id", r.artifact_id}, {"revision", r.revision}};
}

MemoryRef RefOf(const json& j) {
  return MemoryRef{j.at("family").get<std::string>(), j.at("artifact_id").get<std::string>(),
                   j.at("revision").get<int64_t>()};
}

template <typename T, typename Fn>
Result<T> Parse(const std::string& row, const char* what, Fn fn) {
  try {
    return fn(json::parse(row));
  } catch (const std::exception& e) {
    return Internal(std::string("a stored ") + what + " is malformed: " + e.what());
  }
}

}  // namespace

std::string ProposalToRow(const ExperienceContent& c) {
  return json{{"situation", c.situation},
              {"action", c.action},
              {"outcome", c.outcome},
              {"lesson", c.lesson}}
      .dump();
}

Result<ExperienceContent> ProposalFromRow(const std::string& row) {
  return Parse<ExperienceContent>(row, "proposal", [](const json& j) {
    return ExperienceContent{j.at("situation").get<std::string>(),
                             j.at("action").get<std::string>(), j.at("outcome").get<std::string>(),
                             j.at("lesson").get<std::string>()};
  });
}

std::string ProposalToRow(const MemoryProposal& m) {
  json row{{"op", m.op},
           {"kind", m.kind},
           {"text", m.text},
           {"target_entry_id", m.target_entry_id},
           {"target_version_id", m.target_version_id},
           {"source_refs", m.source_refs}};
  if (!m.triples.empty()) {  // rows written before the graph channel have none
    json triples = json::array();
    for (const GraphTriple& t : m.triples)
      triples.push_back({{"subject", t.subject},
                         {"relation", t.relation},
                         {"object", t.object},
                         {"evidence", t.evidence}});
    row["triples"] = std::move(triples);
  }
  return row.dump();
}

std::string ProposalToRow(const SkillContent& c) {
  return json{{"name", c.name},
              {"description", c.description},
              {"instructions", c.instructions},
              {"validation", c.validation}}
      .dump();
}

std::string ValidationToRow(const std::vector<std::string>& checks) { return json(checks).dump(); }

Result<std::vector<std::string>> ValidationFromRow(const std::string& row) {
  return Parse<std::vector<std::string>>(
      row, "validation", [](const json& j) { return j.get<std::vector<std::string>>(); });
}

Status ProposalFromRow(const std::string& row, CandidateVersion& v) {
  try {
    json j = json::parse(row);
    if (j.contains("instructions")) {
      v.skill =
          SkillContent{j.at("name").get<std::string>(), j.at("description").get<std::string>(),
                       j.at("instructions").get<std::string>(),
                       j.at("validation").get<std::vector<std::string>>()};
      return Status::Ok();
    }
    if (j.contains("op")) {
      v.memory = MemoryProposal{j.at("op").get<std::string>(),
                                j.at("kind").get<std::string>(),
                                j.at("text").get<std::string>(),
                                j.at("target_entry_id").get<std::string>(),
                                j.at("target_version_id").get<std::string>(),
                                j.at("source_refs").get<std::vector<std::string>>(),
                                {}};
      if (j.contains("triples"))
        for (const json& t : j.at("triples"))
          v.memory->triples.push_back(GraphTriple{
              t.at("subject").get<std::string>(), t.at("relation").get<std::string>(),
              t.at("object").get<std::string>(), t.at("evidence").get<std::vector<std::string>>()});
      return Status::Ok();
    }
  } catch (const std::exception& e) {
    return Internal(std::string("a stored proposal is malformed: ") + e.what());
  }
  PC_ASSIGN_OR_RETURN(v.proposal, ProposalFromRow(row));
  return Status::Ok();
}

std::string ProposalRowOf(const CandidateVersion& v) {
  if (v.skill) return ProposalToRow(*v.skill);
  return v.memory ? ProposalToRow(*v.memory) : ProposalToRow(v.proposal);
}

namespace {

json OptText(const std::optional<std::string>& s) { return s ? json(*s) : json(); }
std::optional<std::string> OptTextOf(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<std::string>();
}

}  // namespace

std::string ReportProjectToRow(const ReportProject& p) {
  return json{{"project_id", p.project_id},
              {"project_key", p.project_key},
              {"title", p.title},
              {"description", OptText(p.description)},
              {"default_locale", p.default_locale},
              {"timezone", p.timezone},
              {"catalog_state", p.catalog_state}}
      .dump();
}

Result<ReportProject> ReportProjectFromRow(const std::string& row, int64_t version) {
  return Parse<ReportProject>(row, "project", [&](const json& j) {
    return ReportProject{
        j.at("project_id").get<std::string>(),     j.at("project_key").get<std::string>(),
        j.at("title").get<std::string>(),          OptTextOf(j, "description"),
        j.at("default_locale").get<std::string>(), j.at("timezone").get<std::string>(),
        j.at("catalog_state").get<std::string>(),  version};
  });
}

std::string ReportWorkstreamToRow(const ReportWorkstream& w) {
  json refs = json::array();
  for (const ReportExternalRef& r : w.external_refs)
    refs.push_back({{"kind", r.kind},
                    {"provider", r.provider},
                    {"external_id", r.external_id},
                    {"url", OptText(r.url)}});
  return json{{"scope_id", w.scope_id}, {"project_id", w.project_id},
              {"key", OptText(w.key)},  {"title", w.title},
              {"kind", w.kind},         {"catalog_state", w.catalog_state},
              {"external_refs", refs},  {"labels", w.labels}}
      .dump();
}

Result<ReportWorkstream> ReportWorkstreamFromRow(const std::string& row, int64_t version) {
  return Parse<ReportWorkstream>(row, "workstream", [&](const json& j) {
    ReportWorkstream w;
    w.scope_id = j.at("scope_id").get<std::string>();
    w.project_id = j.at("project_id").get<std::string>();
    w.key = OptTextOf(j, "key");
    w.title = j.at("title").get<std::string>();
    w.kind = j.at("kind").get<std::string>();
    w.catalog_state = j.at("catalog_state").get<std::string>();
    for (const json& r : j.at("external_refs"))
      w.external_refs.push_back({r.at("kind").get<std::string>(),
                                 r.at("provider").get<std::string>(),
                                 r.at("external_id").get<std::string>(), OptTextOf(r, "url")});
    w.labels = j.at("labels").get<std::vector<std::string>>();
    w.version = version;
    return w;
  });
}

namespace {

json ExternalRefRow(const ReportExternalRef& r) {
  return {{"kind", r.kind},
          {"provider", r.provider},
          {"external_id", r.external_id},
          {"url", OptText(r.url)}};
}
ReportExternalRef ExternalRefOfRow(const json& r) {
  return {r.at("kind").get<std::string>(), r.at("provider").get<std::string>(),
          r.at("external_id").get<std::string>(), OptTextOf(r, "url")};
}
std::optional<int64_t> OptIntOf(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<int64_t>();
}

}  // namespace

std::string WorkspaceBindingToRow(const WorkspaceBinding& b) {
  const ReportRepositoryRef& r = b.repository_ref;
  return json{{"workspace_instance_id", b.workspace_instance_id},
              {"project_id", b.project_id},
              {"repository_ref",
               {{"provider", r.provider},
                {"repository_id", OptText(r.repository_id)},
                {"normalized_remote", OptText(r.normalized_remote)},
                {"subpath", OptText(r.subpath)}}},
              {"state", b.state},
              {"confirmed_at", b.confirmed_at_ms}}
      .dump();
}

Result<WorkspaceBinding> WorkspaceBindingFromRow(const std::string& row, int64_t version) {
  return Parse<WorkspaceBinding>(row, "workspace binding", [&](const json& j) {
    const json& r = j.at("repository_ref");
    return WorkspaceBinding{j.at("workspace_instance_id").get<std::string>(),
                            j.at("project_id").get<std::string>(),
                            {r.at("provider").get<std::string>(), OptTextOf(r, "repository_id"),
                             OptTextOf(r, "normalized_remote"), OptTextOf(r, "subpath")},
                            j.at("state").get<std::string>(),
                            j.at("confirmed_at").get<int64_t>(),
                            version};
  });
}

std::string ReportActivityToRow(const ReportActivity& a) {
  json refs = json::array();
  for (const ReportExternalRef& r : a.evidence_refs) refs.push_back(ExternalRefRow(r));
  json agent, vcs;
  if (a.agent)
    agent = {{"provider", OptText(a.agent->provider)}, {"label", OptText(a.agent->label)}};
  if (a.vcs_context)
    vcs = {{"branch", OptText(a.vcs_context->branch)},
           {"head_revision", OptText(a.vcs_context->head_revision)}};
  return json{{"event_id", a.event_id},
              {"project_id", a.project_id},
              {"scope_id", OptText(a.scope_id)},
              {"source", a.source},
              {"source_event_id", a.source_event_id},
              {"source_ref", a.source_ref ? ExternalRefRow(*a.source_ref) : json()},
              {"occurred_at", a.occurred_at_ms ? json(*a.occurred_at_ms) : json()},
              {"observed_at", a.observed_at_ms},
              {"time_basis", a.time_basis},
              {"title", OptText(a.title)},
              {"summary", OptText(a.summary)},
              {"agent", agent},
              {"session_id", OptText(a.session_id)},
              {"vcs_context", vcs},
              {"evidence_refs", refs}}
      .dump();
}

Result<ReportActivity> ReportActivityFromRow(const std::string& row, int64_t cursor) {
  return Parse<ReportActivity>(row, "report activity", [&](const json& j) {
    ReportActivity a;
    a.event_id = j.at("event_id").get<std::string>();
    a.project_id = j.at("project_id").get<std::string>();
    a.scope_id = OptTextOf(j, "scope_id");
    a.source = j.at("source").get<std::string>();
    a.source_event_id = j.at("source_event_id").get<std::string>();
    if (!j.at("source_ref").is_null()) a.source_ref = ExternalRefOfRow(j.at("source_ref"));
    a.occurred_at_ms = OptIntOf(j, "occurred_at");
    a.observed_at_ms = j.at("observed_at").get<int64_t>();
    a.time_basis = j.at("time_basis").get<std::string>();
    a.title = OptTextOf(j, "title");
    a.summary = OptTextOf(j, "summary");
    if (const json& g = j.at("agent"); !g.is_null())
      a.agent = ReportActivityAgent{OptTextOf(g, "provider"), OptTextOf(g, "label")};
    a.session_id = OptTextOf(j, "session_id");
    if (const json& v = j.at("vcs_context"); !v.is_null())
      a.vcs_context = ReportVcsContext{OptTextOf(v, "branch"), OptTextOf(v, "head_revision")};
    for (const json& r : j.at("evidence_refs")) a.evidence_refs.push_back(ExternalRefOfRow(r));
    a.cursor = cursor;
    return a;
  });
}

std::string EvidenceToRow(const Evidence& e) {
  json sources = json::array(), artifacts = json::array();
  for (const SourceEvidence& s : e.sources)
    sources.push_back({{"name", s.name}, {"source_id", s.source_id}});
  for (const MemoryRef& r : e.artifacts) artifacts.push_back(RefJson(r));
  return json{{"source_refs", sources}, {"artifact_refs", artifacts}}.dump();
}

Result<Evidence> EvidenceFromRow(const std::string& row) {
  return Parse<Evidence>(row, "evidence", [](const json& j) {
    Evidence e;
    for (const json& s : j.at("source_refs"))
      e.sources.push_back({s.at("name").get<std::string>(), s.at("source_id").get<std::string>()});
    for (const json& r : j.at("artifact_refs")) e.artifacts.push_back(RefOf(r));
    return e;
  });
}

std::optional<std::string> RefToRow(const std::optional<MemoryRef>& ref) {
  if (!ref) return std::nullopt;
  return RefJson(*ref).dump();
}

Result<std::optional<MemoryRef>> RefFromRow(const std::optional<std::string>& row) {
  if (!row) return std::optional<MemoryRef>();
  return Parse<std::optional<MemoryRef>>(
      *row, "artifact reference", [](const json& j) { return std::optional<MemoryRef>(RefOf(j)); });
}

}  // namespace pc
