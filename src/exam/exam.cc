#include "exam/exam.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/json_parse.h"
#include "common/utf8.h"
#include "exam/generated_sample.h"

namespace pc::exam {
namespace {

using nlohmann::json;

Status Bad(const std::string& field, const std::string& message) {
  return FieldError(field, field + ": " + message);
}

Result<std::string> Text(const json& j, const char* name, const std::string& at,
                         bool required = true) {
  if (!j.contains(name)) {
    if (!required) return std::string();
    return Bad(at + name, "is required");
  }
  if (!j[name].is_string() || j[name].get<std::string>().empty())
    return Bad(at + name, "must be a non-empty string");
  return j[name].get<std::string>();
}

Result<std::vector<std::string>> Strings(const json& j, const char* name, const std::string& at) {
  std::vector<std::string> out;
  if (!j.contains(name)) return out;
  if (!j[name].is_array()) return Bad(at + name, "must be an array of strings");
  for (const json& s : j[name]) {
    if (!s.is_string() || s.get<std::string>().empty())
      return Bad(at + name, "must hold non-empty strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

Status Only(const json& j, const std::string& at, std::initializer_list<const char*> allowed) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = it.key();
    if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }))
      return Bad(at + key, "unknown field");
  }
  return Status::Ok();
}

bool AnyOf(const std::string& folded_answer, const Alternatives& a) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& p) {
    return FoldedContains(folded_answer, FoldForMatch(p));
  });
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v == static_cast<int>(v) ? "%.0f" : "%.1f", v);
  return buf;
}

}  // namespace

const char* AttributionName(Attribution a) {
  switch (a) {
    case Attribution::kRetrievalFailure:
      return "RETRIEVAL_FAILURE";
    case Attribution::kGenerationFailure:
      return "GENERATION_FAILURE";
    case Attribution::kNone:
      break;
  }
  return "";
}

