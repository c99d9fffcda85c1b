// Registers PowerContext's FTS5 extensions with one SQLite connection:
// - the tokenizer "pc" (see search/tokenizer.h), so tables declared with tokenize='porter pc' use
//   it for documents and queries alike;
// - the rank function pc_tf_rank(table): BM25 with every phrase weighted alike (no IDF), for
//   ranking a bounded set of rows when every phrase is common (see SqliteTxn::SearchText). It
//   needs no per-phrase document count, the cost bm25() pays over every matching document; it
//   takes the documents' lengths from a DocLengths::Index bound as kDocLengthsPointer, if given.
// - the tokenizer "pctag", which wraps another (tokenize = 'pctag porter pc') and prefixes every
//   token with the tag of the index its text belongs to (MarkText), so one FTS5 table holds every
//   memory's text with per-memory document lists; pc_bm25 and pc_tf_rank take that index's own
//   statistics as arguments;
// - SQL functions pc_mark(owner) and pc_token_count(text), for migrations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

struct sqlite3;
struct Fts5Tokenizer;
struct fts5_tokenizer;

namespace pc::sqlite {

Status RegisterFtsExtensions(sqlite3* db);

// The type of the pointer (sqlite3_bind_pointer) pc_tf_rank takes as its last argument: a
// DocLengths::Index* (doc_lengths.h).
inline constexpr const char* kDocLengthsPointer = "pc_doc_lengths";

// `text` marked as belonging to index `owner` (a memory's or a scope's rowid): what the shared
// tables store, and what every query phrase is written as.
std::string MarkText(int64_t owner, std::string_view text);
// The state column of a retired entry's text row, after the mark (an active one's: the mark).
inline constexpr std::string_view kRetiredState = "retired";
// The arguments of pctag in the shared tables' tokenize = 'pctag porter pc' (schema.cc migration
// 5: a migration's text, which never changes; FtsTokenizerTest ties the two).
inline constexpr const char* kSharedTextChain[] = {"porter", "pc"};

// The shared tables' tokenizer chain ('pctag porter pc', schema.cc) run outside FTS5: the same
// code on the same text, so the tokens are exactly those the index holds (or a MATCH phrase
// looks up). For the writer's GateReads (gate_reads.h). One connection's, used by one thread.
class FtsTokenizer {
 public:
  static Result<std::unique_ptr<FtsTokenizer>> Create(sqlite3* db);
  ~FtsTokenizer();
  FtsTokenizer(const FtsTokenizer&) = delete;
  FtsTokenizer& operator=(const FtsTokenizer&) = delete;
  // The tokens of MarkText'ed `text` as a document's (colocated ones too), in order.
  Status Document(std::string_view text, std::vector<std::string>& out);
  // The one token a phrase of MarkText'ed `text` looks up, or "" when it is not exactly one
  // token (several, colocated alternatives, none).
  std::string QueryToken(std::string_view text);

 private:
  FtsTokenizer() = default;
  std::unique_ptr<fts5_tokenizer> api_;
  Fts5Tokenizer* instance_ = nullptr;
};

// The tokens FTS5 counts in `text` as a document column (the size BM25 normalizes by) are
// search/index_terms.h's DocumentLength.

}  // namespace pc::sqlite
