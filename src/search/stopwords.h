// Function words: English words and Chinese characters that alone match nearly every text.
// Queries and the hash embedder leave them out (measured on MADial-Bench: docs/quality.md).
#pragma once

#include <string>

namespace pc {

bool IsStopWord(const std::string& folded_word);
bool IsFunctionChar(const std::string& cjk_char);

}  // namespace pc
