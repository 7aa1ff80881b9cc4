#include "server/kube/rest_client.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/kube/fake_api_server.h"

namespace informerd::kube {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<RestClient> NewClient(const ClusterConfig& config) {
  absl::StatusOr<std::unique_ptr<RestClient>> client =
      RestClient::Create(config);
  EXPECT_TRUE(client.ok()) << client.status();
  return client.ok() ? *std::move(client) : nullptr;
}

// Writes `token` to `path` with the given mtime, so a change is visible
// even within the file system's timestamp granularity.
void WriteToken(const std::string& path, const std::string& token,
                time_t mtime) {
  std::ofstream(path) << token << "\n";
  const struct timespec times[2] = {{mtime, 0}, {mtime, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(RestClientTest, SendsHeadersAndReturnsTheResponse) {
  FakeApiServer server;
  server.Handle("/api/v1/pods", [](const httplib::Request&,
                                   httplib::Response& response) {
    response.status = 429;
    response.set_header("Retry-After", "3");
    response.set_content("{}", "application/json");
  });
  ClusterConfig config = server.config();
  config.token = "abc";
  std::unique_ptr<RestClient> client = NewClient(config);
  absl::StatusOr<HttpResponse> response =
      client->Get("/api/v1/pods?labelSelector=a%3Db");
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->status, 429);
  EXPECT_EQ(response->retry_after, absl::Seconds(3));
  EXPECT_EQ(response->body, "{}");

  const RecordedRequest request = server.requests().at(0);
  EXPECT_EQ(request.Param("labelSelector"), "a=b");
  EXPECT_EQ(request.headers.at("Accept"), "application/json");
  EXPECT_EQ(request.headers.at("User-Agent"), "informerd/0.1");
  EXPECT_EQ(request.headers.at("Authorization"), "Bearer abc");
}

TEST(RestClientTest, WriteMethodsSendTheBody) {
  FakeApiServer server;
  std::string seen;
  server.Handle("/x", [&](const httplib::Request& request,
                          httplib::Response& response) {
    seen += request.method + ":" + request.body + ";";
    response.status = 200;
  });
  std::unique_ptr<RestClient> client = NewClient(server.config());
  ASSERT_TRUE(client->Post("/x", "p", "application/json").ok());
  ASSERT_TRUE(client->Put("/x", "u", "application/json").ok());
  ASSERT_TRUE(client->Patch("/x", "m", "application/merge-patch+json").ok());
  ASSERT_TRUE(client->Delete("/x").ok());
  EXPECT_EQ(seen, "POST:p;PUT:u;PATCH:m;DELETE:;");
}

// A forwarded write's Content-Type is the caller's: none stays none (the
// apiserver then reads JSON), never the HTTP library's "text/plain".
TEST(RestClientTest, ForwardKeepsTheCallersContentType) {
  FakeApiServer server;
  server.Handle("/x", [](const httplib::Request&, httplib::Response& response) {
    response.status = 201;
  });
  std::unique_ptr<RestClient> client = NewClient(server.config());
  ForwardedRequest untyped{"POST", "/x", {{"Accept", "application/json"}}, "{}"};
  ASSERT_TRUE(client->Forward(untyped, 1 << 20).ok());
  ForwardedRequest typed{"PATCH", "/x", {{"content-type", "application/merge-patch+json"}}, "{}"};
  ASSERT_TRUE(client->Forward(typed, 1 << 20).ok());

  ASSERT_EQ(server.requests().size(), 2u);
  // Each Content-Type header the server received, whatever its case.
  auto content_types = [](const RecordedRequest& request) {
    std::vector<std::string> values;
    for (const auto& [name, value] : request.headers) {
      if (absl::EqualsIgnoreCase(name, "Content-Type")) values.push_back(value);
    }
    return values;
  };
  for (const std::string& value : content_types(server.requests()[0])) {
    EXPECT_EQ(value, "") << "a write without a Content-Type was given one";
  }
  EXPECT_THAT(content_types(server.requests()[1]),
              ::testing::ElementsAre("application/merge-patch+json"));
}

TEST(RestClientTest, ServerPathPrefixIsKept) {
  FakeApiServer server;
  server.Handle("/k8s/clusters/c1/api", [](const httplib::Request&,
                                           httplib::Response& response) {
    response.status = 200;
  });
  ClusterConfig config = server.config();
  config.server += "/k8s/clusters/c1/";
  std::unique_ptr<RestClient> client = NewClient(config);
  absl::StatusOr<HttpResponse> response = client->Get("/api");
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 200);
}

TEST(RestClientTest, RereadsTheTokenFileWhenItChanges) {
  FakeApiServer server;
  server.Handle("/api", [](const httplib::Request&,
                           httplib::Response& response) {
    response.status = 200;
  });
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/token";
  WriteToken(path, "first", 1000);
  ClusterConfig config = server.config();
  config.token_file = path;
  std::unique_ptr<RestClient> client = NewClient(config);
  ASSERT_TRUE(client->Get("/api").ok());
  WriteToken(path, "second", 2000);
  ASSERT_TRUE(client->Get("/api").ok());
  const std::vector<RecordedRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].headers.at("Authorization"), "Bearer first");
  EXPECT_EQ(requests[1].headers.at("Authorization"), "Bearer second");
}

