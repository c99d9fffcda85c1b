#include "store/sqlite/fts_tokenizer.h"

#include <sqlite3.h>

#include <new>

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

fts5_api* GetFtsApi(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr) == SQLITE_OK) {
    sqlite3_bind_pointer(stmt, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  return api;
}

}  // namespace

Status RegisterFtsTokenizer(sqlite3* db) {
  fts5_api* api = GetFtsApi(db);
  if (!api) return Internal("this SQLite has no FTS5");
  static fts5_tokenizer kTokenizer = {Create, Delete, TokenizeText};
  if (api->xCreateTokenizer(api, "pc", nullptr, &kTokenizer, nullptr) != SQLITE_OK)
    return Internal("cannot register the FTS5 tokenizer");
  return Status::Ok();
}

}  // namespace pc::sqlite
