#include "store/sqlite/fts_extensions.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "search/tokenizer.h"

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
    TokenizeMode mode = (flags & FTS5_TOKENIZE_QUERY) ? TokenizeMode::kQuery : TokenizeMode::kDocument;
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

// BM25's k1 and b, as FTS5's bm25() uses them.
constexpr double kK1 = 1.2;
constexpr double kB = 0.75;

// pc_tf_rank(table): minus the sum over phrases of tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)),
// over the first column (text); lower is better, like bm25().
void TfRank(const Fts5ExtensionApi* api, Fts5Context* ctx, sqlite3_context* out, int, sqlite3_value**) {
  auto* avg = static_cast<double*>(api->xGetAuxdata(ctx, 0));
  if (!avg) {
    sqlite3_int64 rows = 0, tokens = 0;
    api->xRowCount(ctx, &rows);
    api->xColumnTotalSize(ctx, 0, &tokens);
    avg = static_cast<double*>(sqlite3_malloc(sizeof(double)));
    if (!avg) return sqlite3_result_error_nomem(out);
    *avg = rows > 0 && tokens > 0 ? static_cast<double>(tokens) / static_cast<double>(rows) : 1.0;
    if (api->xSetAuxdata(ctx, avg, sqlite3_free) != SQLITE_OK) return sqlite3_result_error_nomem(out);
  }
  int len = 0;
  if (api->xColumnSize(ctx, 0, &len) != SQLITE_OK) return sqlite3_result_error(out, "pc_tf_rank: no size", -1);
  const double norm = kK1 * (1 - kB + kB * static_cast<double>(len) / *avg);
  double score = 0;
  for (int phrase = 0; phrase < api->xPhraseCount(ctx); ++phrase) {
    Fts5PhraseIter it;
    int column = 0, offset = 0, tf = 0;
    for (api->xPhraseFirst(ctx, phrase, &it, &column, &offset); column >= 0;
         api->xPhraseNext(ctx, &it, &column, &offset))
      tf += column == 0 ? 1 : 0;
    if (tf) score += tf * (kK1 + 1) / (tf + norm);
  }
  sqlite3_result_double(out, -score);
}

// pc_bm25(table, counts): bm25() as FTS5 computes it (all columns weighted 1, k1 1.2, b 0.75),
// but the documents each phrase is found in come as an argument — "12 5 88", one count per phrase
// of the MATCH in order (SqliteTxn::PlanText has just counted them) — instead of being counted
// again by a query per phrase, which cost most of a long query's ranking. Phrases past the list
// (the NOT of retired entries) weigh nothing. Lower is better, like bm25().
struct Bm25Data {
  double avgdl = 1;
  std::vector<double> idf;
};

void Bm25(const Fts5ExtensionApi* api, Fts5Context* ctx, sqlite3_context* out, int argc, sqlite3_value** argv) {
  auto* data = static_cast<Bm25Data*>(api->xGetAuxdata(ctx, 0));
  if (!data) {
    if (argc != 1) return sqlite3_result_error(out, "pc_bm25: wants the phrases' document counts", -1);
    auto fresh = std::make_unique<Bm25Data>();
    sqlite3_int64 rows = 0, tokens = 0;
    api->xRowCount(ctx, &rows);
    api->xColumnTotalSize(ctx, -1, &tokens);
    if (rows > 0 && tokens > 0) fresh->avgdl = static_cast<double>(tokens) / static_cast<double>(rows);
    const char* counts = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    for (const char* p = counts ? counts : ""; *p;) {
      char* end = nullptr;
      const double hits = std::strtod(p, &end);
      if (end == p) break;
      p = end;
      double idf = std::log((static_cast<double>(rows) - hits + 0.5) / (hits + 0.5));
      fresh->idf.push_back(idf <= 0.0 ? 1e-6 : idf);  // as bm25(): never zero or less
    }
    data = fresh.get();
    if (api->xSetAuxdata(ctx, fresh.release(), [](void* d) { delete static_cast<Bm25Data*>(d); }) != SQLITE_OK)
      return sqlite3_result_error_nomem(out);
  }
  int len = 0;
  if (api->xColumnSize(ctx, -1, &len) != SQLITE_OK) return sqlite3_result_error(out, "pc_bm25: no size", -1);
  const double norm = kK1 * (1 - kB + kB * static_cast<double>(len) / data->avgdl);
  const int phrases = std::min(api->xPhraseCount(ctx), static_cast<int>(data->idf.size()));
  double score = 0;
  for (int phrase = 0; phrase < phrases; ++phrase) {
    Fts5PhraseIter it;
    int column = 0, offset = 0, tf = 0;
    for (api->xPhraseFirst(ctx, phrase, &it, &column, &offset); column >= 0;
         api->xPhraseNext(ctx, &it, &column, &offset))
      ++tf;
    if (tf) score += data->idf[static_cast<size_t>(phrase)] * (tf * (kK1 + 1) / (tf + norm));
  }
  sqlite3_result_double(out, -score);
}

// FTS5 calls these from C: an exception (std::bad_alloc from a vector or a string) must not
// unwind through SQLite's frames. It becomes the function's SQLite error instead.
using AuxFunction = void (*)(const Fts5ExtensionApi*, Fts5Context*, sqlite3_context*, int, sqlite3_value**);
template <AuxFunction F>
void Guarded(const Fts5ExtensionApi* api, Fts5Context* ctx, sqlite3_context* out, int argc, sqlite3_value** argv) {
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
    if (sqlite3_bind_pointer(stmt, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr) == SQLITE_OK)
      sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  return api;
}

}  // namespace

Status RegisterFtsExtensions(sqlite3* db) {
  fts5_api* api = GetFtsApi(db);
  if (!api) return Internal("this SQLite has no FTS5");
  static fts5_tokenizer kTokenizer = {Create, Delete, TokenizeText};
  if (api->xCreateTokenizer(api, "pc", nullptr, &kTokenizer, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 tokenizer");
  if (api->xCreateFunction(api, "pc_tf_rank", nullptr, Guarded<TfRank>, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 rank function");
  if (api->xCreateFunction(api, "pc_bm25", nullptr, Guarded<Bm25>, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 rank function");
  return Status::Ok();
}

}  // namespace pc::sqlite
