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
  size_t order = 0;  // first seen: the first pass's rank, then the second's, then neighbours'
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

Status Propagate(ReadTxn& txn, const Artifact& memory, const TextChannelOptions& options,
                 Board& board) {
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
      board.AddTo(id, loan);
      continue;
    }
    PC_ASSIGN_OR_RETURN(std::optional<ManifestItem> item,
                        txn.FindManifestItem(memory.artifact_id, memory.head_revision, id));
    if (!item || (!item->active && !options.include_inactive)) continue;
    board.Add(ReadTxn::TextHit{std::move(*item), 0}, loan);
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<ReadTxn::TextHit>> SearchTextChannel(ReadTxn& txn, const Artifact& memory,
                                                        const TextQuery& text,
                                                        const TextChannelOptions& options) {
  if (!options.feedback)
    return txn.SearchText(memory.artifact_id, text, options.include_inactive, options.depth);
  const FeedbackOptions& fb = *options.feedback;
  const int pool = std::max(options.depth, fb.pool);
  PC_ASSIGN_OR_RETURN(std::vector<ReadTxn::TextHit> first,
                      txn.SearchText(memory.artifact_id, text, options.include_inactive, pool));
  if (first.empty()) return first;
  std::vector<FeedbackDoc> docs;
  for (const auto& h : first) docs.push_back({h.item.version.text, h.score});
  TextQuery expansion;
  expansion.phrases = FeedbackTerms(text, docs, fb);
  const double best_first = Best(first);
  Board board;
  const double keep = expansion.empty() ? 1.0 : fb.keep;
  for (auto& h : first) {
    const double s = keep * h.score;
    board.Add(std::move(h), s);
  }
  if (!expansion.empty()) {
    PC_ASSIGN_OR_RETURN(
        std::vector<ReadTxn::TextHit> second,
        txn.SearchText(memory.artifact_id, expansion, options.include_inactive, pool));
    const double best_second = Best(second);
    const double scale = best_second > 0 ? best_first / best_second : 0;
    for (auto& h : second) {
      const double s = (1 - keep) * h.score * scale;
      board.Add(std::move(h), s);
    }
  }
  if (fb.lenders > 0 && fb.lend > 0) PC_RETURN_IF_ERROR(Propagate(txn, memory, options, board));
  std::vector<ReadTxn::TextHit> out;
  for (Scored& s : board.Sorted()) {
    if (out.size() >= static_cast<size_t>(options.depth)) break;
    out.push_back(std::move(s.hit));
  }
  return out;
}

}  // namespace pc
