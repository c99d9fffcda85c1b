#include "service/handoff_service.h"

#include "common/clock.h"
#include "service/validation.h"

namespace pc {
namespace {

Status CheckList(const char* field, const std::vector<std::string>& items) {
  if (items.size() > kMaxHandoffItems)
    return TooLarge(std::string(field) + " has more than " + std::to_string(kMaxHandoffItems) + " items")
        .WithDetail("field", field);
  for (size_t i = 0; i < items.size(); ++i) {
    std::string name = std::string(field) + "[" + std::to_string(i) + "]";
    Status s = CheckText(name, items[i], kMaxHandoffItemBytes);
    if (!s.ok()) return Status(s.code(), s.message()).WithDetail("field", name);
  }
  return Status::Ok();
}

Result<Scope> FindScopeOr404(ReadTxn& txn, const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(std::optional<Scope> scope, txn.FindScope(scope_id));
  if (!scope) return NotFound("no scope " + scope_id).WithDetail("field", "scope_id");
  return *scope;
}

}  // namespace

std::string HandoffText(const Handoff& h) {
  std::string out = h.summary;
  if (!h.state.empty()) out += "\nState: " + h.state;
  auto list = [&](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += std::string("\n") + title + ":";
    for (const std::string& i : items) out += "\n- " + i;
  };
  list("Decisions", h.decisions);
  list("Next steps", h.next_steps);
  list("Open questions", h.open_questions);
  if (!h.from.empty() || !h.to.empty())
    out += "\n(" + (h.from.empty() ? std::string() : "from " + h.from) +
           (h.from.empty() || h.to.empty() ? "" : " ") + (h.to.empty() ? std::string() : "to " + h.to) + ")";
  return out;
}

Result<std::optional<Handoff>> LatestHandoff(ReadTxn& txn, const std::string& scope_id) {
  PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindDefaultArtifact(scope_id, kHandoffFamily));
  if (!a || a->head_revision == 0) return std::optional<Handoff>();
  return txn.FindHandoff(a->artifact_id, a->head_revision);
}

Result<Handoff> HandoffService::Write(const HandoffRequest& req) {
  PC_RETURN_IF_ERROR(CheckScopeId(req.scope_id));
  PC_RETURN_IF_ERROR(CheckText("summary", req.summary, kMaxHandoffTextBytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("state", req.state, kMaxHandoffTextBytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("from", req.from, kMaxHandoffWhoBytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("to", req.to, kMaxHandoffWhoBytes));
  PC_RETURN_IF_ERROR(CheckOptionalText("actor", req.actor, kMaxHandoffWhoBytes));
  PC_RETURN_IF_ERROR(CheckList("decisions", req.decisions));
  PC_RETURN_IF_ERROR(CheckList("next_steps", req.next_steps));
  PC_RETURN_IF_ERROR(CheckList("open_questions", req.open_questions));
  if (req.expected_revision && *req.expected_revision < 0)
    return InvalidArgument("expected_revision must be 0 or more").WithDetail("field", "expected_revision");
  Handoff h;
  PC_RETURN_IF_ERROR(store_.Write([&](WriteTxn& txn) -> Status {
    PC_RETURN_IF_ERROR(FindScopeOr404(txn, req.scope_id).status());
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindDefaultArtifact(req.scope_id, kHandoffFamily));
    if (!a) {
      PC_ASSIGN_OR_RETURN(Artifact created, txn.CreateArtifact(req.scope_id, kHandoffFamily));
      a = created;
    }
    if (req.expected_revision && *req.expected_revision != a->head_revision)
      return Conflict("expected handoff revision " + std::to_string(*req.expected_revision) +
                      " but it is at revision " + std::to_string(a->head_revision) +
                      "; read the latest handoff and write on top of it")
          .WithDetail("current_revision", a->head_revision);
    h = Handoff{MemoryRef{kHandoffFamily, a->artifact_id, a->head_revision + 1}, req.from, req.to,
                req.summary, req.state, req.decisions, req.next_steps, req.open_questions,
                req.actor, NowMillis()};
    return txn.CommitHandoff(h, "handoff");
  }));
  return h;
}

Result<Handoff> HandoffService::Get(const std::string& scope_id, std::optional<int64_t> revision) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  if (revision && *revision < 1)
    return InvalidArgument("revision must be 1 or more").WithDetail("field", "revision");
  std::optional<Handoff> found;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_RETURN_IF_ERROR(FindScopeOr404(txn, scope_id).status());
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindDefaultArtifact(scope_id, kHandoffFamily));
    if (!a || a->head_revision == 0) return NotFound("this scope has no handoff yet");
    PC_ASSIGN_OR_RETURN(found, txn.FindHandoff(a->artifact_id, revision.value_or(a->head_revision)));
    if (!found)
      return NotFound("no handoff revision " + std::to_string(*revision) + "; the latest is " +
                      std::to_string(a->head_revision))
          .WithDetail("current_revision", a->head_revision);
    return Status::Ok();
  }));
  return *found;
}

Result<HandoffPage> HandoffService::History(const std::string& scope_id, const PageRequest& page) {
  PC_RETURN_IF_ERROR(CheckScopeId(scope_id));
  PC_RETURN_IF_ERROR(CheckPage(page));
  int64_t before = 0;
  if (!page.cursor.empty()) {
    PC_ASSIGN_OR_RETURN(before, ParseIntCursor(page.cursor));
  }
  HandoffPage out;
  PC_RETURN_IF_ERROR(store_.Read([&](ReadTxn& txn) -> Status {
    PC_RETURN_IF_ERROR(FindScopeOr404(txn, scope_id).status());
    PC_ASSIGN_OR_RETURN(std::optional<Artifact> a, txn.FindDefaultArtifact(scope_id, kHandoffFamily));
    if (!a) return Status::Ok();
    PC_ASSIGN_OR_RETURN(out.items, txn.ListHandoffs(a->artifact_id, before, page.limit + 1));
    return Status::Ok();
  }));
  if (static_cast<int>(out.items.size()) > page.limit) {
    out.items.pop_back();
    out.next_cursor = std::to_string(out.items.back().ref.revision);
  }
  return out;
}

}  // namespace pc
