#include "cli/command_table.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "client/api_client.h"
#include "client/call_route.h"

namespace pc {
namespace {

template <class T>
void AddOption(CLI::App* sub, const OptionSpec& spec, T& value) {
  CLI::Option* opt = sub->add_option(spec.names, value, spec.help);
  if (spec.required) opt->required();
  if (spec.one_value) opt->allow_extra_args(false);
}

void Bind(CLI::App* sub, const OptionSpec& spec, Opts& o) {
  std::visit(
      [&](auto member) {
        auto& value = o.*member;
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, bool>)
          sub->add_flag(spec.names, value, spec.help);
        else
          AddOption(sub, spec, value);
      },
      spec.field);
}

template <class N>
std::optional<Json> Number(N n, Send send) {
  if (send == Send::kAlways || (send == Send::kIfSet && n != 0) ||
      (send == Send::kIfPositive && n > 0))
    return Json(n);
  return std::nullopt;
}

// The option's value as the request takes it, or nothing when it is not sent.
std::optional<Json> ValueOf(const Opts& o, const OptionSpec& spec) {
  // A required option always has a value, and is sent as it is.
  const Send send = spec.required && spec.send == Send::kIfSet ? Send::kAlways : spec.send;
  if (send == Send::kNothing) return std::nullopt;
  return std::visit(
      [&](auto member) -> std::optional<Json> {
        const auto& v = o.*member;
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          if (send == Send::kNegated) return Json(!v);
          return v || send == Send::kAlways ? std::optional<Json>(Json(v)) : std::nullopt;
        } else if constexpr (std::is_same_v<T, std::optional<int64_t>> ||
                             std::is_same_v<T, std::optional<double>>) {
          return v ? std::optional<Json>(Json(*v)) : std::nullopt;
        } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, int64_t>) {
          return Number(v, send);
        } else {
          return v.empty() && send != Send::kAlways ? std::nullopt : std::optional<Json>(Json(v));
        }
      },
      spec.field);
}

int Print(const Result<Json>& r, bool json, Printer print) {
  if (!r.ok()) return ReportError(r.status());
  std::cout << (json ? r->dump(2) + "\n" : print(*r));
  return 0;
}

Result<Request> BuildRequest(const Row& row, const Opts& o) {
  Request request;
  request.get = std::string(row.route.method) == "GET";
  for (const auto& [key, value] : row.constants.items()) request.Set(key, value);
  for (Stage stage : {Stage::kInput, Stage::kScope, Stage::kRest})
    for (const OptionSpec& spec : row.options) {
      if (spec.stage != stage) continue;
      if (spec.convert) {
        PC_RETURN_IF_ERROR(spec.convert(o, spec, request));
      } else if (std::optional<Json> v = ValueOf(o, spec)) {
        request.Set(spec.to, *v);
      }
    }
  return request;
}

}  // namespace

void Request::Set(const std::string& key, const Json& value) {
  if (get)
    query[key] = value.is_string() ? value.get<std::string>() : value.dump();
  else
    body[Json::json_pointer("/" + key)] = value;
}

OptionSpec Opt(const char* names, const char* help, Field field) {
  return OptionSpec{names, help, field};
}

OptionSpec OptionSpec::Required() const {
  OptionSpec s = *this;
  s.required = true;
  return s;
}

OptionSpec OptionSpec::OneValue() const {
  OptionSpec s = *this;
  s.one_value = true;
  return s;
}

OptionSpec OptionSpec::To(const char* key, Send how) const {
  OptionSpec s = *this;
  s.to = key;
  s.send = how;
  return s;
}

OptionSpec OptionSpec::Excludes(const char* other) const {
  OptionSpec s = *this;
  s.excludes = other;
  return s;
}

OptionSpec OptionSpec::Via(Convert c, const char* key, Stage stage) const {
  OptionSpec s = *this;
  s.convert = c;
  s.to = key;
  s.stage = stage;
  return s;
}

const std::string& TextOf(const Opts& o, const OptionSpec& spec) {
  return o.*std::get<std::string Opts::*>(spec.field);
}

const std::vector<std::string>& ListOf(const Opts& o, const OptionSpec& spec) {
  return o.*std::get<std::vector<std::string> Opts::*>(spec.field);
}

// A group row's command: this table's, or one an earlier table added (`skill`, whose managed
// commands are the review table's and whose external ones are the Skill table's).
CLI::App* Group(CLI::App& app, const std::map<std::string, CLI::App*>& groups,
                const std::string& path) {
  if (auto it = groups.find(path); it != groups.end()) return it->second;
  CLI::App* at = &app;
  for (size_t from = 0; from <= path.size();) {
    size_t space = path.find(' ', from);
    if (space == std::string::npos) space = path.size();
    at = at->get_subcommand(path.substr(from, space - from));  // throws: a table's mistake
    from = space + 1;
  }
  return at;
}

std::vector<ClientCommand> AddRows(CLI::App& app, const std::vector<Row>& rows,
                                   const std::shared_ptr<Opts>& o) {
  std::map<std::string, CLI::App*> groups;
  std::vector<ClientCommand> cmds;
  for (const Row& row : rows) {
    const std::string path = row.path;
    const size_t space = path.rfind(' ');
    CLI::App* parent =
        space == std::string::npos ? &app : Group(app, groups, path.substr(0, space));
    CLI::App* sub = parent->add_subcommand(path.substr(space + 1), row.help);
    for (const OptionSpec& spec : row.options) Bind(sub, spec, *o);
    for (const OptionSpec& spec : row.options)
      if (spec.excludes) {
        const std::string name = spec.names;  // its first name: "--user"
        sub->get_option(name.substr(0, name.find(',')))->excludes(spec.excludes);
      }
    if (!row.route.method && !row.run) {
      sub->require_subcommand(1);
      groups[path] = sub;
      continue;
    }
    cmds.push_back({sub, [&row, o](const std::string& server, bool json) {
                      return row.run ? row.run(row, *o, server, json)
                                     : RunRoute(row, *o, server, json);
                    }});
  }
  return cmds;
}

int RunRoute(const Row& row, const Opts& o, const std::string& server, bool json) {
  ApiClient api(server);
  Result<Request> request = BuildRequest(row, o);
  if (!request.ok()) return ReportError(request.status());
  return Print(RoutesOf(api)(row.route.method, row.route.path, request->query, request->body), json,
               row.print);
}

}  // namespace pc