namespace {

Result<std::vector<MemoryItem>> ParseMemoryItems(const json& j) {
  std::vector<MemoryItem> out;
  if (!j.contains("memory")) return out;
  if (!j["memory"].is_array()) return Bad("memory", "must be an array");
  for (size_t i = 0; i < j["memory"].size(); ++i) {
    const json& m = j["memory"][i];
    const std::string at = "memory[" + std::to_string(i) + "].";
    if (!m.is_object()) return Bad(at, "must be an object");
    PC_RETURN_IF_ERROR(Only(m, at, {"id", "kind", "text", "evidence"}));
    MemoryItem item;
    PC_ASSIGN_OR_RETURN(item.id, Text(m, "id", at));
    PC_ASSIGN_OR_RETURN(item.kind, Text(m, "kind", at));
    PC_ASSIGN_OR_RETURN(item.text, Text(m, "text", at));
    PC_ASSIGN_OR_RETURN(item.evidence, Strings(m, "evidence", at));
    out.push_back(std::move(item));
  }
  return out;
}

// "CAT1" … "CAT10" as its number.
Result<int> ParseCategory(const std::string& category, const std::string& at) {
  int n = 0;
  if (category.rfind("CAT", 0) != 0 || std::sscanf(category.c_str() + 3, "%d", &n) != 1 || n < 1 ||
      n > kCategories || category != "CAT" + std::to_string(n))
    return Bad(at + "category", "must be CAT1 … CAT10");
  return n;
}

Result<Grading> ParseGrading(const std::string& grading, const std::string& at) {
  if (grading == "exact") return Grading::kExact;
  if (grading == "judgment") return Grading::kJudgment;
  if (grading == "list") return Grading::kList;
  return Bad(at + "grading", "must be exact, judgment or list");
}

// Each assertion: a phrase, or an array of alternative phrases.
Result<std::vector<Alternatives>> ParseAssertions(const json& q, const std::string& at) {
  if (!q.contains("assertions") || !q["assertions"].is_array() || q["assertions"].empty())
    return Bad(at + "assertions",
               "must be a non-empty array (a phrase, or an array of alternative phrases)");
  std::vector<Alternatives> out;
  for (const json& a : q["assertions"]) {
    Alternatives alt;
    if (a.is_string() && !a.get<std::string>().empty())
      alt.push_back(a.get<std::string>());
    else if (a.is_array())
      for (const json& s : a)
        if (s.is_string() && !s.get<std::string>().empty()) alt.push_back(s.get<std::string>());
    if (alt.empty() || (a.is_array() && alt.size() != a.size()))
      return Bad(at + "assertions", "each must be a non-empty phrase or an array of them");
    out.push_back(std::move(alt));
  }
  return out;
}

// A question; its id must not be one of `ids` (the questions before it), and joins them.
Result<Question> ParseQuestion(const json& q, const std::string& at, std::set<std::string>& ids) {
  if (!q.is_object()) return Bad(at, "must be an object");
  PC_RETURN_IF_ERROR(Only(q, at,
                          {"id", "category", "question", "grading", "assertions", "forbidden",
                           "context_must_include", "note"}));
  Question out;
  PC_ASSIGN_OR_RETURN(out.id, Text(q, "id", at));
  if (!ids.insert(out.id).second) return Bad(at + "id", "repeats " + out.id);
  PC_ASSIGN_OR_RETURN(std::string category, Text(q, "category", at));
  PC_ASSIGN_OR_RETURN(out.category, ParseCategory(category, at));
  PC_ASSIGN_OR_RETURN(out.question, Text(q, "question", at));
  PC_ASSIGN_OR_RETURN(std::string grading, Text(q, "grading", at));
  PC_ASSIGN_OR_RETURN(out.grading, ParseGrading(grading, at));
  PC_ASSIGN_OR_RETURN(out.assertions, ParseAssertions(q, at));
  PC_ASSIGN_OR_RETURN(out.forbidden, Strings(q, "forbidden", at));
  PC_ASSIGN_OR_RETURN(out.context_must_include, Strings(q, "context_must_include", at));
  return out;
}

// The pass line: without a pass section, the seed's line scaled to the exam (25 of 31; CAT6 and
// CAT8 each 2 of 3).
Status ParsePass(const json& j, Exam& exam) {
  std::map<int, int> per_category;
  for (const Question& q : exam.questions) ++per_category[q.category];
  const double n = static_cast<double>(exam.questions.size());
  exam.pass.min_score = std::ceil(25.0 / 31.0 * n);
  exam.pass.min_category.clear();
  for (int cat : {6, 8})
    if (per_category.count(cat))
      exam.pass.min_category[cat] = std::ceil(2.0 / 3.0 * per_category[cat]);
  if (!j.contains("pass")) return Status::Ok();
  const json& p = j["pass"];
  if (!p.is_object()) return Bad("pass", "must be an object");
  PC_RETURN_IF_ERROR(Only(p, "pass.", {"min_score", "min_category"}));
  if (p.contains("min_score")) {
    if (!p["min_score"].is_number()) return Bad("pass.min_score", "must be a number");
    exam.pass.min_score = p["min_score"].get<double>();
    if (!(exam.pass.min_score >= 0 && exam.pass.min_score <= n))
      return Bad("pass.min_score", "must be between 0 and the number of questions");
  }
  if (!p.contains("min_category")) return Status::Ok();
  if (!p["min_category"].is_object())
    return Bad("pass.min_category", "must be an object {\"CAT6\": 2, …}");
  exam.pass.min_category.clear();
  for (const auto& [cat, v] : p["min_category"].items()) {
    int c = 0;
    if (std::sscanf(cat.c_str(), "CAT%d", &c) != 1 || c < 1 || c > kCategories || !v.is_number())
      return Bad("pass.min_category." + cat, "must be CATn: number");
    const double min = v.get<double>();
    if (!(min >= 0 && min <= per_category[c]))
      return Bad("pass.min_category." + cat, "must be between 0 and that category's questions");
    exam.pass.min_category[c] = min;
  }
  return Status::Ok();
}

}  // namespace

