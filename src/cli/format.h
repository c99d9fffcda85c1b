// Readable (non --json) output of the client subcommands.
#pragma once

#include <string>

#include "wire/json.h"

namespace pc {

std::string FormatScope(const Json& scope);
// GET /v1/scopes: one scope a line.
std::string FormatScopes(const Json& page);
// GET /v1/scopes/SCOPE/settings: each gate's value, and whether the scope or the server set it.
std::string FormatScopeSettings(const Json& settings);
// GET /v1/capabilities/search: each mode, available or why not.
std::string FormatSearchModes(const Json& capabilities);
// POST /v1/memory/reindex.
std::string FormatReindex(const Json& outcome);
std::string FormatWrite(const Json& outcome);
std::string FormatEntries(const Json& page);
std::string FormatRevisions(const Json& page);
std::string FormatRevision(const Json& revision);
std::string FormatVersions(const Json& page);
std::string FormatRead(const Json& read);
std::string FormatSearch(const Json& result);
std::string FormatSource(const Json& source);
std::string FormatSources(const Json& page);
std::string FormatFlush(const Json& outcome);
// GET /v1/memory/flush/last: when and by whom, then as FormatFlush.
std::string FormatLastFlush(const Json& response);
std::string FormatPrepared(const Json& prepared);
std::string FormatHandoff(const Json& handoff);
std::string FormatHandoffDraft(const Json& draft);
std::string FormatPreparedHandoff(const Json& prepared);
std::string FormatCommittedHandoff(const Json& committed);
std::string FormatHandoffResolution(const Json& resolution);
std::string FormatHandoffs(const Json& page);
// GET /v1/stats; a token count the provider did not report prints as "unknown".
std::string FormatStats(const Json& stats);

}  // namespace pc
