// What a flush is given and what it answers (POST /v1/memory/flush; flush_service.h runs it,
// flush_record.h stores the last one). Plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "extract/operations.h"
#include "model/types.h"
#include "service/memory/write_policy.h"

namespace pc {

inline constexpr int kDefaultSourceWindowLimit = 100;
// The cursor's consumer name for memory extraction (DESIGN §1: scope, memory, consumer).
inline constexpr const char* kExtractionConsumer = "memory_extraction";

struct FlushOptions {
  int source_window_limit = kDefaultSourceWindowLimit;
  size_t max_entry_bytes = 16 * 1024;
  WritePolicy policy;  // the write gates' defaults (reconcile applies to the model's adds)
};

struct FlushChange {
  Change change;
  Citation citation;
  EntryVersion version;  // the new version (its source_refs name the evidence)
};

struct FlushOutcome {
  bool processed = false;  // false: idle (no window to process)
  int64_t previous_cursor = 0;
  int64_t current_cursor = 0;
  int64_t high_watermark = 0;          // the log's end when the flush started
  int64_t processed_source_count = 0;  // sources handed to the model (not entries made)
  std::optional<MemoryRef> memory;     // the new revision, else the head (null before any)
  std::vector<FlushChange> changes;
  std::vector<Rejection> rejected;
  // extraction_review = review: the operations proposed as memory candidates instead of changes.
  std::vector<std::string> candidates;
  double model_ms = 0;  // time spent waiting for the model
};

// The record of a flush that processed a window (service/flush/flush_record.h stores it).
struct FlushRecord {
  int64_t at_ms = 0;
  std::string actor;     // who asked: the token's name, "local", or "system" for the schedule
  FlushOutcome outcome;  // its changes' versions are not stored: FlushService::Last reads them
  size_t rejected_omitted = 0;  // rejections past kMaxRecordedRejections, counted
};

}  // namespace pc
