// MemoryBank for bench/recall.cc (docs/quality.md, "MemoryBank recall"): each person's ten days
// of dialogue remembered utterance by utterance, in order and dated, in the person's own scope;
// the probing questions, labelled by bench/memorybank_labels.py, as the queries.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "recall.h"

namespace pc {
namespace {

using nlohmann::json;

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << "cannot read " << path << "\n";
    std::exit(2);
  }
  return json::parse(in);
}

// The utterance with the day it was said ("2023-04-28"), written first as the language writes a
// date: "April 28, 2023: …", "2023年4月28日：…". The API has no date for an entry (no valid_from,
// no metadata), so the date goes in the text; docs/quality.md measures this choice against ISO
// dates and none.
std::string Dated(const std::string& lang, const std::string& date, const std::string& utterance) {
  static const char* const kMonths[] = {"January",   "February", "March",    "April",
                                        "May",       "June",     "July",     "August",
                                        "September", "October",  "November", "December"};
  const std::string year = date.substr(0, 4);
  const int month = std::stoi(date.substr(5, 2)), day = std::stoi(date.substr(8, 2));
  if (lang == "zh")
    return year + "年" + std::to_string(month) + "月" + std::to_string(day) + "日：" + utterance;
  return std::string(kMonths[month - 1]) + " " + std::to_string(day) + ", " + year + ": " +
         utterance;
}

// Who says what in a turn of the data, in the order said: the role as the labels name it, the
// field.
constexpr std::pair<const char*, const char*> kSpeakers[] = {{"user", "query"},
                                                             {"assistant", "response"}};

// Remembers a person's history in order (days in date order; each turn the user's query, then
// the assistant's response) as "PREFIX" + "DATE#TURN/user" or "…/assistant", the ids the labels
// use.
void RememberHistory(MemoryService& memory, const std::string& scope, const std::string& lang,
                     const std::string& prefix, const json& history, Corpus& corpus,
                     std::set<std::string>& remembered) {
  for (const auto& [date, turns] : history.items()) {  // an object's keys iterate sorted: by date
    for (size_t i = 0; i < turns.size(); ++i) {
      for (const auto& [role, field] : kSpeakers) {
        const std::string id = prefix + date + "#" + std::to_string(i) + "/" + role;
        RememberAs(memory, scope, Dated(lang, date, turns[i].at(field).get<std::string>()), id,
                   corpus);
        remembered.insert(id);
      }
    }
  }
}

}  // namespace

Corpus LoadMemoryBank(MemoryService& memory, const std::string& lang, const std::string& data,
                      const std::string& labels_path) {
  const json labels = ReadJson(labels_path);
  const json bank = ReadJson(data + "/memory_bank_" + (lang == "zh" ? "cn" : "en") + ".json");
  Corpus corpus;
  std::vector<std::string> scopes;
  std::set<std::string> remembered;
  for (const json& person : labels.at("persons")) {
    const std::string index = std::to_string(scopes.size()), prefix = index + "/";
    scopes.push_back(NewScope(memory, "memorybank:" + lang + ":person" + index));
    const json& history = bank.at(person.at("key").at(lang).get<std::string>()).at("history");
    RememberHistory(memory, scopes.back(), lang, prefix, history, corpus, remembered);
  }
  for (const json& q : labels.at("questions")) {
    const size_t person = q.at("person").get<size_t>();
    RecallQuery query{scopes.at(person), q.at("text").at(lang), q.at("split"), {}};
    for (const json& utterance : q.at("relevant")) {
      query.relevant.push_back(std::to_string(person) + "/" + utterance.get<std::string>());
      if (!remembered.count(query.relevant.back())) {
        std::cerr << labels_path << " names " << query.relevant.back()
                  << ", which the data does not have: run bench/memorybank_labels.py\n";
        std::exit(2);
      }
    }
    corpus.queries.push_back(std::move(query));
  }
  return corpus;
}

}  // namespace pc
