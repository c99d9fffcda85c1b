// Full text of SqliteTxn: the memories' entries and the scopes' source logs, each in one shared
// FTS5 table (memory_fts, source_fts). A document's tokens carry its index's tag (pctag,
// fts_extensions.h), so each memory's phrase document lists are its own, and fts_stats holds each
// index's document and token counts: BM25 ranks a memory by its own statistics alone, as if it had
// a table of its own (it had, until one table per scope made 10,000 scopes 60,000 schema objects).
#include <algorithm>
#include <map>

#include "search/index_terms.h"
#include "search/shared_terms.h"
#include "store/sqlite/fts_extensions.h"
#include "store/sqlite/gate_reads.h"
#include "store/sqlite/rows.h"
#include "store/sqlite/sqlite_txn.h"
#include "store/sqlite/text_memo.h"

namespace pc::sqlite {
namespace {

const char* TableOf(TextIndex::Kind kind) {
  return kind == TextIndex::kMemory ? "memory_fts" : "source_fts";
}

// A phrase of a query in FTS5 syntax, double-quoted (quotes doubled inside) and marked with the
// index's tag, so nothing the user typed is an operator and it matches this index only.
void AppendPhrase(std::string& out, int64_t owner, std::string_view phrase) {
  out.push_back('"');
  for (char c : MarkText(owner, phrase)) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

std::string MatchOf(const std::string& phrases, bool include_inactive, int64_t owner) {
  std::string match = "text : (" + phrases + ")";
  if (include_inactive) return match;
  std::string retired;
  AppendPhrase(retired, owner, kRetiredState);
  return "(" + match + ") NOT state : " + retired;
}

bool EndsWithRetired(const std::string& state) {
  const std::string_view s(state), r(kRetiredState);
  return s.size() >= r.size() && s.substr(s.size() - r.size()) == r;
}

}  // namespace

std::string MatchExpression(const TextQuery& q, int64_t owner, const char* joiner) {
  std::string out;
  for (const std::string& phrase : q.phrases) {
    if (!out.empty()) out += joiner;
    AppendPhrase(out, owner, phrase);
  }
  return out;
}

Result<int64_t> SqliteTxn::RowidOf(const char* table, const char* column, const std::string& id) {
  PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(std::string("SELECT rowid FROM ") + table + " WHERE " +
                                          column + " = ?1"));
  s.Bind(1, id);
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound(std::string("no ") + column + " " + id);
  return s.Int(0);
}

// The owner and its statistics in one read (a search's first step): a memory by artifact id, a
// source log by scope id.
Result<TextIndex> SqliteTxn::LoadTextIndex(TextIndex::Kind kind, const std::string& id) {
  const bool memory = kind == TextIndex::kMemory;
  PC_ASSIGN_OR_RETURN(
      Stmt s, db_.Prepare(std::string("SELECT o.rowid, coalesce(f.docs, 0), coalesce(f.tokens, 0), "
                                      "coalesce(f.retired, 0), coalesce(f.removed, 0) FROM ") +
                          (memory ? "artifacts o" : "scopes o") +
                          " LEFT JOIN fts_stats f ON f.kind = ?2 AND f.owner = o.rowid WHERE " +
                          (memory ? "o.artifact_id" : "o.scope_id") + " = ?1"));
  s.Bind(1, id).Bind(2, int64_t{kind});
  PC_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound(std::string(memory ? "no artifact " : "no scope ") + id);
  return TextIndex{kind, s.Int(0), s.Int(1), s.Int(2), s.Int(3), s.Int(4)};
}

Status SqliteTxn::ProjectText(int64_t owner, int64_t revision, const ManifestUpdate& u) {
  int64_t rowid = 0, created = 0;
  std::string text;
  {
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare("SELECT e.rowid, e.created_revision, v.text FROM entries e, entry_versions v"
                    " WHERE e.entry_id = ?1 AND v.entry_version_id = ?2"));
    s.Bind(1, u.entry_id).Bind(2, u.entry_version_id);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Internal("no version " + u.entry_version_id + " of entry " + u.entry_id);
    rowid = s.Int(0);
    created = s.Int(1);
    text = s.Text(2);
  }
  if (created != revision)  // the entry had a row before this revision
    PC_RETURN_IF_ERROR(PutTextRow({TextRows::Row::kRemove, owner, rowid, "", "", ""}));
  return PutTextRow({TextRows::Row::kMemory, owner, rowid, std::move(text),
                     std::string(u.active ? std::string_view() : kRetiredState),
                     u.entry_version_id});
}

