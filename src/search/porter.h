// The Porter stemmer exactly as SQLite's FTS5 "porter" tokenizer applies it to each token of its
// parent: the tokens of 3 to 64 bytes are stemmed (Porter's 1980 steps, with "logi" → "log" and
// "bli" → "ble"), others pass unchanged. Bytes other than a-z count as consonants, as in FTS5.
// So the PostgreSQL store's terms are FTS5's "porter pc" terms without SQLite (a test compares
// the two). Pure, thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pc {

std::string PorterStem(std::string_view token);

}  // namespace pc
