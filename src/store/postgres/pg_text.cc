// Full text of PgTxn without any extension: each document's terms (search/index_terms.h: the
// SQLite store's own tokenizer chain) with their positions in text_postings, each document's length
// in text_docs, each index's totals in text_stats, all written in the revision's (or the source's)
// transaction. A search plans and ranks exactly as SqliteTxn::SearchText does (sqlite_text.cc):
// phrases counted up to a cap; the rare ones ranked by BM25 (k1 1.2, b 0.75, FTS5's IDF) over the
// index's own statistics; when every phrase is common, the newest kRecentCandidates documents with
// all (while AllPhrasesAffordable), then any, of them ranked by BM25 without IDF. Phrases of
// several terms match at consecutive positions. Scores are computed here, not by ts_rank, so both
// stores order hits alike.
#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "search/bm25.h"
#include "search/index_terms.h"
#include "search/shared_terms.h"
#include "store/postgres/pg_gate_lists.h"
#include "store/postgres/pg_txn.h"

namespace pc::pg {
namespace {

// The SQLite store's planning constants (sqlite_text.cc, sqlite_txn.h).
constexpr int64_t kCommonPhraseDocs = 500;
constexpr int64_t kRankedDocsBudget = 500;
constexpr int64_t kPlanCountBudget = 8000;
constexpr int64_t kMinCommonCap = 50;
constexpr int64_t kRecentCandidates = 200;

// A document's terms, sorted and without repeats (its positions map's keys): what the postings
// hold a row for, and GateLists::Change's terms.
std::vector<std::string> TermsOf(const DocumentTerms& terms) {
  std::vector<std::string> out;
  out.reserve(terms.positions.size());
  for (const auto& [term, at] : terms.positions) out.push_back(term);
  return out;
}

template <typename Int>
std::string IntArray(const std::vector<Int>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + std::to_string(items[i]);
  return out + "}";
}

// A phrase's documents and its frequency in each, as SQL over text_postings; $1 is the index's
// kind, $2 its owner, and the phrase's terms are appended to `params`.
std::string PhraseSql(const std::vector<std::string>& terms, Params& params) {
  auto term = [&](size_t i) {
    params.push_back(terms[i]);
    return "$" + std::to_string(params.size());
  };
  if (terms.size() == 1)
    return "SELECT doc, tf FROM text_postings WHERE kind = $1 AND owner = $2 AND term = " + term(0);
  std::string joins, follows;
  for (size_t i = 1; i < terms.size(); ++i) {
    const std::string t = "t" + std::to_string(i);
    joins += " JOIN text_postings " + t + " ON " + t + ".kind = t0.kind AND " + t +
             ".owner = t0.owner AND " + t + ".doc = t0.doc AND " + t + ".term = " + term(i);
    follows += (i > 1 ? " AND " : "") + std::string("p + ") + std::to_string(i) + " = ANY(" + t +
               ".positions)";
  }
  const std::string first = term(0);
  return "SELECT doc, tf FROM (SELECT t0.doc, (SELECT count(*) FROM unnest(t0.positions) p WHERE " +
         follows + ")::int AS tf FROM text_postings t0" + joins +
         " WHERE t0.kind = $1 AND t0.owner = $2 AND t0.term = " + first + ") phrase WHERE tf > 0";
}

}  // namespace

// Its postings are found by the primary key (kind, owner, term, doc) from the terms of the text the
// document indexed, as FTS5 deletes a row of an external-content table from its old text: an index
// by document would cost every posting a second B-tree insert, for this delete alone
// (docs/benchmarks.md). So the terms a text makes (search/index_terms.h) are part of the index's
// format: a change to them rebuilds the index (RebuildTextIndex), as SQLite's must. Only a
// memory's documents are removed (a source's never are), and each names the version it indexed.
Status PgTxn::RemoveEntryTextDoc(const std::string& artifact_id, int64_t doc) {
  const std::string k = P(static_cast<int64_t>(TextKind::kMemory));
  PC_ASSIGN_OR_RETURN(
      Rows gone, Q("WITH d AS (DELETE FROM text_docs WHERE kind = $1 AND owner = $2 AND doc = $3"
                   " RETURNING tokens, retired, entry_version_id)"
                   " SELECT d.tokens, d.retired, v.text FROM d"
                   " LEFT JOIN entry_versions v ON v.entry_version_id = d.entry_version_id",
                   {k, artifact_id, P(doc)}));
  if (gone.size() == 0) return Status::Ok();
  if (!gone.Get(0, 2))
    return Internal("full-text document " + std::to_string(doc) + " of " + artifact_id +
                    " names no version: its postings cannot be found");
  const std::vector<std::string> terms = TermsOf(IndexTerms(gone.Text(0, 2)));
  if (!terms.empty())
    PC_RETURN_IF_ERROR(
        Send("DELETE FROM text_postings WHERE kind = $1 AND owner = $2 AND term = ANY($4::text[])"
             " AND doc = $3",
             {k, artifact_id, P(doc), TextArray(terms)}));
  return Send(
      "UPDATE text_stats SET docs = docs - 1, tokens = tokens - $3, retired = retired - $4"
      " WHERE kind = $1 AND owner = $2",
      {k, artifact_id, P(gone.Int(0, 0)), P(int64_t{Bool(gone, 0, 1) ? 1 : 0})});
}

Status PgTxn::AddTextDoc(TextKind kind, const std::string& owner, int64_t doc,
                         const std::string& text, bool retired,
                         const std::string& entry_version_id) {
  return AddText(kind, owner, P(doc), "$3", text, retired, entry_version_id);
}

// A new entry's document number is the statements' own lookup: the INSERT that made it is queued
// (Conn::Send) with them, and nothing waits for its answer.
Status PgTxn::AddNewEntryText(const std::string& artifact_id, const std::string& entry_id,
                              const std::string& text, bool retired,
                              const std::string& entry_version_id,
                              std::vector<std::string>* terms) {
  return AddText(TextKind::kMemory, artifact_id, entry_id,
                 "(SELECT doc FROM entries WHERE entry_id = $3)", text, retired, entry_version_id,
                 terms);
}

Status PgTxn::AddText(TextKind kind, const std::string& owner, const std::string& doc_param,
                      const char* doc, const std::string& text, bool retired,
                      const std::string& entry_version_id, std::vector<std::string>* indexed) {
  const DocumentTerms terms = IndexTerms(text);
  if (indexed) *indexed = TermsOf(terms);
  const std::string k = P(static_cast<int64_t>(kind));
  PC_RETURN_IF_ERROR(Send(
      std::string("INSERT INTO text_docs(kind, owner, doc, tokens, retired, entry_version_id)"
                  " VALUES($1, $2, ") +
          doc + ", $4, $5, $6)",
      {k, owner, doc_param, P(terms.length), P(retired),
       entry_version_id.empty() ? std::nullopt : std::optional<std::string>(entry_version_id)}));
  if (!terms.positions.empty()) {
    std::vector<std::string> names, positions;
    std::vector<int64_t> tfs;
    for (const auto& [term, at] : terms.positions) {
      names.push_back(term);
      tfs.push_back(static_cast<int64_t>(at.size()));
      positions.push_back(IntArray(at));
    }
    PC_RETURN_IF_ERROR(
        Send(std::string("INSERT INTO text_postings(kind, owner, term, doc, tf, positions)"
                         " SELECT $1, $2, u.term, ") +
                 doc +
                 ", u.tf, u.positions::integer[]"
                 " FROM unnest($4::text[], $5::integer[], $6::text[]) AS u(term, tf, positions)",
             {k, owner, doc_param, TextArray(names), IntArray(tfs), TextArray(positions)}));
  }
  return Send(
      "INSERT INTO text_stats(kind, owner, docs, tokens, retired) VALUES($1, $2, 1, $3, $4)"
      " ON CONFLICT(kind, owner) DO UPDATE SET docs = text_stats.docs + 1,"
      " tokens = text_stats.tokens + excluded.tokens, retired = text_stats.retired + "
      "excluded.retired",
      {k, owner, P(terms.length), P(int64_t{retired ? 1 : 0})});
}

// A retire keeps the entry's version, so its document keeps its terms: removing and adding it again
// would tokenize its text twice and rewrite every posting for one flag (searches and the gate read
// a document's retirement from its row, not from its postings). So a document that already
// indexes the manifest line's version only has its flag and the totals' count set.
Status PgTxn::IndexEntryText(const std::string& artifact_id, int64_t revision,
                             const ManifestUpdate& u) {
  const std::string k = P(static_cast<int64_t>(TextKind::kMemory));
  // The version's text only when it is to be indexed: not for a document that already indexes
  // this version (a retire or its undoing marks it, below).
  PC_ASSIGN_OR_RETURN(Rows r,
                      Q("SELECT e.doc, e.created_revision,"
                        " CASE WHEN e.created_revision <> $5 AND d.entry_version_id = $2 THEN ''"
                        " ELSE v.text END, d.entry_version_id, d.retired"
                        " FROM entries e JOIN entry_versions v ON v.entry_version_id = $2"
                        " LEFT JOIN text_docs d ON d.kind = $3 AND d.owner = $4 AND d.doc = e.doc"
                        " WHERE e.entry_id = $1",
                        {u.entry_id, u.entry_version_id, k, artifact_id, P(revision)}));
  if (r.size() == 0)
    return Internal("no version " + u.entry_version_id + " of entry " + u.entry_id);
  const int64_t doc = r.Int(0, 0);
  if (r.Int(0, 1) != revision) {
    if (r.Get(0, 3) && r.Text(0, 3) == u.entry_version_id)
      return MarkEntryTextDoc(artifact_id, doc, Bool(r, 0, 4), !u.active);
    PC_RETURN_IF_ERROR(RemoveEntryTextDoc(artifact_id, doc));
  }
  return AddTextDoc(TextKind::kMemory, artifact_id, doc, r.Text(0, 2), !u.active,
                    u.entry_version_id);
}

Status PgTxn::MarkEntryTextDoc(const std::string& artifact_id, int64_t doc, bool was,
                               bool retired) {
  if (was == retired) return Status::Ok();
  const std::string k = P(static_cast<int64_t>(TextKind::kMemory));
  PC_RETURN_IF_ERROR(
      Send("UPDATE text_docs SET retired = $4 WHERE kind = $1 AND owner = $2 AND doc = $3",
           {k, artifact_id, P(doc), P(retired)}));
  return Send("UPDATE text_stats SET retired = retired + $3 WHERE kind = $1 AND owner = $2",
              {k, artifact_id, P(int64_t{retired ? 1 : -1})});
}

Status PgTxn::IndexSourceText(const std::string& scope_id, int64_t position,
                              const std::string& text) {
  return AddTextDoc(TextKind::kSources, scope_id, position, text, false, "");
}

// RankText's work over one index (kind, owner): the plan (each phrase's documents counted), then
// BM25 over the rare phrases' documents or, when every phrase is common, over recent ones.
class PgTxn::TextRanker {
 public:
  TextRanker(PgTxn& txn, TextKind kind, const std::string& owner, TextIndexTotals stats,
             bool include_inactive)
      : txn_(txn),
        k_(P(static_cast<int64_t>(kind))),
        owner_(owner),
        stats_(stats),
        include_inactive_(include_inactive) {}

