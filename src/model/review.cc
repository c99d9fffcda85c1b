#include "model/review.h"

namespace pc {

const char* CandidateStatusName(CandidateStatus s) {
  switch (s) {
    case CandidateStatus::kApproved:
      return "approved";
    case CandidateStatus::kRejected:
      return "rejected";
    case CandidateStatus::kPending:
      break;
  }
  return "pending";
}

std::optional<CandidateStatus> CandidateStatusFrom(const std::string& name) {
  if (name == "pending") return CandidateStatus::kPending;
  if (name == "approved") return CandidateStatus::kApproved;
  if (name == "rejected") return CandidateStatus::kRejected;
  return std::nullopt;
}

std::string ExperienceText(const ExperienceContent& c) {
  return "Situation: " + c.situation + "\nAction: " + c.action + "\nOutcome: " + c.outcome +
         "\nLesson: " + c.lesson;
}

}  // namespace pc