Result<Exam> ParseExam(const std::string& json_text) {
  Result<json> parsed = ParseJson(json_text);
  if (!parsed.ok()) return InvalidArgument("the exam is not JSON: " + parsed.status().message());
  const json& j = *parsed;
  if (!j.is_object()) return InvalidArgument("the exam must be a JSON object");
  PC_RETURN_IF_ERROR(Only(j, "", {"schema", "name", "memory", "questions", "pass"}));
  if (!j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>() != kExamSchema)
    return Bad("schema", std::string("must be \"") + kExamSchema + "\"");
  Exam exam;
  PC_ASSIGN_OR_RETURN(exam.name, Text(j, "name", ""));
  PC_ASSIGN_OR_RETURN(exam.memory, ParseMemoryItems(j));
  if (!j.contains("questions") || !j["questions"].is_array() || j["questions"].empty())
    return Bad("questions", "must be a non-empty array");
  std::set<std::string> ids;
  for (size_t i = 0; i < j["questions"].size(); ++i) {
    const std::string at = "questions[" + std::to_string(i) + "].";
    PC_ASSIGN_OR_RETURN(Question q, ParseQuestion(j["questions"][i], at, ids));
    exam.questions.push_back(std::move(q));
  }
  PC_RETURN_IF_ERROR(ParsePass(j, exam));
  return exam;
}

const std::string& SampleExamJson() {
  static const std::string kSample = kSampleExam;
  return kSample;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return FoldedContains(FoldForMatch(haystack), FoldForMatch(needle));
}

Graded Grade(const Question& q, const std::string& answer) {
  Graded g;
  const std::string folded = FoldForMatch(answer);
  for (const std::string& f : q.forbidden)
    if (FoldedContains(folded, FoldForMatch(f))) g.forbidden.push_back(f);
  size_t found = 0;
  for (const Alternatives& a : q.assertions) {
    if (AnyOf(folded, a))
      ++found;
    else
      g.missing.push_back(a.front());
  }
  if (!g.forbidden.empty()) return g;  // score 0
  switch (q.grading) {
    case Grading::kExact:
      g.score = found == q.assertions.size() ? 1 : 0;
      break;
    case Grading::kJudgment:
      g.score = found > 0 ? 1 : 0;
      if (found > 0) g.missing.clear();
      break;
    case Grading::kList:
      g.score = found == q.assertions.size() ? 1 : found > 0 ? 0.5 : 0;
      break;
  }
  return g;
}

bool Retrieved(const Question& q, const std::string& context) {
  return std::all_of(q.context_must_include.begin(), q.context_must_include.end(),
                     [&](const std::string& p) { return Contains(context, p); });
}

QuestionResult Score(const Question& q, const std::string& context,
                     const std::optional<std::string>& answer) {
  QuestionResult r;
  r.question = &q;
  r.retrieved = Retrieved(q, context);
  r.context_bytes = context.size();
  if (!answer) {
    r.attribution = r.retrieved ? Attribution::kNone : Attribution::kRetrievalFailure;
    return r;
  }
  r.answered = true;
  r.answer = *answer;
  r.graded = Grade(q, *answer);
  if (r.graded.score == 0)
    r.attribution = r.retrieved ? Attribution::kGenerationFailure : Attribution::kRetrievalFailure;
  return r;
}

Report Summarize(const Exam& exam, std::vector<QuestionResult> results, bool answered) {
  Report r;
  r.results = std::move(results);
  r.answered = answered;
  std::map<int, double> by_category;
  for (const QuestionResult& q : r.results) {
    r.score += q.graded.score;
    by_category[q.question->category] += q.graded.score;
  }
  if (!answered) {
    r.pass_failures.push_back("no answer provider: the retrieval half only, no score");
    return r;
  }
  if (r.score < exam.pass.min_score)
    r.pass_failures.push_back("score " + Num(r.score) + " < " + Num(exam.pass.min_score));
  for (const auto& [cat, min] : exam.pass.min_category)
    if (by_category[cat] < min)
      r.pass_failures.push_back("CAT" + std::to_string(cat) + " " + Num(by_category[cat]) + " < " +
                                Num(min));
  r.passed = r.pass_failures.empty();
  return r;
}