Status SqliteTxn::PutTextRow(TextRows::Row row) {
  if (deferred_) {
    deferred_->rows.push_back(std::move(row));
    return Status::Ok();
  }
  TextRows now;
  now.rows.push_back(std::move(row));
  return WriteTextRows(now);
}

Status SqliteTxn::FlushDeferredText() {
  return deferred_ && !deferred_->rows.empty() ? WriteTextRows(*deferred_) : Status::Ok();
}

// memory_fts row `rowid` was inserted or removed, with MarkText'ed `text` if it is active ("" if
// retired): the writer's kept reads (gate_reads.h) follow it.
void SqliteTxn::FollowKeptReads(const std::string& text, int64_t rowid, bool added) {
  GateReads* kept = db_.gate_reads();
  if (!kept) return;
  std::vector<std::string> tokens;
  if (kept->listing() && !text.empty() && !db_.fts_tokenizer()->Document(text, tokens).ok()) {
    kept->Clear();  // this row cannot be followed: forget rather than keep a wrong list
  } else if (added) {
    kept->Added(std::move(tokens), rowid);
  } else {
    kept->Removed(std::move(tokens), rowid);
  }
}

Status SqliteTxn::WriteTextRows(TextRows& rows) {
  struct Delta {
    int64_t docs = 0, tokens = 0, retired = 0, removed = 0;
  };
  std::map<std::pair<int, int64_t>, Delta> stats;  // (kind, owner): one update each per batch
  for (const TextRows::Row& r : rows.rows) {
    switch (r.kind) {
      case TextRows::Row::kRemove: {
        int64_t tokens = 0;
        bool retired = false;
        std::string text;  // an active row's, for the kept reads
        {
          PC_ASSIGN_OR_RETURN(
              Stmt q, db_.Prepare("SELECT tokens, state, text FROM memory_fts WHERE rowid = ?1"));
          PC_ASSIGN_OR_RETURN(bool row, q.Bind(1, r.rowid).Step());
          if (!row) break;
          tokens = q.Int(0);
          retired = EndsWithRetired(q.Text(1));
          if (!retired) text = q.Text(2);
        }
        PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("DELETE FROM memory_fts WHERE rowid = ?1"));
        PC_RETURN_IF_ERROR(s.Bind(1, r.rowid).Run());
        FollowKeptReads(text, r.rowid, false);
        Delta& d = stats[{TextIndex::kMemory, r.owner}];
        d.docs -= 1;
        d.tokens -= tokens;
        d.retired -= retired ? 1 : 0;
        d.removed += 1;
        break;
      }
      case TextRows::Row::kMemory: {
        const int64_t tokens = DocumentLength(r.text);
        PC_ASSIGN_OR_RETURN(Stmt s,
                            db_.Prepare("INSERT INTO memory_fts(rowid, text, state, "
                                        "entry_version_id, tokens) VALUES(?1, ?2, ?3, ?4, ?5)"));
        const std::string text = MarkText(r.owner, r.text);
        s.Bind(1, r.rowid).Bind(2, text).Bind(3, MarkText(r.owner, r.state));
        PC_RETURN_IF_ERROR(s.Bind(4, r.entry_version_id).Bind(5, tokens).Run());
        FollowKeptReads(r.state == kRetiredState ? "" : text, r.rowid, true);
        Delta& d = stats[{TextIndex::kMemory, r.owner}];
        d.docs += 1;
        d.tokens += tokens;
        d.retired += r.state == kRetiredState ? 1 : 0;
        break;
      }
      case TextRows::Row::kSource: {
        PC_ASSIGN_OR_RETURN(Stmt s,
                            db_.Prepare("INSERT INTO source_fts(text, position) VALUES(?1, ?2)"));
        PC_RETURN_IF_ERROR(s.Bind(1, MarkText(r.owner, r.text)).Bind(2, r.rowid).Run());
        Delta& d = stats[{TextIndex::kSources, r.owner}];
        d.docs += 1;
        d.tokens += DocumentLength(r.text);
        break;
      }
    }
  }
  for (const auto& [key, d] : stats) {
    if (d.docs == 0 && d.tokens == 0 && d.retired == 0 && d.removed == 0) continue;
    PC_ASSIGN_OR_RETURN(
        Stmt s, db_.Prepare("INSERT INTO fts_stats(kind, owner, docs, tokens, retired, removed)"
                            " VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
                            " ON CONFLICT(kind, owner) DO UPDATE SET docs = docs + excluded.docs,"
                            " tokens = tokens + excluded.tokens, retired = retired + "
                            "excluded.retired, removed = removed + excluded.removed"));
    s.Bind(1, int64_t{key.first}).Bind(2, key.second).Bind(3, d.docs).Bind(4, d.tokens);
    PC_RETURN_IF_ERROR(s.Bind(5, d.retired).Bind(6, d.removed).Run());
  }
  rows.rows.clear();
  return Status::Ok();
}

