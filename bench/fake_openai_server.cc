// The fake OpenAI-compatible model server (testing/fake_openai.h) as a program of its own, so that
// benchmarks which drive other processes (bench/peers) can point every system at the same
// embedding endpoint: deterministic hash-embedder vectors, answered at once.
//
//   build/bench/fake_openai_server [--dimension 384]
//
// Prints its base URL (http://127.0.0.1:PORT/v1) on the first line of standard output, then
// serves until standard input is closed or the process is terminated.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "fake_openai.h"

int main(int argc, char** argv) {
  int dimension = 384;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dimension") == 0 && i + 1 < argc) {
      dimension = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: fake_openai_server [--dimension N]\n");
      return 2;
    }
  }
  if (dimension < 1 || dimension > 4096) {
    std::fprintf(stderr, "fake_openai_server: --dimension must be 1..4096\n");
    return 2;
  }
  pc::testing::FakeOpenAi server(dimension);
  std::printf("%s\n", server.base_url().c_str());
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return 0;
}
