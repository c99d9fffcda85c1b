// Input checks shared by the use cases. Each returns InvalidArgument / TooLarge naming the field.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "model/text_check.h"  // CheckText, CheckOptionalText
#include "model/types.h"
#include "service/memory_service.h"
#include "store/store.h"

namespace pc {

Status CheckKind(std::string_view kind);
Status CheckScopeKey(std::string_view key, size_t max_bytes);
Status CheckScopeId(std::string_view scope_id);
Status CheckPage(const PageRequest& page);
Result<int64_t> ParseIntCursor(const std::string& cursor);

// Loads the scope (404 if unknown) and its memory artifact, inside a transaction.
Result<Artifact> LoadMemory(ReadTxn& txn, const std::string& scope_id);

// A citation must name this scope's memory and a revision that exists (else 404).
Status CheckCitationInMemory(const Citation& c, const Artifact& memory);

}  // namespace pc
