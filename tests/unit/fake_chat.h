#pragma once

#include <memory>

namespace pc {
class OpenAiChatExtractor;
}

namespace pc::testing {

class FakeOpenAi;

// An extraction provider talking to `fake` (model "fake-chat", 1 s timeout, 1 retry): the one
// every flush, graph, write-gate and daily-review test uses. Unit tests only: the fuzzers'
// in-process world (fuzz/CMakeLists.txt) links test_util.cc without the providers.
std::unique_ptr<OpenAiChatExtractor> FakeChatExtractor(const FakeOpenAi& fake);

}  // namespace pc::testing
