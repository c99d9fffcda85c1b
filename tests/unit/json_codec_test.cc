#include "api/json_codec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "api/router.h"
#include "test_util.h"

namespace pc {
namespace {

TEST(Body, StrictFieldsAndTypes) {
  EXPECT_EQ(Body::Parse("{", {"a"}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Body::Parse("[1]", {"a"}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Body::Parse("{\"b\":1}", {"a"}).status().code(), Code::kInvalidArgument);
  auto invalid_utf8 = Body::Parse("{\"a\":\"\xff\"}", {"a"});
  ASSERT_FALSE(invalid_utf8.ok());
  EXPECT_NE(invalid_utf8.status().message().find("UTF-8"), std::string::npos);

  auto b = Body::Parse(R"({"s":"x","i":3,"n":null,"f":1.5,"b":true})", {"s", "i", "n", "f", "b"});
  PC_ASSERT_OK(b);
  EXPECT_EQ(*b->String("s"), "x");
  EXPECT_EQ(b->String("i").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(b->String("n").status().code(), Code::kInvalidArgument);  // null = missing
  EXPECT_FALSE(b->OptString("n")->has_value());
  EXPECT_EQ(**b->OptInt("i"), 3);
  EXPECT_EQ(b->OptInt("f").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(b->OptInt("s").status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(**b->OptBool("b"));
}

TEST(Body, CitationInBothForms) {
  const std::string ref =
      "memory/mem_01M8NBY5Z4SVYWMZSJZTE254JF@2#ent_01M8NBY5ZJ0B0EGH5Y3KTW4DW5"
      "@env_01M8NBY5ZJBG2TCBZ43Q7CHJSR";
  auto from_string = CitationFromJson(Json(ref));
  PC_ASSERT_OK(from_string);
  auto from_object = CitationFromJson(ToJson(*from_string));
  PC_ASSERT_OK(from_object);
  EXPECT_EQ(*from_object, *from_string);
  EXPECT_EQ(CitationFromJson(Json(42)).status().code(), Code::kInvalidArgument);
  Json extra = ToJson(*from_string);
  extra["bogus"] = true;
  EXPECT_EQ(CitationFromJson(extra).status().code(), Code::kInvalidArgument);
  Json mismatched = ToJson(*from_string);
  mismatched["memory"]["revision"] = 3;  // ref still says @2
  EXPECT_EQ(CitationFromJson(mismatched).status().code(), Code::kInvalidArgument);
  Json without_ref = ToJson(*from_string);
  without_ref.erase("ref");
  EXPECT_TRUE(CitationFromJson(without_ref).ok());
  EXPECT_EQ(CitationFromJson(Json::object()).status().code(), Code::kInvalidArgument);
}

TEST(ErrorJson, Shape) {
  Json j = ErrorJson(Conflict("stale").WithDetail("current_revision", int64_t{7}));
  EXPECT_EQ(j["error"]["code"], "revision_conflict");
  EXPECT_EQ(j["error"]["message"], "stale");
  EXPECT_EQ(j["error"]["details"]["current_revision"], 7);
}

TEST(Router, NotFoundAndMethodNotAllowed) {
  Router router;
  router.Add("POST", "/v1/x", {"x", Permission::kRead},
             [](const ApiRequest&) -> Result<ApiResponse> {
               return ApiResponse{200, Json{{"ok", true}}};
             });
  ApiRequest get{"GET", "/v1/x", {}, {}, "", ""};
  ApiResponse r = router.Dispatch(get);
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body["error"]["details"]["allow"], "POST");
  ApiRequest missing{"GET", "/v1/y", {}, {}, "", ""};
  EXPECT_EQ(router.Dispatch(missing).status, 404);
  ApiRequest post{"POST", "/v1/x", {}, {}, "", ""};
  EXPECT_EQ(router.Dispatch(post).status, 200);
}

// Routes are matched segment by segment, without regular expressions: a literal path is one hash
// lookup, a ([^/]+) segment takes one non-empty segment, and table order decides between routes.
TEST(Router, SegmentsNotRegularExpressions) {
  Router router;
  auto answer = [](int n) {
    return [n](const ApiRequest& req) -> Result<ApiResponse> {
      Json params = Json::array();
      for (const auto& p : req.path_params) params.push_back(p);
      return ApiResponse{200, Json{{"route", n}, {"params", params}}};
    };
  };
  router.Add("GET", "/v1/scopes/([^/]+)", {"a", Permission::kRead}, answer(1));
  router.Add("GET", "/v1/scopes/([^/]+)/settings", {"b", Permission::kRead}, answer(2));
  router.Add("PUT", "/v1/scopes/([^/]+)/settings", {"c", Permission::kRead}, answer(3));
  router.Add("GET", "/v1/scopes/special", {"d", Permission::kRead}, answer(4));
  router.Add("GET", "/v1/entries/([^/]+)/versions/([^/]+)", {"e", Permission::kRead}, answer(5));
  auto get = [&](const std::string& method, const std::string& path) {
    ApiRequest req{method, path, {}, {}, "", ""};
    return router.Dispatch(req);
  };
  EXPECT_EQ(get("GET", "/v1/scopes/project:x").body,
            (Json{{"route", 1}, {"params", {"project:x"}}}));
  EXPECT_EQ(get("GET", "/v1/scopes/special").body["route"],
            1);  // the earlier route wins, as before
  EXPECT_EQ(get("GET", "/v1/scopes/s/settings").body["route"], 2);
  EXPECT_EQ(get("PUT", "/v1/scopes/s/settings").body["route"], 3);
  EXPECT_EQ(get("GET", "/v1/entries/e1/versions/v2").body["params"], (Json{"e1", "v2"}));
  EXPECT_EQ(get("GET", "/v1/scopes/").status, 404);     // an empty segment is no parameter
  EXPECT_EQ(get("GET", "/v1/scopes/a/b").status, 404);  // nor are two
  EXPECT_EQ(get("GET", "/v1/scopes").status, 404);
  ApiResponse wrong = get("DELETE", "/v1/scopes/s/settings");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.body["error"]["details"]["allow"], "GET, PUT");
  EXPECT_THROW(router.Add("GET", "/v1/x/(.*)", {"f", Permission::kRead}, answer(6)),
               std::logic_error);
}

}  // namespace
}  // namespace pc