  Status Plan(const TextQuery& query);
  bool HasRare() const { return !rare_.empty(); }
  bool HasCommon() const { return !common_.empty(); }
  size_t CommonCount() const { return common_.size(); }
  Result<std::vector<Ranked>> RankRare(int limit);
  // The newest kRecentCandidates documents with all (`all`) or any of the common phrases, by BM25
  // without IDF, appended to `out` (those not there yet) up to `limit`.
  Status RankRecent(bool all, int limit, std::vector<Ranked>& out);

 private:
  struct Doc {
    int64_t tokens = 0;
    bool retired = false;
    std::string version;
  };
  using Tfs = std::unordered_map<int64_t, std::vector<std::pair<size_t, int64_t>>>;

  Result<std::unordered_map<std::string, int64_t>> CountSingleTerms(
      const std::vector<std::string>& single, int64_t cap);
  Result<int64_t> CountPhrase(const std::vector<std::string>& terms, int64_t cap);
  Status RareFrequencies(Tfs& tfs);
  Status LoadDocs(const std::vector<int64_t>& ids, std::unordered_map<int64_t, Doc>& docs);
  Result<Rows> RecentPage(bool all, int64_t before);
  Status ScorePage(bool all, const std::vector<int64_t>& ids, const Bm25& tf_rank,
                   std::vector<Ranked>& found);
  static bool ByScore(const Ranked& a, const Ranked& b) {
    return a.score != b.score ? a.score > b.score : a.doc > b.doc;
  }

