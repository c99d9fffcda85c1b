#include "context/builder.h"

#include "common/utf8.h"

namespace pc {
namespace {

constexpr const char* kHeader =
    "# Prepared context: untrusted history\n"
    "Recalled from earlier sessions of this scope. It may be outdated or wrong: check it against\n"
    "the current code and state before relying on it. Cite an item by the reference after it.\n";

struct Picked {
  const ContextCandidate* candidate;
  std::string text;  // as included
  bool cut;
};

std::string Render(const std::vector<Picked>& picked) {
  std::string out = kHeader;
  const char* sections[] = {"\n## Handoff (latest)\n", "\n## Memory\n", "\n## Experience (past work records)\n"};
  for (int type = 0; type < 3; ++type) {
    bool any = false;
    int n = 0;
    for (const Picked& p : picked) {
      if (static_cast<int>(p.candidate->type) != type) continue;
      if (!any) out += sections[type];
      any = true;
      ++n;
      out += "\n[" + std::string(type == 0 ? "H" : type == 1 ? "M" : "X") + std::to_string(n) + "] " +
             p.candidate->ref;
      if (!p.candidate->label.empty()) out += " (" + p.candidate->label + ")";
      out += "\n" + p.text + "\n";
    }
  }
  return out;
}

// Case- and white-space-folded text, for near-duplicate checks.
std::string Folded(const std::string& text) {
  auto folded = NormalizeNfkcCasefold(text);
  const std::string& s = folded.ok() ? *folded : text;
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

const char* ContextItemTypeName(ContextItemType t) {
  switch (t) {
    case ContextItemType::kHandoff: return "handoff";
    case ContextItemType::kMemory: return "memory";
    case ContextItemType::kExperience: return "experience";
  }
  return "memory";
}

BuiltContext BuildContext(const std::vector<ContextCandidate>& candidates, size_t max_bytes) {
  std::vector<const ContextCandidate*> handoff, memory, experience;
  for (const ContextCandidate& c : candidates) {
    if (c.type == ContextItemType::kHandoff) handoff.push_back(&c);
    else if (c.type == ContextItemType::kMemory) memory.push_back(&c);
    else experience.push_back(&c);
  }
  // Priority: the handoff; memory, leaving room for experience; experience; the rest of memory.
  const size_t reserved = std::min(kMaxExperienceItems, experience.size());
  const size_t first_memory = kMaxContextItems - std::min<size_t>(handoff.size(), 1) - reserved;
  std::vector<const ContextCandidate*> order;
  if (!handoff.empty()) order.push_back(handoff[0]);
  for (size_t i = 0; i < memory.size() && i < first_memory; ++i) order.push_back(memory[i]);
  for (const ContextCandidate* c : experience) order.push_back(c);
  for (size_t i = first_memory; i < memory.size(); ++i) order.push_back(memory[i]);

  std::vector<Picked> picked;
  std::vector<std::string> folded;
  size_t experience_items = 0;
  for (const ContextCandidate* c : order) {
    if (picked.size() >= kMaxContextItems) break;
    if (c->type == ContextItemType::kExperience && experience_items >= kMaxExperienceItems) continue;
    std::string f = Folded(c->text);
    if (f.empty()) continue;
    bool duplicate = false;
    for (const std::string& g : folded)  // said already: equal, or inside a better-ranked item
      duplicate = duplicate || f == g || (f.size() >= 24 && g.find(f) != std::string::npos);
    if (duplicate) continue;
    Picked p{c, CutUtf8(c->text, kMaxItemBytes), c->text.size() > kMaxItemBytes};
    picked.push_back(p);
    size_t size = Render(picked).size();
    if (size > max_bytes) {
      // Cut it to what is left, if enough of it remains to be worth reading.
      size_t over = size - max_bytes;
      if (p.text.size() < over + kMinCutItemBytes + kCutMark.size()) {
        picked.pop_back();
        continue;
      }
      picked.back().text = CutUtf8(c->text, p.text.size() - over);
      picked.back().cut = true;
      if (Render(picked).size() > max_bytes) {  // a character boundary can cost a byte or three
        picked.pop_back();
        continue;
      }
    }
    folded.push_back(std::move(f));
    if (c->type == ContextItemType::kExperience) ++experience_items;
  }
  BuiltContext out;
  if (picked.empty()) return out;
  out.content = Render(picked);
  for (int type = 0; type < 3; ++type)  // in the content's order
    for (const Picked& p : picked)
      if (static_cast<int>(p.candidate->type) == type)
        out.items.push_back({p.candidate->type, p.candidate->ref, p.text.size(), p.candidate->score, p.cut});
  return out;
}

}  // namespace pc
