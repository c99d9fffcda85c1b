// Registers PowerContext's FTS5 extensions with one SQLite connection:
// - the tokenizer "pc" (see search/tokenizer.h), so tables declared with tokenize='porter pc' use
//   it for documents and queries alike;
// - the rank function pc_tf_rank(table): BM25 with every phrase weighted alike (no IDF), for
//   ranking a bounded set of rows when every phrase is common (see SqliteTxn::SearchText). It
//   needs no per-phrase document count, the cost bm25() pays over every matching document.
// - the tokenizer "pctag", which wraps another (tokenize = 'pctag porter pc') and prefixes every
//   token with the tag of the index its text belongs to (MarkText), so one FTS5 table holds every
//   memory's text with per-memory document lists; pc_bm25 and pc_tf_rank take that index's own
//   statistics as arguments;
// - SQL functions pc_mark(owner) and pc_token_count(text), for migrations.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

struct sqlite3;

namespace pc::sqlite {

Status RegisterFtsExtensions(sqlite3* db);

// `text` marked as belonging to index `owner` (a memory's or a scope's rowid): what the shared
// tables store, and what every query phrase is written as.
std::string MarkText(int64_t owner, std::string_view text);
// The tokens FTS5 counts in `text` as a document column (the size BM25 normalizes by) are
// search/index_terms.h's DocumentLength.

}  // namespace pc::sqlite
