// How large a request body may be, by route: the HTTP layer reads no more than the route's limit
// (413 `too_large` with details.limit_bytes, before the body is read), and parses what it read
// once, with at most one JSON value per kBytesPerValue bytes of the limit, so that neither the read
// nor the parse costs more than a small multiple of the route's limit (docs/api.md, "Request
// bodies").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "common/json_parse.h"

namespace pc {

enum class BodySize {
  kSmall,   // a query, a listing, a citation, a token, settings
  kEntry,   // one entry's text: remember, revise
  kLarge,   // handoffs, Experience, review candidates (fields of up to 8,000 characters each)
  kSource,  // one source's content
  kBatch,   // many sources at once, a message list to prune, an MCP message
};

inline constexpr size_t kKiB = 1024;
inline constexpr size_t kMiB = 1024 * kKiB;
// A JSON value costs 16–100 bytes in memory (the value, its container's slot, a member's key node),
// however short its text: a limit of one value per 8 bytes of the route's limit keeps a parse under
// ~12× the limit, and no request this server serves comes near it.
inline constexpr size_t kBytesPerValue = 8;
inline constexpr size_t kMinJsonValues = 4096;

struct BodyLimits {
  size_t small = 64 * kKiB;
  size_t entry = 160 * kKiB;  // 64 KiB + 6 × max_entry_bytes (each byte escaped as \u00XX at worst)
  size_t large = 1 * kMiB;
  size_t source = 1600 * kKiB;  // 64 KiB + 6 × max_source_bytes
  size_t batch = 8 * kMiB;

  // The limits for a server whose entries and sources may be this large (config max_*_bytes).
  static BodyLimits For(int64_t max_entry_bytes, int64_t max_source_bytes) {
    BodyLimits l;
    l.entry = 64 * kKiB + 6 * static_cast<size_t>(std::max<int64_t>(0, max_entry_bytes));
    l.source = 64 * kKiB + 6 * static_cast<size_t>(std::max<int64_t>(0, max_source_bytes));
    l.batch = std::max(l.batch, l.source);
    return l;
  }
  size_t Of(BodySize s) const {
    switch (s) {
      case BodySize::kSmall:
        return small;
      case BodySize::kEntry:
        return entry;
      case BodySize::kLarge:
        return large;
      case BodySize::kSource:
        return source;
      case BodySize::kBatch:
        return batch;
    }
    return small;
  }
  size_t Largest() const { return std::max({small, entry, large, source, batch}); }
};

// What a parse of a body read under `limit_bytes` may build.
inline JsonLimits JsonLimitsForBody(size_t limit_bytes) {
  JsonLimits j;
  j.max_values = std::max(kMinJsonValues, limit_bytes / kBytesPerValue);
  return j;
}

}  // namespace pc
