#include "store/sqlite/fts_extensions.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <new>
#include <vector>

#include "search/bm25.h"
#include "search/index_terms.h"
#include "search/tokenizer.h"
#include "store/sqlite/doc_lengths.h"

namespace pc::sqlite {
namespace {

// FTS5 wants an opaque tokenizer object; ours has no state.
struct PcTokenizer {};

int Create(void*, const char**, int, Fts5Tokenizer** out) {
  *out = reinterpret_cast<Fts5Tokenizer*>(new (std::nothrow) PcTokenizer);
  return *out ? SQLITE_OK : SQLITE_NOMEM;
}

void Delete(Fts5Tokenizer* t) { delete reinterpret_cast<PcTokenizer*>(t); }

int TokenizeText(Fts5Tokenizer*, void* ctx, int flags, const char* text, int n,
                 int (*emit)(void*, int, const char*, int, int, int)) {
  // A C callback: nothing may throw through it.
  try {
    TokenizeMode mode =
        (flags & FTS5_TOKENIZE_QUERY) ? TokenizeMode::kQuery : TokenizeMode::kDocument;
    for (const Token& t : Tokenize(std::string_view(text, static_cast<size_t>(n)), mode)) {
      int rc = emit(ctx, t.colocated ? FTS5_TOKEN_COLOCATED : 0, t.text.data(),
                    static_cast<int>(t.text.size()), t.start, t.end);
      if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (...) {
    return SQLITE_ERROR;
  }
}

// "pctag PARENT…": one FTS5 table holds the text of every memory (and another every source log),
// each document's tokens prefixed with its index's tag, so a phrase's document list, and so its
// BM25 statistics, are that one memory's alone — and a new scope costs no table. The text comes
// as MarkText's "\x1d<owner>\x1d<text>"; its tokens (from the parent, e.g. porter over pc) are
// emitted as "<owner>:<token>". Query phrases carry the same mark. Text without a mark has no
// tokens (nothing unmarked can match anything).
struct TagTokenizer {
  fts5_tokenizer parent{};
  Fts5Tokenizer* instance = nullptr;
};

constexpr char kMark = '\x1d';
constexpr size_t kMaxTagDigits = 19;

int TagCreate(void* api_ptr, const char** args, int nargs, Fts5Tokenizer** out) {
  auto* api = static_cast<fts5_api*>(api_ptr);
  const char* parent_name = nargs > 0 ? args[0] : "pc";
  void* parent_context = nullptr;
  auto tag = std::unique_ptr<TagTokenizer>(new (std::nothrow) TagTokenizer);
  if (!tag) return SQLITE_NOMEM;
  int rc = api->xFindTokenizer(api, parent_name, &parent_context, &tag->parent);
  if (rc != SQLITE_OK) return rc;
  rc = tag->parent.xCreate(parent_context, nargs > 0 ? args + 1 : nullptr,
                           nargs > 0 ? nargs - 1 : 0, &tag->instance);
  if (rc != SQLITE_OK) return rc;
  *out = reinterpret_cast<Fts5Tokenizer*>(tag.release());
  return SQLITE_OK;
}

void TagDelete(Fts5Tokenizer* t) {
  auto* tag = reinterpret_cast<TagTokenizer*>(t);
  if (tag->instance) tag->parent.xDelete(tag->instance);
  delete tag;
}

struct TagEmit {
  void* ctx;
  int (*emit)(void*, int, const char*, int, int, int);
  std::string prefix;
  int shift;
  std::string token;
};

int TagEmitToken(void* p, int flags, const char* text, int n, int start, int end) {
  auto* e = static_cast<TagEmit*>(p);
  try {
    e->token.assign(e->prefix);
    e->token.append(text, static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  }
  return e->emit(e->ctx, flags, e->token.data(), static_cast<int>(e->token.size()),
                 start + e->shift, end + e->shift);
}

int TagTokenize(Fts5Tokenizer* t, void* ctx, int flags, const char* text, int n,
                int (*emit)(void*, int, const char*, int, int, int)) {
  try {
    auto* tag = reinterpret_cast<TagTokenizer*>(t);
    std::string_view all(text, static_cast<size_t>(n));
    if (all.size() < 3 || all[0] != kMark) return SQLITE_OK;
    const size_t close = all.find(kMark, 1);
    if (close == std::string_view::npos || close == 1 || close > kMaxTagDigits + 1)
      return SQLITE_OK;
    for (size_t i = 1; i < close; ++i)
      if (all[i] < '0' || all[i] > '9') return SQLITE_OK;
    TagEmit e{
        ctx, emit, std::string(all.substr(1, close - 1)) + ":", static_cast<int>(close + 1), {}};
    return tag->parent.xTokenize(tag->instance, &e, flags, text + close + 1,
                                 n - static_cast<int>(close + 1), TagEmitToken);
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (...) {
    return SQLITE_ERROR;
  }
}

// pc_mark(owner): the mark that starts an index's text ("\x1d42\x1d"), for SQL (migrations).
void MarkFunction(sqlite3_context* out, int, sqlite3_value** argv) {
  try {
    const std::string mark = MarkText(sqlite3_value_int64(argv[0]), "");
    sqlite3_result_text(out, mark.data(), static_cast<int>(mark.size()), SQLITE_TRANSIENT);
  } catch (...) {
    sqlite3_result_error_nomem(out);
  }
}

// pc_token_count(text): the tokens FTS5 counts for `text` as a document (DocumentLength).
void TokenCountFunction(sqlite3_context* out, int, sqlite3_value** argv) {
  try {
    const char* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    const int n = sqlite3_value_bytes(argv[0]);
    sqlite3_result_int64(
        out, DocumentLength(std::string_view(text ? text : "", static_cast<size_t>(n))));
  } catch (...) {
    sqlite3_result_error_nomem(out);
  }
}

// The statistics of the one index (memory or source log) a query reads: its documents and their
// tokens. The shared table holds every index, so FTS5's own totals (xRowCount,
// xColumnTotalSize) would mix scopes; the caller passes the index's own (SqliteTxn's fts_stats).
double AverageLength(sqlite3_value* docs, sqlite3_value* tokens) {
  return pc::AverageLength(static_cast<double>(sqlite3_value_int64(docs)),
                           static_cast<double>(sqlite3_value_int64(tokens)));
}

// pc_tf_rank(table, docs, text_tokens[, lengths]): minus the sum over phrases of
// tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)), over the first column (text); lower is better,
// like bm25(). `lengths`, a pointer bound as kDocLengthsPointer (or NULL): the index's
// DocLengths::Index at this snapshot, where the documents' text lengths are looked up first and
// kept once read.
struct TfRankData {
  double avg = 1;
  DocLengths::Index* lengths = nullptr;
};

void TfRank(const Fts5ExtensionApi* api, Fts5Context* ctx, sqlite3_context* out, int argc,
            sqlite3_value** argv) {
  auto* data = static_cast<TfRankData*>(api->xGetAuxdata(ctx, 0));
  if (!data) {
    if (argc != 2 && argc != 3)
      return sqlite3_result_error(out, "pc_tf_rank: wants the index's documents and tokens", -1);
    auto made = std::make_unique<TfRankData>();
    made->avg = AverageLength(argv[0], argv[1]);
    if (argc == 3)
      made->lengths =
          static_cast<DocLengths::Index*>(sqlite3_value_pointer(argv[2], kDocLengthsPointer));
    data = made.release();  // the query's now: deleted with it, or by a failed xSetAuxdata
    if (api->xSetAuxdata(ctx, data, [](void* p) { delete static_cast<TfRankData*>(p); }) !=
        SQLITE_OK)
      return sqlite3_result_error_nomem(out);
  }
  const int64_t rowid = api->xRowid(ctx);
  int len = 0;
  if (!data->lengths || !data->lengths->Find(rowid, len)) {
    if (api->xColumnSize(ctx, 0, &len) != SQLITE_OK)
      return sqlite3_result_error(out, "pc_tf_rank: no size", -1);
    if (data->lengths) data->lengths->Add(rowid, len);
  }
  const Bm25 bm25(data->avg);
  const double norm = bm25.LengthNorm(static_cast<double>(len));
  double score = 0;
  for (int phrase = 0; phrase < api->xPhraseCount(ctx); ++phrase) {
    Fts5PhraseIter it;
    int column = 0, offset = 0, tf = 0;
    for (api->xPhraseFirst(ctx, phrase, &it, &column, &offset); column >= 0;
         api->xPhraseNext(ctx, &it, &column, &offset))
      tf += column == 0 ? 1 : 0;
    if (tf) score += bm25.Term(1, tf, norm);
  }
  sqlite3_result_double(out, -score);
}

// pc_bm25(table, counts, docs, tokens): bm25() as FTS5 computes it (all columns weighted 1, k1
// 1.2, b 0.75) over one index of the shared table, whose statistics come as arguments: the
// documents each phrase is found in — "12 5 88", one count per phrase of the MATCH in order
// (SqliteTxn::PlanText has just counted them, in this index) — and the index's documents and
// tokens (all columns). Phrases past the list (the NOT of retired entries) weigh nothing. Lower
// is better, like bm25().
struct Bm25Data {
  double avgdl = 1;
  std::vector<double> idf;
};

void Bm25(const Fts5ExtensionApi* api, Fts5Context* ctx, sqlite3_context* out, int argc,
          sqlite3_value** argv) {
  auto* data = static_cast<Bm25Data*>(api->xGetAuxdata(ctx, 0));
  if (!data) {
    if (argc != 3)
      return sqlite3_result_error(
          out, "pc_bm25: wants the phrases' document counts and the index's documents and tokens",
          -1);
    auto fresh = std::make_unique<Bm25Data>();
    const sqlite3_int64 rows = sqlite3_value_int64(argv[1]);
    fresh->avgdl = AverageLength(argv[1], argv[2]);
    const char* counts = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    for (const char* p = counts ? counts : ""; *p;) {
      char* end = nullptr;
      const double hits = std::strtod(p, &end);
      if (end == p) break;
      p = end;
      fresh->idf.push_back(Fts5Idf(static_cast<double>(rows), hits));
    }
    data = fresh.get();
    if (api->xSetAuxdata(ctx, fresh.release(), [](void* d) { delete static_cast<Bm25Data*>(d); }) !=
        SQLITE_OK)
      return sqlite3_result_error_nomem(out);
  }
  int len = 0;
  if (api->xColumnSize(ctx, -1, &len) != SQLITE_OK)
    return sqlite3_result_error(out, "pc_bm25: no size", -1);
  const pc::Bm25 bm25(data->avgdl);
  const double norm = bm25.LengthNorm(static_cast<double>(len));
  const int phrases = std::min(api->xPhraseCount(ctx), static_cast<int>(data->idf.size()));
  double score = 0;
  for (int phrase = 0; phrase < phrases; ++phrase) {
    Fts5PhraseIter it;
    int column = 0, offset = 0, tf = 0;
    for (api->xPhraseFirst(ctx, phrase, &it, &column, &offset); column >= 0;
         api->xPhraseNext(ctx, &it, &column, &offset))
      ++tf;
    if (tf) score += data->idf[static_cast<size_t>(phrase)] * bm25.Term(1, tf, norm);
  }
  sqlite3_result_double(out, -score);
}

// FTS5 calls these from C: an exception (std::bad_alloc from a vector or a string) must not
// unwind through SQLite's frames. It becomes the function's SQLite error instead.
using AuxFunction = void (*)(const Fts5ExtensionApi*, Fts5Context*, sqlite3_context*, int,
                             sqlite3_value**);
template <AuxFunction F>
void Guarded(const Fts5ExtensionApi* api, Fts5Context* ctx, sqlite3_context* out, int argc,
             sqlite3_value** argv) {
  try {
    F(api, ctx, out, argc, argv);
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(out);
  } catch (const std::exception& e) {
    sqlite3_result_error(out, e.what(), -1);
  } catch (...) {
    sqlite3_result_error(out, "unexpected error in a ranking function", -1);
  }
}

fts5_api* GetFtsApi(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr) == SQLITE_OK) {
    if (sqlite3_bind_pointer(stmt, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr) ==
        SQLITE_OK)
      sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  return api;
}

}  // namespace

std::string MarkText(int64_t owner, std::string_view text) {
  std::string out;
  out.reserve(text.size() + 22);
  out.push_back(kMark);
  out += std::to_string(owner);
  out.push_back(kMark);
  out.append(text);
  return out;
}

Result<std::unique_ptr<FtsTokenizer>> FtsTokenizer::Create(sqlite3* db) {
  fts5_api* api = GetFtsApi(db);
  if (!api) return Internal("this SQLite has no FTS5");
  std::unique_ptr<FtsTokenizer> out(new FtsTokenizer);
  out->api_ = std::make_unique<fts5_tokenizer>();
  void* context = nullptr;
  if (api->xFindTokenizer(api, "pctag", &context, out->api_.get()) != SQLITE_OK)
    return Internal("the FTS5 tag tokenizer is not registered");
  const char* args[std::size(kSharedTextChain)];
  std::copy(std::begin(kSharedTextChain), std::end(kSharedTextChain), args);
  if (out->api_->xCreate(context, args, static_cast<int>(std::size(args)), &out->instance_) !=
      SQLITE_OK)
    return Internal("cannot create the FTS5 tag tokenizer");
  return out;
}

FtsTokenizer::~FtsTokenizer() {
  if (instance_) api_->xDelete(instance_);
}

namespace {

struct Collected {
  std::vector<std::string>* tokens;
  bool colocated = false;
};

int CollectToken(void* p, int flags, const char* text, int n, int, int) {
  auto* c = static_cast<Collected*>(p);
  try {
    c->tokens->emplace_back(text, static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  }
  c->colocated = c->colocated || (flags & FTS5_TOKEN_COLOCATED) != 0;
  return SQLITE_OK;
}

}  // namespace

Status FtsTokenizer::Document(std::string_view text, std::vector<std::string>& out) {
  out.clear();
  Collected c{&out};
  if (api_->xTokenize(instance_, &c, FTS5_TOKENIZE_DOCUMENT, text.data(),
                      static_cast<int>(text.size()), CollectToken) != SQLITE_OK)
    return Internal("cannot tokenize a document");
  return Status::Ok();
}

std::string FtsTokenizer::QueryToken(std::string_view text) {
  std::vector<std::string> tokens;
  Collected c{&tokens};
  if (api_->xTokenize(instance_, &c, FTS5_TOKENIZE_QUERY, text.data(),
                      static_cast<int>(text.size()), CollectToken) != SQLITE_OK ||
      tokens.size() != 1 || c.colocated)
    return "";
  return std::move(tokens[0]);
}

Status RegisterFtsExtensions(sqlite3* db) {
  fts5_api* api = GetFtsApi(db);
  if (!api) return Internal("this SQLite has no FTS5");
  static fts5_tokenizer kTokenizer = {Create, Delete, TokenizeText};
  if (api->xCreateTokenizer(api, "pc", nullptr, &kTokenizer, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 tokenizer");
  static fts5_tokenizer kTagTokenizer = {TagCreate, TagDelete, TagTokenize};
  if (api->xCreateTokenizer(api, "pctag", api, &kTagTokenizer, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 tag tokenizer");
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  if (sqlite3_create_function(db, "pc_mark", 1, flags, nullptr, MarkFunction, nullptr, nullptr) !=
          SQLITE_OK ||
      sqlite3_create_function(db, "pc_token_count", 1, flags, nullptr, TokenCountFunction, nullptr,
                              nullptr) != SQLITE_OK)
    return Internal("cannot register the full-text SQL functions");
  if (api->xCreateFunction(api, "pc_tf_rank", nullptr, Guarded<TfRank>, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 rank function");
  if (api->xCreateFunction(api, "pc_bm25", nullptr, Guarded<Bm25>, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 rank function");
  return Status::Ok();
}

}  // namespace pc::sqlite
