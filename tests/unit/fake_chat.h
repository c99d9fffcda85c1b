#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "fake_openai.h"
#include "providers/openai_chat_extractor.h"
#include "service/flush/source_service.h"
#include "test_util.h"

namespace pc::testing {

// An extraction provider talking to `fake` (model "fake-chat", 1 s timeout, 1 retry): the one
// every flush, graph, write-gate and daily-review test uses. Unit tests only: the fuzzers'
// in-process world (fuzz/CMakeLists.txt) links test_util.cc without the providers.
std::unique_ptr<OpenAiChatExtractor> FakeChatExtractor(const FakeOpenAi& fake);

// What the tests of a chat model's work start from: a store, the fake endpoint, sources to give
// the model and the provider that calls it. Each test adds its scope and its services.
class ChatModelTest : public ::testing::Test {
 protected:
  Fixture f;
  FakeOpenAi fake;
  SourceService sources{*f.store};
  std::unique_ptr<OpenAiChatExtractor> chat = FakeChatExtractor(fake);
};

}  // namespace pc::testing
