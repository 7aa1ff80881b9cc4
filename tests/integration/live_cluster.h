// LiveCluster: test access to the real kube-apiserver that
// hack/control-plane.sh started (found through $KUBECONFIG), and an
// in-process informerd (a Server, as main runs it) serving from it on a
// loopback port.
//
// Integration tests fail, never skip, when the control plane is missing.
#ifndef INFORMERD_TESTS_INTEGRATION_LIVE_CLUSTER_H_
#define INFORMERD_TESTS_INTEGRATION_LIVE_CLUSTER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "informerd/v1/informerd.grpc.pb.h"
#include "rapidjson/document.h"
#include "server/auth/reviewer.h"
#include "server/config/config.h"
#include "server/kube/rest_client.h"
#include "server/metrics/metrics.h"
#include "server/server.h"
#include "server/service/served_resource.h"

namespace informerd::testing {

// The admin client for $KUBECONFIG; aborts the test binary with a clear
// message when the variable or the file is missing.
kube::RestClient& AdminClient();

// A namespace created for this test, unique per call.
std::string CreateTestNamespace(const std::string& prefix);

// The apiserver's answer as a parsed document; fails the test on non-2xx.
rapidjson::Document ApiGet(const std::string& path);
rapidjson::Document ApiSend(const std::string& method, const std::string& path,
                            const std::string& body);
// ConfigMap helpers; return the new resourceVersion (or the delete's).
std::string CreateConfigMap(const std::string& ns, const std::string& name,
                            const std::map<std::string, std::string>& labels,
                            const std::string& data = "x");
std::string UpdateConfigMap(const std::string& ns, const std::string& name,
                            const std::map<std::string, std::string>& labels,
                            const std::string& data);
std::string DeleteConfigMap(const std::string& ns, const std::string& name);
// The apiserver's LIST of the configmaps in `ns`: "ns/name" -> resourceVersion,
// the state a replay of an informer's handler lines must end in.
std::map<std::string, std::string> ListConfigMaps(const std::string& ns);

// An admin client that reaches the apiserver through 127.0.0.1:`port` (a
// FaultProxy), with the same credentials and TLS verification.
std::unique_ptr<kube::RestClient> AdminClientThrough(int port);

// Runs $INFORMERD_ROOT/hack/control-plane.sh COMMAND against the test
// control plane; fails the test if it fails.
void ControlPlane(const std::string& command);

// Kills kube-apiserver with SIGKILL (its pid file is in $INFORMERD_CP_DIR).
void KillApiserver();

// The contents of the file named by environment variable `variable` (e.g.
// INFORMERD_ALICE_TOKEN_FILE) without surrounding whitespace; aborts the
// test binary when the variable or the file is missing.
std::string ReadFileFromEnv(const char* variable);

// A client for the apiserver that authenticates with `token` alone (not the
// admin's credentials), verifying the server with the admin kubeconfig's CA.
std::unique_ptr<kube::RestClient> ClientWithToken(const std::string& token);

struct InProcessServerOptions {
  // informerd's configuration but its resources (the constructor's). As
  // main's, except read_wait: 10 s, for slow test machines. config.tls set:
  // stub() still connects in plaintext; make your own channel to port().
  config::Config config = [] {
    config::Config config;
    config.read_wait = absl::Seconds(10);
    return config;
  }();
  // Default: AdminClient(). Must outlive the server.
  kube::RestClient* client = nullptr;
  // Set: the resources come from this upstream (e.g. a root informerd, for
  // a tier's leaf) instead of `client`'s apiserver. Must outlive the server.
  service::Upstream* upstream = nullptr;
  // Set: config.auth.mode becomes kubernetes, with this reviewer (e.g. a
  // KubeReviewer over AdminClient()). Must outlive the server.
  auth::Reviewer* reviewer = nullptr;
  // The loopback port to listen on; 0: any free one.
  int port = 0;
  // The Kubernetes API port on a free loopback port (kube_api_port()),
  // over HTTPS with the control plane's serving certificate
  // ($INFORMERD_CP_DIR/pki/serving.crt, which $INFORMERD_CA_FILE signed),
  // passing through to $KUBECONFIG's apiserver. Sets config.tls.
  bool kube_api = false;
};

// informerd's Server on loopback ports, serving `resources`, with a stub.
class InProcessServer {
 public:
  // `client` (default: AdminClient()) must outlive the server.
  explicit InProcessServer(const std::vector<config::ResourceConfig>& resources,
                           cache::HistoryLimits history = {},
                           kube::RestClient* client = nullptr);
  InProcessServer(const std::vector<config::ResourceConfig>& resources,
                  InProcessServerOptions options);
  ~InProcessServer();

  v1::Cache::Stub& stub() { return *stub_; }
  // The loopback port the gRPC server listens on.
  int port() const { return server_->grpc_port(); }
  // The Kubernetes API port (InProcessServerOptions::kube_api).
  int kube_api_port() const { return server_->kube_api_port(); }
  service::ResourceRegistry& registry() { return server_->resources(); }
  size_t open_watches() const { return server_->open_watches(); }
  metrics::Metrics& metrics() { return server_->metrics(); }
  Server& server() { return *server_; }
  // Blocks until every resource is synced.
  void WaitSynced();
  // Blocks until `resource` (plural name) has taken in the apiserver's
  // write at `version`: an object created after the server started is in
  // what informerd serves only then.
  void WaitForVersion(const std::string& resource, const std::string& version);

 private:
  std::unique_ptr<Server> server_;
  std::unique_ptr<v1::Cache::Stub> stub_;
};

}  // namespace informerd::testing

#endif  // INFORMERD_TESTS_INTEGRATION_LIVE_CLUSTER_H_
