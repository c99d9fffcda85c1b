// A scope as one request names it (a key or a server id), checked once where the service takes
// the request, and looked up once: its id, key and memory artifact, kept for the request's later
// transactions. They never change once the scope exists (scopes are never deleted or renamed),
// so a lookup from a committed snapshot stays true. A lookup inside a write transaction is not
// kept: that transaction (or the one that made the scope, in the same group commit) may still
// roll back. Not thread-safe: one request's thread uses it (a group commit's leader runs a write
// callback only while its own thread waits).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace pc {

class ReadTxn;
struct Artifact;

// What a scope is once it exists: fixed for good.
struct ScopeIds {
  std::string id;                  // scp_…
  std::string key;                 // the caller's name for it
  std::string memory_artifact_id;  // its default memory
};

class ScopeRef {
 public:
  // The name checked as CheckScopeId checks it (service/core/validation.h), naming `field`.
  static Result<ScopeRef> Parse(std::string name, std::string_view field = "scope_id");
  // `given` when it names `name`: the layer that took the request (the router) parsed the name,
  // and may have found the scope already (authorizing a token limited to some scopes). Else
  // `name` parsed here.
  static Result<ScopeRef> Given(const ScopeRef* given, std::string name,
                                std::string_view field = "scope_id");

  const std::string& name() const { return name_; }
  bool server_id() const;  // the name is a server-issued scp_… id
  // The scope, if it exists: what an earlier read transaction of this request found, else looked
  // up in `txn` (and kept when `txn` is not a write's). A lookup in `txn` reads the scope's memory
  // artifact in the same statement (locked, in a write's): then `memory`, when given, is set to
  // it as of `txn`, saving FindMemory a second read (never kept: its head moves).
  Result<std::optional<ScopeIds>> Find(ReadTxn& txn,
                                       std::optional<Artifact>* memory = nullptr) const;

 private:
  explicit ScopeRef(std::string name) : name_(std::move(name)) {}
  std::string name_;
  mutable std::optional<ScopeIds> found_;  // seen in a committed snapshot
};

}  // namespace pc
