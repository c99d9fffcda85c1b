#include "app/config.h"

#include <toml++/toml.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "service/memory/write_policy.h"
#include "service/report/activity_service.h"
#include "service/review/daily_review.h"
#include "service/skills/external_skills.h"

namespace pc {
namespace {

struct Setting {
  SettingInfo info;
  std::function<Status(Config&, const std::string&)> set;
  std::function<std::string(const Config&)> get;
};

Result<int64_t> ParseInt(const std::string& key, const std::string& v) {
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size() || v.empty())
    return InvalidArgument(key + " must be an integer, got \"" + v + "\"");
  return out;
}

Setting Text(const char* key, const char* env, const char* flag, const char* help,
             std::string Config::*field) {
  return Setting{{key, env, flag, help},
                 [field](Config& c, const std::string& v) {
                   c.*field = v;
                   return Status::Ok();
                 },
                 [field](const Config& c) { return c.*field; }};
}

Setting Int(const char* key, const char* env, const char* flag, const char* help,
            int64_t Config::*field) {
  std::string k = key;
  return Setting{{key, env, flag, help},
                 [field, k](Config& c, const std::string& v) -> Status {
                   PC_ASSIGN_OR_RETURN(c.*field, ParseInt(k, v));
                   return Status::Ok();
                 },
                 [field](const Config& c) { return std::to_string(c.*field); }};
}

const std::vector<Setting>& Table() {
  static const std::vector<Setting> kTable = {
      Text("data", "POWERCONTEXT_DATA", "--data", "data directory (embedded store)",
           &Config::data_dir),
      Text("listen", "POWERCONTEXT_LISTEN", "--listen", "HTTP listen address HOST:PORT",
           &Config::listen),
      Text("store", "POWERCONTEXT_STORE", "--store",
           "store backend: sqlite (in the data directory) or postgresql://user@host:port/db "
           "(password from PGPASSWORD or ~/.pgpass)",
           &Config::store),
      Text("server", "POWERCONTEXT_SERVER", "--server",
           "server the client commands talk to (https:// is verified: system CAs, or the PEM file "
           "in POWERCONTEXT_TLS_CA)",
           &Config::server),
      Text("durability", "POWERCONTEXT_DURABILITY", "--durability",
           "full (fsync every commit) or normal (faster; last commits may be lost on power loss; "
           "on PostgreSQL: synchronous_commit off)",
           &Config::durability),
      Text("reconcile", "POWERCONTEXT_RECONCILE", "--reconcile",
           "a write nearly repeating an active entry: warn (write, and name it), reject (409 "
           "near_duplicate) or off; a scope may override",
           &Config::reconcile),
      Text("extraction_review", "POWERCONTEXT_EXTRACTION_REVIEW", "--extraction-review",
           "auto (flush commits what the model extracts) or review (it proposes memory candidates "
           "for the inbox); a scope may override",
           &Config::extraction_review),
      Text("review_schedule", "POWERCONTEXT_REVIEW_SCHEDULE", "--review-schedule",
           "HH:MM (server local time): from then each day, review every scope with new sources "
           "(experience and retire candidates, a tomorrow note); off (default)",
           &Config::review_schedule),
      Text("require_evidence", "POWERCONTEXT_REQUIRE_EVIDENCE", "--require-evidence",
           "true: refuse a remember or revise without evidence (a URL, source id or citation); a "
           "scope may override",
           &Config::require_evidence),
      Text("expiry", "POWERCONTEXT_EXPIRY", "--expiry",
           "how long entries of a kind stay valid when a write does not say, e.g. "
           "\"working_note=14d,scratch=12h\"; then they leave search and are retired (none by "
           "default); a scope may override",
           &Config::expiry),
      Text("external_skill_roots", "POWERCONTEXT_EXTERNAL_SKILL_ROOTS", "--external-skill-roots",
           "directories of Agent-native Skills (a SKILL.md per subdirectory) this server may "
           "scan, list and resolve, e.g. \"user=/home/me/.codex/skills,project=/repo/.agents/"
           "skills\"; none by default (the external Skill operations answer 503)",
           &Config::external_skill_roots),
      Text("embed_provider", "POWERCONTEXT_EMBED_PROVIDER", "--embed-provider",
           "embeddings: none, hash (offline, lexical), static (offline word vectors, "
           "scripts/install-deps vectors) "
           "or openai (any OpenAI-compatible endpoint)",
           &Config::embed_provider),
      Text("embed_base_url", "POWERCONTEXT_EMBED_BASE_URL", "--embed-base-url",
           "embedding endpoint root, e.g. http://127.0.0.1:11434/v1", &Config::embed_base_url),
      Text("embed_model", "POWERCONTEXT_EMBED_MODEL", "--embed-model",
           "embedding model name (static: the word-vector file, by default the installed "
           "wink-sg-100d.pcwv)",
           &Config::embed_model),
      Text("embed_api_key", "POWERCONTEXT_EMBED_API_KEY", "--embed-api-key",
           "embedding API key (sent as a Bearer token)", &Config::embed_api_key),
      Int("embed_dimension", "POWERCONTEXT_EMBED_DIMENSION", "--embed-dimension",
          "vector dimension (0: the provider's own)", &Config::embed_dimension),
      Int("embed_timeout_seconds", "POWERCONTEXT_EMBED_TIMEOUT_SECONDS", "--embed-timeout-seconds",
          "longest embedding call, retries included", &Config::embed_timeout_seconds),
      Int("embed_rest_seconds", "POWERCONTEXT_EMBED_REST_SECONDS", "--embed-rest-seconds",
          "after a failure, skip the embedding endpoint this long (writes keep vectors missing)",
          &Config::embed_rest_seconds),
      Text("rerank_provider", "POWERCONTEXT_RERANK_PROVIDER", "--rerank-provider",
           "reranking for requests with rerank: true: none, openai (a /rerank endpoint: TEI, "
           "llama.cpp, Jina, Cohere shape) or chat (the extract_* chat model ranks the top 30 "
           "listwise)",
           &Config::rerank_provider),
      Text("rerank_base_url", "POWERCONTEXT_RERANK_BASE_URL", "--rerank-base-url",
           "rerank endpoint root, e.g. http://127.0.0.1:8080/v1", &Config::rerank_base_url),
      Text("rerank_model", "POWERCONTEXT_RERANK_MODEL", "--rerank-model", "rerank model name",
           &Config::rerank_model),
      Text("rerank_api_key", "POWERCONTEXT_RERANK_API_KEY", "--rerank-api-key",
           "rerank API key (sent as a Bearer token)", &Config::rerank_api_key),
      Int("rerank_timeout_seconds", "POWERCONTEXT_RERANK_TIMEOUT_SECONDS",
          "--rerank-timeout-seconds", "longest rerank call", &Config::rerank_timeout_seconds),
      Int("rerank_rest_seconds", "POWERCONTEXT_RERANK_REST_SECONDS", "--rerank-rest-seconds",
          "after a failure, skip the rerank endpoint this long", &Config::rerank_rest_seconds),
      Text("extract_provider", "POWERCONTEXT_EXTRACT_PROVIDER", "--extract-provider",
           "extraction for flush: none, openai (a /chat/completions endpoint) or command",
           &Config::extract_provider),
      Text("extract_base_url", "POWERCONTEXT_EXTRACT_BASE_URL", "--extract-base-url",
           "chat endpoint root, e.g. http://127.0.0.1:11434/v1", &Config::extract_base_url),
      Text("extract_model", "POWERCONTEXT_EXTRACT_MODEL", "--extract-model", "chat model name",
           &Config::extract_model),
      Text("extract_api_key", "POWERCONTEXT_EXTRACT_API_KEY", "--extract-api-key",
           "chat API key (sent as a Bearer token)", &Config::extract_api_key),
      Text("extract_command", "POWERCONTEXT_EXTRACT_COMMAND", "--extract-command",
           "program run with /bin/sh -c: request JSON on stdin, answer on stdout "
           "(docs/extraction.md)",
           &Config::extract_command),
      Int("extract_timeout_seconds", "POWERCONTEXT_EXTRACT_TIMEOUT_SECONDS",
          "--extract-timeout-seconds", "longest wait for one model answer",
          &Config::extract_timeout_seconds),
      Int("source_window_limit", "POWERCONTEXT_SOURCE_WINDOW_LIMIT", "--source-window-limit",
          "sources per flush window", &Config::source_window_limit),
      Int("memory_schedule_seconds", "POWERCONTEXT_MEMORY_SCHEDULE_SECONDS",
          "--memory-schedule-seconds", "flush scopes with pending sources every N seconds (0: off)",
          &Config::memory_schedule_seconds),
      Int("shutdown_grace_seconds", "POWERCONTEXT_SHUTDOWN_GRACE_SECONDS",
          "--shutdown-grace-seconds",
          "after SIGTERM, how long requests in flight may finish before serve exits without them",
          &Config::shutdown_grace_seconds),
      Int("statistics_interval_seconds", "POWERCONTEXT_STATISTICS_INTERVAL_SECONDS",
          "--statistics-interval-seconds",
          "how often serve writes the statistics it adds up in memory (a crash loses at most this "
          "much)",
          &Config::statistics_interval_seconds),
      Int("expiry_interval_seconds", "POWERCONTEXT_EXPIRY_INTERVAL_SECONDS",
          "--expiry-interval-seconds",
          "how often serve retires the entries past their valid_until (docs/expiry.md); they leave "
          "search at once",
          &Config::expiry_interval_seconds),
      Int("max_source_bytes", "POWERCONTEXT_MAX_SOURCE_BYTES", "--max-source-bytes",
          "largest source content in UTF-8 bytes (larger is 413)", &Config::max_source_bytes),
      Int("max_entry_bytes", "POWERCONTEXT_MAX_ENTRY_BYTES", "--max-entry-bytes",
          "largest entry text in UTF-8 bytes (larger is 413)", &Config::max_entry_bytes),
      Int("http_threads", "POWERCONTEXT_HTTP_THREADS", "--http-threads",
          "most HTTP connections at once (a worker thread each, made on demand)",
          &Config::http_threads),
      Text("allowed_hosts", "POWERCONTEXT_ALLOWED_HOSTS", "--allowed-hosts",
           "Host names that name this server besides loopback and the listen host "
           "(comma-separated; * = any)",
           &Config::allowed_hosts),
      Text(
          "allowed_origins", "POWERCONTEXT_ALLOWED_ORIGINS", "--allowed-origins",
          "browser origins allowed to call the API, e.g. https://console.example (comma-separated)",
          &Config::allowed_origins),
      Text("auth", "POWERCONTEXT_AUTH", "--auth",
           "on: every route but /health/* needs a bearer token (powercontext token create); off: "
           "loopback only",
           &Config::auth),
      Text("auth_token", "POWERCONTEXT_SERVER_AUTH_TOKEN", "--auth-token",
           "one static admin token, as PowerContext's own servers take it (also turns auth on)",
           &Config::auth_token),
      Text("allow_unauthenticated", "POWERCONTEXT_ALLOW_UNAUTHENTICATED", "--allow-unauthenticated",
           "true: serve a non-loopback address with auth off (anyone who reaches it is an admin)",
           &Config::allow_unauthenticated),
      Int("rate_limit", "POWERCONTEXT_RATE_LIMIT", "--rate-limit",
          "requests a second per token, on average (0: no limit); over it is 429 with Retry-After",
          &Config::rate_limit),
      Int("rate_limit_burst", "POWERCONTEXT_RATE_LIMIT_BURST", "--rate-limit-burst",
          "requests a token may make at once before rate_limit applies", &Config::rate_limit_burst),
      Int("audit_retention_days", "POWERCONTEXT_AUDIT_RETENTION_DAYS", "--audit-retention-days",
          "audit rows older than this many days are deleted, in the background (0: kept for ever)",
          &Config::audit_retention_days),
      Int("audit_denied_retention_days", "POWERCONTEXT_AUDIT_DENIED_RETENTION_DAYS",
          "--audit-denied-retention-days",
          "refused requests' audit rows (401, 403, 429) older than this many days are deleted (0: "
          "as other rows)",
          &Config::audit_denied_retention_days),
      Int("audit_denied_max_rows", "POWERCONTEXT_AUDIT_DENIED_MAX_ROWS", "--audit-denied-max-rows",
          "refused requests' audit rows kept at most, the newest (0: no cap)",
          &Config::audit_denied_max_rows),
      Int("activity_retention_days", "POWERCONTEXT_ACTIVITY_RETENTION_DAYS",
          "--activity-retention-days",
          "Handoff Report Activity Events observed more than this many days ago are deleted, in "
          "the background (1-365)",
          &Config::activity_retention_days),
      Text("access_log", "POWERCONTEXT_ACCESS_LOG", "--access-log",
           "one line per request on stderr: text, json or off (never bodies, queries or tokens)",
           &Config::access_log),
      Text("tls_cert", "POWERCONTEXT_TLS_CERT", "--tls-cert",
           "TLS certificate chain (PEM); with tls_key, serve HTTPS", &Config::tls_cert),
      Text("tls_key", "POWERCONTEXT_TLS_KEY", "--tls-key", "TLS private key (PEM)",
           &Config::tls_key),
  };
  return kTable;
}

const Setting* Find(const std::string& key) {
  for (const Setting& s : Table())
    if (s.info.key == key) return &s;
  return nullptr;
}

Status Apply(Config& c, const std::string& key, const std::string& value,
             const std::string& origin) {
  Status s = SetSetting(c, key, value);
  if (!s.ok()) return InvalidArgument(origin + ": " + s.message());
  return Status::Ok();
}

Status ApplyFile(Config& c, const std::string& path) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return InvalidArgument("config file " + path + ": " + std::string(e.description()));
  }
  for (const auto& [k, node] : table) {
    std::string key(k.str());
    if (!Find(key))
      return InvalidArgument("config file " + path + ": unknown setting \"" + key + "\"");
    std::string value;
    if (auto s = node.value<std::string>())
      value = *s;
    else if (auto i = node.value<int64_t>())
      value = std::to_string(*i);
    else
      return InvalidArgument("config file " + path + ": " + key + " must be a string or integer");
    PC_RETURN_IF_ERROR(Apply(c, key, value, "config file " + path));
  }
  return Status::Ok();
}

}  // namespace

