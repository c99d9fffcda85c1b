#include "store/postgres/pg_terms.h"

#include <sqlite3.h>

#include <memory>

#include "store/sqlite/fts_extensions.h"

namespace pc::pg {
namespace {

// One per thread: an in-memory SQLite connection with our FTS5 extensions, and an instance of
// "porter pc" made through its fts5_api.
class Chain {
 public:
  static Result<Chain*> ForThisThread() {
    thread_local std::unique_ptr<Chain> chain;
    if (!chain) {
      auto made = std::unique_ptr<Chain>(new Chain);
      PC_RETURN_IF_ERROR(made->Open());
      chain = std::move(made);
    }
    return chain.get();
  }
  ~Chain() {
    if (instance_) tokenizer_.xDelete(instance_);
    if (db_) sqlite3_close(db_);
  }

  struct Token {
    std::string text;
    bool colocated;
  };
  Result<std::vector<Token>> Tokenize(std::string_view text, int flags) {
    std::vector<Token> out;
    const int rc = tokenizer_.xTokenize(
        instance_, &out, flags, text.data(), static_cast<int>(text.size()),
        [](void* ctx, int tflags, const char* t, int n, int, int) -> int {
          try {
            static_cast<std::vector<Token>*>(ctx)->push_back(Token{
                std::string(t, static_cast<size_t>(n)), (tflags & FTS5_TOKEN_COLOCATED) != 0});
            return SQLITE_OK;
          } catch (...) {
            return SQLITE_NOMEM;
          }
        });
    if (rc != SQLITE_OK)
      return Internal("the full-text tokenizer failed (" + std::to_string(rc) + ")");
    return out;
  }

 private:
  Chain() = default;
  Status Open() {
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK)
      return Internal("cannot open the tokenizer's SQLite connection");
    PC_RETURN_IF_ERROR(sqlite::RegisterFtsExtensions(db_));
    fts5_api* api = nullptr;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, "SELECT fts5(?1)", -1, &st, nullptr) != SQLITE_OK)
      return Internal("SQLite has no FTS5");
    sqlite3_bind_pointer(st, 1, &api, "fts5_api_ptr", nullptr);
    sqlite3_step(st);
    sqlite3_finalize(st);
    if (!api) return Internal("SQLite has no FTS5 API");
    void* context = nullptr;
    if (api->xFindTokenizer(api, "porter", &context, &tokenizer_) != SQLITE_OK)
      return Internal("FTS5 has no porter tokenizer");
    const char* args[] = {"pc"};
    if (tokenizer_.xCreate(context, args, 1, &instance_) != SQLITE_OK)
      return Internal("cannot make the porter pc tokenizer");
    return Status::Ok();
  }
  sqlite3* db_ = nullptr;
  fts5_tokenizer tokenizer_{};
  Fts5Tokenizer* instance_ = nullptr;
};

}  // namespace

Result<DocumentTerms> IndexTerms(std::string_view text) {
  PC_ASSIGN_OR_RETURN(Chain * chain, Chain::ForThisThread());
  PC_ASSIGN_OR_RETURN(auto tokens, chain->Tokenize(text, FTS5_TOKENIZE_DOCUMENT));
  DocumentTerms out;
  int position = -1;
  for (const auto& t : tokens) {
    if (!t.colocated || position < 0) ++position;
    auto& at = out.positions[t.text];
    if (at.empty() || at.back() != position) at.push_back(position);
  }
  out.length = position + 1;
  return out;
}

Result<std::vector<std::string>> PhraseTerms(std::string_view phrase) {
  PC_ASSIGN_OR_RETURN(Chain * chain, Chain::ForThisThread());
  PC_ASSIGN_OR_RETURN(auto tokens, chain->Tokenize(phrase, FTS5_TOKENIZE_QUERY));
  std::vector<std::string> out;
  for (auto& t : tokens)
    if (!t.colocated || out.empty()) out.push_back(std::move(t.text));
  return out;
}

}  // namespace pc::pg
