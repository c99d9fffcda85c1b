// The memory exam (seed 003; docs/exam.md): the read side's regression test. An exam is a set of
// questions in ten categories (CAT1 single-hop recall … CAT10 memory-driven behaviour), each graded
// exact / judgment / list against assertions and forbidden phrases. Every zero is attributed:
// RETRIEVAL_FAILURE when the fact's text was not in the prepared context the answer was given,
// GENERATION_FAILURE when it was and the answer still failed. Pure: parsing, grading, the report;
// the runner (cli/exam_command.cc) prepares context and asks the model.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace pc::exam {

inline constexpr const char* kExamSchema = "powercontext.memory-exam.v1";
inline constexpr int kCategories = 10;  // CAT1 … CAT10

enum class Grading { kExact, kJudgment, kList };

// One assertion: the answer must contain one of these phrases (alternatives, e.g. "48 days" /
// "48天").
using Alternatives = std::vector<std::string>;

struct Question {
  std::string id;
  int category = 1;  // 1 … 10
  std::string question;
  Grading grading = Grading::kExact;
  std::vector<Alternatives> assertions;  // exact: all; judgment: any one; list: each an item
  std::vector<std::string> forbidden;    // any one of them: score 0
  // Phrases the prepared context must contain for the facts to count as retrieved (the
  // attribution); empty: nothing to retrieve (a refusal question).
  std::vector<std::string> context_must_include;
};

struct MemoryItem {
  std::string id, kind, text;
  std::vector<std::string> evidence;
};

struct PassLine {
  double min_score = 25;  // of 31
  std::map<int, double> min_category = {{6, 2}, {8, 2}};
};

struct Exam {
  std::string name;
  std::vector<MemoryItem> memory;  // optional: the sample memory `--load` writes first
  std::vector<Question> questions;
  PassLine pass;
};

// Parses and checks an exam document: InvalidArgument naming the field (questions[3].grading).
Result<Exam> ParseExam(const std::string& json_text);
// The sample exam (exams/sample.json, compiled in): 31 questions in Chinese and English over a
// sample memory of a fictional project.
const std::string& SampleExamJson();

enum class Attribution { kNone, kRetrievalFailure, kGenerationFailure };
const char* AttributionName(Attribution a);

struct Graded {
  double score = 0;                    // 0, 0.5 (list, partly) or 1
  std::vector<std::string> missing;    // assertions not found (their first alternative)
  std::vector<std::string> forbidden;  // forbidden phrases found
};

// Case-, width- and space-insensitive phrase containment (NFKC case folding).
bool Contains(const std::string& haystack, const std::string& needle);
Graded Grade(const Question& q, const std::string& answer);
// Whether every context_must_include phrase is in the prepared context.
bool Retrieved(const Question& q, const std::string& context);

struct QuestionResult {
  const Question* question = nullptr;
  bool retrieved = false;
  bool answered = false;  // false: no answer provider (the retrieval half only)
  std::string answer;
  Graded graded;
  Attribution attribution = Attribution::kNone;  // set for every zero
  size_t context_bytes = 0;
};

QuestionResult Score(const Question& q, const std::string& context,
                     const std::optional<std::string>& answer);

struct Report {
  std::vector<QuestionResult> results;
  bool answered = false;
  double score = 0;
  bool passed = false;
  std::vector<std::string> pass_failures;  // why not, e.g. "CAT6 1.0 < 2"
};

Report Summarize(const Exam& exam, std::vector<QuestionResult> results, bool answered);
std::string ReportTable(const Report& r);
std::string ReportJson(const Exam& exam, const Report& r);

}  // namespace pc::exam
