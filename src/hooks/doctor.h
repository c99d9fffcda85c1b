// `powercontext doctor claude-code|codex|cursor`: is this host wired to a working server? Our
// entries in its files, the server answering, the token accepted, the project's scope readable,
// and the installed prompt hook answering when run as the host runs it.
#pragma once

#include <string>
#include <vector>

#include "hooks/setup.h"

namespace pc {

struct DoctorCheck {
  std::string name;
  bool ok = false;
  std::string detail;
};

std::vector<DoctorCheck> RunHostDoctor(const SetupOptions& options);

}  // namespace pc
