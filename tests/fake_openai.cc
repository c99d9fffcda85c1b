#include "fake_openai.h"

#include <httplib.h>

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
  impl_->server.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
    ++requests_;
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
    res.set_content(nlohmann::json{{"object", "list"}, {"data", data}, {"model", body["model"]}}.dump(),
                    "application/json");
  });
  impl_->port = impl_->server.bind_to_any_port("127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  // bind_to_any_port already listens: requests queue until the loop starts.
}

FakeOpenAi::~FakeOpenAi() {
  impl_->server.stop();
  impl_->thread.join();
}

std::string FakeOpenAi::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/v1";
}

}  // namespace pc::testing
