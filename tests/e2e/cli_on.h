// The CLI against a running server, for the end-to-end tests that compare two servers' answers
// (migrate, export and import).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server_process.h"
#include "test_util.h"

namespace pc::testing {

inline CliResult On(const ServerProcess& server, std::vector<std::string> args,
                    const std::string& in = "") {
  args.insert(args.end(), {"--server", server.url()});
  return RunCli(args, in);
}

// The command's --json answer (a failed command is a test failure).
inline nlohmann::json JsonOn(const ServerProcess& server, std::vector<std::string> args,
                             const std::string& in = "") {
  args.push_back("--json");
  CliResult r = On(server, args, in);
  EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// The entry cited at the head of the scope's memory (what a revise or retire must cite).
inline std::string AtHead(const ServerProcess& server, const std::string& scope,
                          const std::string& entry_id) {
  const nlohmann::json listed = JsonOn(server, {"entries", "-s", scope});
  for (const nlohmann::json& e : listed["entries"])
    if (e["entry_id"] == entry_id) return e["citation_ref"];
  ADD_FAILURE() << entry_id << " is not at the head: " << listed.dump();
  return "";
}

// A search's hits without their scores (both stores rank by the same BM25, but floating point
// need not agree to the last bit): citation, text and state, in order.
inline nlohmann::json Hits(const nlohmann::json& search) {
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& h : search["hits"]) {
    nlohmann::json hit = h;
    hit.erase("score");
    out.push_back(hit);
  }
  return out;
}

}  // namespace pc::testing
