#include "client/cpp/informerctl/columns.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace informerd {
namespace informerctl {
namespace {

using Cells = std::vector<std::string>;

absl::Time Now() {
  return absl::FromUnixSeconds(1767348005);  // 2026-01-02T10:00:05Z
}

constexpr char kCreated[] = R"("creationTimestamp":"2026-01-02T10:00:00Z")";

informerd::v1::ResourceName Resource(const std::string& group,
                                     const std::string& resource) {
  informerd::v1::ResourceName name;
  name.set_group(group);
  name.set_resource(resource);
  return name;
}

informerd::v1::Object Object(const std::string& json) {
  informerd::v1::Object object;
  object.set_namespace_("ns");
  object.set_name("obj");
  object.set_json(json);
  return object;
}

TableOptions Options(bool with_namespace = false, bool wide = false) {
  TableOptions options;
  options.with_namespace = with_namespace;
  options.wide = wide;
  options.now = Now();
  return options;
}

TEST(ColumnsTest, AnyOtherTypeHasNameAndAge) {
  auto leases = Resource("coordination.k8s.io", "leases");
  EXPECT_EQ(TableHeader(leases, Options()), (Cells{"NAME", "AGE"}));
  EXPECT_EQ(TableHeader(leases, Options(true, true)),
            (Cells{"NAMESPACE", "NAME", "AGE"}));
  EXPECT_EQ(TableRow(leases, Object(absl::StrCat("{\"metadata\":{", kCreated, "}}")),
                     Options(true)),
            (Cells{"ns", "obj", "5s"}));
}

TEST(ColumnsTest, UnparsableJsonKeepsTheColumns) {
  EXPECT_EQ(TableRow(Resource("", "secrets"), Object("{"), Options()),
            (Cells{"obj", "", "", "<unknown>"}));
}

TEST(ColumnsTest, ConfigMapsCountDataAndBinaryData) {
  auto configmaps = Resource("", "configmaps");
  EXPECT_EQ(TableHeader(configmaps, Options()), (Cells{"NAME", "DATA", "AGE"}));
  EXPECT_EQ(TableRow(configmaps,
                     Object(absl::StrCat("{\"metadata\":{", kCreated,
                                         R"(},"data":{"a":"1"},"binaryData":{"b":"AA=="}})")),
                     Options()),
            (Cells{"obj", "2", "5s"}));
  EXPECT_EQ(TableRow(configmaps, Object("{\"metadata\":{}}"), Options()),
            (Cells{"obj", "0", "<unknown>"}));
}

TEST(ColumnsTest, Secrets) {
  auto secrets = Resource("", "secrets");
  EXPECT_EQ(TableHeader(secrets, Options()), (Cells{"NAME", "TYPE", "DATA", "AGE"}));
  EXPECT_EQ(TableRow(secrets,
                     Object(absl::StrCat("{\"metadata\":{", kCreated,
                                         R"(},"type":"Opaque","data":{"a":"MQ==","b":"Mg=="}})")),
                     Options()),
            (Cells{"obj", "Opaque", "2", "5s"}));
}

TEST(ColumnsTest, Namespaces) {
  auto namespaces = Resource("", "namespaces");
  EXPECT_EQ(TableHeader(namespaces, Options()), (Cells{"NAME", "STATUS", "AGE"}));
  EXPECT_EQ(TableRow(namespaces,
                     Object(absl::StrCat("{\"metadata\":{", kCreated,
                                         R"(},"status":{"phase":"Terminating"}})")),
                     Options()),
            (Cells{"obj", "Terminating", "5s"}));
}

TEST(ColumnsTest, Services) {
  auto services = Resource("", "services");
  EXPECT_EQ(TableHeader(services, Options()),
            (Cells{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}));
  EXPECT_EQ(TableHeader(services, Options(false, true)).back(), "SELECTOR");
  EXPECT_EQ(
      TableRow(services,
               Object(absl::StrCat(
                   "{\"metadata\":{", kCreated,
                   R"(},"spec":{"type":"ClusterIP","clusterIPs":["10.0.0.7"],)"
                   R"("ports":[{"port":80,"protocol":"TCP"},{"port":53,"protocol":"UDP"}],)"
                   R"("selector":{"tier":"web","app":"a"}}})")),
               Options(false, true)),
      (Cells{"obj", "ClusterIP", "10.0.0.7", "<none>", "80/TCP,53/UDP", "5s",
             "app=a,tier=web"}));
  EXPECT_EQ(TableRow(services,
                     Object(R"({"spec":{"type":"NodePort","clusterIPs":["10.0.0.8"],)"
                            R"("externalIPs":["1.2.3.4"],)"
                            R"("ports":[{"port":80,"nodePort":30080,"protocol":"TCP"}]}})"),
                     Options()),
            (Cells{"obj", "NodePort", "10.0.0.8", "1.2.3.4", "80:30080/TCP", "<unknown>"}));
  EXPECT_EQ(TableRow(services,
                     Object(R"({"spec":{"type":"ExternalName","externalName":"db.example.com"}})"),
                     Options()),
            (Cells{"obj", "ExternalName", "<none>", "db.example.com", "<none>", "<unknown>"}));
}

TEST(ColumnsTest, LoadBalancerIngressSortedAndWhole) {
  auto services = Resource("", "services");
  informerd::v1::Object balancer =
      Object(R"({"spec":{"type":"LoadBalancer","clusterIPs":["10.0.0.9"],)"
             R"("ports":[{"port":443,"protocol":"TCP"}]},)"
             R"("status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.20"},)"
             R"({"hostname":"lb.example.com"},{"ip":"203.0.113.20"}]}}})");
  EXPECT_EQ(TableRow(services, balancer, Options())[3], "203.0.113.20,lb.example.com");
  EXPECT_EQ(TableRow(services, balancer, Options(false, true))[3],
            "203.0.113.20,lb.example.com");
  EXPECT_EQ(TableRow(services,
                     Object(R"({"spec":{"type":"LoadBalancer","clusterIPs":["10.0.0.9"]}})"),
                     Options())[3],
            "<pending>");
}

TEST(ColumnsTest, Deployments) {
  auto deployments = Resource("apps", "deployments");
  EXPECT_EQ(TableHeader(deployments, Options()),
            (Cells{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}));
  EXPECT_EQ(
      TableRow(deployments,
               Object(absl::StrCat(
                   "{\"metadata\":{", kCreated,
                   R"(},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},)"
                   R"("matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]},)"
                   R"({"key":"canary","operator":"DoesNotExist"}]},)"
                   R"("template":{"spec":{"containers":[{"name":"a","image":"i:1"},)"
                   R"({"name":"b","image":"j:2"}]}}},)"
                   R"("status":{"readyReplicas":2,"updatedReplicas":3,"availableReplicas":1}})")),
               Options(false, true)),
      (Cells{"obj", "2/3", "3", "1", "5s", "a,b", "i:1,j:2",
             "app=web,!canary,env in (dev,prod)"}));
  // The same resource name in another group has no columns of its own.
  EXPECT_EQ(TableHeader(Resource("example.com", "deployments"), Options()),
            (Cells{"NAME", "AGE"}));
}

