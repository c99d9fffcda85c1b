// Reads and validates a model's answer (DESIGN invariant 7). The answer must be one JSON object
// {"operations": [...], "triples": [...] (optional)}, alone or as the only content of one Markdown
// code fence; otherwise the whole answer is unusable and nothing is committed. Each operation is
// then checked on its own; a bad one is rejected with its reason and the others go on.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "model/types.h"
#include "wire/json.h"

namespace pc {

// A model's answer as one JSON object: the whole answer, or the inside of one Markdown code fence
// that is the whole answer (```json … ```); ProviderError saying why not. Shared by extraction
// and handoff drafting.
Result<Json> ModelAnswerObject(const std::string& answer);

// The kinds model extraction may use (explicit writes may use others).
bool IsExtractionKind(const std::string& kind);

struct Candidate {
  ChangeOp op = ChangeOp::kAdd;  // kAdd or kRevise
  std::string kind;              // revise: empty keeps the entry's kind
  std::string text;
  size_t target = 0;             // revise: index of the entry shown (E1 → 0)
  std::vector<size_t> evidence;  // indexes of the sources shown (S1 → 0), each once
  std::string json;              // the operation as the model wrote it
};

// A triple the model stated beside its operations (docs/graph.md): subject, relation and object,
// each a short text, and the sources that state it. It is attached to every operation of the same
// answer that cites one of those sources; with none, it is rejected.
struct Triple {
  std::string subject, relation, object;
  std::vector<size_t> evidence;  // indexes of the sources shown (S1 → 0), each once
  std::string json;              // the triple as the model wrote it
};
inline constexpr size_t kMaxTriples = 100;          // per answer; the rest are rejected
inline constexpr size_t kMaxTriplePartBytes = 200;  // subject, relation, object each

struct Rejection {
  std::string candidate_json;  // the operation as the model wrote it
  std::string reason;
};

struct ParsedAnswer {
  std::vector<Candidate> valid;
  std::vector<Rejection> rejected;  // operations and triples
  std::vector<Triple> triples;
};

// ProviderError when the answer is not one JSON object with an "operations" array.
Result<ParsedAnswer> ParseAnswer(const std::string& answer, size_t sources_shown,
                                 size_t entries_shown, size_t max_text_bytes);

}  // namespace pc
