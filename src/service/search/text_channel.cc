#include "service/search/text_channel.h"

#include <algorithm>
#include <unordered_map>

namespace pc {
namespace {

// A revision that changed more entries than this (an import, a flush) wrote no sequence: its
// entries are not "next to" each other, and reading them would cost with the revision's size.
constexpr size_t kMaxNeighbourRevision = 4;

struct Scored {
  ReadTxn::TextHit hit;
  size_t order = 0;  // first seen: BM25's rank, then the loans' order
};

class Board {
 public:
  void Add(ReadTxn::TextHit hit, double score) {
    auto [it, fresh] = index_.emplace(hit.item.version.entry_id, rows_.size());
    if (fresh) {
      hit.score = score;
      rows_.push_back({std::move(hit), rows_.size()});
    } else {
      rows_[it->second].hit.score += score;
    }
  }
  bool Has(const std::string& entry_id) const { return index_.count(entry_id) > 0; }
  const EntryVersion& Version(const std::string& entry_id) const {
    return rows_[index_.at(entry_id)].hit.item.version;
  }
  void AddTo(const std::string& entry_id, double score) {
    rows_[index_.at(entry_id)].hit.score += score;
  }
  std::vector<Scored>& Sorted() {
    std::stable_sort(rows_.begin(), rows_.end(), [](const Scored& a, const Scored& b) {
      return a.hit.score != b.hit.score ? a.hit.score > b.hit.score : a.order < b.order;
    });
    index_.clear();
    for (size_t i = 0; i < rows_.size(); ++i) index_[rows_[i].hit.item.version.entry_id] = i;
    return rows_;
  }

 private:
  std::vector<Scored> rows_;
  std::unordered_map<std::string, size_t> index_;
};

double Best(const std::vector<ReadTxn::TextHit>& hits) {
  double best = 0;
  for (const auto& h : hits) best = std::max(best, h.score);
  return best;
}

// The entries the revision `revision` changed, if it is a small one (kMaxNeighbourRevision).
Result<std::vector<std::string>> SmallRevision(ReadTxn& txn, const Artifact& memory,
                                               int64_t revision) {
  if (revision < 1 || revision > memory.head_revision) return std::vector<std::string>{};
  PC_ASSIGN_OR_RETURN(std::vector<std::string> ids,
                      txn.ChangedEntries(memory.artifact_id, revision - 1, revision,
                                         static_cast<int64_t>(kMaxNeighbourRevision) + 1));
  if (ids.size() > kMaxNeighbourRevision) ids.clear();
  return ids;
}

// Whether `text` holds one of `terms` (the query's phrases and its expansion): a neighbour borrows
// only when it is about the pool's topic, so an unrelated memory remembered next to a strong hit (a
// project's facts are independent events) is not lifted.
bool HoldsAny(const EntryVersion& v, const std::vector<std::string>& terms) {
  for (const std::string& t : *VersionTopicTerms(v.entry_version_id, v.text))
    if (std::find(terms.begin(), terms.end(), t) != terms.end()) return true;
  return false;
}

Status Propagate(ReadTxn& txn, const Artifact& memory, const TextChannelOptions& options,
                 const std::vector<std::string>& topic, Board& board) {
  const FeedbackOptions& fb = *options.feedback;
  std::vector<Scored>& rows = board.Sorted();
  const size_t lenders = std::min(rows.size(), static_cast<size_t>(std::max(0, fb.lenders)));
  std::vector<std::pair<std::string, double>> loans;
  for (size_t i = 0; i < lenders; ++i) {
    const EntryVersion& v = rows[i].hit.item.version;
    const double loan = fb.lend * rows[i].hit.score;
    for (int64_t r : {v.created_by_revision - 1, v.created_by_revision + 1}) {
      PC_ASSIGN_OR_RETURN(std::vector<std::string> ids, SmallRevision(txn, memory, r));
      for (std::string& id : ids)
        if (id != v.entry_id) loans.emplace_back(std::move(id), loan);
    }
  }
  for (auto& [id, loan] : loans) {
    if (board.Has(id)) {
      if (HoldsAny(board.Version(id), topic)) board.AddTo(id, loan);
      continue;
    }
    PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> item,
                        txn.FindManifestItem(memory.artifact_id, memory.head_revision, id));
    if (!item || (!item->active && !options.include_inactive)) continue;
    if (!HoldsAny(item->version, topic)) continue;
    board.Add(ReadTxn::TextHit{std::move(*item), 0}, loan);
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<ReadTxn::TextHit>> SearchTextChannel(ReadTxn& txn, const Artifact& memory,
                                                        const TextQuery& text,
                                                        const TextChannelOptions& options) {
  const FeedbackOptions* fb = options.feedback;
  if (!fb || text.phrases.size() > static_cast<size_t>(fb->max_query_phrases))
    return txn.SearchText(memory.artifact_id, text, options.include_inactive, options.depth);
  const int pool = std::max(options.depth, fb->pool);
  PC_ASSIGN_OR_RETURN(std::vector<ReadTxn::TextHit> first,
                      txn.SearchText(memory.artifact_id, text, options.include_inactive, pool));
  if (first.empty()) return first;
  std::vector<FeedbackDoc> docs;
  docs.reserve(first.size());
  for (const auto& h : first)
    docs.push_back({h.item.version.text, h.score,
                    VersionTopicTerms(h.item.version.entry_version_id, h.item.version.text)});
  const Expansion expansion = Expand(text, docs, *fb);
  double best_expansion = 0;
  for (double x : expansion.scores) best_expansion = std::max(best_expansion, x);
  const double keep = best_expansion > 0 ? fb->keep : 1.0;
  const double scale = best_expansion > 0 ? Best(first) / best_expansion : 0;
  Board board;
  for (size_t i = 0; i < first.size(); ++i) {
    const double s = keep * first[i].score + (1 - keep) * expansion.scores[i] * scale;
    board.Add(std::move(first[i]), s);
  }
  if (fb->lenders > 0 && fb->lend > 0) {
    std::vector<std::string> topic = expansion.terms;
    topic.insert(topic.end(), text.phrases.begin(), text.phrases.end());
    PC_RETURN_IF_ERROR(Propagate(txn, memory, options, topic, board));
  }
  std::vector<ReadTxn::TextHit> out;
  for (Scored& s : board.Sorted()) {
    if (out.size() >= static_cast<size_t>(options.depth)) break;
    out.push_back(std::move(s.hit));
  }
  return out;
}

}  // namespace pc
