// JSON Lines files (one JSON value a line), as the benches' data sets come.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pc {

// Every line of `path` that is not blank, parsed (nlohmann's exception on one that is not JSON); a
// file that cannot be opened reads as no lines.
inline std::vector<nlohmann::json> ReadJsonLines(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r\n") != std::string::npos)
      out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace pc
