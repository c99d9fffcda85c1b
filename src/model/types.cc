#include "model/types.h"

#include <string>

namespace pc {

const char* ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kAdd: return "add";
    case ChangeOp::kRevise: return "revise";
    case ChangeOp::kRetire: return "retire";
  }
  return "add";
}

std::string SourceRef(const Source& s) {
  return "source/" + s.source_id + "@" + std::to_string(s.position);
}

}  // namespace pc
