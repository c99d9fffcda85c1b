// What a store's read transactions learned about its full-text indexes, kept for the next ones:
// the phrases found common (common_phrases.h) and the documents' lengths (doc_lengths.h), each
// exact at a snapshot by the index's removal count.
#pragma once

#include "store/sqlite/common_phrases.h"
#include "store/sqlite/doc_lengths.h"

namespace pc::sqlite {

struct TextMemo {
  CommonPhrases common;
  DocLengths lengths;
};

}  // namespace pc::sqlite
