// Registers the PowerContext tokenizer ("pc", see search/tokenizer.h) with one SQLite connection,
// so FTS5 tables declared with tokenize='porter pc' use it for documents and queries alike.
#pragma once

#include "common/status.h"

struct sqlite3;

namespace pc::sqlite {

Status RegisterFtsTokenizer(sqlite3* db);

}  // namespace pc::sqlite
