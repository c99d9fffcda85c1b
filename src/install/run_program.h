// Runs a program found on PATH and collects what it prints, for the few tools PowerContext drives
// (systemctl): no shell, standard input from /dev/null, killed when it overruns its time.
#pragma once

#include <string>
#include <vector>

namespace pc {

struct ProgramRun {
  bool started = false;  // false: not on PATH, or not executable
  bool timed_out = false;
  int exit_code = -1;  // -1 when it did not exit by itself
  std::string output;  // standard output and error, interleaved as written
};

ProgramRun RunProgram(const std::vector<std::string>& argv, int timeout_seconds);

}  // namespace pc
