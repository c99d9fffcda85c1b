// The SQLite store as `powercontext verify` reads it (store/verify_source.h): the database of a
// data directory opened read-only, inside one read transaction, so every check reads one committed
// snapshot while a server on the directory keeps writing.
#pragma once

#include <memory>
#include <string>

#include "store/verify_source.h"

namespace pc::sqlite {

// NotFound when the directory holds no store; InvalidArgument when its schema is not this
// build's (an older one is upgraded by starting `serve` once).
Result<std::unique_ptr<VerifySource>> OpenVerifySource(const std::string& data_dir);

}  // namespace pc::sqlite
