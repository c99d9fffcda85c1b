#include "search/static_embedder.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "search/stopwords.h"
#include "search/tokenizer.h"

namespace pc {
namespace {

constexpr char kMagic[8] = {'P', 'C', 'W', 'V', 'E', 'C', '0', '1'};
constexpr size_t kHeader = 8 + 3 * 4;
// SIF: a word's probability is estimated from its frequency rank by Zipf's law over the source
// vocabulary (about 400,000 words: harmonic number ~ ln N + 0.577), weight a / (a + p).
constexpr double kZipfHarmonic = 13.47;

uint64_t Fnv1a64(const unsigned char* p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint32_t ReadU32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Mean removal ("all-but-the-top", Mu & Viswanath 2018): every word vector shares a common
// direction that makes unrelated texts look alike; taking the vocabulary's mean away spreads
// them, and then its top `components` principal directions.
void RemoveCommonDirections(StaticVectors& v, int components) {
  const uint64_t dim = static_cast<uint64_t>(v.dimension), count = v.words.size();
  std::vector<double> mean(dim, 0.0);
  for (uint64_t r = 0; r < count; ++r)
    for (uint64_t d = 0; d < dim; ++d) mean[d] += v.data[r * dim + d];
  for (uint64_t r = 0; r < count; ++r)
    for (uint64_t d = 0; d < dim; ++d) v.data[r * dim + d] -= static_cast<float>(mean[d] / count);
  // ... and the top principal directions of the (centred) vocabulary, found by power iteration.
  const uint64_t rows = std::min<uint64_t>(count, 30000);
  for (int c = 0; c < components; ++c) {
    std::vector<double> u(dim, 1.0 / std::sqrt(static_cast<double>(dim))), next(dim);
    for (int it = 0; it < 30; ++it) {
      std::fill(next.begin(), next.end(), 0.0);
      for (uint64_t r = 0; r < rows; ++r) {
        const float* x = &v.data[r * dim];
        double dot = 0;
        for (uint64_t d = 0; d < dim; ++d) dot += x[d] * u[d];
        for (uint64_t d = 0; d < dim; ++d) next[d] += dot * x[d];
      }
      double n = 0;
      for (double x : next) n += x * x;
      n = std::sqrt(n);
      if (n == 0) break;
      for (uint64_t d = 0; d < dim; ++d) u[d] = next[d] / n;
    }
    for (uint64_t r = 0; r < count; ++r) {
      float* x = &v.data[r * dim];
      double dot = 0;
      for (uint64_t d = 0; d < dim; ++d) dot += x[d] * u[d];
      for (uint64_t d = 0; d < dim; ++d) x[d] -= static_cast<float>(dot * u[d]);
    }
  }
}

}  // namespace

std::string DefaultStaticVectorsFile() {
  const char* package = "/usr/share/powercontext/wink-sg-100d.pcwv";
  std::ifstream in(package, std::ios::binary);
  return in ? package : "/usr/local/share/powercontext/wink-sg-100d.pcwv";
}

Result<std::shared_ptr<const StaticVectors>> LoadStaticVectors(const std::string& path,
                                                               bool remove_mean,
                                                               int remove_components) {
  const std::string what = "word vectors " + path + ": ";
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return InvalidArgument(what + "cannot open (install them with scripts/install-deps vectors)");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < kHeader + 8 || std::memcmp(p, kMagic, 8) != 0)
    return InvalidArgument(what + "not a PCWVEC01 word-vector file");
  const uint64_t dim = ReadU32(p + 8), count = ReadU32(p + 12), words_bytes = ReadU32(p + 16);
  if (dim == 0 || dim > 8192) return InvalidArgument(what + "bad dimension " + std::to_string(dim));
  const uint64_t expected = kHeader + words_bytes + count * 4 + count * dim + 8;
  if (bytes.size() != expected)
    return InvalidArgument(what + "truncated or padded: " + std::to_string(bytes.size()) +
                           " bytes, the header says " + std::to_string(expected));
  uint64_t stored = 0;
  for (int i = 7; i >= 0; --i) stored = stored << 8 | p[bytes.size() - 8 + i];
  if (Fnv1a64(p, bytes.size() - 8) != stored)
    return InvalidArgument(what + "checksum mismatch (a corrupt file)");