// Ranking with bm25() costs ~1.5 µs for every document that contains a query phrase, whatever
// the limit (it counts each phrase's documents for IDF, then scores and sorts them all): a
// sentence of common words over 100,000 entries matched nearly all of them (240 ms). So every
// query is planned first: each phrase's documents are counted, up to a cap.
// - The rarest phrases are kept while the documents they match add up to at most
//   kRankedDocsBudget; only those are ranked, by pc_bm25 (bm25() fed these counts). The rest are
//   common in this memory: they would add little to BM25 (low IDF) and most of the cost — and,
//   measured with MemoryBank distractors, they were noise (docs/quality.md: 500 beat 1,000 in
//   recall and speed; 250 lost recall on MADial-Bench alone).
// - Every phrase is common: the kRecentCandidates newest documents with all of them, then (if
//   that leaves room) with any of them, are ranked by pc_tf_rank (BM25 without IDF, which needs
//   no counting). Among documents that all share only common words, the newer ones are preferred.
//   "All of them" walks each phrase's whole document list when few documents have all (FTS5's AND
//   skips from match to match), so it runs only while that is affordable (AllPhrasesAffordable:
//   a memory of up to 20,000 entries for two phrases); past it, the newest with any of them are
//   ranked, most phrases first — bounded whatever the memory's size (issue 28: a common-word query
//   took 6.5 ms of its 8 in that walk at 100,000 entries).
// Counting is bounded too: the cap falls as phrases grow in number (kPlanCountBudget rows), and a
// read transaction does not count a phrase the store already knows is common in this index
// (CommonPhrases: exact, from the index's removal count).
constexpr int64_t kCommonPhraseDocs = 500;
constexpr int64_t kRankedDocsBudget = 500;
constexpr int64_t kPlanCountBudget = 8000;
constexpr int64_t kMinCommonCap = 50;

Result<SqliteTxn::TextPlan> SqliteTxn::PlanText(const TextIndex& index, const TextQuery& query) {
  TextPlan plan;
  const std::string table = TableOf(index.kind);
  const int64_t cap = std::min<int64_t>(
      kCommonPhraseDocs,
      std::max<int64_t>(kMinCommonCap,
                        kPlanCountBudget / static_cast<int64_t>(query.phrases.size())));
  std::vector<std::pair<int64_t, size_t>> counted;  // documents (≤ cap), phrase index
  for (size_t i = 0; i < query.phrases.size(); ++i) {
    if (memo_ && memo_->common.Known(index, query.phrases[i], cap)) {
      plan.common.phrases.push_back(query.phrases[i]);
      continue;
    }
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare("SELECT count(*) FROM (SELECT 1 FROM " + table +
                                            " WHERE " + table + " MATCH ?1 LIMIT ?2)"));
    s.Bind(1, "text : (" + MatchExpression(TextQuery{{query.phrases[i]}}, index.owner) + ")")
        .Bind(2, cap + 1);
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    int64_t docs = row ? s.Int(0) : 0;
    if (docs == 0) continue;  // matches nothing anywhere: nothing to rank
    if (docs > cap) {
      plan.common.phrases.push_back(query.phrases[i]);
      if (memo_ && !writing_) memo_->common.Remember(index, query.phrases[i], cap);
    } else
      counted.emplace_back(docs, i);
  }
  std::stable_sort(counted.begin(), counted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  int64_t docs = 0;
  for (const auto& [n, i] : counted) {
    if (!plan.rare.empty() && docs + n > kRankedDocsBudget) break;  // common here: left out
    plan.rare.phrases.push_back(query.phrases[i]);
    plan.rare_docs += (plan.rare_docs.empty() ? "" : " ") + std::to_string(n);
    docs += n;
  }
  return plan;
}

