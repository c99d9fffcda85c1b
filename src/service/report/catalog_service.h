// The Handoff Report catalog (upstream RFC 0082, docs/handoff-reports.md): Projects, and the
// Workstreams grouped under them — each an existing scope, registered explicitly, never guessed
// from a branch, a path or a title. Every change is a compare-and-set on the record's version and
// appends an immutable revision of the whole descriptor (what a periodic report reads back);
// nothing here touches a scope's memory, sources or handoffs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/report.h"
#include "store/store.h"

namespace pc {

inline constexpr size_t kMaxProjectKeyChars = 64;
inline constexpr size_t kMaxReportTitleChars = 256;
inline constexpr size_t kMaxReportDescriptionChars = 2000;
inline constexpr size_t kMaxTimezoneChars = 256;
inline constexpr size_t kMaxWorkstreamKeyChars = 64;
inline constexpr size_t kMaxWorkstreamRefs = 32;
inline constexpr size_t kMaxWorkstreamLabels = 32;
inline constexpr int kDefaultCatalogPage = 50;
inline constexpr int kMaxCatalogPage = 100;

struct CreateProjectRequest {
  std::string project_key, title;
  std::optional<std::string> description;
  std::string default_locale = "zh-CN", timezone = "UTC";
};

struct CatalogPageRequest {
  std::optional<std::string> cursor;
  int limit = kDefaultCatalogPage;
  bool include_archived = false;
};

template <typename T>
struct CatalogPage {
  std::vector<T> items;
  std::optional<std::string> next_cursor;
};

// A Workstream as the API shows it: its scope by the key callers name it by.
struct WorkstreamView {
  ReportWorkstream record;
  std::string scope_key;
};

struct RegisterWorkstreamRequest {
  std::string project_id;
  std::string scope_id;  // a key or a scp_… id, as every route takes it
  std::optional<std::string> key;
  std::string title, kind, catalog_state = "included";
  std::vector<ReportExternalRef> external_refs;
  std::vector<std::string> labels;
};

class CatalogService {
 public:
  explicit CatalogService(Store& store) : store_(store) {}

  // 409 project_conflict when the key is taken.
  Result<ReportProject> CreateProject(const CreateProjectRequest& req, const std::string& actor);
  Result<ReportProject> GetProject(const std::string& project_id);
  Result<CatalogPage<ReportProject>> ListProjects(const CatalogPageRequest& req);
  // `next` is the whole descriptor as the caller wants it (its project_id names the Project; its
  // version is not read): 409 project_conflict when the Project is not at `expected_version` or
  // the key is another's. Unchanged content changes nothing.
  Result<ReportProject> UpdateProject(const ReportProject& next, int64_t expected_version,
                                      const std::string& actor);
  Result<std::vector<CatalogRevision<ReportProject>>> ProjectRevisions(
      const std::string& project_id);

  // 404 for an unknown Project or scope; 409 scope_already_grouped when the scope is a Workstream
  // already, workstream_conflict when the key is taken in the Project.
  Result<WorkstreamView> RegisterWorkstream(const RegisterWorkstreamRequest& req,
                                            const std::string& actor);
  Result<CatalogPage<WorkstreamView>> ListWorkstreams(const std::string& project_id,
                                                      const CatalogPageRequest& req);
  // `next.scope_id` names the scope as callers do (key or id); 409 workstream_conflict when it is
  // not at `expected_version` or the key is another's; a Workstream does not change Project.
  Result<WorkstreamView> UpdateWorkstream(const ReportWorkstream& next, int64_t expected_version,
                                          const std::string& actor);

 private:
  Store& store_;
};

// The checks the spec's shapes make, naming the field (`at` prefixes it: "project.").
Status CheckProjectFields(const std::string& at, const std::string& key, const std::string& title,
                          const std::optional<std::string>& description, const std::string& locale,
                          const std::string& timezone);
Status CheckWorkstreamFields(const std::string& at, const std::optional<std::string>& key,
                             const std::string& title, const std::string& kind,
                             const std::string& catalog_state,
                             const std::vector<ReportExternalRef>& refs,
                             const std::vector<std::string>& labels);

}  // namespace pc
