// Registers PowerContext's FTS5 extensions with one SQLite connection:
// - the tokenizer "pc" (see search/tokenizer.h), so tables declared with tokenize='porter pc' use
//   it for documents and queries alike;
// - the rank function pc_tf_rank(table): BM25 with every phrase weighted alike (no IDF), for
//   ranking a bounded set of rows when every phrase is common (see SqliteTxn::SearchText). It
//   needs no per-phrase document count, the cost bm25() pays over every matching document.
#pragma once

#include "common/status.h"

struct sqlite3;

namespace pc::sqlite {

Status RegisterFtsExtensions(sqlite3* db);

}  // namespace pc::sqlite
