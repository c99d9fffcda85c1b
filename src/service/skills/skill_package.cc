#include "service/skills/skill_package.h"

#include <yaml.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "common/bounded_read.h"
#include "common/sha256.h"
#include "common/utf8.h"
#include "model/text_check.h"

namespace pc {
namespace {

namespace fs = std::filesystem;

// The text between the opening `---` line and the closing one, or nothing.
std::optional<std::string_view> FrontMatterText(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a byte-order mark
  auto line_end = [&](size_t from) {
    size_t nl = text.find('\n', from);
    return nl == std::string_view::npos ? text.size() : nl;
  };
  auto is_fence = [&](size_t from, size_t to) {
    std::string_view line = text.substr(from, to - from);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    return line == "---";
  };
  size_t end = line_end(0);
  if (!is_fence(0, end) || end == text.size()) return std::nullopt;
  const size_t body = end + 1;
  for (size_t at = body; at < text.size();) {
    size_t e = line_end(at);
    if (is_fence(at, e)) return text.substr(body, at - body);
    at = e + 1;
  }
  return std::nullopt;
}

struct ParserDeleter {
  void operator()(yaml_parser_t* p) const {
    yaml_parser_delete(p);
    delete p;
  }
};
struct DocumentDeleter {
  void operator()(yaml_document_t* d) const {
    yaml_document_delete(d);
    delete d;
  }
};

Status Bad(const std::string& why) {
  return InvalidArgument(std::string(kSkillFileName) + ": " + why);
}

}  // namespace

Status CheckSpecLine(std::string_view key, std::string_view value, size_t max_chars) {
  Status s = CheckOneLineText(key, value, max_chars);
  if (s.ok()) return s;
  if (s.message().find(" spans lines") != std::string::npos)
    return Bad(std::string(key) + " spans lines (fold it with '>' or write it on one line)");
  return Bad(s.message());
}

Result<SkillFrontMatter> ParseSkillFrontMatter(std::string_view text) {
  std::optional<std::string_view> yaml = FrontMatterText(text);
  if (!yaml) return Bad("no front matter (a first line ---, the YAML, a line ---)");
  // libyaml compares each anchor with every earlier one: a bounded document bounds that too.
  if (yaml->size() > kMaxFrontMatterBytes)
    return Bad("the front matter is larger than " + std::to_string(kMaxFrontMatterBytes >> 10) +
               " KiB");
  std::unique_ptr<yaml_parser_t, ParserDeleter> parser(new yaml_parser_t);
  if (!yaml_parser_initialize(parser.get())) return Internal("libyaml: out of memory");
  yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char*>(yaml->data()),
                               yaml->size());
  std::unique_ptr<yaml_document_t, DocumentDeleter> doc(new yaml_document_t);
  if (!yaml_parser_load(parser.get(), doc.get())) {
    delete doc.release();  // nothing was loaded: nothing to free inside it
    const yaml_parser_t& p = *parser;
    return Bad("the front matter is not YAML: " + std::string(p.problem ? p.problem : "error") +
               " at line " + std::to_string(p.problem_mark.line + 2));
  }
  yaml_node_t* root = yaml_document_get_root_node(doc.get());
  if (!root || root->type != YAML_MAPPING_NODE) return Bad("the front matter is not a mapping");
  std::optional<std::string> name, description;
  for (yaml_node_pair_t* pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top;
       ++pair) {
    yaml_node_t* key = yaml_document_get_node(doc.get(), pair->key);
    yaml_node_t* value = yaml_document_get_node(doc.get(), pair->value);
    if (!key || key->type != YAML_SCALAR_NODE) continue;
    std::string k(reinterpret_cast<const char*>(key->data.scalar.value), key->data.scalar.length);
    if (k != "name" && k != "description") continue;
    if (!value || value->type != YAML_SCALAR_NODE) return Bad(k + " is not a string");
    std::string v(reinterpret_cast<const char*>(value->data.scalar.value),
                  value->data.scalar.length);
    // A folded block ends with a line break ('>' keeps one): that one is not part of the text.
    while (!v.empty() && v.back() == '\n') v.pop_back();
    (k == "name" ? name : description) = std::move(v);
  }
  if (!name) return Bad("the front matter has no name");
  if (!description) return Bad("the front matter has no description");
  PC_RETURN_IF_ERROR(CheckSpecLine("name", *name, kMaxSkillNameChars));
  PC_RETURN_IF_ERROR(CheckSpecLine("description", *description, kMaxSkillDescriptionChars));
  return SkillFrontMatter{std::move(*name), std::move(*description)};
}

Result<std::string> PackageFingerprint(const std::string& dir) {
  struct Item {
    std::string rel;
    fs::path path;
    char type;
  };
  std::vector<Item> items;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) return InvalidArgument(dir + ": cannot read the package: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return InvalidArgument(dir + ": cannot read the package: " + ec.message());
    if (items.size() >= kMaxPackageFiles)
      return Status(Code::kTooLarge, dir + ": the package has more than " +
                                         std::to_string(kMaxPackageFiles) + " entries");
    fs::file_status st = it->symlink_status(ec);
    if (ec) return InvalidArgument(dir + ": cannot read the package: " + ec.message());
    char type = fs::is_symlink(st)        ? 'l'
                : fs::is_directory(st)    ? 'd'
                : fs::is_regular_file(st) ? 'f'
                                          : '?';
    std::string rel = it->path().lexically_relative(dir).generic_string();
    if (type == '?')
      return InvalidArgument(dir + ": " + rel + " is neither a file nor a directory");
    items.push_back({std::move(rel), it->path(), type});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.rel < b.rel; });
  Sha256Stream hash;
  uint64_t bytes = 0;
  for (const Item& item : items) {
    hash.Add(std::string(1, item.type));
    hash.Add(item.rel);
    hash.Add(std::string_view("\0", 1));
    if (item.type == 'd') continue;
    std::string content;
    if (item.type == 'l') {
      content = fs::read_symlink(item.path, ec).string();
      if (ec) return InvalidArgument(dir + ": " + item.rel + ": " + ec.message());
    } else {
      // Opened without following a link and without blocking: what the walk saw as a file may
      // have become a FIFO or a link since (the package is anyone's to change meanwhile).
      Result<std::string> read =
          ReadBoundedFile(item.path.string(), kMaxPackageBytes - bytes, FollowLinks::kNo);
      if (!read.ok() && read.status().code() == Code::kTooLarge)
        return Status(Code::kTooLarge, dir + ": the package's files are larger than " +
                                           std::to_string(kMaxPackageBytes >> 20) +
                                           " MiB together");
      if (!read.ok()) return read.status();
      content = std::move(*read);
      bytes += content.size();
    }
    hash.Add(std::to_string(content.size()));
    hash.Add(std::string_view("\0", 1));
    hash.Add(content);
  }
  return hash.FinishHex();
}

}  // namespace pc
