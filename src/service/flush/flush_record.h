// The last flush of a scope (docs/extraction.md, "The last flush"): the flush that processed a
// window writes its record in the same transaction as its revision or candidates and its cursor, so
// the record says exactly what committed and what was rejected and why; a flush that failed
// committed nothing and leaves the previous record. One record a scope, replaced by the next;
// stored as JSON (WriteTxn::PutLastFlush) in this format, which is ours and versioned.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "service/flush/flush_types.h"  // FlushRecord

namespace pc {

inline constexpr size_t kMaxRecordedRejections = 100;
inline constexpr size_t kMaxRecordedCandidateBytes = 2000;  // a rejected operation's text, cut

std::string EncodeFlushRecord(const FlushRecord& record);
Result<FlushRecord> DecodeFlushRecord(std::string_view text);

}  // namespace pc
