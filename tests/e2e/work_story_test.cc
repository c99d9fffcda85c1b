// Work continuity (RFC 1223, docs/work-continuity.md) through the real binary: a Work Contract,
// then prepare-current → commit → continue → acknowledge → record outcome, after a restart too;
// each refusal is a JSON error that changes nothing (the source log and the handoff head stay).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "json_http.h"
#include "server_process.h"
#include "test_util.h"

namespace pc::testing {
namespace {

using nlohmann::json;

const std::string kScope = "project:refresh";

json Claim(const std::string& text, const json& evidence = json::array()) {
  return {{"text", text},
          {"basis", evidence.empty() ? "declared" : "verified"},
          {"evidence", evidence}};
}

json CurrentWork(const json& cite) {
  return {{"schema", "powercontext.current-work-handoff.v1"},
          {"trust", "untrusted_input"},
          {"objective", "Add safe auto-refresh to the report."},
          {"state",
           {Claim("Polling is implemented.", json::array({cite})),
            Claim("A switching test still fails.")}},
          {"disposition", "continuable"},
          {"next_action", Claim("Fix the frozen-selection comparison.")},
          {"omissions", {"Remote CI is unavailable here."}}};
}

json Outcome(const json& receipt_ref) {
  return {{"schema", "powercontext.task-outcome.v1"},
          {"trust", "untrusted_observation"},
          {"objective", "Add safe auto-refresh to the report."},
          {"status", "partial"},
          {"summary", "Auto-refresh works; the docs build timed out."},
          {"handoff_receipt_ref", receipt_ref},
          {"observations", {Claim("Draft protection holds.")}},
          {"checks",
           {{{"name", "make docs-test"},
             {"status", "timed_out"},
             {"basis", "declared"},
             {"evidence", json::array()}}}},
          {"produced_artifacts", json::array()},
          {"remaining_work", {"Run make docs-test again."}}};
}

// The source log's end and the handoff head: what a refused request must leave as it was.
std::pair<json, json> Marks(JsonHttp& http) {
  auto sources = http.Get("/v1/sources?scope_id=project:refresh&limit=1");
  auto head = http.Get("/v1/handoff?scope_id=project:refresh");
  return {sources.second["high_watermark"], head.first == 200 ? head.second["reference"] : json()};
}

void ExpectError(const std::pair<int, json>& r, int status, const std::string& code) {
  EXPECT_EQ(r.first, status) << r.second.dump();
  EXPECT_EQ(r.second["error"]["code"], code) << r.second.dump();
  EXPECT_TRUE(r.second["error"]["message"].is_string());
}

// A Work Contract citing `cite`, and its refusals (each changes nothing).
void ContractPhase(JsonHttp& http, const json& cite) {
  json contract = {{"schema", "powercontext.work-contract.v1"},
                   {"trust", "untrusted_input"},
                   {"objective", "Add safe auto-refresh to the report."},
                   {"facts", {Claim("Polling exists.", json::array({cite}))}},
                   {"in_scope", {"frontend polling"}},
                   {"exclusions", {"Handoff Core"}},
                   {"completion_criteria", {"focused tests pass"}},
                   {"authorization_notes", json::array()},
                   {"open_questions", json::array()}};
  auto c = http.Post("/v1/work/contracts/create",
                     {{"scope_id", kScope}, {"source_id", "contract-1"}, {"contract", contract}});
  ASSERT_EQ(c.first, 202) << c.second.dump();
  EXPECT_EQ(c.second["kind"], "work-contract");
  EXPECT_EQ(c.second["source"], (json{{"name", "content"}, {"source_id", "contract-1"}}));
  EXPECT_EQ(c.second["content_digest"].get<std::string>().size(), 71u);

  auto before = Marks(http);
  json bad = contract;
  bad["facts"][0]["basis"] = "declared";  // evidence on a declared claim
  ExpectError(http.Post("/v1/work/contracts/create",
                        {{"scope_id", kScope}, {"source_id", "contract-2"}, {"contract", bad}}),
              422, "invalid_request");
  bad = contract;
  bad["facts"][0]["evidence"][0] = {
      {"kind", "source"}, {"source_ref", {{"name", "content"}, {"source_id", "nowhere"}}}};
  ExpectError(http.Post("/v1/work/contracts/create",
                        {{"scope_id", kScope}, {"source_id", "contract-2"}, {"contract", bad}}),
              404, "not_found");
  ExpectError(http.Post("/v1/work/contracts/create", {{"scope_id", kScope},
                                                      {"source_id", "contract-1"},
                                                      {"contract", CurrentWork(cite)}}),
              422, "invalid_request");
  contract["objective"] = "Something else.";
  ExpectError(
      http.Post("/v1/work/contracts/create",
                {{"scope_id", kScope}, {"source_id", "contract-1"}, {"contract", contract}}),
      409, "source_conflict");
  EXPECT_EQ(Marks(http), before);
}

// Prepare-current, commit, continue, acknowledge: the accepted receipt's position.
int64_t HandoffPhase(JsonHttp& http, const json& cite) {
  // Prepare-current: the boundary is stored, the handoff is prepared, nothing is committed.
  auto p = http.Post(
      "/v1/work/handoffs/prepare-current",
      {{"scope_id", kScope}, {"source_id", "boundary-1"}, {"handoff", CurrentWork(cite)}});
  EXPECT_EQ(p.first, 200) << p.second.dump();
  EXPECT_EQ(p.second["boundary"]["kind"], "handoff-boundary");
  json prepared = p.second["handoff"];
  json boundary = {{"kind", "source"},
                   {"source_ref", {{"name", "content"}, {"source_id", "boundary-1"}}}};
  EXPECT_EQ(prepared["content"]["state"][0]["citations"][0], boundary);
  EXPECT_EQ(prepared["content"]["state"][0]["citations"][1], cite);
  EXPECT_EQ(prepared["content"]["next_action"]["citations"][0], boundary);
  EXPECT_EQ(http.Get("/v1/handoff?scope_id=project:refresh").first, 404) << "not committed";

  auto committed = http.Post("/v1/handoff/commit", {{"scope_id", kScope}, {"handoff", prepared}});
  EXPECT_EQ(committed.first, 200) << committed.second.dump();
  json revision = committed.second["reference"];
  auto cont = http.Post("/v1/handoff/continue",
                        {{"scope_id", kScope}, {"selection", "exact"}, {"revision", revision}});
  EXPECT_EQ(cont.first, 200) << cont.second.dump();

  // Acknowledge: never latest; accepted needs all three checks confirmed.
  json ack = {{"scope_id", kScope},
              {"source_id", "receipt-1"},
              {"receiver", "agent-b"},
              {"status", "accepted"},
              {"selection", "exact"},
              {"revision", revision},
              {"receiver_checks",
               {{"live_state", "confirmed"},
                {"capability", "confirmed"},
                {"authorization", "not_checked"}}}};
  auto before = Marks(http);
  ExpectError(http.Post("/v1/work/handoffs/acknowledge", ack), 422, "invalid_request");
  json latest = ack;
  latest["selection"] = "latest";
  latest.erase("revision");
  ExpectError(http.Post("/v1/work/handoffs/acknowledge", latest), 422, "invalid_request");
  EXPECT_EQ(Marks(http), before);
  ack["receiver_checks"]["authorization"] = "confirmed";
  auto a = http.Post("/v1/work/handoffs/acknowledge", ack);
  EXPECT_EQ(a.first, 200) << a.second.dump();
  EXPECT_EQ(a.second["receipt"]["kind"], "handoff-receipt");
  EXPECT_EQ(a.second["resolution"]["selected_revision"], revision);
  EXPECT_EQ(a.second["resolution"]["evidence_checks"][0]["status"], "available");
  return a.second["receipt"]["position"].is_number()
             ? a.second["receipt"]["position"].get<int64_t>()
             : 0;
}

// A retry that says the same with an optional field null instead of absent is a retry: the same
// position and digest, nothing new kept. What is stored, and read back byte for byte, is the
// canonical form: the absent field stays absent.
void RetryPhase(JsonHttp& http, json outcome, const json& first) {
  const auto before = Marks(http);
  outcome["checks"][0]["details"] = nullptr;
  auto retry = http.Post("/v1/work/outcomes/record",
                         {{"scope_id", kScope}, {"source_id", "outcome-1"}, {"outcome", outcome}});
  EXPECT_EQ(retry.first, 202) << retry.second.dump();
  EXPECT_EQ(retry.second["position"], first["position"]);
  EXPECT_EQ(retry.second["content_digest"], first["content_digest"]);
  EXPECT_EQ(Marks(http), before);
  const int64_t position = first["position"].get<int64_t>();
  auto stored = http.Get("/v1/sources?scope_id=project:refresh&limit=1&after=" +
                         std::to_string(position - 1));
  ASSERT_EQ(stored.first, 200) << stored.second.dump();
  const std::string content = stored.second["sources"][0]["content"].get<std::string>();
  EXPECT_EQ(content.find("details"), std::string::npos) << content;
  EXPECT_EQ(content, json::parse(content).dump()) << "sorted keys, no white space";
}

TEST(WorkStory, ContractHandoffAcknowledgeOutcome) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  JsonHttp http(server.port());
  auto fact = http.Post(
      "/v1/memory/remember",
      {{"scope_id", kScope}, {"kind", "fact"}, {"text", "The report polls every 5 seconds."}});
  ASSERT_EQ(fact.first, 200) << fact.second.dump();
  json cite = {{"kind", "memory"}, {"memory_citation", fact.second["entry"]["citation"]}};
  ContractPhase(http, cite);
  const int64_t receipt_position = HandoffPhase(http, cite);
  ASSERT_GT(receipt_position, 0);

