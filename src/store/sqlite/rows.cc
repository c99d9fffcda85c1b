#include "store/sqlite/rows.h"

namespace pc::sqlite {

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
  if (!s.IsNull(at + 11)) v.valid_until_ms = s.Int(at + 11);
  return v;
}

ManifestItem ReadManifestItem(const Stmt& s) {
  return ManifestItem{ReadVersion(s, 1), s.Int(0) != 0};
}

}  // namespace pc::sqlite