TEST(ColumnsTest, Nodes) {
  auto nodes = Resource("", "nodes");
  EXPECT_EQ(TableHeader(nodes, Options()),
            (Cells{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}));
  EXPECT_EQ(
      TableRow(nodes,
               Object(absl::StrCat(
                   "{\"metadata\":{", kCreated,
                   R"(,"labels":{"node-role.kubernetes.io/control-plane":"",)"
                   R"("node-role.kubernetes.io/":"x","kubernetes.io/role":"infra"}},)"
                   R"("spec":{"unschedulable":true},)"
                   R"("status":{"conditions":[{"type":"MemoryPressure","status":"False"},)"
                   R"({"type":"Ready","status":"False"}],)"
                   R"("addresses":[{"type":"InternalIP","address":"10.1.1.1"}],)"
                   R"("nodeInfo":{"kubeletVersion":"v1.37.2","architecture":"amd64",)"
                   R"("kernelVersion":"6.1.0","osImage":"Debian"}}})")),
               Options(false, true)),
      (Cells{"obj", "NotReady,SchedulingDisabled", "control-plane,infra", "5s",
             "v1.37.2", "10.1.1.1", "<none>", "Debian", "6.1.0 (amd64)",
             "<unknown>"}));
  EXPECT_EQ(TableRow(nodes, Object("{}"), Options()),
            (Cells{"obj", "Unknown", "<none>", "<unknown>", ""}));
}

TEST(ColumnsTest, PodsWide) {
  auto pods = Resource("", "pods");
  EXPECT_EQ(TableHeader(pods, Options(true)),
            (Cells{"NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"}));
  EXPECT_EQ(TableHeader(pods, Options(false, true)),
            (Cells{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE",
                   "NOMINATED NODE", "READINESS GATES"}));
  EXPECT_EQ(TableRow(pods,
                     Object(absl::StrCat(
                         "{\"metadata\":{", kCreated,
                         R"(},"spec":{"nodeName":"n1","containers":[{"name":"c"}]},)"
                         R"("status":{"phase":"Running","podIPs":[{"ip":"10.2.0.5"}],)"
                         R"("containerStatuses":[{"name":"c","ready":true,"state":{"running":{}}}]}})")),
                     Options(false, true)),
            (Cells{"obj", "1/1", "Running", "0", "5s", "10.2.0.5", "n1", "<none>",
                   "<none>"}));
}

}  // namespace
}  // namespace informerctl
}  // namespace informerd
