// The configuration contract (DESIGN §9): every setting has a default, a key in an optional TOML
// file (--config FILE), an environment variable and a flag; later ones win
// (defaults < file < environment < flags), then the whole is validated.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pc {

struct Config {
  std::string data_dir = "./powercontext-data";
  std::string listen = "127.0.0.1:8787";
  std::string store = "sqlite";
  std::string server = "http://127.0.0.1:8787";
  std::string durability = "full";
  // The write gates' defaults (service/memory/write_policy.h; a scope's settings override them).
  std::string reconcile = "warn";
  std::string extraction_review = "auto";
  std::string require_evidence = "false";
  std::string expiry;  // kind=duration,… (docs/expiry.md); none by default
  // Where external Agent-native Skills are found: user=PATH,project=PATH,… (docs/skills.md)
  std::string external_skill_roots;
  std::string review_schedule =
      "off";  // the daily review: HH:MM local, or off (service/review/daily_review.h)
  // none: fts only (the measured default, docs/quality.md); hash: offline lexical vectors;
  // openai: any OpenAI-compatible /embeddings endpoint.
  std::string embed_provider = "none";
  std::string embed_base_url;
  std::string embed_model;
  std::string embed_api_key;
  int64_t embed_dimension = 0;  // 0: the provider's own (hash: 384; openai: as the model answers)
  // One embedding call, retries included, takes at most this; after a failure the endpoint is
  // skipped for embed_rest_seconds (writes keep their vectors missing for the backfill).
  int64_t embed_timeout_seconds = 10;
  int64_t embed_rest_seconds = 30;
  // none; openai (any /rerank endpoint of that shape); or chat (listwise, by the extract_* chat
  // model: upstream RFC 0080).
  std::string rerank_provider = "none";
  std::string rerank_base_url;
  std::string rerank_model;
  std::string rerank_api_key;
  int64_t rerank_timeout_seconds = 10;
  int64_t rerank_rest_seconds = 30;
  // Extraction (POST /v1/memory/flush): none (flush answers 422), openai (any OpenAI-compatible
  // /chat/completions endpoint) or command (a local program: JSON on stdin, answer on stdout).
  std::string extract_provider = "none";
  std::string extract_base_url;
  std::string extract_model;
  std::string extract_api_key;
  std::string extract_command;
  int64_t extract_timeout_seconds = 120;
  int64_t source_window_limit = 100;
  int64_t memory_schedule_seconds = 0;  // 0: no background flushes
  // After SIGTERM or SIGINT: how long requests and background passes in flight may still finish
  // before the process exits without them (every acknowledged write is already durable).
  int64_t shutdown_grace_seconds = 10;
  // How often serve writes the usage and recall statistics it adds up in memory (one transaction);
  // a crash loses at most this much of them.
  int64_t statistics_interval_seconds = 1;
  int64_t expiry_interval_seconds = 60;  // the expiry pass (docs/expiry.md)
  int64_t max_source_bytes = 256 * 1024;
  int64_t max_entry_bytes = 16 * 1024;
  // Most HTTP connections served at once, a worker thread each (made on demand); idle ones are
  // evicted to make room, and one client address holds at most half of them.
  int64_t http_threads = 512;
  // The edge guard (api/edge_guard.h): host names besides loopback and the listen host, and
  // origins a browser page may call from; comma-separated, empty = none.
  std::string allowed_hosts;
  std::string allowed_origins;
  // Security (docs/security.md). auth: on|off; off only while every listen address is loopback
  // unless allow_unauthenticated is "true" (then a warning at start-up and in /health/ready).
  std::string auth = "off";
  std::string auth_token;  // PowerContext's static bearer token (an admin), as its servers take it
  std::string allow_unauthenticated = "false";
  int64_t rate_limit = 50;         // requests a second per token (0: no limit)
  int64_t rate_limit_burst = 200;  // a token's bucket
  // The audit log's retention (service/admin/audit_service.h AuditRetention; 0: kept for ever / no
  // cap).
  int64_t audit_retention_days = 90;
  int64_t audit_denied_retention_days = 7;  // refused requests' rows (401, 403, 429)
  int64_t audit_denied_max_rows = 1000000;
  // Handoff Report Activity Events are kept this many days (1–365; RFC 0082's default 90).
  int64_t activity_retention_days = 90;
  std::string access_log = "text";  // text, json or off
  std::string tls_cert;             // PEM files; both set = HTTPS
  std::string tls_key;

  // Derived by Validate().
  std::string listen_host;
  int listen_port = 0;

  // Where the settings came from (set by LoadConfig): the configuration file, absolute ("" when
  // none), and each setting given by the environment or a flag, by TOML key, with its origin
  // ("flag --embed-provider"). What a unit file must carry to run serve the same way.
  std::string config_file;
  std::map<std::string, std::string> set_outside_file;
};

struct SettingInfo {
  std::string key;   // TOML key
  std::string env;   // environment variable
  std::string flag;  // command-line flag, e.g. "--data"
  std::string help;
};

// The settings in display order.
const std::vector<SettingInfo>& Settings();

// Applies one setting by TOML key; InvalidArgument when the value does not parse.
Status SetSetting(Config& c, const std::string& key, const std::string& value);
std::string GetSetting(const Config& c, const std::string& key);

// Loads defaults < file < environment < flags (flag values keyed by TOML key), then validates.
// `config_file` empty = no file. A bad value fails with a message that names its origin.
Result<Config> LoadConfig(const std::string& config_file,
                          const std::map<std::string, std::string>& flags);

Status Validate(Config& c);

// Defaults < the file alone ("" none): what a process started with only --config FILE runs with.
Result<Config> LoadConfigFile(const std::string& config_file);

// A comma-separated list setting (allowed_hosts …): its items, trimmed, empty ones dropped.
std::vector<std::string> SplitList(const std::string& value);

}  // namespace pc
