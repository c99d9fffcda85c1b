// The PostgreSQL store as `powercontext verify` reads it (store/verify_source.h): one
// REPEATABLE READ, READ ONLY transaction, so every check reads one snapshot while servers keep
// writing, and nothing can be written.
#pragma once

#include <memory>
#include <string>

#include "store/verify_source.h"

namespace pc::pg {

// Unavailable-style errors when the database cannot be reached; InvalidArgument when its schema
// is not this build's.
Result<std::unique_ptr<VerifySource>> OpenVerifySource(const std::string& url);

}  // namespace pc::pg
