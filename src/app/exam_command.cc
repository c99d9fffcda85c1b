// `powercontext exam run --scope S --exam FILE|sample [--load] [--answer-provider none|openai …]`
//
// For each question: the scope's prepared context for the question (POST /v1/context/prepare on
// the server), then, with an answer provider, the model's answer from that context only, graded
// and attributed (exam/exam.h). Without one, the retrieval half: whether each question's facts
// reached the context, per category. --load first writes the exam's own memory into the scope
// (remember is idempotent: a second run changes nothing).
#include "app/exam_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "client/api_client.h"
#include "common/bounded_read.h"
#include "exam/exam.h"
#include "providers/openai_chat_extractor.h"

namespace pc {
namespace {

struct ExamOpts {
  std::string scope, exam = "sample", provider = "none", base_url, model, api_key;
  int64_t max_bytes = 8000;
  int timeout_seconds = 120;
  bool load = false;
};

// What the answering model is told: the context is all it knows; refuse what it does not say;
// correct false premises from it.
constexpr const char* kAnswerInstructions =
    "You answer questions about a project from its memory, given below as a prepared context "
    "block. "
    "Use only that context. If the context does not contain the answer, say plainly that it is not "
    "stored in memory (in the question's language: \"not stored\" / \"没有存过\") and do not "
    "guess. "
    "If the question states something the context contradicts, say so and give what the context "
    "says. "
    "Say who decided something (the user or the agent) when the context says it. Answer briefly, "
    "in the "
    "language of the question.";

// An exam is questions and a little memory: the sample is 14 KiB; 16 MiB is far past any real one.
constexpr size_t kMaxExamBytes = 16u << 20;

Result<std::string> ReadExam(const std::string& name) {
  if (name == "sample") return exam::SampleExamJson();
  auto text = ReadBoundedFile(name, kMaxExamBytes, FollowLinks::kYes);
  if (!text.ok())
    return Status(text.status().code(), "the exam file " + text.status().message())
        .WithDetail("file", name);
  return text;
}

Status Load(ApiClient& api, const std::string& scope, const exam::Exam& e) {
  for (const exam::MemoryItem& m : e.memory) {
    Json body{{"scope_id", scope},
              {"kind", m.kind},
              {"text", m.text},
              {"actor", "exam"},
              {"reason", "memory exam " + e.name + " " + m.id}};
    if (!m.evidence.empty()) body["evidence"] = m.evidence;
    PC_RETURN_IF_ERROR(api.Post("/v1/memory/remember", body).status());
  }
  return Status::Ok();
}

int Run(const ExamOpts& o, const Config& config, bool json) {
  Result<std::string> text = ReadExam(o.exam);
  if (!text.ok()) return ReportError(text.status());
  Result<exam::Exam> parsed = exam::ParseExam(*text);
  if (!parsed.ok()) return ReportError(parsed.status());
  const exam::Exam& e = *parsed;
  std::unique_ptr<OpenAiChatExtractor> model;
  if (o.provider == "openai") {
    OpenAiChatOptions options;
    options.base_url = o.base_url.empty() ? config.extract_base_url : o.base_url;
    options.model = o.model.empty() ? config.extract_model : o.model;
    options.api_key = o.api_key.empty() ? config.extract_api_key : o.api_key;
    options.timeout_seconds = o.timeout_seconds;
    auto made = OpenAiChatExtractor::Create(options);
    if (!made.ok()) return ReportError(made.status());
    model = std::move(made).value();
  } else if (o.provider != "none") {
    return ReportError(InvalidArgument("--answer-provider must be none or openai"));
  }
  ApiClient api(config.server);
  if (o.load) {
    if (e.memory.empty())
      return ReportError(InvalidArgument("--load: the exam has no memory section"));
    if (Status s = Load(api, o.scope, e); !s.ok()) return ReportError(s);
  }
  std::vector<exam::QuestionResult> results;
  for (const exam::Question& q : e.questions) {
    Result<Json> prepared =
        api.Post("/v1/context/prepare",
                 Json{{"scope_id", o.scope}, {"query", q.question}, {"max_bytes", o.max_bytes}});
    if (!prepared.ok()) return ReportError(prepared.status());
    const std::string context =
        (*prepared)["content"].is_string() ? (*prepared)["content"].get<std::string>() : "";
    std::optional<std::string> answer;
    if (model) {
      ExtractionRequest request;
      request.prompt_version = "exam_answer_v1";
      request.instructions = kAnswerInstructions;
      request.input_json =
          (context.empty() ? std::string("(the memory has nothing for this question)") : context) +
          "\n\nQuestion: " + q.question;
      Result<std::string> a = model->Extract(request);
      if (!a.ok()) return ReportError(a.status());
      answer = *a;
    }
    results.push_back(exam::Score(q, context, answer));
  }
  exam::Report report = exam::Summarize(e, std::move(results), model != nullptr);
  std::cout << (json ? exam::ReportJson(e, report) + "\n" : exam::ReportTable(report));
  return !model || report.passed ? 0 : 1;
}

}  // namespace

std::vector<ExamCommand> AddExamCommands(CLI::App& app) {
  auto o = std::make_shared<ExamOpts>();
  CLI::App* exam = app.add_subcommand(
      "exam", "the memory exam: is what an agent needs retrieved, and answered right?");
  exam->require_subcommand(1);
  CLI::App* run = exam->add_subcommand(
      "run", "prepare context for each question, answer, grade, attribute each zero");
  run->add_option("--scope,-s,--scope-id", o->scope, "the scope examined")->required();
  run->add_option("--exam", o->exam,
                  "an exam file (docs/exam.md), or sample (the default): the built-in one");
  run->add_flag("--load", o->load, "first write the exam's own memory into the scope (idempotent)");
  run->add_option("--answer-provider", o->provider,
                  "none (the retrieval half only; default) or openai")
      ->envname("POWERCONTEXT_ANSWER_PROVIDER");
  run->add_option("--answer-base-url", o->base_url,
                  "chat endpoint root (default: the extraction provider's)")
      ->envname("POWERCONTEXT_ANSWER_BASE_URL");
  run->add_option("--answer-model", o->model, "chat model (default: the extraction model)")
      ->envname("POWERCONTEXT_ANSWER_MODEL");
  run->add_option("--answer-api-key", o->api_key, "API key (default: the extraction provider's)")
      ->envname("POWERCONTEXT_ANSWER_API_KEY");
  run->add_option("--answer-timeout-seconds", o->timeout_seconds,
                  "longest wait for one answer (default 120)");
  run->add_option("--max-bytes", o->max_bytes,
                  "the prepared context's budget (512-32768, default 8000)");
  return {{run, [o](const Config& config, bool json) { return Run(*o, config, json); }}};
}

}  // namespace pc
