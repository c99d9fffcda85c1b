#include "providers/openai_chat_extractor.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "ops/metrics.h"
#include "providers/openai_usage.h"

namespace pc {

using nlohmann::json;

Result<std::unique_ptr<OpenAiChatExtractor>> OpenAiChatExtractor::Create(
    OpenAiChatOptions options) {
  if (options.model.empty())
    return InvalidArgument("extract_model is required with extract_provider = openai");
  PC_ASSIGN_OR_RETURN(auto http, Endpoint::Open("extract_base_url", options.base_url,
                                                options.api_key, options.timeout_seconds));
  return std::unique_ptr<OpenAiChatExtractor>(
      new OpenAiChatExtractor(std::move(options), std::move(http)));
}

Result<HttpAnswer> OpenAiChatExtractor::Post(const ExtractionRequest& request, bool with_schema,
                                             Endpoint::Deadline deadline) {
  json body{{"model", options_.model},
            {"temperature", 0},
            {"messages",
             {{{"role", "system"}, {"content", request.instructions}},
              {{"role", "user"}, {"content", request.input_json}}}}};
  if (with_schema)
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema",
         {{"name", "memory_operations"},
          {"schema", ParseJson(request.output_schema).value_or(json::object())}}}};
  return http_->PostJson("/chat/completions",
                         body.dump(-1, ' ', false, json::error_handler_t::replace), deadline);
}

Result<std::string> OpenAiChatExtractor::Extract(const ExtractionRequest& request) {
  ModelUsage ignored;
  return Extract(request, ignored);
}

Result<std::string> OpenAiChatExtractor::Extract(const ExtractionRequest& request,
                                                 ModelUsage& usage) {
  if (!options_.measured_as_extraction) return Ask(request, usage);
  return ops::MeasureProviderCall(ops::Provider::kExtract, [&] { return Ask(request, usage); });
}

Result<std::string> OpenAiChatExtractor::Ask(const ExtractionRequest& request, ModelUsage& usage) {
  // extract_timeout_seconds bounds the whole call: every attempt and back-off share one deadline.
  const Endpoint::Deadline deadline = http_->CallDeadline();
  Status last(Code::kProviderUnavailable, "no attempt made");
  for (int attempt = 0; attempt <= options_.retries; ++attempt) {
    // 500 ms, 1 s, 2 s … but never past the deadline.
    if (attempt > 0 &&
        !Endpoint::BackOff(std::chrono::milliseconds(500 << (attempt - 1)), deadline)) {
      if (last.message().find("timed out") == std::string::npos)
        last = Status(last.code(), "chat endpoint timed out after " +
                                       std::to_string(options_.timeout_seconds) + " s (" +
                                       std::to_string(attempt) +
                                       " attempts; the last: " + last.message() + ")");
      break;
    }
    bool with_schema = !schema_refused_;
    auto res = Post(request, with_schema, deadline);
    if (res.ok() && res->status == 400 && with_schema) {  // json_schema not supported here
      schema_refused_ = true;
      res = Post(request, false, deadline);
    }
    if (!res.ok()) {
      last = res.status();
      continue;
    }
    if (res->status == 429 || res->status >= 500) {  // worth retrying; it did answer, though
      last = Status(res->status == 429 ? Code::kProviderUnavailable : Code::kProviderError,
                    "chat endpoint answered HTTP " + std::to_string(res->status) + " (" +
                        std::to_string(attempt + 1) + " attempts)");
      continue;
    }
    if (res->status != 200)
      return Status(Code::kProviderError, "chat endpoint answered HTTP " +
                                              std::to_string(res->status) + ": " +
                                              CutUtf8(res->body, 200));
    json answer = ParseJson(res->body).value_or(json());
    if (!answer.is_object() || !answer.contains("choices") || !answer["choices"].is_array() ||
        answer["choices"].empty() || !answer["choices"][0].contains("message") ||
        !answer["choices"][0]["message"].contains("content") ||
        !answer["choices"][0]["message"]["content"].is_string())
      return Status(Code::kProviderError,
                    "chat endpoint answered without choices[0].message.content");
    usage.AddCall(UsageField(answer, "prompt_tokens"), UsageField(answer, "completion_tokens"));
    return answer["choices"][0]["message"]["content"].get<std::string>();
  }
  return last;
}

}  // namespace pc
