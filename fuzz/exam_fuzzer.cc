// exam/: an exam file and a model's answer, from any bytes (an exam is a file anyone may hand the
// CLI; an answer is what a model said). The first byte splits the input into an exam and an answer.
// Checked: never throws or crashes; a refused exam is InvalidArgument; a parsed one has 1 … n
// questions in CAT1 … CAT10 with distinct ids; every grade is 0, 0.5 or 1 (0.5 only for a list),
// an answer with a forbidden phrase scores 0, and every zero is attributed.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "exam/exam.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pc;
  fuzz::Bytes in(data, size);
  const uint8_t split = in.U8();
  const std::string rest = in.Rest();
  const size_t at = rest.empty() ? 0 : (split * rest.size()) / 255;
  const std::string text = rest.substr(0, at), answer = rest.substr(at);

  Result<exam::Exam> e = exam::ParseExam(text);
  if (!e.ok()) {
    FUZZ_CHECK(e.status().code() == Code::kInvalidArgument, e.status().ToString());
    e = exam::ParseExam(exam::SampleExamJson());
    FUZZ_CHECK(e.ok(), "the sample exam parses");
  }
  FUZZ_CHECK(!e->questions.empty(), fuzz::Printable(text));
  std::set<std::string> ids;
  std::vector<exam::QuestionResult> results;
  for (const exam::Question& q : e->questions) {
    FUZZ_CHECK(q.category >= 1 && q.category <= exam::kCategories, q.id);
    FUZZ_CHECK(ids.insert(q.id).second, q.id);
    exam::QuestionResult r = exam::Score(q, answer, answer);
    const double s = r.graded.score;
    FUZZ_CHECK(s == 0 || s == 1 || (s == 0.5 && q.grading == exam::Grading::kList),
               std::to_string(s));
    if (!r.graded.forbidden.empty()) FUZZ_CHECK(s == 0, fuzz::Printable(answer));
    if (s == 0) FUZZ_CHECK(r.attribution != exam::Attribution::kNone, q.id);
    results.push_back(r);
  }
  exam::Report report = exam::Summarize(*e, std::move(results), true);
  FUZZ_CHECK(report.score >= 0 && report.score <= static_cast<double>(e->questions.size()),
             "score in range");
  (void)exam::ReportTable(report);
  (void)exam::ReportJson(*e, report);
  return 0;
}
