// Input checks shared by the use cases. Each returns InvalidArgument / TooLarge naming the field.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "model/text_check.h"  // CheckText, CheckOptionalText
#include "model/types.h"
#include "service/core/page.h"
#include "service/core/scope_ref.h"
#include "store/store.h"

namespace pc {

Status CheckKind(std::string_view kind);
// A scope as a request names it (DESIGN §10, docs/compatibility.md): 1–256 characters of valid
// UTF-8, not blank, compared byte for byte. A name that begins with `scp_` is a server-issued
// scope id; any other name is a caller-chosen key (the `key` of POST /v1/scopes): one namespace.
Status CheckScopeId(std::string_view scope_id, std::string_view field = "scope_id");
// A key a caller may create: a scope name that does not begin with the server's `scp_` prefix.
Status CheckScopeKey(std::string_view key, std::string_view field = "scope_id");
bool IsServerScopeId(std::string_view scope_id);
// A short name a request gives (a source id, a receiver): 1 to `max_chars` characters of UTF-8,
// not blank as the spec's pattern .*\S.* means it (ECMAScript white space: U+3000 too).
Status CheckName(std::string_view value, std::string_view field, size_t max_chars = 256);
Status CheckPage(const PageRequest& page);
Result<int64_t> ParseIntCursor(const std::string& cursor);

// The scope a request names (by id or key), if it exists.
Result<std::optional<Scope>> FindScopeNamed(ReadTxn& txn, const std::string& scope_id);
// The named scope's memory artifact, if the scope exists. Its `scope_id` is the server id that
// every further store call takes. A use case parses its scope once (ScopeRef) and passes that;
// the overloads taking a name check it first.
Result<std::optional<Artifact>> FindMemory(ReadTxn& txn, const ScopeRef& scope);
Result<std::optional<Artifact>> FindMemory(ReadTxn& txn, const std::string& scope_id);
// The same, 404 when the scope is unknown.
Result<Artifact> LoadMemory(ReadTxn& txn, const ScopeRef& scope);
Result<Artifact> LoadMemory(ReadTxn& txn, const std::string& scope_id);
// For a write: the named scope's memory, creating the scope when a key names none (inside the
// write's own transaction, so a failed write creates nothing). An unknown `scp_…` id is a 422:
// the server issues those, a caller cannot.
Result<Artifact> LoadMemoryForWrite(WriteTxn& txn, const ScopeRef& scope);

// Read-your-writes: a read that names `min_revision` (a revision the caller was told about, e.g.
// by a write's answer) is answered only from a snapshot at that revision or later; otherwise 409
// revision_not_visible, naming both. Below 1 it is a 422. No value: nothing to check.
Status CheckMinRevisionValue(std::optional<int64_t> min_revision);
Status CheckMinRevision(std::optional<int64_t> min_revision, const std::optional<Artifact>& memory,
                        const std::string& scope_id);

// A citation must name this scope's memory and a revision that exists (else 404).
Status CheckCitationInMemory(const Citation& c, const Artifact& memory);

}  // namespace pc
