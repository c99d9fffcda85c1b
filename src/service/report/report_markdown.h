// A Handoff Report as Markdown (RFC 0082 "One report for humans and Agents"): front matter, then
// fixed sections in one semantic order, headings and labels in zh-CN or en, everything a person or
// an agent wrote kept in its own language and escaped as untrusted plain text (no HTML, no
// Markdown structure, no control characters, one line each). Deterministic: the same model makes
// the same bytes (tests/golden/handoff_report_*.md). Pure: it reads only the model.
#pragma once

#include <string>

#include "service/report/report_service.h"

namespace pc {

std::string RenderReportMarkdown(const HandoffReport& r, const std::string& selection_digest,
                                 const std::string& report_digest);

// `text` as one line of inert Markdown: HTML's <, > and & as entities, Markdown's punctuation
// backslash-escaped, every control character and line break a space.
std::string EscapeMarkdownText(std::string_view text);

}  // namespace pc
