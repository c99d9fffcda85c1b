// Small helpers the benchmark programs share: timing, percentiles, a scratch directory, flags.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace pc {

inline double MillisSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

// The p-th percentile (0 < p ≤ 1) by the nearest-rank method.
inline double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

// A fresh directory under the system temp dir (the caller removes it).
inline std::string ScratchDir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  return mkdtemp(tmpl.data());
}

// Starts a program (argv[0] is its path) with its output discarded, and its standard input from
// `stdin_fd` when one is given; the caller waits for it.
inline pid_t SpawnQuiet(std::vector<std::string> args, int stdin_fd = -1) {
  pid_t pid = fork();
  if (pid == 0) {
    if (stdin_fd >= 0) dup2(stdin_fd, 0);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Resident memory of a process, from /proc (kB): VmRSS now, VmHWM the peak.
inline std::pair<int64_t, int64_t> ResidentKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  int64_t rss = 0, hwm = 0;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) rss = std::stoll(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) hwm = std::stoll(line.substr(6));
  }
  return {rss, hwm};
}

// A `--name value` option of a bench, read into an int or a string.
struct Flag {
  const char* name;  // "--requests"
  std::variant<int*, std::string*> value;
};

// Reads argv's `--name value` pairs into the flags' values (an int as std::stoi reads it). Anything
// else, or a name without its value, prints `usage` to stderr and returns false.
inline bool ParseFlags(int argc, char** argv, const std::vector<Flag>& flags, const char* usage) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const Flag* flag = nullptr;
    for (const Flag& f : flags)
      if (a == f.name) flag = &f;
    if (!flag || i + 1 >= argc) {
      std::fputs(usage, stderr);
      return false;
    }
    const char* value = argv[++i];
    if (int* const* n = std::get_if<int*>(&flag->value))
      **n = std::stoi(value);
    else
      *std::get<std::string*>(flag->value) = value;
  }
  return true;
}

}  // namespace pc
