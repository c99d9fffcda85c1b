// A fake OpenAI-compatible model server on loopback that a test controls: /v1/embeddings answers
// deterministic vectors (the hash embedder's, scaled, so clients must normalize), and can be told
// to fail. The only stand-in the tests use: for an external model service.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

namespace pc::testing {

class FakeOpenAi {
 public:
  explicit FakeOpenAi(int dimension = 64);
  ~FakeOpenAi();

  std::string base_url() const;  // http://127.0.0.1:PORT/v1
  void set_failing(bool failing) { failing_ = failing; }
  int requests() const { return requests_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> failing_{false};
  std::atomic<int> requests_{0};
};

}  // namespace pc::testing
