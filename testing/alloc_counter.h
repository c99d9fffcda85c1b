// Heap accounting for a test or benchmark program: linking alloc_counter.cc replaces the global
// operator new/delete of that program with ones that count the bytes in use and their peak. Only
// for programs that measure memory (the JSON cost test and bench); never linked into the server.
#pragma once

#include <cstddef>

namespace pc::alloc_counter {

// Bytes allocated with operator new and not yet deleted.
size_t InUse();
// The largest InUse() since the last ResetPeak().
size_t Peak();
// Starts a new peak at the current InUse().
void ResetPeak();

}  // namespace pc::alloc_counter
