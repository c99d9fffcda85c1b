#include "fake_openai.h"

#include <httplib.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "search/hash_embedder.h"

namespace pc::testing {

struct FakeOpenAi::Impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  HashEmbedder embedder;
  explicit Impl(int dimension) : embedder(dimension) {}
};

FakeOpenAi::FakeOpenAi(int dimension) : impl_(new Impl(dimension)) {
  // GET /v1/models: what a readiness probe asks (no tokens); a failing fake fails it too.
  impl_->server.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    if (failing_) {
      res.status = 503;
      res.set_content(R"({"error":{"message":"overloaded"}})", "application/json");
      return;
    }
    res.set_content(R"({"object":"list","data":[{"id":"fake","object":"model"}]})",
                    "application/json");
  });
  impl_->server.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
    CountAndDelay();
    if (failing_) {
      res.status = 503;
      res.set_content(R"({"error":{"message":"overloaded"}})", "application/json");
      return;
    }
    auto body = nlohmann::json::parse(req.body);
    nlohmann::json data = nlohmann::json::array();
    int index = 0;
    for (const auto& text : body["input"]) {
      std::vector<float> v = impl_->embedder.EmbedOne(text.get<std::string>());
      for (float& x : v) x *= 3.0f;  // not unit length: the client must normalize
      data.push_back({{"object", "embedding"}, {"index", index++}, {"embedding", v}});
    }
    nlohmann::json answer{{"object", "list"}, {"data", data}, {"model", body["model"]}};
    if (int prompt = usage_embedding_prompt_; prompt >= 0)
      answer["usage"] = {{"prompt_tokens", prompt}, {"total_tokens", prompt}};
    res.set_content(answer.dump(), "application/json");
  });
  // /v1/rerank: the score of a document is how many of the query's words it contains, so a test
  // can predict the order.
  impl_->server.Post("/v1/rerank", [this](const httplib::Request& req, httplib::Response& res) {
    CountAndDelay();
    if (failing_) {
      res.status = 503;
      return;
    }
    auto body = nlohmann::json::parse(req.body);
    std::vector<std::string> words;
    std::string q = body["query"], w;
    for (char c : q + " ") {
      if (c == ' ') {
        if (!w.empty()) words.push_back(w);
        w.clear();
      } else {
        w.push_back(c);
      }
    }
    nlohmann::json results = nlohmann::json::array();
    int index = 0;
    for (const auto& doc : body["documents"]) {
      std::string d = doc.get<std::string>();
      int score = 0;
      for (const auto& word : words) score += d.find(word) != std::string::npos ? 1 : 0;
      results.push_back({{"index", index++}, {"relevance_score", score}});
    }
    res.set_content(nlohmann::json{{"results", results}}.dump(), "application/json");
  });
  impl_->server.Post(
      "/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
        ++chat_requests_;
        auto body = nlohmann::json::parse(req.body, nullptr, false);
        if (refuse_schema_ && body.is_object() && body.contains("response_format")) {
          res.status = 400;
          res.set_content(R"({"error":{"message":"response_format json_schema is not supported"}})",
                          "application/json");
          return;
        }
        ChatReply reply{R"({"operations": []})"};
        ChatResponder responder;
        {
          std::lock_guard<std::mutex> lock(chat_mu_);
          chat_bodies_.push_back(req.body);
          if (!replies_.empty()) {
            reply = replies_.front();
            replies_.pop_front();
          } else {
            responder = responder_;
          }
        }
        if (responder) reply = responder(req.body);
        if (reply.delay_ms) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
        res.status = reply.status;
        if (!reply.raw_body.empty()) {
          res.set_content(reply.raw_body, "application/json");
          return;
        }
        nlohmann::json answer{{"id", "chatcmpl-fake"},
                              {"object", "chat.completion"},
                              {"choices",
                               {{{"index", 0},
                                 {"message", {{"role", "assistant"}, {"content", reply.content}}},
                                 {"finish_reason", "stop"}}}}};
        const int prompt = usage_chat_prompt_, completion = usage_chat_completion_;
        if (prompt >= 0 || completion >= 0) {
          answer["usage"] = nlohmann::json::object();
          if (prompt >= 0) answer["usage"]["prompt_tokens"] = prompt;
          if (completion >= 0) answer["usage"]["completion_tokens"] = completion;
        }
        res.set_content(answer.dump(), "application/json");
      });
  // As a real server would: no Nagle delay (headers and body go out in two writes, and the body
  // would wait for the client's delayed ACK, ~40 ms), and connections kept alive.
  impl_->server.set_tcp_nodelay(true);
  impl_->server.set_keep_alive_max_count(100000);
  impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  // bind_to_any_port already listens: requests queue until the loop starts. But a stop() before
  // the loop runs is lost (the loop then never ends): wait for it, so a fake made and destroyed
  // at once (a test that skips) does not hang its destructor.
  while (!impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeOpenAi::~FakeOpenAi() {
  impl_->server.stop();
  impl_->thread.join();
}

void FakeOpenAi::ScriptChat(std::vector<ChatReply> replies) {
  std::lock_guard<std::mutex> lock(chat_mu_);
  replies_.assign(replies.begin(), replies.end());
}

void FakeOpenAi::set_chat_responder(ChatResponder responder) {
  std::lock_guard<std::mutex> lock(chat_mu_);
  responder_ = std::move(responder);
}

std::vector<std::string> FakeOpenAi::chat_bodies() {
  std::lock_guard<std::mutex> lock(chat_mu_);
  return chat_bodies_;
}

std::string FakeOpenAi::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1";
}

void FakeOpenAi::CountAndDelay() {
  ++requests_;
  if (int delay = delay_ms_.load(); delay > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
}

}  // namespace pc::testing
