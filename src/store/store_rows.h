// What both stores (sqlite/, postgres/) share below the interface: how id lists are stored, and
// the seam that keeps exceptions out of a transaction.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

// Lists of ids (source refs, lineage) are stored newline-joined: ids never contain a newline.
std::string JoinLines(const std::vector<std::string>& items);
std::vector<std::string> SplitLines(const std::string& s);

// Runs a transaction's callback and turns an escaped exception into Internal: exceptions never
// cross the store seam (store.h).
template <typename Txn>
Status GuardedCallback(const std::function<Status(Txn&)>& fn, Txn& txn) {
  try {
    return fn(txn);
  } catch (const std::exception& e) {
    return Internal(std::string("unexpected error in transaction: ") + e.what());
  } catch (...) {
    return Internal("unexpected error in transaction");
  }
}

}  // namespace pc

#include <optional>

#include "model/report.h"
#include "model/review.h"

namespace pc {

// Review rows (both stores): a candidate's proposal, its evidence and an artifact reference are
// stored as JSON text, exactly what the service validated; reading back what we wrote cannot
// fail, so a malformed row is Internal.
std::string ProposalToRow(const ExperienceContent& c);
Result<ExperienceContent> ProposalFromRow(const std::string& row);
std::string ProposalToRow(const MemoryProposal& m);
std::string ProposalToRow(const SkillContent& c);
// A Skill's validation checks (a JSON list of strings).
std::string ValidationToRow(const std::vector<std::string>& checks);
Result<std::vector<std::string>> ValidationFromRow(const std::string& row);
// A stored proposal into `v` (a memory proposal has "op", a Skill's "instructions"; anything else
// is an Experience).
Status ProposalFromRow(const std::string& row, CandidateVersion& v);
// The row of a version's proposal, whichever family.
std::string ProposalRowOf(const CandidateVersion& v);
// Handoff Report catalog records (the descriptor without its version, which has its own column).
std::string ReportProjectToRow(const ReportProject& p);
Result<ReportProject> ReportProjectFromRow(const std::string& row, int64_t version);
std::string ReportWorkstreamToRow(const ReportWorkstream& w);
Result<ReportWorkstream> ReportWorkstreamFromRow(const std::string& row, int64_t version);
std::string WorkspaceBindingToRow(const WorkspaceBinding& b);
Result<WorkspaceBinding> WorkspaceBindingFromRow(const std::string& row, int64_t version);
// An Activity Event (its cursor has its own column).
std::string ReportActivityToRow(const ReportActivity& a);
Result<ReportActivity> ReportActivityFromRow(const std::string& row, int64_t cursor);
std::string EvidenceToRow(const Evidence& e);
Result<Evidence> EvidenceFromRow(const std::string& row);
std::optional<std::string> RefToRow(const std::optional<MemoryRef>& ref);
Result<std::optional<MemoryRef>> RefFromRow(const std::optional<std::string>& row);

}  // namespace pc
