// GET /openapi.json: the whole HTTP API as an OpenAPI 3.1 document (scripts/gen-openapi makes it
// from the route table; the OpenApi unit tests check it against this router both ways).
#include "api/generated_openapi.h"
#include "api/router.h"

namespace pc {

const std::string& OpenApiDocument() {
  static const std::string kDocument = kOpenApiJson;
  return kDocument;
}

void AddOpenApiRoutes(Router& router) {
  router.Add("GET", "/openapi.json", {"get_openapi", Permission::kPublic, ScopeIn::kNone},
             [](const ApiRequest&) -> Result<ApiResponse> {
               ApiResponse out;
               out.text = OpenApiDocument();
               out.content_type = "application/json";
               return out;
             });
}

}  // namespace pc
