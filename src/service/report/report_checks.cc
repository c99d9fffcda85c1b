#include "service/report/report_checks.h"

#include <algorithm>

#include "common/utf8.h"
#include "model/text_check.h"
#include "service/core/validation.h"
#include "service/report/time_zone.h"

namespace pc {

Status Bad(const std::string& field, const std::string& message) {
  return FieldError(field, message);
}

Status CheckChars(const std::string& field, const std::string& text, size_t max) {
  PC_RETURN_IF_ERROR(CheckText(field, text, 4 * max));
  if (CountCodePoints(text).value_or(max + 1) > max)
    return Bad(field, field + " is longer than " + std::to_string(max) + " characters");
  return Status::Ok();
}

bool OneOf(const std::string& v, std::initializer_list<const char*> allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return v == a; });
}

Status CheckTimezone(const std::string& field, const std::string& tz) {
  PC_RETURN_IF_ERROR(CheckOneLineText(field, tz, 256));
  if (!KnownTimeZone(tz))
    return Bad(field, field + " must be an IANA time zone name such as UTC or Asia/Shanghai");
  return Status::Ok();
}

Status CheckExternalRef(const std::string& f, const ReportExternalRef& r) {
  if (!OneOf(r.kind,
             {"issue", "task", "pull_request", "branch", "feature", "release", "program", "other"}))
    return Bad(f + "kind", f + "kind must be issue, task, pull_request, branch, feature, "
                               "release, program or other");
  PC_RETURN_IF_ERROR(CheckOneLineText(f + "provider", r.provider, 64));
  PC_RETURN_IF_ERROR(CheckOneLineText(f + "external_id", r.external_id, 256));
  if (r.url) PC_RETURN_IF_ERROR(CheckOneLineText(f + "url", *r.url, 2048));
  return Status::Ok();
}

Status ProjectId(const std::string& field, const std::string& id) {
  return CheckOneLineText(field, id, 256);
}

Status NoProject(const std::string& project_id) {
  return NotFound("there is no Handoff Report Project " + project_id)
      .WithDetail("project_id", project_id);
}

Status As(Code code, Status s) {
  if (s.code() == Code::kConflict) return Status(code, s.message());
  return s;
}

}  // namespace pc
