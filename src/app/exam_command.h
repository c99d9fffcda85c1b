// `powercontext exam run` (exam/exam.h, docs/exam.md): the memory exam against a server's scope.
#pragma once

#include <functional>
#include <vector>

#include "app/config.h"

namespace CLI {
class App;
}

namespace pc {

struct ExamCommand {
  CLI::App* sub = nullptr;  // parsed when *sub is true
  std::function<int(const Config& config, bool json)> run;
};

std::vector<ExamCommand> AddExamCommands(CLI::App& app);

}  // namespace pc
