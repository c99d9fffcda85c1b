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

// Commits, through the CLI, a handoff of the scope ("Ship the importer.") whose state and next
// action cite the first listed entry: the handoff both comparisons carry across stores.
inline void CommitHandoffCitingFirstEntry(const ServerProcess& server, const std::string& scope) {
  using nlohmann::json;
  json cite = JsonOn(server, {"entries", "-s", scope})["entries"][0]["citation"];
  json evidence = json::array({{{"kind", "memory"}, {"memory_citation", cite}}});
  json draft{{"objective", "Ship the importer."},
             {"state",
              json::array({{{"text", "Releases go out on Wednesdays."}, {"citations", evidence}}})},
             {"disposition", "continuable"},
             {"next_action", {{"text", "Tag the release."}, {"citations", evidence}}},
             {"omissions", json::array()}};
  CliResult prepared =
      On(server, {"handoff", "finalize", "-s", scope, "-", "--json"}, draft.dump());
  ASSERT_EQ(prepared.exit_code, 0) << prepared.err;
  CliResult committed = On(server, {"handoff", "commit", "-s", scope, "-"}, prepared.out);
  ASSERT_EQ(committed.exit_code, 0) << committed.err;
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
