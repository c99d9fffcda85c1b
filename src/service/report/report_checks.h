// The checks and refusals the Handoff Report services share (catalog, workspace bindings,
// activities, the report): a field's error names it; a missing Project is 404 naming it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "common/status.h"
#include "model/report.h"

namespace pc {

// InvalidArgument naming `field`.
Status Bad(const std::string& field, const std::string& message);
// Text that says something, of at most `max` characters.
Status CheckChars(const std::string& field, const std::string& text, size_t max);
bool OneOf(const std::string& v, std::initializer_list<const char*> allowed);
// An IANA time zone name the system's zone database has ("UTC" always).
Status CheckTimezone(const std::string& field, const std::string& tz);
// A HandoffReportExternalReference (`at` prefixes its fields: "external_refs[0].").
Status CheckExternalRef(const std::string& at, const ReportExternalRef& r);
// A project_id as the contract bounds it (one line, 1–256 characters).
Status ProjectId(const std::string& field, const std::string& id);
// 404 naming the Project.
Status NoProject(const std::string& project_id);
// A store's compare-and-set refusal (another write moved the record) under the catalog's code.
Status As(Code code, Status s);

}  // namespace pc
