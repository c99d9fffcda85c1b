// A fake OpenAI-compatible model server on loopback that a test controls: /v1/embeddings answers
// deterministic vectors (the hash embedder's, scaled, so clients must normalize), and can be told
// to fail; /v1/chat/completions answers what the test scripted. The only stand-in the tests use:
// for an external model service.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pc::testing {

class FakeOpenAi {
 public:
  explicit FakeOpenAi(int dimension = 64);
  ~FakeOpenAi();

  std::string base_url() const;  // http://127.0.0.1:PORT/v1
  void set_failing(bool failing) { failing_ = failing; }
  // /v1/embeddings and /v1/rerank wait this long before answering (a hanging endpoint).
  void set_delay_ms(int ms) { delay_ms_ = ms; }
  int requests() const { return requests_; }

  // One scripted /v1/chat/completions answer: `content` as choices[0].message.content, or, with
  // a status other than 200, that status; `raw_body` replaces the whole response body.
  struct ChatReply {
    ChatReply(std::string c, int s = 200, int delay = 0, std::string raw = "")
        : content(std::move(c)), status(s), delay_ms(delay), raw_body(std::move(raw)) {}
    std::string content;
    int status;
    int delay_ms;
    std::string raw_body;
  };
  // Answers are used in order; with none left, the answer is the responder's (below), else
  // {"operations": []}.
  void ScriptChat(std::vector<ChatReply> replies);
  // Answers the chat requests that find no scripted reply: called with the request body, on the
  // fake's worker threads (several at once), outside its lock. For answers that depend on what
  // the model is shown; an empty function removes it.
  using ChatResponder = std::function<ChatReply(const std::string& request_body)>;
  void set_chat_responder(ChatResponder responder);
  // Answers 400 to requests that carry a json_schema response_format (an endpoint without it).
  void set_refuse_json_schema(bool refuse) { refuse_schema_ = refuse; }
  int chat_requests() const { return chat_requests_; }
  // The token counts answers report in OpenAI's `usage` field; a negative count leaves that field
  // out (a provider that does not report it). By default no answer has a `usage` field.
  struct Usage {
    int chat_prompt = -1, chat_completion = -1;  // chat: prompt_tokens, completion_tokens
    int embedding_prompt = -1;                   // embeddings: prompt_tokens per request
  };
  void set_usage(Usage usage) {
    usage_chat_prompt_ = usage.chat_prompt;
    usage_chat_completion_ = usage.chat_completion;
    usage_embedding_prompt_ = usage.embedding_prompt;
  }
  // The bodies of the chat requests received, in order.
  std::vector<std::string> chat_bodies();

 private:
  struct Impl;
  // What the embeddings and rerank endpoints do first: count the request (requests()) and wait
  // the delay set.
  void CountAndDelay();
  std::unique_ptr<Impl> impl_;
  std::atomic<bool> failing_{false};
  std::atomic<int> delay_ms_{0};
  std::atomic<int> requests_{0};
  std::atomic<int> chat_requests_{0};
  std::atomic<bool> refuse_schema_{false};
  std::atomic<int> usage_chat_prompt_{-1}, usage_chat_completion_{-1}, usage_embedding_prompt_{-1};
  std::mutex chat_mu_;
  std::deque<ChatReply> replies_;
  ChatResponder responder_;
  std::vector<std::string> chat_bodies_;
};

}  // namespace pc::testing