TEST(RestClientTest, ConnectionRefusedIsAnError) {
  ClusterConfig config;
  {
    FakeApiServer server;
    config = server.config();
  }
  std::unique_ptr<RestClient> client = NewClient(config);
  absl::StatusOr<HttpResponse> response = client->Get("/api");
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
}

TEST(RestClientTest, StreamDeliversChunksAndStopsEarly) {
  FakeApiServer server;
  server.Handle("/watch", [&](const httplib::Request&,
                              httplib::Response& response) {
    server.ReplyStream(response, {"one\n", "two\n", "three\n"},
                       FakeApiServer::StreamEnd::kHang);
  });
  std::unique_ptr<RestClient> client = NewClient(server.config());
  std::string received;
  absl::StatusOr<HttpResponse> response =
      client->Stream("/watch", [&](std::string_view chunk) {
        received.append(chunk);
        return received.find("three\n") == std::string::npos;
      });
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(received, "one\ntwo\nthree\n");
  EXPECT_EQ(response->body, "");
}

TEST(RestClientTest, StreamReturnsAnErrorBodyInTheResponse) {
  FakeApiServer server;
  std::unique_ptr<RestClient> client = NewClient(server.config());
  bool called = false;
  absl::StatusOr<HttpResponse> response =
      client->Stream("/missing", [&](std::string_view) {
        called = true;
        return true;
      });
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->status, 404);
  EXPECT_THAT(response->body, HasSubstr("NotFound"));
  EXPECT_FALSE(called);
}

TEST(RestClientTest, CutStreamIsAnError) {
  FakeApiServer server;
  server.Handle("/watch", [&](const httplib::Request&,
                              httplib::Response& response) {
    server.ReplyStream(response, {"partial"}, FakeApiServer::StreamEnd::kCut);
  });
  std::unique_ptr<RestClient> client = NewClient(server.config());
  absl::StatusOr<HttpResponse> response =
      client->Stream("/watch", [](std::string_view) { return true; });
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
}

TEST(RestClientTest, CancelInterruptsASilentStream) {
  FakeApiServer server;
  server.Handle("/watch", [&](const httplib::Request&,
                              httplib::Response& response) {
    server.ReplyStream(response, {"hello\n"}, FakeApiServer::StreamEnd::kHang);
  });
  std::unique_ptr<RestClient> client = NewClient(server.config());
  StreamCanceller canceller;
  absl::Notification got_data;
  absl::StatusOr<HttpResponse> response;
  std::thread reader([&] {
    response = client->Stream(
        "/watch",
        [&](std::string_view) {
          if (!got_data.HasBeenNotified()) got_data.Notify();
          return true;
        },
        &canceller);
  });
  ASSERT_TRUE(got_data.WaitForNotificationWithTimeout(absl::Seconds(10)));
  const absl::Time start = absl::Now();
  canceller.Cancel();
  reader.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kCancelled);

  // Cancellation is permanent for that canceller.
  response = client->Stream("/watch", [](std::string_view) { return true; },
                            &canceller);
  EXPECT_EQ(response.status().code(), absl::StatusCode::kCancelled);
}

TEST(RestClientTest, CancelStreamsInterruptsEveryStream) {
  FakeApiServer server;
  server.Handle("/watch", [&](const httplib::Request&,
                              httplib::Response& response) {
    server.ReplyStream(response, {"hello\n"}, FakeApiServer::StreamEnd::kHang);
  });
  std::unique_ptr<RestClient> client = NewClient(server.config());
  absl::StatusOr<HttpResponse> first;
  absl::StatusOr<HttpResponse> second;
  std::thread a([&] {
    first = client->Stream("/watch", [](std::string_view) { return true; });
  });
  std::thread b([&] {
    second = client->Stream("/watch", [](std::string_view) { return true; });
  });
  ASSERT_TRUE(server.WaitForRequests("/watch", 2, absl::Seconds(10)));
  client->CancelStreams();
  a.join();
  b.join();
  EXPECT_EQ(first.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kCancelled);
}

TEST(RestClientCreateTest, RejectsBadConfigs) {
  ClusterConfig config;
  config.server = "ftp://h";
  EXPECT_THAT(RestClient::Create(config).status().message(),
              HasSubstr("server: not an http(s) URL"));
  config.server = "https://h:99999";
  EXPECT_THAT(RestClient::Create(config).status().message(),
              HasSubstr("bad port"));
  config.server = "https://h";
  config.ca_pem = "not a certificate";
  EXPECT_THAT(RestClient::Create(config).status().message(),
              HasSubstr("ca_pem: no PEM certificate found"));
  config.ca_pem = "";
  config.client_cert_pem = "junk";
  config.client_key_pem = "junk";
  EXPECT_THAT(RestClient::Create(config).status().message(),
              HasSubstr("client_cert_pem: no PEM certificate found"));
}

}  // namespace
}  // namespace informerd::kube
