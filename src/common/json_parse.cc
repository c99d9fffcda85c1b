#include "common/json_parse.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "common/utf8.h"

namespace pc {
using Json = nlohmann::json;

namespace {

// Thrown from the handler to stop at once; caught in ParseJson.
struct Refused {
  Code code;
  std::string message;
};

// Builds the value as nlohmann's own DOM parser does (a stack of the open arrays and objects, each
// value put into the innermost), and refuses what ParseJson refuses as it goes. Every step is O(1)
// but a key's insertion, O(log n) in its object's size.
class Builder {
 public:
  Builder(Json& root, const JsonLimits& limits) : root_(root), limits_(limits) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool v) { return Put(v); }
  bool number_integer(Json::number_integer_t v) { return Put(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return Put(v); }
  bool number_float(Json::number_float_t v, const std::string&) { return Put(v); }
  bool string(std::string& v) { return Put(std::move(v)); }
  bool binary(Json::binary_t&) {
    throw Refused{Code::kInvalidArgument, "binary values are not JSON"};
  }

  bool start_object(std::size_t) { return Open(Json::value_t::object); }
  bool start_array(std::size_t) { return Open(Json::value_t::array); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& k) {
    auto& members = open_.back()->get_ref<Json::object_t&>();
    auto [it, inserted] = members.emplace(std::move(k), nullptr);
    if (!inserted)
      throw Refused{Code::kInvalidArgument, "duplicate key \"" + it->first + "\" in a JSON object"};
    slot_ = &it->second;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    throw e;
  }

 private:
  Json* Put(Json&& v) {
    if (++values_ > limits_.max_values)
      throw Refused{Code::kTooLarge,
                    "JSON holds more than " + std::to_string(limits_.max_values) + " values"};
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& inner = *open_.back();
    if (inner.is_array()) {
      auto& elements = inner.get_ref<Json::array_t&>();
      elements.push_back(std::move(v));
      return &elements.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  bool Open(Json::value_t type) {
    if (static_cast<int>(open_.size()) >= limits_.max_depth)
      throw Refused{Code::kInvalidArgument, "JSON is nested more than " +
                                                std::to_string(limits_.max_depth) + " levels deep"};
    open_.push_back(Put(Json(type)));
    return true;
  }
  bool Close() {
    open_.pop_back();
    return true;
  }

  Json& root_;
  const JsonLimits& limits_;
  std::vector<Json*> open_;  // the open arrays and objects, innermost last (pointers stay valid:
                             // only the innermost grows)
  Json* slot_ = nullptr;     // where the value after the last key goes
  size_t values_ = 0;
};

// Counts the top-level array's elements; builds nothing.
class Counter : public nlohmann::json_sax<Json> {
 public:
  size_t count = 0;
  bool top_is_array = false;
  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(false); }
  bool start_array(std::size_t) override { return Open(true); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }
  bool key(string_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Value() {
    if (depth_ == 1 && top_is_array) ++count;
    return true;
  }
  bool Open(bool array) {
    if (depth_ == 0) top_is_array = array;
    Value();
    // Deep nesting costs nothing here (no recursion), but nothing deeper is worth walking.
    return ++depth_ <= kMaxJsonDepth;
  }
  bool Close() {
    --depth_;
    return true;
  }
  int depth_ = 0;
};

}  // namespace

Result<Json> ParseJson(std::string_view text, const JsonLimits& limits) {
  try {
    Json root;
    Builder builder(root, limits);
    Json::sax_parse(text.begin(), text.end(), &builder);
    return root;
  } catch (const Refused& r) {
    return Status(r.code, r.message);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    if (what.find("UTF-8") != std::string::npos || what.find("utf-8") != std::string::npos)
      return InvalidArgument("not valid UTF-8");
    // The parser's messages quote the bytes it read last, which need not be UTF-8; a message is
    // text (MCP's reply carrying it used to fail to serialize: -32603 instead of -32700).
    return InvalidArgument("malformed JSON: " + EscapeInvalidUtf8(what));
  } catch (const Json::exception& e) {  // out_of_range: a number such as 1e400
    return InvalidArgument("malformed JSON: " + EscapeInvalidUtf8(e.what()));
  } catch (const std::exception& e) {  // std::bad_alloc
    return InvalidArgument(std::string("JSON could not be read: ") + e.what());
  }
}

Result<Json> ParseJson(std::string_view text, int max_depth) {
  JsonLimits limits;
  limits.max_depth = max_depth;
  return ParseJson(text, limits);
}

size_t CountTopLevelElements(std::string_view text) {
  Counter counter;
  try {
    if (!Json::sax_parse(text.begin(), text.end(), &counter)) return 0;
  } catch (const std::exception&) {
    return 0;
  }
  return counter.top_is_array ? counter.count : 1;
}

}  // namespace pc