std::string ReportTable(const Report& r) {
  struct Row {
    int questions = 0, retrieved = 0, expecting = 0, retrieval_failures = 0,
        generation_failures = 0;
    double score = 0;
  };
  std::map<int, Row> rows;
  Row total;
  for (const QuestionResult& q : r.results) {
    for (Row* row : {&rows[q.question->category], &total}) {
      ++row->questions;
      row->score += q.graded.score;
      if (!q.question->context_must_include.empty()) {
        ++row->expecting;
        if (q.retrieved) ++row->retrieved;
      }
      if (q.attribution == Attribution::kRetrievalFailure) ++row->retrieval_failures;
      if (q.attribution == Attribution::kGenerationFailure) ++row->generation_failures;
    }
  }
  auto line = [&](const std::string& name, const Row& row) {
    std::string coverage =
        row.expecting ? std::to_string(row.retrieved) + "/" + std::to_string(row.expecting) : "n/a";
    return "| " + name + " | " + std::to_string(row.questions) + " | " + coverage + " | " +
           (r.answered ? Num(row.score) : "-") + " | " + std::to_string(row.retrieval_failures) +
           " | " + (r.answered ? std::to_string(row.generation_failures) : "-") + " |\n";
  };
  std::string out =
      "| category | questions | facts in context | score | RETRIEVAL_FAILURE | GENERATION_FAILURE "
      "|\n"
      "|---|---|---|---|---|---|\n";
  for (const auto& [cat, row] : rows) out += line("CAT" + std::to_string(cat), row);
  out += line("total", total);
  out += "\n";
  for (const QuestionResult& q : r.results) {
    if (q.attribution == Attribution::kNone) continue;
    out += q.question->id + " (CAT" + std::to_string(q.question->category) + ") " +
           AttributionName(q.attribution);
    if (!q.graded.missing.empty()) out += "; missing: " + q.graded.missing.front();
    if (!q.graded.forbidden.empty()) out += "; forbidden: " + q.graded.forbidden.front();
    out += "\n";
  }
  if (r.answered) {
    out += "\nscore " + Num(r.score) + "/" + std::to_string(r.results.size()) + ": " +
           (r.passed ? "PASS" : "FAIL");
    for (const std::string& f : r.pass_failures) out += "; " + f;
    out += "\n";
  } else {
    out += "\nretrieval only (no answer provider): facts in context for " +
           std::to_string(total.retrieved) + " of " + std::to_string(total.expecting) +
           " questions that expect some\n";
  }
  return out;
}

std::string ReportJson(const Exam& exam, const Report& r) {
  json questions = json::array();
  std::map<int, json> categories;
  for (const QuestionResult& q : r.results) {
    json item{
        {"id", q.question->id},
        {"category", "CAT" + std::to_string(q.question->category)},
        {"retrieved", q.retrieved},
        {"context_bytes", q.context_bytes},
        {"attribution",
         q.attribution == Attribution::kNone ? json() : json(AttributionName(q.attribution))}};
    if (r.answered) {
      item["score"] = q.graded.score;
      item["answer"] = q.answer;
      item["missing"] = q.graded.missing;
      item["forbidden_found"] = q.graded.forbidden;
    }
    questions.push_back(std::move(item));
    json& c = categories[q.question->category];
    if (c.is_null())
      c = json{{"category", "CAT" + std::to_string(q.question->category)},
               {"questions", 0},
               {"score", 0.0},
               {"retrieved", 0},
               {"retrieval_failures", 0},
               {"generation_failures", 0}};
    c["questions"] = c["questions"].get<int>() + 1;
    c["score"] = c["score"].get<double>() + q.graded.score;
    if (q.retrieved && !q.question->context_must_include.empty())
      c["retrieved"] = c["retrieved"].get<int>() + 1;
    if (q.attribution == Attribution::kRetrievalFailure)
      c["retrieval_failures"] = c["retrieval_failures"].get<int>() + 1;
    if (q.attribution == Attribution::kGenerationFailure)
      c["generation_failures"] = c["generation_failures"].get<int>() + 1;
  }
  json cats = json::array();
  for (auto& [n, c] : categories) cats.push_back(std::move(c));
  return json{{"exam", exam.name},
              {"answered", r.answered},
              {"score", r.answered ? json(r.score) : json()},
              {"out_of", r.results.size()},
              {"passed", r.answered ? json(r.passed) : json()},
              {"pass_failures", r.pass_failures},
              {"categories", cats},
              {"questions", questions}}
      .dump(2, ' ', false, json::error_handler_t::replace);  // a model's answer may be any bytes
}

}  // namespace pc::exam