const std::vector<SettingInfo>& Settings() {
  static const std::vector<SettingInfo> kInfo = [] {
    std::vector<SettingInfo> out;
    for (const Setting& s : Table()) out.push_back(s.info);
    return out;
  }();
  return kInfo;
}

Status SetSetting(Config& c, const std::string& key, const std::string& value) {
  const Setting* s = Find(key);
  if (!s) return InvalidArgument("unknown setting " + key);
  return s->set(c, value);
}

std::string GetSetting(const Config& c, const std::string& key) {
  const Setting* s = Find(key);
  return s ? s->get(c) : std::string();
}

namespace {

// listen = HOST:PORT (an IPv6 host in brackets) into listen_host and listen_port.
Status ValidateListen(Config& c) {
  size_t colon = c.listen.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return InvalidArgument("listen must be HOST:PORT, got \"" + c.listen + "\"");
  c.listen_host = c.listen.substr(0, colon);
  if (c.listen_host.size() > 2 && c.listen_host.front() == '[' && c.listen_host.back() == ']')
    c.listen_host = c.listen_host.substr(1, c.listen_host.size() - 2);
  auto port = ParseInt("listen port", c.listen.substr(colon + 1));
  if (!port.ok() || *port < 0 || *port > 65535)
    return InvalidArgument("listen port must be 0..65535, got \"" + c.listen.substr(colon + 1) +
                           "\"");
  c.listen_port = static_cast<int>(*port);
  return Status::Ok();
}

// The embedding, rerank and extraction providers and what each needs.
Status ValidateProviders(const Config& c) {
  if (c.embed_provider != "none" && c.embed_provider != "hash" && c.embed_provider != "static" &&
      c.embed_provider != "openai")
    return InvalidArgument("embed_provider must be none, hash, static or openai");
  if (c.embed_provider == "openai" && (c.embed_base_url.empty() || c.embed_model.empty()))
    return InvalidArgument("embed_provider openai needs embed_base_url and embed_model");
  if (!c.embed_base_url.empty() && c.embed_base_url.rfind("http://", 0) != 0 &&
      c.embed_base_url.rfind("https://", 0) != 0)
    return InvalidArgument("embed_base_url must start with http:// or https://");
  if (c.rerank_provider != "none" && c.rerank_provider != "openai" && c.rerank_provider != "chat")
    return InvalidArgument("rerank_provider must be none, openai or chat");
  if (c.rerank_provider == "openai" && c.rerank_base_url.empty())
    return InvalidArgument("rerank_provider openai needs rerank_base_url");
  if (c.rerank_provider == "chat" && (c.extract_base_url.empty() || c.extract_model.empty()))
    return InvalidArgument(
        "rerank_provider chat needs a chat model: extract_base_url and extract_model");
  if (c.extract_provider != "none" && c.extract_provider != "openai" &&
      c.extract_provider != "command")
    return InvalidArgument("extract_provider must be none, openai or command");
  if (c.extract_provider == "openai" && (c.extract_base_url.empty() || c.extract_model.empty()))
    return InvalidArgument("extract_provider openai needs extract_base_url and extract_model");
  if (!c.extract_base_url.empty() && c.extract_base_url.rfind("http://", 0) != 0 &&
      c.extract_base_url.rfind("https://", 0) != 0)
    return InvalidArgument("extract_base_url must start with http:// or https://");
  if (c.extract_provider == "command" && c.extract_command.empty())
    return InvalidArgument("extract_provider command needs extract_command");
  return Status::Ok();
}

// Numbers with a range.
Status ValidateLimits(const Config& c) {
  if (c.extract_timeout_seconds < 1 || c.extract_timeout_seconds > 3600)
    return InvalidArgument("extract_timeout_seconds must be between 1 and 3600");
  if (c.source_window_limit < 1 || c.source_window_limit > 1000)
    return InvalidArgument("source_window_limit must be between 1 and 1000");
  PC_RETURN_IF_ERROR(ParseReviewSchedule(c.review_schedule).status());
  if (c.memory_schedule_seconds < 0 || c.memory_schedule_seconds > 86400)
    return InvalidArgument("memory_schedule_seconds must be between 0 (off) and 86400");
  if (c.statistics_interval_seconds < 1 || c.statistics_interval_seconds > 3600)
    return InvalidArgument("statistics_interval_seconds must be between 1 and 3600");
  if (c.expiry_interval_seconds < 1 || c.expiry_interval_seconds > 3600)
    return InvalidArgument("expiry_interval_seconds must be between 1 and 3600");
  if (c.shutdown_grace_seconds < 0 || c.shutdown_grace_seconds > 3600)
    return InvalidArgument("shutdown_grace_seconds must be between 0 and 3600");
  if (c.max_source_bytes < 1 || c.max_source_bytes > 16 * 1024 * 1024)
    return InvalidArgument("max_source_bytes must be between 1 and 16777216");
  for (auto [name, value] :
       {std::pair<const char*, int64_t>{"embed_timeout_seconds", c.embed_timeout_seconds},
        {"rerank_timeout_seconds", c.rerank_timeout_seconds}})
    if (value < 1 || value > 600)
      return InvalidArgument(std::string(name) + " must be between 1 and 600");
  for (auto [name, value] :
       {std::pair<const char*, int64_t>{"embed_rest_seconds", c.embed_rest_seconds},
        {"rerank_rest_seconds", c.rerank_rest_seconds}})
    if (value < 0 || value > 3600)
      return InvalidArgument(std::string(name) + " must be between 0 and 3600");
  if (c.embed_dimension < 0 || c.embed_dimension > 8192)
    return InvalidArgument("embed_dimension must be between 0 and 8192");
  if (c.max_entry_bytes < 1 || c.max_entry_bytes > 1024 * 1024)
    return InvalidArgument("max_entry_bytes must be between 1 and 1048576");
  if (c.http_threads < 2 || c.http_threads > 4096)
    return InvalidArgument("http_threads must be between 2 and 4096");
  return Status::Ok();
}

// What faces the network: the client's server, origins, auth, logs, TLS, hosts.
Status ValidateHttp(Config& c) {
  if (c.server.rfind("http://", 0) != 0 && c.server.rfind("https://", 0) != 0)
    return InvalidArgument("server must start with http:// or https://");
  for (const std::string& origin : SplitList(c.allowed_origins))
    if ((origin.rfind("http://", 0) != 0 && origin.rfind("https://", 0) != 0) ||
        origin.find('/', origin.find("//") + 2) != std::string::npos)
      return InvalidArgument("allowed_origins: \"" + origin +
                             "\" is not an origin (scheme://host[:port], no path)");
  // PowerContext's servers turn static-token auth on with POWERCONTEXT_SERVER_AUTH_ENABLED.
  if (const char* v = std::getenv("POWERCONTEXT_SERVER_AUTH_ENABLED");
      v && (std::string(v) == "true" || std::string(v) == "1"))
    c.auth = "on";
  if (!c.auth_token.empty() && c.auth == "off")
    c.auth = "on";  // a token given means auth is wanted
  if (c.auth != "on" && c.auth != "off") return InvalidArgument("auth must be on or off");
  if (c.allow_unauthenticated != "true" && c.allow_unauthenticated != "false")
    return InvalidArgument("allow_unauthenticated must be true or false");
  if (!c.auth_token.empty() && c.auth_token.size() < 16)
    return InvalidArgument("auth_token must be at least 16 characters");
  if (c.rate_limit < 0 || c.rate_limit > 1000000)
    return InvalidArgument("rate_limit must be between 0 and 1000000");
  if (c.rate_limit_burst < 1 || c.rate_limit_burst > 1000000)
    return InvalidArgument("rate_limit_burst must be between 1 and 1000000");
  if (c.audit_retention_days < 0 || c.audit_retention_days > 36500)
    return InvalidArgument("audit_retention_days must be between 0 (kept for ever) and 36500");
  if (c.audit_denied_retention_days < 0 || c.audit_denied_retention_days > 36500)
    return InvalidArgument(
        "audit_denied_retention_days must be between 0 (as other rows) and 36500");
  if (c.audit_denied_max_rows < 0 || c.audit_denied_max_rows > 1000000000)
    return InvalidArgument("audit_denied_max_rows must be between 0 (no cap) and 1000000000");
  if (c.activity_retention_days < 1 || c.activity_retention_days > kMaxActivityRetentionDays)
    return InvalidArgument("activity_retention_days must be between 1 and " +
                           std::to_string(kMaxActivityRetentionDays));
  if (c.access_log != "text" && c.access_log != "json" && c.access_log != "off")
    return InvalidArgument("access_log must be text, json or off");
  if (c.tls_cert.empty() != c.tls_key.empty())
    return InvalidArgument("tls_cert and tls_key go together");
  for (const std::string& host : SplitList(c.allowed_hosts))
    if (host.find_first_of("/ ") != std::string::npos ||
        (host != "*" && host.find("://") != std::string::npos))
      return InvalidArgument("allowed_hosts: \"" + host + "\" is not a host name");
  return Status::Ok();
}

}  // namespace

