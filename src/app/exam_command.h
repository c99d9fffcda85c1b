// `powercontext exam run` (exam/exam.h, docs/exam.md): the memory exam against a server's scope.
#pragma once

#include <vector>

#include "app/config_command.h"

namespace pc {

using ExamCommand = ConfigCommand;

std::vector<ExamCommand> AddExamCommands(CLI::App& app);

}  // namespace pc
