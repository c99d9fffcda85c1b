// The web console's files (src/console/, compiled in; docs/console.md): GET /ui and its script and
// style sheet. They hold no data: the page reads the API with the token its user signs in with,
// so they are public. The console's CSP allows nothing but this origin.
#include "api/generated_console.h"
#include "api/router.h"

namespace pc {
namespace {

constexpr const char* kConsoleCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' "
    "data:; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

ApiHandler Asset(const char* body, const char* content_type) {
  return [body, content_type](const ApiRequest&) -> Result<ApiResponse> {
    ApiResponse out;
    out.text = body;
    out.content_type = content_type;
    out.headers = {{"Content-Security-Policy", kConsoleCsp},
                   {"X-Content-Type-Options", "nosniff"},
                   {"Referrer-Policy", "no-referrer"},
                   {"Cache-Control", "no-cache"}};
    return out;
  };
}

}  // namespace

void AddConsoleRoutes(Router& router) {
  router.Add("GET", "/ui", {"get_console", Permission::kPublic, ScopeIn::kNone},
             Asset(kConsoleHtml, "text/html; charset=utf-8"));
  router.Add("GET", "/ui/console.js", {"get_console_script", Permission::kPublic, ScopeIn::kNone},
             Asset(kConsoleJs, "text/javascript; charset=utf-8"));
  router.Add("GET", "/ui/console.css", {"get_console_style", Permission::kPublic, ScopeIn::kNone},
             Asset(kConsoleCss, "text/css; charset=utf-8"));
}

}  // namespace pc