  // After a restart, the outcome links the receipt; a link to the boundary is refused.
  server.Stop();
  ASSERT_TRUE(server.Start());
  JsonHttp again(server.port());
  json receipt_ref = {{"name", "content"}, {"source_id", "receipt-1"}};
  auto before = Marks(again);
  ExpectError(
      again.Post("/v1/work/outcomes/record",
                 {{"scope_id", kScope},
                  {"source_id", "outcome-1"},
                  {"outcome", Outcome({{"name", "content"}, {"source_id", "boundary-1"}})}}),
      422, "invalid_request");
  EXPECT_EQ(Marks(again), before);
  auto o = again.Post(
      "/v1/work/outcomes/record",
      {{"scope_id", kScope}, {"source_id", "outcome-1"}, {"outcome", Outcome(receipt_ref)}});
  ASSERT_EQ(o.first, 202) << o.second.dump();
  EXPECT_EQ(o.second["kind"], "task-outcome");
  EXPECT_GT(o.second["position"].get<int64_t>(), receipt_position);
  RetryPhase(again, Outcome(receipt_ref), o.second);
}

// The same records through the CLI (`powercontext work …`): readable answers, --json, and a
// refusal that exits non-zero with the server's error and keeps nothing.
TEST(WorkStory, TheCliKeepsEachRecord) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  ASSERT_TRUE(server.Start());
  JsonHttp http(server.port());
  auto cli = [&](std::vector<std::string> args, const json& in) {
    args.insert(args.begin(), {"--server", server.url()});
    return RunCli(args, in.dump());
  };
  auto fact = http.Post(
      "/v1/memory/remember",
      {{"scope_id", kScope}, {"kind", "fact"}, {"text", "The report polls every 5 seconds."}});
  ASSERT_EQ(fact.first, 200) << fact.second.dump();
  json cite = {{"kind", "memory"}, {"memory_citation", fact.second["entry"]["citation"]}};

