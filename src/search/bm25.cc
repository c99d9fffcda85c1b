#include "search/bm25.h"

#include <cmath>

namespace pc {

double Fts5Idf(double docs, double with_term) {
  const double idf = std::log((docs - with_term + 0.5) / (with_term + 0.5));
  return idf <= 0.0 ? 1e-6 : idf;  // as bm25(): never zero or less
}

double PlusOneIdf(double docs, double with_term) {
  return std::log(1.0 + (docs - with_term + 0.5) / (with_term + 0.5));
}

double AverageLength(double docs, double tokens) {
  return docs > 0 && tokens > 0 ? tokens / docs : 1.0;
}

double Bm25::LengthNorm(double length) const {
  return params_.k1 * (1 - params_.b + params_.b * length / average_length_);
}

double Bm25::Term(double weight, double tf, double norm) const {
  return weight * tf * (params_.k1 + 1) / (tf + norm);
}

}  // namespace pc
