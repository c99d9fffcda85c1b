#include "providers/openai_embedder.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "providers/openai_usage.h"

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
    : options_(std::move(options)), http_(std::move(http)), dimension_(options_.dimension) {}

OpenAiEmbedder::~OpenAiEmbedder() = default;

EmbeddingProfile OpenAiEmbedder::profile() const {
  return EmbeddingProfile{"openai", options_.model, dimension_.load(), "l2"};
}

std::string OpenAiEmbedder::Probe() { return http_->Probe(); }

std::string OpenAiEmbedder::Unavailable() const {
  if (dimension_.load() > 0) return "";
  return "the embedding dimension is not known yet: " + options_.base_url +
         " has not answered since start-up (set embed_dimension to serve vectors without it)";
}

Result<std::unique_ptr<OpenAiEmbedder>> OpenAiEmbedder::Create(OpenAiEmbedderOptions options) {
  PC_ASSIGN_OR_RETURN(auto http, Endpoint::Open("embed_base_url", options.base_url, options.api_key,
                                                options.timeout_seconds));
  std::unique_ptr<OpenAiEmbedder> e(new OpenAiEmbedder(options, std::move(http)));
  return e;
}

Result<std::vector<std::vector<float>>> OpenAiEmbedder::EmbedBatch(
    const std::vector<std::string>& texts, ModelUsage& usage) {
  nlohmann::json body{{"model", options_.model}, {"input", texts}};
  const std::string payload = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const Endpoint::Deadline deadline = http_->CallDeadline();
  Status last = Status(Code::kProviderUnavailable, "no attempt made");
  for (int attempt = 0; attempt <= options_.retries; ++attempt) {
    // 200 ms, 400 ms, 800 ms … but never past the call's deadline.
    if (attempt > 0 &&
        !Endpoint::BackOff(std::chrono::milliseconds(200 << (attempt - 1)), deadline))
      break;
    auto res = http_->PostJson("/embeddings", payload, deadline);
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
      return Status(Code::kProviderUnavailable,
                    "embedding endpoint answered without one vector per input");
    std::vector<std::vector<float>> out(texts.size());
    for (const auto& item : answer["data"]) {
      size_t index = item.contains("index") && item["index"].is_number_unsigned()
                         ? item["index"].get<size_t>()
                         : static_cast<size_t>(&item - &answer["data"][0]);
      if (index >= out.size() || !item.contains("embedding") || !item["embedding"].is_array())
        return Status(Code::kProviderUnavailable, "embedding endpoint answered a malformed item");
      for (const auto& x : item["embedding"]) {
        if (!x.is_number()) return Status(Code::kProviderUnavailable, "embedding has a non-number");
        out[index].push_back(x.get<float>());
      }
      int expected = dimension_.load();
      if (expected == 0 && !out[index].empty()) {  // the first answer after an unknown start
        dimension_.compare_exchange_strong(expected, static_cast<int>(out[index].size()));
        expected = dimension_.load();
      }
      if (static_cast<int>(out[index].size()) != expected)
        return Status(Code::kProviderUnavailable,
                      "embedding has " + std::to_string(out[index].size()) +
                          " dimensions, expected " + std::to_string(expected));
      Normalize(out[index]);
    }
    for (const auto& v : out)
      if (v.empty())
        return Status(Code::kProviderUnavailable, "embedding endpoint skipped an input");
    usage.AddCall(UsageField(answer, "prompt_tokens"), std::nullopt);
    return out;
  }
  return last;
}

Result<std::vector<std::vector<float>>> OpenAiEmbedder::Embed(
    const std::vector<std::string>& texts) {
  ModelUsage ignored;
  return Embed(texts, ignored);
}

Result<std::vector<std::vector<float>>> OpenAiEmbedder::Embed(const std::vector<std::string>& texts,
                                                              ModelUsage& usage) {
  ModelUsage mine;  // reported only when the whole result succeeds
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); i += static_cast<size_t>(options_.batch_size)) {
    std::vector<std::string> batch(
        texts.begin() + static_cast<std::ptrdiff_t>(i),
        texts.begin() + static_cast<std::ptrdiff_t>(
                            std::min(texts.size(), i + static_cast<size_t>(options_.batch_size))));
    PC_ASSIGN_OR_RETURN(auto vectors, EmbedBatch(batch, mine));
    for (auto& v : vectors) out.push_back(std::move(v));
  }
  usage.Add(mine);
  return out;
}

}  // namespace pc