  CliResult p =
      cli({"work", "handoff", "-s", kScope, "--source-id", "boundary-1", "-"}, CurrentWork(cite));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_NE(p.out.find("kept handoff-boundary boundary-1 at position 1"), std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("Fix the frozen-selection comparison."), std::string::npos) << p.out;

  // A verified claim whose evidence is nowhere: the server's 404, exit non-zero, nothing kept.
  json bad = CurrentWork(
      {{"kind", "source"}, {"source_ref", {{"name", "content"}, {"source_id", "nowhere"}}}});
  auto before = Marks(http);
  CliResult refused = cli({"work", "handoff", "-s", kScope, "--source-id", "boundary-2", "-"}, bad);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("not_found"), std::string::npos) << refused.err;
  EXPECT_EQ(Marks(http), before);
  CliResult not_json =
      RunCli({"--server", server.url(), "work", "outcome", "-s", kScope, "--source-id", "o-1", "-"},
             "{not json");
  EXPECT_NE(not_json.exit_code, 0);
  EXPECT_EQ(Marks(http), before);

  CliResult o = cli({"--json", "work", "outcome", "-s", kScope, "--source-id", "outcome-1", "-"},
                    Outcome(nullptr));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  json receipt = json::parse(o.out);
  EXPECT_EQ(receipt["kind"], "task-outcome");
  EXPECT_EQ(receipt["position"], 2);
}

}  // namespace
}  // namespace pc::testing