// Both rank inside FTS5 first (ORDER BY, LIMIT in the inner query) from the index alone — rowid
// and score — and read the stored columns and the version of the top rows only: reading them for
// every matching row cost a lookup each.
Status SqliteTxn::RankText(const TextIndex& index, const TextPlan& plan, bool include_inactive,
                           int limit, std::vector<TextHit>& out) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          std::string("SELECT t.state = ?6, ") + kVersionColumns +
          ", f.r FROM"
          " (SELECT rowid AS id, pc_bm25(memory_fts, ?3, ?4, ?5) AS r FROM memory_fts"
          "  WHERE memory_fts MATCH ?1 ORDER BY r LIMIT ?2) f"
          " JOIN memory_fts t ON t.rowid = f.id"
          " JOIN entry_versions v ON v.entry_version_id = t.entry_version_id ORDER BY f.r"));
  s.Bind(1, MatchOf(MatchExpression(plan.rare, index.owner), include_inactive, index.owner));
  s.Bind(2, int64_t{limit})
      .Bind(3, plan.rare_docs)
      .Bind(4, index.docs)
      .Bind(5, index.tokens + index.retired);
  s.Bind(6, MarkText(index.owner, ""));
  return ReadTextHits(s, out);
}

Status SqliteTxn::RankRecentText(const TextIndex& index, const std::string& phrases,
                                 bool include_inactive, int limit, std::vector<TextHit>& out) {
  PC_ASSIGN_OR_RETURN(
      Stmt s,
      db_.Prepare(
          std::string("SELECT t.state = ?6, ") + kVersionColumns +
          ", f.r FROM"
          " (SELECT * FROM (SELECT rowid AS id, pc_tf_rank(memory_fts, ?4, ?5, ?7) AS r FROM"
          "   memory_fts"
          "  WHERE memory_fts MATCH ?1 ORDER BY rowid DESC LIMIT ?3)"
          "  ORDER BY r LIMIT ?2) f"
          " JOIN memory_fts t ON t.rowid = f.id"
          " JOIN entry_versions v ON v.entry_version_id = t.entry_version_id ORDER BY f.r"));
  s.Bind(1, MatchOf(phrases, include_inactive, index.owner))
      .Bind(2, int64_t{limit})
      .Bind(3, kRecentCandidates);
  s.Bind(4, index.docs).Bind(5, index.tokens).Bind(6, MarkText(index.owner, ""));
  // A read transaction's lengths (doc_lengths.h), kept alive until the statement is done.
  const std::shared_ptr<DocLengths::Index> lengths =
      memo_ && !writing_ ? memo_->lengths.For(index.kind, index.owner, index.removed) : nullptr;
  s.BindPointer(7, lengths.get(), kDocLengthsPointer);
  std::vector<TextHit> hits;
  PC_RETURN_IF_ERROR(ReadTextHits(s, hits));
  for (TextHit& h : hits) {
    if (static_cast<int>(out.size()) >= limit) break;
    bool seen = false;
    for (const TextHit& o : out) seen = seen || o.item.version.entry_id == h.item.version.entry_id;
    if (!seen) out.push_back(std::move(h));
  }
  return Status::Ok();
}

Status SqliteTxn::ReadTextHits(Stmt& s, std::vector<TextHit>& out) {
  while (true) {
    PC_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::Ok();
    out.push_back(TextHit{ReadManifestItem(s), -s.Double(1 + kVersionColumnCount)});
  }
}