  if (count == 0) return InvalidArgument(what + "holds no words");
  auto v = std::make_shared<StaticVectors>();
  v->dimension = static_cast<int>(dim);
  v->checksum = stored;
  v->words.reserve(count);
  v->index.reserve(count);
  size_t at = kHeader, end = kHeader + words_bytes;
  while (at < end) {
    size_t nl = bytes.find('\n', at);
    if (nl == std::string::npos || nl >= end)
      return InvalidArgument(what + "word list not ended by a newline");
    v->index.emplace(bytes.substr(at, nl - at), static_cast<int>(v->words.size()));
    v->words.push_back(bytes.substr(at, nl - at));
    at = nl + 1;
  }
  if (v->words.size() != count)
    return InvalidArgument(what + "holds " + std::to_string(v->words.size()) +
                           " words, the header says " + std::to_string(count));
  const unsigned char* scales = p + end;
  const auto* q = reinterpret_cast<const int8_t*>(p + end + count * 4);
  v->data.resize(count * dim);
  for (uint64_t r = 0; r < count; ++r) {
    float s;
    std::memcpy(&s, scales + r * 4, 4);  // little-endian hosts only, as the format
    // A row's values are q × s with |q| ≤ 127: a larger scale would overflow them to infinity.
    if (!std::isfinite(s) || std::fabs(s) > std::numeric_limits<float>::max() / 127)
      return InvalidArgument(what + "scale out of range in row " + std::to_string(r));
    for (uint64_t d = 0; d < dim; ++d) v->data[r * dim + d] = q[r * dim + d] * s;
  }
  if (remove_mean) RemoveCommonDirections(*v, remove_components);
  return std::shared_ptr<const StaticVectors>(std::move(v));
}

Status WriteStaticVectors(const std::string& path, int dimension,
                          const std::vector<std::string>& words,
                          const std::vector<std::vector<float>>& rows) {
  std::string out(kMagic, 8), blob, scales, data;
  for (const std::string& w : words) blob += w + "\n";
  PutU32(out, static_cast<uint32_t>(dimension));
  PutU32(out, static_cast<uint32_t>(words.size()));
  PutU32(out, static_cast<uint32_t>(blob.size()));
  for (const auto& row : rows) {
    float m = 0;
    for (float x : row) m = std::max(m, std::fabs(x));
    float s = m > 0 ? m / 127.0f : 1.0f;
    scales.append(reinterpret_cast<const char*>(&s), 4);
    for (float x : row)
      data.push_back(
          static_cast<char>(static_cast<int8_t>(std::lround(std::clamp(x / s, -127.0f, 127.0f)))));
  }
  out += blob + scales + data;
  uint64_t h = Fnv1a64(reinterpret_cast<const unsigned char*>(out.data()), out.size());
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((h >> (8 * i)) & 0xFF));
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(out.data(), static_cast<std::streamsize>(out.size()));
  if (!f) return Internal("cannot write " + path);
  return Status::Ok();
}

StaticEmbedder::StaticEmbedder(std::shared_ptr<const StaticVectors> vectors, std::string model,
                               StaticEmbedderOptions options)
    : vectors_(std::move(vectors)), options_(options) {
  profile_ = EmbeddingProfile{"static", std::move(model), vectors_->dimension, "l2"};
  weight_.resize(vectors_->words.size());
  for (size_t r = 0; r < weight_.size(); ++r) {
    double p = 1.0 / ((static_cast<double>(r) + 1.0) * kZipfHarmonic);
    weight_[r] = static_cast<float>(options_.sif_a / (options_.sif_a + p));
  }
}

Result<std::unique_ptr<StaticEmbedder>> StaticEmbedder::Open(const std::string& path,
                                                             StaticEmbedderOptions options) {
  PC_ASSIGN_OR_RETURN(std::shared_ptr<const StaticVectors> v,
                      LoadStaticVectors(path, true, options.remove_components));
  std::string model = path.substr(path.find_last_of('/') + 1);
  if (auto dot = model.rfind('.'); dot != std::string::npos && dot > 0) model.resize(dot);
  // The profile names the vectors exactly (their file's checksum) and how texts are made from
  // them: stored vectors of another file or other options are then a gap the reindex fills.
  char tag[40];
  std::snprintf(tag, sizeof tag, "@%08llx-c%d",
                static_cast<unsigned long long>(v->checksum & 0xffffffffULL),
                options.remove_components);
  model += tag;
  return std::make_unique<StaticEmbedder>(std::move(v), std::move(model), options);
}

std::vector<float> StaticEmbedder::EmbedOne(const std::string& text) const {
  const size_t dim = static_cast<size_t>(vectors_->dimension);
  std::vector<double> acc(dim, 0.0);
  for (const Token& t : Tokenize(text, TokenizeMode::kDocument)) {
    if (IsCjkToken(t.text) || t.colocated || IsStopWord(t.text)) continue;
    auto it = vectors_->index.find(t.text);
    if (it == vectors_->index.end()) continue;
    const float w = weight_[static_cast<size_t>(it->second)];
    const float* row = vectors_->data.data() + static_cast<size_t>(it->second) * dim;
    for (size_t d = 0; d < dim; ++d) acc[d] += w * row[d];
  }
  double norm = 0;
  for (double x : acc) norm += x * x;
  std::vector<float> v(dim, 0.0f);
  if (norm > 0) {
    const double inv = 1.0 / std::sqrt(norm);
    for (size_t d = 0; d < dim; ++d) v[d] = static_cast<float>(acc[d] * inv);
  }
  return v;
}

Result<std::vector<std::vector<float>>> StaticEmbedder::Embed(
    const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (const std::string& t : texts) out.push_back(EmbedOne(t));
  return out;
}

}  // namespace pc