Status Validate(Config& c) {
  if (c.data_dir.empty()) return InvalidArgument("data must not be empty");
  PC_RETURN_IF_ERROR(ValidateListen(c));
  if (c.store != "sqlite" && c.store.rfind("postgresql://", 0) != 0 &&
      c.store.rfind("postgres://", 0) != 0)
    return InvalidArgument("store must be \"sqlite\" or a postgresql:// URL");
  for (const auto& [name, value] :
       {std::pair<const char*, const std::string*>{"reconcile", &c.reconcile},
        {"extraction_review", &c.extraction_review},
        {"require_evidence", &c.require_evidence},
        {"expiry", &c.expiry}})
    PC_RETURN_IF_ERROR(CheckSetting(name, *value));
  if (c.durability != "full" && c.durability != "normal")
    return InvalidArgument("durability must be \"full\" or \"normal\"");
  PC_RETURN_IF_ERROR(ValidateProviders(c));
  PC_RETURN_IF_ERROR(ValidateLimits(c));
  PC_RETURN_IF_ERROR(ParseExternalSkillRoots(c.external_skill_roots).status());
  return ValidateHttp(c);
}

std::vector<std::string> SplitList(const std::string& value) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    std::string item = value.substr(start, end - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
    start = end + 1;
  }
  return out;
}

