// One HTTP model endpoint (OpenAI-compatible and alike), from a base URL as users paste it
// ("http://127.0.0.1:11434/v1"): the client appends "/embeddings", "/chat/completions", "/rerank".
// cpp-httplib clients are not safe for concurrent requests, so each request borrows a kept-alive
// connection of its own from a small pool.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/status.h"

namespace pc {

struct HttpAnswer {
  int status = 0;
  std::string body;
};

class Endpoint {
 public:
  ~Endpoint();
  // `setting` names the base URL's setting in errors (e.g. "embed_base_url").
  static Result<std::unique_ptr<Endpoint>> Open(const std::string& setting,
                                                const std::string& base_url,
                                                const std::string& api_key, int timeout_seconds);
  using Deadline = std::chrono::steady_clock::time_point;
  // The deadline of a call that starts now: now + the endpoint's timeout. A caller that retries
  // passes the same deadline to every attempt, so the whole call, retries and back-off included,
  // takes at most the timeout.
  Deadline CallDeadline() const;
  // POSTs a JSON body to base path + `path`. ProviderUnavailable when the endpoint cannot be
  // reached or does not answer by `deadline` (the message then says "timed out after N s"); any
  // HTTP answer is returned as it is.
  Result<HttpAnswer> PostJson(const std::string& path, const std::string& body, Deadline deadline);
  Result<HttpAnswer> PostJson(const std::string& path, const std::string& body) {
    return PostJson(path, body, CallDeadline());
  }
  // GETs base path + `path` (e.g. "/models"), the same way.
  Result<HttpAnswer> Get(const std::string& path, Deadline deadline);
  // A readiness probe that costs no tokens: GET /models, within min(timeout, 5 s). "ready" (2xx),
  // "misconfigured" (401, 403, 404: a wrong key or base URL), "timeout", or "unavailable".
  std::string Probe();
  int timeout_seconds() const;
  // Waits `backoff` before the next attempt of a call, or less if the deadline comes first; false
  // when the deadline has passed (no attempt is left).
  static bool BackOff(std::chrono::milliseconds backoff, Deadline deadline);
  const std::string& base_url() const { return base_url_; }

 private:
  struct Impl;
  Endpoint(std::string base_url, std::unique_ptr<Impl> impl);
  Result<HttpAnswer> Send(bool post, const std::string& path, const std::string& body,
                          Deadline deadline);
  std::string base_url_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pc
