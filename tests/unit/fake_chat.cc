#include "fake_chat.h"

#include <utility>

#include "fake_openai.h"
#include "providers/openai_chat_extractor.h"

namespace pc::testing {

std::unique_ptr<OpenAiChatExtractor> FakeChatExtractor(const FakeOpenAi& fake) {
  OpenAiChatOptions o;
  o.base_url = fake.base_url();
  o.model = "fake-chat";
  o.timeout_seconds = 1;
  o.retries = 1;
  return std::move(OpenAiChatExtractor::Create(o)).value();
}

}  // namespace pc::testing