  PgTxn& txn_;
  const std::string k_;
  const std::string& owner_;
  const TextIndexTotals stats_;
  const bool include_inactive_;
  std::vector<std::vector<std::string>> phrase_terms_;
  std::vector<std::pair<size_t, double>> rare_;  // phrase, idf
  std::vector<size_t> common_;
  std::vector<std::string> every_term_, first_terms_;  // of the common phrases
};

Result<std::unordered_map<std::string, int64_t>> PgTxn::TextRanker::CountSingleTerms(
    const std::vector<std::string>& single, int64_t cap) {
  std::unordered_map<std::string, int64_t> out;
  if (single.empty()) return out;
  // On its generic plan, like the gate's term lists (ReadTermLists): planned at every search else.
  PC_ASSIGN_OR_RETURN(
      Rows n, txn_.QOnce("SELECT t.term, (SELECT count(*) FROM (SELECT 1 FROM text_postings p"
                         " WHERE p.kind = $1 AND p.owner = $2 AND p.term = t.term LIMIT $4) c)"
                         " FROM unnest($3::text[]) AS t(term)",
                         {k_, owner_, TextArray(single), P(cap + 1)}));
  for (int i = 0; i < n.size(); ++i) out[n.Text(i, 0)] = n.Int(i, 1);
  return out;
}

Result<int64_t> PgTxn::TextRanker::CountPhrase(const std::vector<std::string>& terms, int64_t cap) {
  Params params{k_, owner_};
  const std::string sql = PhraseSql(terms, params);
  params.push_back(P(cap + 1));
  PC_ASSIGN_OR_RETURN(Rows n, txn_.Q("SELECT count(*) FROM (" + sql + " LIMIT $" +
                                         std::to_string(params.size()) + ") c",
                                     params));
  return n.Int(0, 0);
}

// Counts each phrase's documents, up to the cap (as SqliteTxn::PlanText); the rarest are kept
// while their documents stay within kRankedDocsBudget.
Status PgTxn::TextRanker::Plan(const TextQuery& query) {
  const int64_t cap = std::min<int64_t>(
      kCommonPhraseDocs,
      std::max<int64_t>(kMinCommonCap,
                        kPlanCountBudget / static_cast<int64_t>(query.phrases.size())));
  std::vector<std::pair<int64_t, size_t>> counted;  // documents (≤ cap), phrase
  // Phrases of one term (nearly all: words, CJK bigrams and characters) are counted in one
  // statement, a bounded count per term; a long query costs one round trip, not one per phrase.
  std::vector<std::vector<std::string>> all;
  std::vector<std::string> single;
  for (const std::string& phrase : query.phrases) {
    std::vector<std::string> terms = PhraseTerms(phrase);
    if (terms.empty()) continue;
    if (terms.size() == 1) single.push_back(terms[0]);
    all.push_back(std::move(terms));
  }
  PC_ASSIGN_OR_RETURN(auto single_docs, CountSingleTerms(single, cap));
  for (std::vector<std::string>& terms : all) {
    int64_t docs = 0;
    if (terms.size() == 1) {
      docs = single_docs[terms[0]];
    } else {
      PC_ASSIGN_OR_RETURN(docs, CountPhrase(terms, cap));
    }
    if (docs == 0) continue;
    phrase_terms_.push_back(std::move(terms));
    if (docs > cap)
      common_.push_back(phrase_terms_.size() - 1);
    else
      counted.emplace_back(docs, phrase_terms_.size() - 1);
  }
  std::stable_sort(counted.begin(), counted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  int64_t budget = 0;
  for (const auto& [n, i] : counted) {
    if (!rare_.empty() && budget + n > kRankedDocsBudget) break;
    rare_.emplace_back(i, Fts5Idf(static_cast<double>(stats_.docs), static_cast<double>(n)));
    budget += n;
  }
  for (size_t i : common_) {
    const std::vector<std::string>& terms = phrase_terms_[i];
    for (const std::string& t : terms)
      if (std::find(every_term_.begin(), every_term_.end(), t) == every_term_.end())
        every_term_.push_back(t);
    if (std::find(first_terms_.begin(), first_terms_.end(), terms[0]) == first_terms_.end())
      first_terms_.push_back(terms[0]);
  }
  return Status::Ok();
}

Status PgTxn::TextRanker::LoadDocs(const std::vector<int64_t>& ids,
                                   std::unordered_map<int64_t, Doc>& docs) {
  PC_ASSIGN_OR_RETURN(
      Rows r, txn_.Q("SELECT d.doc, d.tokens, d.retired, coalesce(d.entry_version_id, '')"
                     " FROM unnest($3::bigint[]) AS u(doc) CROSS JOIN LATERAL (SELECT * FROM"
                     " text_docs WHERE kind = $1 AND owner = $2 AND doc = u.doc OFFSET 0) d",
                     {k_, owner_, IntArray(ids)}));
  for (int i = 0; i < r.size(); ++i)
    docs[r.Int(i, 0)] = Doc{r.Int(i, 1), Bool(r, i, 2), r.Text(i, 3)};
  return Status::Ok();
}

// Each rare phrase's frequency in each of its documents: doc -> (rare phrase, tf).
Status PgTxn::TextRanker::RareFrequencies(Tfs& tfs) {
  std::vector<std::string> rare_single;  // one-term rare phrases: their postings in one read
  std::unordered_map<std::string, std::vector<size_t>>
      rare_index;  // a term two phrases stem to: both
  for (size_t j = 0; j < rare_.size(); ++j) {
    const std::vector<std::string>& terms = phrase_terms_[rare_[j].first];
    if (terms.size() == 1) {
      if (rare_index[terms[0]].empty()) rare_single.push_back(terms[0]);
      rare_index[terms[0]].push_back(j);
      continue;
    }
    Params params{k_, owner_};
    const std::string sql = PhraseSql(terms, params);
    PC_ASSIGN_OR_RETURN(Rows r, txn_.Q(sql, params));
    for (int i = 0; i < r.size(); ++i) tfs[r.Int(i, 0)].emplace_back(j, r.Int(i, 1));
  }
  if (rare_single.empty()) return Status::Ok();
  PC_ASSIGN_OR_RETURN(Rows r,
                      txn_.Q("SELECT t.term, p.doc, p.tf FROM unnest($3::text[]) AS t(term)"
                             " CROSS JOIN LATERAL (SELECT doc, tf FROM text_postings"
                             " WHERE kind = $1 AND owner = $2 AND term = t.term OFFSET 0) p",
                             {k_, owner_, TextArray(rare_single)}));
  for (int i = 0; i < r.size(); ++i)
    for (size_t j : rare_index[r.Text(i, 0)]) tfs[r.Int(i, 1)].emplace_back(j, r.Int(i, 2));
  return Status::Ok();
}

// BM25 over the documents of the rare phrases (at most kRankedDocsBudget of them).
Result<std::vector<PgTxn::Ranked>> PgTxn::TextRanker::RankRare(int limit) {
  std::vector<Ranked> out;
  Tfs tfs;
  PC_RETURN_IF_ERROR(RareFrequencies(tfs));
  std::vector<int64_t> ids;
  for (const auto& [doc, _] : tfs) ids.push_back(doc);
  std::unordered_map<int64_t, Doc> docs;
  PC_RETURN_IF_ERROR(LoadDocs(ids, docs));
  // As pc_bm25: a retired document's `retired` token counts in its length and the index's.
  const Bm25 bm25(AverageLength(static_cast<double>(stats_.docs),
                                static_cast<double>(stats_.tokens + stats_.retired)));
  for (const auto& [doc, list] : tfs) {
    auto d = docs.find(doc);
    if (d == docs.end() || (d->second.retired && !include_inactive_)) continue;
    const double len = static_cast<double>(d->second.tokens + (d->second.retired ? 1 : 0));
    const double norm = bm25.LengthNorm(len);
    double score = 0;
    for (const auto& [j, tf] : list)
      score += rare_[j].second * bm25.Term(1, static_cast<double>(tf), norm);
    out.push_back(Ranked{doc, score, d->second.version, d->second.retired});
  }
  std::sort(out.begin(), out.end(), ByScore);
  if (static_cast<int>(out.size()) > limit) out.resize(static_cast<size_t>(limit));
  return out;
}

// A page of candidates, newest first from the postings' (term, doc) order, below `before`:
// documents with every term of the common phrases (all), or the first term of any (any), so a
// common word's postings are read from the newest end only, never all of them.
Result<Rows> PgTxn::TextRanker::RecentPage(bool all, int64_t before) {
  Params params{k_, owner_, P(before), P(kRecentCandidates)};
  auto param = [&](const std::string& v) {
    params.push_back(v);
    return "$" + std::to_string(params.size());
  };
  std::string sql;
  if (all) {
    std::string joins;
    for (size_t t = 1; t < every_term_.size(); ++t) {
      const std::string a = "p" + std::to_string(t);
      joins += " JOIN text_postings " + a + " ON " + a + ".kind = $1 AND " + a +
               ".owner = $2 AND " + a + ".term = " + param(every_term_[t]) + " AND " + a +
               ".doc = p0.doc";
    }
    sql = "SELECT p0.doc FROM text_postings p0" + joins +
          " WHERE p0.kind = $1 AND p0.owner = $2 AND p0.term = " + param(every_term_[0]) +
          " AND p0.doc < $3 ORDER BY p0.doc DESC LIMIT $4";
  } else {
    std::string parts;
    for (const std::string& t : first_terms_)
      parts +=
          (parts.empty() ? "" : " UNION ALL ") +
          std::string("(SELECT doc FROM text_postings WHERE kind = $1 AND owner = $2 AND term = ") +
          param(t) + " AND doc < $3 ORDER BY doc DESC LIMIT $4)";
    sql = "SELECT DISTINCT doc FROM (" + parts + ") u ORDER BY doc DESC LIMIT $4";
  }
  return txn_.Q(sql, params);
}

// The page's phrase frequencies (positions checked), and its documents' lengths and states:
// those that match, retired ones dropped, scored into `found` (up to kRecentCandidates).
Status PgTxn::TextRanker::ScorePage(bool all, const std::vector<int64_t>& ids, const Bm25& tf_rank,
                                    std::vector<Ranked>& found) {
  Params match{k_, owner_};
  const std::string docs = "$" + std::to_string(match.size() + 1);
  match.push_back(IntArray(ids));
  std::string unions;
  for (size_t i = 0; i < common_.size(); ++i)
    unions += (i ? " UNION ALL " : "") + std::string("SELECT ") + std::to_string(i) +
              ", doc, tf FROM (" + PhraseSql(phrase_terms_[common_[i]], match) + ") p" +
              std::to_string(i) + " WHERE doc = ANY(" + docs + "::bigint[])";
  PC_ASSIGN_OR_RETURN(Rows tfs, txn_.Q(unions, match));
  std::unordered_map<int64_t, std::vector<std::pair<int64_t, int64_t>>>
      by_doc;  // doc -> (phrase, tf)
  for (int i = 0; i < tfs.size(); ++i)
    by_doc[tfs.Int(i, 1)].emplace_back(tfs.Int(i, 0), tfs.Int(i, 2));
  std::unordered_map<int64_t, Doc> meta;
  PC_RETURN_IF_ERROR(LoadDocs(ids, meta));
  for (int64_t doc : ids) {
    auto m = by_doc.find(doc);
    auto d = meta.find(doc);
    if (m == by_doc.end() || d == meta.end() || (d->second.retired && !include_inactive_)) continue;
    if (all && m->second.size() != common_.size()) continue;
    const double norm = tf_rank.LengthNorm(static_cast<double>(d->second.tokens));
    double score = 0;
    for (const auto& [phrase, tf] : m->second)
      score += tf_rank.Term(1, static_cast<double>(tf), norm);
    found.push_back(Ranked{doc, score, d->second.version, d->second.retired});
    if (static_cast<int64_t>(found.size()) == kRecentCandidates) break;
  }
  return Status::Ok();
}

Status PgTxn::TextRanker::RankRecent(bool all, int limit, std::vector<Ranked>& out) {
  const Bm25 tf_rank(
      AverageLength(static_cast<double>(stats_.docs), static_cast<double>(stats_.tokens)));
  std::vector<Ranked> found;
  int64_t before = std::numeric_limits<int64_t>::max();
  while (static_cast<int64_t>(found.size()) < kRecentCandidates) {
    PC_ASSIGN_OR_RETURN(Rows page, RecentPage(all, before));
    if (page.size() == 0) break;
    std::vector<int64_t> ids;
    for (int i = 0; i < page.size(); ++i) ids.push_back(page.Int(i, 0));
    before = ids.back();
    PC_RETURN_IF_ERROR(ScorePage(all, ids, tf_rank, found));
    if (page.size() < kRecentCandidates) break;
  }
  std::sort(found.begin(), found.end(), ByScore);
  for (Ranked& f : found) {
    if (static_cast<int>(out.size()) >= limit) break;
    bool seen = false;
    for (const Ranked& o : out) seen = seen || o.doc == f.doc;
    if (!seen) out.push_back(std::move(f));
  }
  return Status::Ok();
}

Result<std::vector<PgTxn::Ranked>> PgTxn::RankText(TextKind kind, const std::string& owner,
                                                   const TextQuery& query, bool include_inactive,
                                                   int limit) {
  std::vector<Ranked> out;
  if (query.empty() || limit <= 0) return out;
  TextIndexTotals stats;
  if (const MemoryRead* m = kind == TextKind::kMemory ? MemoryReadOf(owner) : nullptr) {
    if (!m->indexed) return out;
    stats = m->totals;  // read with the scope
  } else {
    PC_ASSIGN_OR_RETURN(
        Rows r, Q("SELECT docs, tokens, retired FROM text_stats WHERE kind = $1 AND owner = $2",
                  {P(static_cast<int64_t>(kind)), owner}));
    if (r.size() == 0) return out;
    stats = TextIndexTotals{r.Int(0, 0), r.Int(0, 1), r.Int(0, 2)};
  }
  if (stats.docs <= 0) return out;
  TextRanker ranker(*this, kind, owner, stats, include_inactive);
  PC_RETURN_IF_ERROR(ranker.Plan(query));
  if (ranker.HasRare()) return ranker.RankRare(limit);
  if (!ranker.HasCommon()) return out;
  // Every phrase is common: the newest documents with all of them (while AllPhrasesAffordable),
  // then with any, until enough are found or the postings end.
  if (AllPhrasesAffordable(stats.docs, ranker.CommonCount()))
    PC_RETURN_IF_ERROR(ranker.RankRecent(true, limit, out));
  if (static_cast<int>(out.size()) < limit && ranker.CommonCount() > 1)
    PC_RETURN_IF_ERROR(ranker.RankRecent(false, limit, out));
  return out;
}

Result<std::vector<ReadTxn::TextHit>> PgTxn::SearchText(const std::string& artifact_id,
                                                        const TextQuery& query,
                                                        bool include_inactive, int limit) {
  std::vector<TextHit> out;
  PC_ASSIGN_OR_RETURN(std::vector<Ranked> ranked,
                      RankText(TextKind::kMemory, artifact_id, query, include_inactive, limit));
  if (ranked.empty()) return out;
  std::vector<std::string> ids;
  for (const Ranked& r : ranked) ids.push_back(r.entry_version_id);
  PC_ASSIGN_OR_RETURN(
      Rows r,
      Q(std::string("SELECT ") + kVersionColumns +
            " FROM unnest($1::text[]) AS u(id) CROSS JOIN LATERAL (SELECT * FROM entry_versions"
            " WHERE entry_version_id = u.id OFFSET 0) v",
        {TextArray(ids)}));
  std::unordered_map<std::string, EntryVersion> versions;
  for (int i = 0; i < r.size(); ++i) {
    EntryVersion v = ReadVersion(r, i, 0);
    versions.emplace(v.entry_version_id, std::move(v));
  }
  for (const Ranked& h : ranked) {
    auto v = versions.find(h.entry_version_id);
    if (v == versions.end())
      return Internal("the full-text index names a missing version " + h.entry_version_id);
    out.push_back(TextHit{ManifestItem{v->second, !h.retired}, h.score});
  }
  return out;
}

// Up to this many retired documents in a memory, the gate reads past them and checks the distinct
// documents read once (ReadTermLists); beyond, each posting is checked as it is read.
constexpr int64_t kRetiredReadPast = 64;

// The documents of `memory`'s newest `limit` changes in revisions (after, upto], newest first.
static constexpr const char* kRecentChanges =
    "SELECT e.doc FROM revision_changes c JOIN entries e ON e.entry_id = c.entry_id"
    " WHERE c.artifact_id = $1 AND c.revision > $2 AND c.revision <= $3"
    " ORDER BY c.revision DESC, c.seq DESC LIMIT $4";

Result<bool> PgTxn::CatchUpGateLists(const std::string& memory, int64_t head, int recent) {
  const int64_t at = gate_lists_->Claim(memory, head);
  std::vector<GateLists::Change> changes;
  std::vector<int64_t> recent_docs;
  if (at >= 0 && at < head && head - at <= GateLists::kMaxCatchUp) {
    struct Unclaim {  // when the changes could not be read
      GateLists* lists;
      const std::string& memory;
      int64_t head;
      bool read = false;
      ~Unclaim() {
        if (!read) lists->Unclaim(memory, head);
      }
    } unclaim{gate_lists_, memory, head};
    // Each changed entry's document and version as of the head, and the newest changes'
    // documents: one round trip.
    std::vector<Conn::Statement> reads{{std::string("SELECT e.doc, m.active, ") + kVersionColumns +
                                            kChangedLinesFrom +
                                            " JOIN entries e ON e.entry_id = c.entry_id",
                                        {memory, P(at), P(head)}}};
    if (recent > 0) reads.push_back({kRecentChanges, {memory, P(at), P(head), P(int64_t{recent})}});
    PC_ASSIGN_OR_RETURN(std::vector<Rows> rows, QEach(reads));
    const Rows& c = rows.at(0);
    for (int i = 0; i < c.size(); ++i) {
      GateLists::Change change{c.Int(i, 0), Bool(c, i, 1), {}, {}};
      if (change.active) {
        change.version = ReadVersion(c, i, 2);
        change.terms = TermsOf(IndexTerms(change.version.text));
      }
      changes.push_back(std::move(change));
    }
    if (recent > 0)
      for (int i = 0; i < rows.at(1).size(); ++i) recent_docs.push_back(rows[1].Int(i, 0));
    unclaim.read = true;  // Advance ends the claim
  }
  return gate_lists_->Advance(memory, at, head, changes, recent_docs,
                              static_cast<size_t>(std::max(recent, 0)));
}

// Few retired documents (none, usually): each term's newest `cap` + `retired` postings hold its
// newest `cap` active ones, so they are read without a retirement check each, and the distinct
// documents among them are checked in one statement (~2,000 probes of text_docs a remember became
// one per distinct document, or none). Past kRetiredReadPast, each posting's document is checked
// by text_docs' whole key as it is read: as a join, a planner with no statistics yet (a new
// store) kept only (kind, owner) as the index condition and walked every document of the memory
// for each posting (22 ms of database CPU per remember at 3,000 entries); a scalar subquery
// cannot be planned that way.
Status PgTxn::ReadTermLists(const std::string& memory, int64_t retired, size_t cap,
                            const std::vector<std::string>& terms,
                            std::vector<std::vector<int64_t>>& lists) {
  lists.assign(terms.size(), {});
  if (terms.empty()) return Status::Ok();
  const std::string k = P(static_cast<int64_t>(TextKind::kMemory));
  const bool read_past = retired <= kRetiredReadPast;
  const std::string check_each =
      read_past ? ""
                : "  AND NOT (SELECT d.retired FROM text_docs d WHERE d.kind = p.kind"
                  "   AND d.owner = p.owner AND d.doc = p.doc)";
  // On its generic plan: planned at every call, planning cost 5.7× its execution (16 scopes,
  // pg_stat_statements with track_planning). Its plan is an index scan per term whatever they are.
  PC_ASSIGN_OR_RETURN(  // (term number, doc), each term's newest first
      Rows r, QOnce("SELECT t.i, x.doc FROM unnest($3::text[]) WITH ORDINALITY AS t(term, i)"
                    " CROSS JOIN LATERAL (SELECT p.doc FROM text_postings p"
                    "  WHERE p.kind = $1 AND p.owner = $2 AND p.term = t.term" +
                        check_each + "  ORDER BY p.doc DESC LIMIT $4) x ORDER BY t.i, x.doc DESC",
                    {k, memory, TextArray(terms),
                     P(static_cast<int64_t>(cap) + (read_past ? retired : 0))}));
  std::unordered_set<int64_t> retired_docs;  // among those read past
  if (read_past && retired > 0) {
    std::vector<int64_t> read;
    for (int i = 0; i < r.size(); ++i) read.push_back(r.Int(i, 1));
    std::sort(read.begin(), read.end());
    read.erase(std::unique(read.begin(), read.end()), read.end());
    PC_ASSIGN_OR_RETURN(Rows gone,
                        Q("SELECT d.doc FROM unnest($3::bigint[]) AS u(doc) CROSS JOIN LATERAL"
                          " (SELECT doc FROM text_docs WHERE kind = $1 AND owner = $2"
                          "  AND doc = u.doc AND retired OFFSET 0) d",
                          {k, memory, IntArray(read)}));
    for (int i = 0; i < gone.size(); ++i) retired_docs.insert(gone.Int(i, 0));
  }
  for (int i = 0; i < r.size(); ++i) {
    std::vector<int64_t>& docs = lists.at(static_cast<size_t>(r.Int(i, 0) - 1));
    const int64_t doc = r.Int(i, 1);
    if (docs.size() < cap && !retired_docs.count(doc)) docs.push_back(doc);
  }
  return Status::Ok();
}

Status PgTxn::CandidateVersions(const std::string& memory, int64_t head, bool kept,
                                const std::vector<int64_t>& docs,
                                std::vector<std::optional<EntryVersion>>& versions) {
  if (kept)
    gate_lists_->FindVersions(memory, head, docs, versions);
  else
    versions.assign(docs.size(), std::nullopt);
  std::vector<int64_t> unread;
  for (size_t i = 0; i < docs.size(); ++i)
    if (!versions[i]) unread.push_back(docs[i]);
  if (unread.empty()) return Status::Ok();
  PC_ASSIGN_OR_RETURN(Rows v,
                      Q(std::string("SELECT d.doc, ") + kVersionColumns +
                            " FROM text_docs d JOIN entry_versions v"
                            " ON v.entry_version_id = d.entry_version_id"
                            " WHERE d.kind = $1 AND d.owner = $2 AND d.doc = ANY($3::bigint[])"
                            " AND NOT d.retired",
                        {P(static_cast<int64_t>(TextKind::kMemory)), memory, IntArray(unread)}));
  std::unordered_map<int64_t, size_t> place;  // doc → its index in docs
  for (size_t i = 0; i < docs.size(); ++i) place.emplace(docs[i], i);
  std::vector<std::pair<int64_t, EntryVersion>> read;
  for (int i = 0; i < v.size(); ++i) {
    const int64_t doc = v.Int(i, 0);
    read.emplace_back(doc, ReadVersion(v, i, 1));
    if (auto at = place.find(doc); at != place.end()) versions[at->second] = read.back().second;
  }
  if (kept) gate_lists_->PutVersions(memory, head, std::move(read));
  return Status::Ok();
}

// As SqliteTxn::SharedTermCandidates: each term's newest active documents, from text_postings'
// (kind, owner, term, doc) key read backwards, or from what this server kept of them
// (pg_gate_lists.h, a read's lookup only); then the best ones' versions.
Result<std::vector<ManifestItem>> PgTxn::SharedTermCandidates(const std::string& artifact_id,
                                                              const TextQuery& terms, int per_term,
                                                              int limit, int recent) {
  std::vector<ManifestItem> out;
  if (per_term <= 0 || limit < 0 || recent < 0) return out;
  std::vector<std::string> index_terms;
  for (const std::string& phrase : terms.phrases) {
    const std::vector<std::string> t = PhraseTerms(phrase);
    if (t.size() == 1 &&
        std::find(index_terms.begin(), index_terms.end(), t[0]) == index_terms.end())
      index_terms.push_back(t[0]);
  }
  int64_t docs = 0, retired = 0, head = 0;
  if (const MemoryRead* m = MemoryReadOf(artifact_id)) {  // read with the scope
    if (!m->indexed) return out;
    docs = m->totals.docs;
    retired = m->totals.retired;
    head = m->head;
  } else {
    PC_ASSIGN_OR_RETURN(Rows n, Q("SELECT s.docs, s.retired, a.head_revision FROM text_stats s"
                                  " JOIN artifacts a ON a.artifact_id = s.owner"
                                  " WHERE s.kind = $1 AND s.owner = $2",
                                  {P(static_cast<int64_t>(TextKind::kMemory)), artifact_id}));
    if (n.size() == 0) return out;
    docs = n.Int(0, 0);
    retired = n.Int(0, 1);
    head = n.Int(0, 2);
  }
  const size_t cap = static_cast<size_t>(per_term) + 1;
  // Each term's newest `cap` active documents, descending: kept, or read and then kept.
  std::vector<std::vector<int64_t>> lists(index_terms.size());
  std::vector<bool> found(index_terms.size(), false);
  bool kept = false;
  if (gate_lists_) {
    PC_ASSIGN_OR_RETURN(kept, CatchUpGateLists(artifact_id, head, recent));
    if (kept) gate_lists_->Find(artifact_id, head, cap, index_terms, lists, found);
  }
  std::vector<std::string> unread;  // in the order of index_terms
  for (size_t i = 0; i < index_terms.size(); ++i)
    if (!found[i]) unread.push_back(index_terms[i]);
  std::vector<std::vector<int64_t>> read;
  PC_RETURN_IF_ERROR(ReadTermLists(artifact_id, retired, cap, unread, read));
  for (size_t i = 0, j = 0; i < index_terms.size(); ++i) {
    if (found[i]) continue;
    if (kept) gate_lists_->Put(artifact_id, head, cap, unread[j], read[j]);
    lists[i] = std::move(read[j++]);
  }
  SharedTerms shared(docs);
  for (std::vector<int64_t>& docs : lists) {
    if (docs.empty()) continue;
    const int64_t with_term = static_cast<int64_t>(docs.size());  // a common term's: at least
    if (with_term > per_term) docs.pop_back();
    shared.AddTerm(docs, with_term);
  }
  std::vector<int64_t> best = shared.Best(static_cast<size_t>(limit));
  if (recent > 0) {  // the memory's newest changes: kept, or read and then kept
    const size_t recent_cap = static_cast<size_t>(recent);
    std::vector<int64_t> latest;
    if (!kept || !gate_lists_->FindRecent(artifact_id, head, recent_cap, latest)) {
      PC_ASSIGN_OR_RETURN(Rows c,
                          Q(kRecentChanges, {artifact_id, "-1", P(head), P(int64_t{recent})}));
      for (int i = 0; i < c.size(); ++i) latest.push_back(c.Int(i, 0));
      if (kept) gate_lists_->PutRecent(artifact_id, head, recent_cap, latest);
    }
    for (int64_t doc : latest)
      if (std::find(best.begin(), best.end(), doc) == best.end()) best.push_back(doc);
  }
  std::vector<std::optional<EntryVersion>> versions;
  PC_RETURN_IF_ERROR(CandidateVersions(artifact_id, head, kept, best, versions));
  for (std::optional<EntryVersion>& version : versions)
    if (version)  // else retired since, or a recent change of an entry no longer indexed
      out.push_back(ManifestItem{std::move(*version), true});
  return out;
}

Result<std::vector<ReadTxn::SourceHit>> PgTxn::SearchSources(const std::string& scope_id,
                                                             const TextQuery& query, int limit) {
  std::vector<SourceHit> out;
  PC_ASSIGN_OR_RETURN(std::vector<Ranked> ranked,
                      RankText(TextKind::kSources, scope_id, query, false, limit));
  for (const Ranked& h : ranked) {
    PC_ASSIGN_OR_RETURN(auto one, ListSources(scope_id, h.doc - 1, 1));
    if (one.empty() || one[0].position != h.doc)
      return Internal("the source index names a missing source");
    out.push_back(SourceHit{std::move(one[0]), h.score});
  }
  return out;
}

}  // namespace pc::pg
