// What a Handoff Receipt records (RFC 1223, "Operation contract"): its stored form, built here
// from the request and the resolution Continue answered (never from the caller's word about the
// evidence), and how a later Task Outcome reads it back.
#pragma once

#include <string>

#include "common/status.h"
#include "service/work/work_records.h"

namespace pc {

inline constexpr const char* kReceiptSchema = "powercontext.handoff-receipt.v1";

// Whether every statement's and the next action's evidence resolved.
bool EvidenceAvailable(const HandoffResolution& r);
// The canonical identity of a prepared handoff: SHA-256 over its scope, base and content (every
// text and citation), as "sha256:<hex>".
std::string PreparedDigest(const PreparedHandoff& p);
// The receipt's canonical JSON and its metadata ({"kind","schema","status","selection"}).
std::string ReceiptContent(const AcknowledgeRequest& req, const HandoffResolution& r);
std::string ReceiptMetadata(const AcknowledgeRequest& req);
// A receipt a Task Outcome may link: accepted, of an exact revision. InvalidArgument naming
// `field` otherwise.
Status CheckLinkable(const Source& receipt, const std::string& field);

}  // namespace pc
