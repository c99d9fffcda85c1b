// The one text validation of every write path: explicit writes (remember, revise, sources,
// handoffs) and model extraction alike. Each returns InvalidArgument / TooLarge naming the field.
#pragma once

#include <string_view>

#include "common/status.h"

namespace pc {

// Valid UTF-8 and at most `max_bytes`; may be empty.
Status CheckOptionalText(std::string_view field, std::string_view text, size_t max_bytes);
// As CheckOptionalText, and says something: not empty, not only white space (U+3000 included) or
// invisible characters (U+200B …) once canonical.
Status CheckText(std::string_view field, std::string_view text, size_t max_bytes);
// The spec's one-line text, its pattern ^\S(?:.*\S)?$ read as ECMA-262 reads it: valid UTF-8, no
// line terminator (\n, \r, U+2028, U+2029), neither end a white space (a tab, U+00A0, U+3000 …),
// 1 … max_chars characters (a Skill's name, description and checks; a locator). InvalidArgument
// names `field` (in the message and details.field) and says which rule failed.
Status CheckOneLineText(std::string_view field, std::string_view value, size_t max_chars);
// True when some code point other than the ASCII space is invisible (U+200B, U+3164 …).
bool HasInvisible(std::string_view s);

}  // namespace pc
