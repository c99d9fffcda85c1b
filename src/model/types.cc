#include "model/types.h"

namespace pc {

const char* ChangeOpName(ChangeOp op) {
  switch (op) {
    case ChangeOp::kAdd: return "add";
    case ChangeOp::kRevise: return "revise";
    case ChangeOp::kRetire: return "retire";
  }
  return "add";
}

}  // namespace pc