Result<std::vector<ReadTxn::TextHit>> SqliteTxn::SearchText(const std::string& artifact_id,
                                                            const TextQuery& query,
                                                            bool include_inactive, int limit) {
  std::vector<TextHit> out;
  if (query.empty()) return out;
  PC_RETURN_IF_ERROR(FlushDeferredText());
  PC_ASSIGN_OR_RETURN(TextIndex index, LoadTextIndex(TextIndex::kMemory, artifact_id));
  if (index.docs == 0) return out;
  const int64_t owner = index.owner;
  PC_ASSIGN_OR_RETURN(TextPlan plan, PlanText(index, query));
  if (!plan.rare.empty()) {
    PC_RETURN_IF_ERROR(RankText(index, plan, include_inactive, limit, out));
  } else if (!plan.common.empty()) {
    if (AllPhrasesAffordable(index.docs, plan.common.phrases.size()))
      PC_RETURN_IF_ERROR(RankRecentText(index, MatchExpression(plan.common, owner, " AND "),
                                        include_inactive, limit, out));
    if (static_cast<int>(out.size()) < limit && plan.common.phrases.size() > 1)
      PC_RETURN_IF_ERROR(
          RankRecentText(index, MatchExpression(plan.common, owner), include_inactive, limit, out));
  }
  return out;
}

// Each term's first `per_term` + 1 active rows, read forward: FTS5 starts a document list cheaply
// at its start, while reading one backwards from its end (for the newest) cost ~0.1 ms per term at
// 100,000 entries, and from a rowid more. The memory's newest writes come from revision_changes.
Result<std::vector<ManifestItem>> SqliteTxn::SharedTermCandidates(const std::string& artifact_id,
                                                                  const TextQuery& terms,
                                                                  int per_term, int limit,
                                                                  int recent) {
  std::vector<ManifestItem> out;
  if (per_term <= 0 || limit < 0 || recent < 0) return out;
  PC_RETURN_IF_ERROR(FlushDeferredText());
  PC_ASSIGN_OR_RETURN(TextIndex index, LoadTextIndex(TextIndex::kMemory, artifact_id));
  if (index.docs == 0) return out;
  SharedTerms shared(index.docs);
  std::vector<int64_t> rows;
  // A write's reads are kept between writes on the writer's connection (gate_reads.h): the
  // terms' first rows, and the candidates' rows.
  GateReads* kept = writing_ ? db_.gate_reads() : nullptr;
  const size_t cap = static_cast<size_t>(per_term) + 1;
  for (const std::string& term : terms.phrases) {
    const std::string token =
        kept ? db_.fts_tokenizer()->QueryToken(MarkText(index.owner, term)) : std::string();
    if (const std::vector<int64_t>* known = token.empty() ? nullptr : kept->Find(token, cap)) {
      rows = *known;
    } else {
      PC_ASSIGN_OR_RETURN(
          Stmt s, db_.Prepare("SELECT rowid FROM memory_fts WHERE memory_fts MATCH ?1 LIMIT ?2"));
      s.Bind(1, MatchOf(MatchExpression(TextQuery{{term}}, index.owner), false, index.owner))
          .Bind(2, static_cast<int64_t>(cap));
      rows.clear();
      while (true) {
        PC_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) break;
        rows.push_back(s.Int(0));
      }
      if (!token.empty()) kept->Put(token, cap, rows);
    }
    const int64_t docs = static_cast<int64_t>(rows.size());  // a common term's: at least
    if (docs > per_term) rows.pop_back();
    shared.AddTerm(rows, docs);
  }
  std::vector<int64_t> best = shared.Best(static_cast<size_t>(limit));
  if (recent > 0) {
    PC_ASSIGN_OR_RETURN(
        Stmt s,
        db_.Prepare(
            "SELECT e.rowid FROM revision_changes c JOIN entries e ON e.entry_id = c.entry_id"
            " WHERE c.artifact_id = ?1 ORDER BY c.revision DESC, c.seq DESC LIMIT ?2"));
    s.Bind(1, artifact_id).Bind(2, int64_t{recent});
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      if (std::find(best.begin(), best.end(), s.Int(0)) == best.end()) best.push_back(s.Int(0));
    }
  }
  for (int64_t rowid : best) {
    if (const ManifestItem* known = kept ? kept->FindRow(rowid) : nullptr) {
      out.push_back(*known);
      continue;
    }
    PC_ASSIGN_OR_RETURN(
        Stmt row, db_.Prepare(std::string("SELECT t.state = ?2, ") + kVersionColumns +
                              " FROM memory_fts t JOIN entry_versions v"
                              " ON v.entry_version_id = t.entry_version_id WHERE t.rowid = ?1"));
    row.Bind(1, rowid).Bind(2, MarkText(index.owner, ""));
    PC_ASSIGN_OR_RETURN(bool found, row.Step());
    if (!found) continue;  // a recent change of an entry no longer indexed
    out.push_back(ReadManifestItem(row));
    if (kept) kept->PutRow(rowid, out.back());
  }
  return out;
}

