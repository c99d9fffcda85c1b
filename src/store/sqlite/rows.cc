#include "store/sqlite/rows.h"

namespace pc::sqlite {

std::string JoinLines(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back('\n');
    out += items[i];
  }
  return out;
}

std::vector<std::string> SplitLines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

EntryVersion ReadVersion(const Stmt& s, int at) {
  EntryVersion v;
  v.entry_version_id = s.Text(at);
  v.entry_id = s.Text(at + 1);
  v.version = s.Int(at + 2);
  v.previous_version_id = s.OptText(at + 3);
  v.kind = s.Text(at + 4);
  v.text = s.Text(at + 5);
  v.content_hash = s.Text(at + 6);
  v.source_refs = SplitLines(s.Text(at + 7));
  v.created_by_revision = s.Int(at + 8);
  v.reason = s.Text(at + 9);
  v.created_at_ms = s.Int(at + 10);
  return v;
}

ManifestItem ReadManifestItem(const Stmt& s) {
  return ManifestItem{ReadVersion(s, 1), s.Int(0) != 0};
}

}  // namespace pc::sqlite
