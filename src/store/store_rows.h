// What both stores (sqlite/, postgres/) share below the interface: how id lists are stored, and
// the seam that keeps exceptions out of a transaction.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

// Lists of ids (source refs, lineage) are stored newline-joined: ids never contain a newline.
std::string JoinLines(const std::vector<std::string>& items);
std::vector<std::string> SplitLines(const std::string& s);

// Runs a transaction's callback and turns an escaped exception into Internal: exceptions never
// cross the store seam (store.h).
template <typename Txn>
Status GuardedCallback(const std::function<Status(Txn&)>& fn, Txn& txn) {
  try {
    return fn(txn);
  } catch (const std::exception& e) {
    return Internal(std::string("unexpected error in transaction: ") + e.what());
  } catch (...) {
    return Internal("unexpected error in transaction");
  }
}

}  // namespace pc