Result<std::vector<ReadTxn::SourceHit>> SqliteTxn::SearchSources(const std::string& scope_id,
                                                                 const TextQuery& query,
                                                                 int limit) {
  std::vector<SourceHit> out;
  if (query.empty()) return out;
  PC_RETURN_IF_ERROR(FlushDeferredText());
  PC_ASSIGN_OR_RETURN(TextIndex index, LoadTextIndex(TextIndex::kSources, scope_id));
  if (index.docs == 0) return out;  // no source yet
  const int64_t owner = index.owner;
  PC_ASSIGN_OR_RETURN(TextPlan plan, PlanText(index, query));
  std::vector<std::pair<int64_t, double>> ranked;  // position, score
  // `docs`: the phrases' document counts, for pc_bm25 (by_rank only).
  auto run = [&](const std::string& sql, const TextQuery& phrases, const char* joiner,
                 const std::string* docs) -> Status {
    PC_ASSIGN_OR_RETURN(Stmt s, db_.Prepare(sql));
    s.Bind(1, "text : (" + MatchExpression(phrases, owner, joiner) + ")").Bind(2, int64_t{limit});
    if (docs) s.Bind(3, *docs);
    s.Bind(4, index.docs).Bind(5, index.tokens);
    while (true) {
      PC_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Status::Ok();
      bool seen = false;
      for (const auto& r : ranked) seen = seen || r.first == s.Int(0);
      if (!seen && static_cast<int>(ranked.size()) < limit)
        ranked.push_back({s.Int(0), -s.Double(1)});
    }
  };
  // The same plan as memory search (SearchText): rarer phrases by pc_bm25; if every phrase is
  // common, the newest records with all of them, then any, by pc_tf_rank. Positions are read for
  // the ranked rows only.
  const std::string by_rank =
      "SELECT s.position, f.r FROM (SELECT rowid AS id, pc_bm25(source_fts, ?3, ?4, ?5) AS r FROM "
      "source_fts"
      " WHERE source_fts MATCH ?1 ORDER BY r LIMIT ?2) f JOIN source_fts s ON s.rowid = f.id ORDER "
      "BY f.r";
  const std::string recent =
      "SELECT s.position, f.r FROM (SELECT * FROM (SELECT rowid AS id, pc_tf_rank(source_fts, ?4, "
      "?5) AS r"
      " FROM source_fts WHERE source_fts MATCH ?1 ORDER BY rowid DESC LIMIT " +
      std::to_string(kRecentCandidates) +
      ") ORDER BY r LIMIT ?2) f JOIN source_fts s ON s.rowid = f.id ORDER BY f.r";
  if (!plan.rare.empty()) {
    PC_RETURN_IF_ERROR(run(by_rank, plan.rare, " OR ", &plan.rare_docs));
  } else if (!plan.common.empty()) {
    if (AllPhrasesAffordable(index.docs, plan.common.phrases.size()))
      PC_RETURN_IF_ERROR(run(recent, plan.common, " AND ", nullptr));
    if (static_cast<int>(ranked.size()) < limit && plan.common.phrases.size() > 1)
      PC_RETURN_IF_ERROR(run(recent, plan.common, " OR ", nullptr));
  }
  for (const auto& [position, score] : ranked) {
    PC_ASSIGN_OR_RETURN(auto one, ListSources(scope_id, position - 1, 1));
    if (one.empty() || one[0].position != position)
      return Internal("source index names a missing source");
    out.push_back(SourceHit{std::move(one[0]), score});
  }
  return out;
}

}  // namespace pc::sqlite
