#include "alloc_counter.h"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace pc::alloc_counter {
namespace {

std::atomic<size_t> in_use{0};
std::atomic<size_t> peak{0};

void* Take(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (!p) throw std::bad_alloc();
  const size_t now = in_use.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  size_t seen = peak.load();
  while (now > seen && !peak.compare_exchange_weak(seen, now)) {
  }
  return p;
}

void Give(void* p) {
  if (!p) return;
  in_use.fetch_sub(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

size_t InUse() { return in_use.load(); }
size_t Peak() { return peak.load(); }
void ResetPeak() { peak.store(in_use.load()); }

}  // namespace pc::alloc_counter

void* operator new(size_t n) { return pc::alloc_counter::Take(n); }
void* operator new[](size_t n) { return pc::alloc_counter::Take(n); }
void operator delete(void* p) noexcept { pc::alloc_counter::Give(p); }
void operator delete[](void* p) noexcept { pc::alloc_counter::Give(p); }
void operator delete(void* p, size_t) noexcept { pc::alloc_counter::Give(p); }
void operator delete[](void* p, size_t) noexcept { pc::alloc_counter::Give(p); }