Result<Config> LoadConfigFile(const std::string& config_file) {
  Config c;
  if (!config_file.empty()) PC_RETURN_IF_ERROR(ApplyFile(c, config_file));
  c.config_file = config_file;
  PC_RETURN_IF_ERROR(Validate(c));
  return c;
}

Result<Config> LoadConfig(const std::string& config_file,
                          const std::map<std::string, std::string>& flags) {
  Config c;
  if (!config_file.empty()) {
    PC_RETURN_IF_ERROR(ApplyFile(c, config_file));
    std::error_code ec;
    c.config_file = std::filesystem::absolute(config_file, ec).lexically_normal().string();
  }
  for (const Setting& s : Table()) {
    if (const char* v = std::getenv(s.info.env.c_str()); v && *v) {
      PC_RETURN_IF_ERROR(Apply(c, s.info.key, v, "environment " + s.info.env));
      c.set_outside_file[s.info.key] = "environment " + s.info.env;
    }
  }
  for (const auto& [key, value] : flags) {
    const Setting* s = Find(key);
    PC_RETURN_IF_ERROR(Apply(c, key, value, "flag " + (s ? s->info.flag : key)));
    c.set_outside_file[key] = "flag " + (s ? s->info.flag : key);
  }
  PC_RETURN_IF_ERROR(Validate(c));
  return c;
}

}  // namespace pc
