#include "app/admin_commands.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "api/router.h"
#include "app/runtime.h"
#include "cli/commands.h"
#include "client/api_client.h"
#include "client/call_route.h"
#include "mcp/transports.h"
#include "wire/error_map.h"

namespace pc {
namespace {

struct AdminOpts {
  std::string name, role, expires, scope, actor, since, until, cursor;
  std::vector<std::string> scopes;
  int limit = 0;
};

int Fail(const Status& s) { return ReportError(s); }

std::string Or(const Json& j, const char* dash = "-") {
  return j.is_string() ? j.get<std::string>() : dash;
}

std::string Scopes(const Json& t) {
  if (!t["scopes"].is_array() || t["scopes"].empty()) return "*";
  std::string out;
  for (const Json& p : t["scopes"]) out += (out.empty() ? "" : ",") + p.get<std::string>();
  return out;
}

// token create: a new token, its secret printed once.
AdminCommand AddTokenCreate(CLI::App* token, const std::shared_ptr<AdminOpts>& o) {
  CLI::App* create = token->add_subcommand("create", "create a token; its secret is printed once");
  create->add_option("--name", o->name, "a name for the token (the actor of everything it writes)")
      ->required();
  create->add_option("--role", o->role, "reader, writer, admin or metrics")->required();
  create->add_option("--scope", o->scopes,
                     "scope pattern it is limited to, e.g. project:orders-* (repeatable)");
  create->add_option("--expires", o->expires,
                     "90d, 12h, 30m, or a UTC date (2027-01-31); default never");
  return {
      create, [o](const Config& c, bool local, bool json) {
        return WithRoutes(c, local, [&](const CallRoute& call) {
          Json body{{"name", o->name}, {"role", o->role}, {"scopes", o->scopes}};
          if (!o->expires.empty()) body["expires"] = o->expires;
          Result<Json> r = call("POST", "/v1/tokens", {}, body);
          if (!r.ok()) return Fail(r.status());
          if (json) {
            std::cout << r->dump(2) << "\n";
            return 0;
          }
          std::cout << "created token " << (*r)["name"].get<std::string>() << " (role "
                    << (*r)["role"].get<std::string>() << ", scopes " << Scopes(*r) << ", expires "
                    << Or((*r)["expires_at"], "never") << ")\n\n  "
                    << (*r)["token"].get<std::string>()
                    << "\n\nIt is shown this once: keep it in a secret store. Clients send it as "
                       "`Authorization: Bearer …`; the CLI and `mcp --server` read "
                       "POWERCONTEXT_TOKEN.\n";
          return 0;
        });
      }};
}

// token list: every token, never a secret.
AdminCommand AddTokenList(CLI::App* token, const std::shared_ptr<AdminOpts>&) {
  CLI::App* list =
      token->add_subcommand("list", "every token: name, role, state, scopes (never secrets)");
  return {list, [](const Config& c, bool local, bool json) {
            return WithRoutes(c, local, [&](const CallRoute& call) {
              Result<Json> r = call("GET", "/v1/tokens", {}, Json());
              if (!r.ok()) return Fail(r.status());
              if (json) {
                std::cout << r->dump(2) << "\n";
                return 0;
              }
              for (const Json& t : (*r)["tokens"])
                std::cout << t["name"].get<std::string>() << "  " << t["role"].get<std::string>()
                          << "  " << t["state"].get<std::string>() << "  scopes " << Scopes(t)
                          << "  expires " << Or(t["expires_at"], "never") << "  created "
                          << Or(t["created_at"]) << "\n";
              if ((*r)["tokens"].empty()) std::cout << "no tokens\n";
              return 0;
            });
          }};
}

// token revoke NAME.
AdminCommand AddTokenRevoke(CLI::App* token, const std::shared_ptr<AdminOpts>& o) {
  CLI::App* revoke =
      token->add_subcommand("revoke", "revoke a token: refused from the next request on");
  revoke->add_option("name", o->name, "the token's name")->required();
  return {revoke, [o](const Config& c, bool local, bool json) {
            return WithRoutes(c, local, [&](const CallRoute& call) {
              Result<Json> r = call("POST", "/v1/tokens/revoke", {}, Json{{"name", o->name}});
              if (!r.ok()) return Fail(r.status());
              std::cout << (json ? r->dump(2) + "\n" : "revoked token " + o->name + "\n");
              return 0;
            });
          }};
}

// audit: the audit log, newest first, a page at a time.
AdminCommand AddAudit(CLI::App* app, const std::shared_ptr<AdminOpts>& o) {
  CLI::App* audit = app->add_subcommand(
      "audit", "the audit log, newest first: acknowledged writes and refused requests");
  audit->add_option("--scope,-s", o->scope, "only this scope (name or scp_…)");
  audit->add_option("--actor", o->actor, "only this actor (a token's name)");
  audit->add_option("--since", o->since, "from this UTC time, e.g. 2026-12-01T08:00:00Z");
  audit->add_option("--until", o->until, "before this UTC time");
  audit->add_option("--limit", o->limit, "rows per page (1-1000, default 100)");
  audit->add_option("--cursor", o->cursor, "next_cursor from the previous page");
  return {audit, [o](const Config& c, bool local, bool json) {
            return WithRoutes(c, local, [&](const CallRoute& call) {
              std::map<std::string, std::string> q;
              if (!o->scope.empty()) q["scope_id"] = o->scope;
              if (!o->actor.empty()) q["actor"] = o->actor;
              if (!o->since.empty()) q["since"] = o->since;
              if (!o->until.empty()) q["until"] = o->until;
              if (o->limit > 0) q["limit"] = std::to_string(o->limit);
              if (!o->cursor.empty()) q["cursor"] = o->cursor;
              Result<Json> r = call("GET", "/v1/audit", q, Json());
              if (!r.ok()) return Fail(r.status());
              if (json) {
                std::cout << r->dump(2) << "\n";
                return 0;
              }
              for (const Json& e : (*r)["events"])
                std::cout << e["at"].get<std::string>() << "  " << e["actor"].get<std::string>()
                          << "  " << e["operation"].get<std::string>() << "  "
                          << e["result"].get<std::string>() << "  " << Or(e["scope_id"]) << "  "
                          << e["targets"].dump() << "  " << Or(e["request_id"]) << "\n";
              if (!(*r)["next_cursor"].is_null())
                std::cout << "next page: --cursor " << (*r)["next_cursor"].get<std::string>()
                          << "\n";
              return 0;
            });
          }};
}

}  // namespace

std::vector<AdminCommand> AddAdminCommands(CLI::App& app) {
  auto o = std::make_shared<AdminOpts>();
  CLI::App* token =
      app.add_subcommand("token", "create, list or revoke API tokens (admin; docs/security.md)");
  token->require_subcommand(1);
  return {AddTokenCreate(token, o), AddTokenList(token, o), AddTokenRevoke(token, o),
          AddAudit(&app, o)};
}

}  // namespace pc
