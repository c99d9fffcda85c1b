// BM25, the one implementation of its arithmetic that every ranking uses: the SQLite store's
// pc_bm25 and pc_tf_rank (FTS5 functions), the PostgreSQL store's RankText and Experience ranking
// (service/review_service). Callers differ in their statistics (which IDF, which average length),
// and each passes its own, so every score is what it was, to the last bit. Pure, thread-safe.
#pragma once

namespace pc {

// BM25's k1 and b, as FTS5's bm25() uses them.
struct Bm25Params {
  double k1 = 1.2;
  double b = 0.75;
};

// FTS5's IDF of a term in `with_term` of `docs` documents: ln((N − n + 0.5) / (n + 0.5)), and
// 1e-6 where that is zero or less (a term in most documents), as bm25() does. Both stores.
double Fts5Idf(double docs, double with_term);
// The IDF that is never negative: ln(1 + (N − n + 0.5) / (n + 0.5)) (Lucene's; Experience).
double PlusOneIdf(double docs, double with_term);
// An index's average document length: tokens / docs, or 1 when either is zero (an empty index).
double AverageLength(double docs, double tokens);

class Bm25 {
 public:
  explicit Bm25(double average_length, Bm25Params params = {})
      : average_length_(average_length), params_(params) {}

  // k1·(1 − b + b·length / average length): what a document's length adds to each term's
  // denominator; the same for all its terms.
  double LengthNorm(double length) const;
  // weight·tf·(k1 + 1) / (tf + norm), multiplied in that order. BM25 without IDF is weight 1;
  // the stores multiply the IDF in after (idf · Term(1, …), as pc_bm25 always has), Experience
  // passes it as the weight: the two orders round differently in the last bit, so each keeps its.
  double Term(double weight, double tf, double norm) const;

 private:
  double average_length_;
  Bm25Params params_;
};

}  // namespace pc
