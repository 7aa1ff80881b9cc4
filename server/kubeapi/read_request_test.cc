#include "server/kubeapi/read_request.h"

#include <gtest/gtest.h>

namespace informerd::kubeapi {
namespace {

ApiPath Pods(std::string ns = "", std::string name = "") {
  ApiPath path;
  path.version = "v1";
  path.resource = "pods";
  path.ns = std::move(ns);
  path.name = std::move(name);
  return path;
}

TEST(ReadRequest, ListCarriesSelectorsPagesAndVersion) {
  absl::StatusOr<ReadRequest> read =
      MapReadRequest(Pods("web"), {{"labelSelector", "app=a"},
                                   {"fieldSelector", "spec.nodeName=n1"},
                                   {"limit", "5"},
                                   {"continue", "tok"}});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->kind, ReadRequest::Kind::kList);
  EXPECT_EQ(read->list.resource().resource(), "pods");
  EXPECT_EQ(read->list.namespace_(), "web");
  EXPECT_EQ(read->list.label_selector(), "app=a");
  EXPECT_EQ(read->list.field_selector(), "spec.nodeName=n1");
  EXPECT_EQ(read->list.limit(), 5);
  EXPECT_EQ(read->list.continue_token(), "tok");

  read = MapReadRequest(Pods(), {{"resourceVersion", "0"}});
  ASSERT_EQ(read->kind, ReadRequest::Kind::kList);
  EXPECT_EQ(read->list.resource_version(), "");
  read = MapReadRequest(Pods(), {{"resourceVersion", "42"},
                                 {"resourceVersionMatch", "NotOlderThan"}});
  ASSERT_EQ(read->kind, ReadRequest::Kind::kList);
  EXPECT_EQ(read->list.resource_version(), "42");
}

TEST(ReadRequest, WhatInformerdDoesNotHavePassesThrough) {
  for (const std::map<std::string, std::string>& query :
       std::vector<std::map<std::string, std::string>>{
           {{"resourceVersion", "42"}, {"resourceVersionMatch", "Exact"}},
           {{"resourceVersion", "42"}, {"limit", "10"}},
           {{"resourceVersionMatch", "Sideways"}},
           {{"watch", "1"}, {"resourceVersionMatch", "Exact"}}}) {
    absl::StatusOr<ReadRequest> read = MapReadRequest(Pods(), query);
    ASSERT_TRUE(read.ok());
    EXPECT_EQ(read->kind, ReadRequest::Kind::kPassThrough);
  }
}

TEST(ReadRequest, GetAndWatchOfOneName) {
  absl::StatusOr<ReadRequest> read = MapReadRequest(Pods("web", "p"), {});
  ASSERT_EQ(read->kind, ReadRequest::Kind::kGet);
  EXPECT_EQ(read->get.name(), "p");
  EXPECT_EQ(read->get.namespace_(), "web");

  read = MapReadRequest(Pods("web", "p"), {{"watch", "true"}, {"fieldSelector", "a=b"}});
  ASSERT_EQ(read->kind, ReadRequest::Kind::kWatch);
  EXPECT_EQ(read->watch.field_selector(), "metadata.name=p,a=b");
}

TEST(ReadRequest, WatchParameters) {
  absl::StatusOr<ReadRequest> read =
      MapReadRequest(Pods(), {{"watch", "1"},
                              {"resourceVersion", "0"},
                              {"sendInitialEvents", "true"},
                              {"resourceVersionMatch", "NotOlderThan"},
                              {"allowWatchBookmarks", "true"},
                              {"timeoutSeconds", "7"}});
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->kind, ReadRequest::Kind::kWatch);
  EXPECT_TRUE(read->watch.send_initial_events());
  EXPECT_EQ(read->watch.resource_version(), "");
  EXPECT_TRUE(read->watch.allow_bookmarks());
  EXPECT_TRUE(read->client_bookmarks);
  ASSERT_TRUE(read->timeout.has_value());
  EXPECT_EQ(*read->timeout, absl::Seconds(7));

  read = MapReadRequest(Pods(), {{"watch", "1"}, {"resourceVersion", "0"}});
  EXPECT_EQ(read->watch.resource_version(), "0");
  EXPECT_FALSE(read->watch.send_initial_events());
}

TEST(ReadRequest, MalformedParametersNameThemselves) {
  absl::StatusOr<ReadRequest> read = MapReadRequest(Pods(), {{"limit", "ten"}});
  EXPECT_TRUE(absl::IsInvalidArgument(read.status()));
  EXPECT_NE(read.status().message().find("limit"), absl::string_view::npos);
  read = MapReadRequest(Pods(), {{"watch", "yes"}});
  EXPECT_EQ(read.status().message(),
            "watch: strconv.ParseBool: parsing \"yes\": invalid syntax");
  read = MapReadRequest(Pods(), {{"watch", "1"}, {"timeoutSeconds", "-1"}});
  EXPECT_NE(read.status().message().find("timeoutSeconds"), absl::string_view::npos);
}

// The Python client sends watch=True; the apiserver reads every spelling
// of Go's strconv.ParseBool.
TEST(ReadRequest, BooleansAreReadAsGoReadsThem) {
  for (const char* yes : {"1", "t", "T", "true", "TRUE", "True"}) {
    EXPECT_EQ(ParseQueryBool(yes).value_or(false), true) << yes;
    EXPECT_EQ(MapReadRequest(Pods(), {{"watch", yes}})->kind, ReadRequest::Kind::kWatch) << yes;
  }
  for (const char* no : {"0", "f", "F", "false", "FALSE", "False"}) {
    EXPECT_EQ(ParseQueryBool(no).value_or(true), false) << no;
  }
  EXPECT_FALSE(ParseQueryBool("tRue").ok());
  EXPECT_FALSE(ParseQueryBool("").ok());
}

}  // namespace
}  // namespace informerd::kubeapi
