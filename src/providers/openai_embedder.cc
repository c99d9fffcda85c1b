#include "providers/openai_embedder.h"

#include <chrono>
#include <cmath>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/json_parse.h"
#include "common/utf8.h"

namespace pc {

namespace {

void Normalize(std::vector<float>& v) {
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  if (norm <= 0) return;
  float inv = static_cast<float>(1.0 / std::sqrt(norm));
  for (float& x : v) x *= inv;
}

}  // namespace

OpenAiEmbedder::OpenAiEmbedder(OpenAiEmbedderOptions options, std::unique_ptr<Endpoint> http)
    : options_(std::move(options)), http_(std::move(http)) {
  profile_ = EmbeddingProfile{"openai", options_.model, options_.dimension, "l2"};
}

OpenAiEmbedder::~OpenAiEmbedder() = default;

Result<std::unique_ptr<OpenAiEmbedder>> OpenAiEmbedder::Create(OpenAiEmbedderOptions options) {
  PC_ASSIGN_OR_RETURN(auto http, Endpoint::Open("embed_base_url", options.base_url, options.api_key,
                                                 options.timeout_seconds));
  std::unique_ptr<OpenAiEmbedder> e(new OpenAiEmbedder(options, std::move(http)));
  if (e->profile_.dimension == 0) {
    auto probe = e->EmbedBatch({"dimension probe"});
    if (!probe.ok())
      return Status(Code::kProviderUnavailable,
                    "cannot learn the embedding dimension from " + options.base_url + " (" +
                        probe.status().message() + "); set embed_dimension");
    e->profile_.dimension = static_cast<int>((*probe)[0].size());
    e->options_.dimension = e->profile_.dimension;
  }
  return e;
}

Result<std::vector<std::vector<float>>> OpenAiEmbedder::EmbedBatch(const std::vector<std::string>& texts) {
  nlohmann::json body{{"model", options_.model}, {"input", texts}};
  const std::string payload = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Status last = Status(Code::kProviderUnavailable, "no attempt made");
  for (int attempt = 0; attempt <= options_.retries; ++attempt) {
    if (attempt > 0)  // 200 ms, 400 ms, 800 ms …
      std::this_thread::sleep_for(std::chrono::milliseconds(200 << (attempt - 1)));
    auto res = http_->PostJson("/embeddings", payload);
    if (!res.ok()) {
      last = res.status();
      continue;
    }
    if (res->status == 429 || res->status >= 500) {
      last = Status(Code::kProviderUnavailable,
                    "embedding endpoint answered HTTP " + std::to_string(res->status));
      continue;
    }
    if (res->status != 200)
      return Status(Code::kProviderUnavailable, "embedding endpoint answered HTTP " +
                                                    std::to_string(res->status) + ": " +
                                                    CutUtf8(res->body, 200));
    // Validate the answer's shape; never guess.
    nlohmann::json answer = ParseJson(res->body).value_or(nlohmann::json());
    if (!answer.is_object() || !answer.contains("data") || !answer["data"].is_array() ||
        answer["data"].size() != texts.size())
      return Status(Code::kProviderUnavailable, "embedding endpoint answered without one vector per input");
    std::vector<std::vector<float>> out(texts.size());
    for (const auto& item : answer["data"]) {
      size_t index = item.contains("index") && item["index"].is_number_unsigned()
                         ? item["index"].get<size_t>() : static_cast<size_t>(&item - &answer["data"][0]);
      if (index >= out.size() || !item.contains("embedding") || !item["embedding"].is_array())
        return Status(Code::kProviderUnavailable, "embedding endpoint answered a malformed item");
      for (const auto& x : item["embedding"]) {
        if (!x.is_number()) return Status(Code::kProviderUnavailable, "embedding has a non-number");
        out[index].push_back(x.get<float>());
      }
      if (options_.dimension && static_cast<int>(out[index].size()) != options_.dimension)
        return Status(Code::kProviderUnavailable,
                      "embedding has " + std::to_string(out[index].size()) + " dimensions, expected " +
                          std::to_string(options_.dimension));
      Normalize(out[index]);
    }
    for (const auto& v : out)
      if (v.empty()) return Status(Code::kProviderUnavailable, "embedding endpoint skipped an input");
    return out;
  }
  return last;
}

Result<std::vector<std::vector<float>>> OpenAiEmbedder::Embed(const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); i += static_cast<size_t>(options_.batch_size)) {
    std::vector<std::string> batch(texts.begin() + static_cast<std::ptrdiff_t>(i),
                                   texts.begin() + static_cast<std::ptrdiff_t>(
                                       std::min(texts.size(), i + static_cast<size_t>(options_.batch_size))));
    PC_ASSIGN_OR_RETURN(auto vectors, EmbedBatch(batch));
    for (auto& v : vectors) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace pc
