#include "server/kubeapi/kube_json.h"

#include <gtest/gtest.h>

#include "rapidjson/document.h"

namespace informerd::kubeapi {
namespace {

TypeNames ConfigMaps() { return {"v1", "ConfigMap", "configmaps", ""}; }

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document document;
  document.Parse(json.data(), json.size());
  EXPECT_FALSE(document.HasParseError()) << json;
  return document;
}

TEST(KubeJson, ListItemsLeaveOutTheTypeTheCacheAdded) {
  v1::ListResponse response;
  response.set_resource_version("12");
  response.set_continue_token("next");
  response.add_items()->set_json(
      R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}})");
  response.add_items()->set_json(R"({"metadata":{"name":"b"}})");
  rapidjson::Document list = Parse(ListJson(ConfigMaps(), response));
  EXPECT_STREQ(list["kind"].GetString(), "ConfigMapList");
  EXPECT_STREQ(list["apiVersion"].GetString(), "v1");
  EXPECT_STREQ(list["metadata"]["resourceVersion"].GetString(), "12");
  EXPECT_STREQ(list["metadata"]["continue"].GetString(), "next");
  ASSERT_EQ(list["items"].Size(), 2u);
  EXPECT_FALSE(list["items"][0].HasMember("kind"));
  EXPECT_FALSE(list["items"][0].HasMember("apiVersion"));
  EXPECT_STREQ(list["items"][0]["metadata"]["name"].GetString(), "a");
  EXPECT_STREQ(list["items"][1]["metadata"]["name"].GetString(), "b");

  v1::ListResponse last;
  last.set_resource_version("12");
  EXPECT_FALSE(Parse(ListJson(ConfigMaps(), last))["metadata"].HasMember("continue"));
}

TEST(KubeJson, WatchLines) {
  v1::WatchEvent event;
  event.set_type(v1::WatchEvent::MODIFIED);
  event.mutable_object()->set_json(R"({"kind":"ConfigMap","metadata":{"name":"a"}})");
  std::string line = WatchLineJson(ConfigMaps(), event);
  EXPECT_EQ(line.back(), '\n');
  rapidjson::Document parsed = Parse(line);
  EXPECT_STREQ(parsed["type"].GetString(), "MODIFIED");
  EXPECT_STREQ(parsed["object"]["metadata"]["name"].GetString(), "a");

  v1::WatchEvent bookmark;
  bookmark.set_type(v1::WatchEvent::BOOKMARK);
  bookmark.set_resource_version("77");
  bookmark.set_initial_events_end(true);
  parsed = Parse(WatchLineJson(ConfigMaps(), bookmark));
  EXPECT_STREQ(parsed["type"].GetString(), "BOOKMARK");
  EXPECT_STREQ(parsed["object"]["kind"].GetString(), "ConfigMap");
  EXPECT_STREQ(parsed["object"]["metadata"]["resourceVersion"].GetString(), "77");
  EXPECT_STREQ(
      parsed["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"].GetString(),
      "true");
}

TEST(KubeJson, ErrorsAreTheApiserversStatuses) {
  struct Case {
    grpc::StatusCode code;
    int http;
    const char* reason;
  };
  for (const Case& c : {Case{grpc::StatusCode::INVALID_ARGUMENT, 400, "BadRequest"},
                        Case{grpc::StatusCode::UNAUTHENTICATED, 401, "Unauthorized"},
                        Case{grpc::StatusCode::PERMISSION_DENIED, 403, "Forbidden"},
                        Case{grpc::StatusCode::NOT_FOUND, 404, "NotFound"},
                        Case{grpc::StatusCode::OUT_OF_RANGE, 410, "Expired"},
                        Case{grpc::StatusCode::RESOURCE_EXHAUSTED, 429, "TooManyRequests"},
                        Case{grpc::StatusCode::UNAVAILABLE, 503, "ServiceUnavailable"}}) {
    ApiError error = ErrorFor(grpc::Status(c.code, "why \"quoted\""));
    EXPECT_EQ(error.code, c.http);
    rapidjson::Document status = Parse(error.status_json);
    EXPECT_STREQ(status["kind"].GetString(), "Status");
    EXPECT_STREQ(status["status"].GetString(), "Failure");
    EXPECT_STREQ(status["reason"].GetString(), c.reason);
    EXPECT_EQ(status["code"].GetInt(), c.http);
    EXPECT_STREQ(status["message"].GetString(), "why \"quoted\"");
  }
  TypeNames deployments{"apps/v1", "Deployment", "deployments", "apps"};
  rapidjson::Document not_found = Parse(
      ErrorFor(grpc::Status(grpc::StatusCode::NOT_FOUND, "x"), &deployments, "web").status_json);
  EXPECT_STREQ(not_found["details"]["name"].GetString(), "web");
  EXPECT_STREQ(not_found["details"]["group"].GetString(), "apps");
  EXPECT_STREQ(not_found["details"]["kind"].GetString(), "deployments");
  rapidjson::Document line = Parse(WatchErrorLine(MakeError(410, "Expired", "too old")));
  EXPECT_STREQ(line["type"].GetString(), "ERROR");
  EXPECT_EQ(line["object"]["code"].GetInt(), 410);
}

}  // namespace
}  // namespace informerd::kubeapi
