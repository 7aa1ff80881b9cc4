#include "client/cpp/informerctl/columns.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "client/cpp/informerctl/age.h"
#include "client/cpp/informerctl/json_fields.h"
#include "client/cpp/informerctl/pod_row.h"
#include "rapidjson/document.h"

namespace informerd {
namespace informerctl {

namespace {

using Cells = std::vector<std::string>;

enum class Kind { kOther, kPod, kConfigMap, kSecret, kNamespace, kService, kNode, kDeployment };

Kind KindOf(const informerd::v1::ResourceName& resource) {
  const std::string& name = resource.resource();
  if (resource.group() == "apps") {
    return name == "deployments" ? Kind::kDeployment : Kind::kOther;
  }
  if (!resource.group().empty()) return Kind::kOther;
  if (name == "pods") return Kind::kPod;
  if (name == "configmaps") return Kind::kConfigMap;
  if (name == "secrets") return Kind::kSecret;
  if (name == "namespaces") return Kind::kNamespace;
  if (name == "services") return Kind::kService;
  if (name == "nodes") return Kind::kNode;
  return Kind::kOther;
}

// The columns after NAME; "AGE" marks where the age goes.
Cells TypeHeader(Kind kind, bool wide) {
  Cells header;
  switch (kind) {
    case Kind::kPod:
      header = {"READY", "STATUS", "RESTARTS", "AGE"};
      if (wide) {
        header.insert(header.end(),
                      {"IP", "NODE", "NOMINATED NODE", "READINESS GATES"});
      }
      return header;
    case Kind::kConfigMap:
      return {"DATA", "AGE"};
    case Kind::kSecret:
      return {"TYPE", "DATA", "AGE"};
    case Kind::kNamespace:
      return {"STATUS", "AGE"};
    case Kind::kService:
      header = {"TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"};
      if (wide) header.push_back("SELECTOR");
      return header;
    case Kind::kNode:
      header = {"STATUS", "ROLES", "AGE", "VERSION"};
      if (wide) {
        header.insert(header.end(), {"INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE",
                                     "KERNEL-VERSION", "CONTAINER-RUNTIME"});
      }
      return header;
    case Kind::kDeployment:
      header = {"READY", "UP-TO-DATE", "AVAILABLE", "AGE"};
      if (wide) header.insert(header.end(), {"CONTAINERS", "IMAGES", "SELECTOR"});
      return header;
    case Kind::kOther:
      break;
  }
  return {"AGE"};
}

std::string OrNone(const std::string& value) {
  return value.empty() ? "<none>" : value;
}

// "k=v,k2=v2" in key order, as labels.FormatLabels; "<none>" when empty.
std::string FormatLabelMap(const rapidjson::Value& object, FieldPath path) {
  const rapidjson::Value* map = FieldAt(object, path);
  std::vector<std::string> pairs;
  if (map != nullptr && map->IsObject()) {
    for (const auto& member : map->GetObject()) {
      if (!member.value.IsString()) continue;
      pairs.push_back(absl::StrCat(member.name.GetString(), "=",
                                   member.value.GetString()));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return OrNone(absl::StrJoin(pairs, ","));
}

Cells ServiceCells(const rapidjson::Value& service) {
  const std::string type = StringAt(service, {"spec", "type"});
  rapidjson::Value::ConstArray cluster_ips = ArrayAt(service, {"spec", "clusterIPs"});
  std::string cluster_ip =
      cluster_ips.Empty() || !cluster_ips[0].IsString() ? "<none>"
                                                        : cluster_ips[0].GetString();
  std::vector<std::string> external_ips;
  for (const rapidjson::Value& ip : ArrayAt(service, {"spec", "externalIPs"})) {
    if (ip.IsString()) external_ips.push_back(ip.GetString());
  }
  std::string external_ip;
  if (type == "ClusterIP" || type == "NodePort") {
    external_ip = external_ips.empty() ? "<none>" : absl::StrJoin(external_ips, ",");
  } else if (type == "LoadBalancer") {
    // Each ingress point once, sorted. The API server's printer would cut
    // the list to 16 characters outside -o wide, but it prints kubectl's
    // tables in wide mode (hiding columns is kubectl's part), so kubectl
    // shows it whole.
    std::set<std::string> points;
    for (const rapidjson::Value& ingress :
         ArrayAt(service, {"status", "loadBalancer", "ingress"})) {
      std::string ip = StringAt(ingress, {"ip"});
      std::string hostname = StringAt(ingress, {"hostname"});
      if (!ip.empty()) {
        points.insert(ip);
      } else if (!hostname.empty()) {
        points.insert(hostname);
      }
    }
    std::string balancers = absl::StrJoin(points, ",");
    if (!external_ips.empty()) {
      std::vector<std::string> all;
      if (!balancers.empty()) all = absl::StrSplit(balancers, ',');
      all.insert(all.end(), external_ips.begin(), external_ips.end());
      external_ip = absl::StrJoin(all, ",");
    } else {
      external_ip = balancers.empty() ? "<pending>" : balancers;
    }
  } else if (type == "ExternalName") {
    external_ip = StringAt(service, {"spec", "externalName"});
  } else {
    external_ip = "<unknown>";
  }
  std::vector<std::string> ports;
  for (const rapidjson::Value& port : ArrayAt(service, {"spec", "ports"})) {
    int64_t node_port = IntAt(port, {"nodePort"});
    ports.push_back(node_port > 0
                        ? absl::StrCat(IntAt(port, {"port"}), ":", node_port, "/",
                                       StringAt(port, {"protocol"}))
                        : absl::StrCat(IntAt(port, {"port"}), "/",
                                       StringAt(port, {"protocol"})));
  }
  Cells cells = {type, cluster_ip, external_ip, OrNone(absl::StrJoin(ports, ","))};
  return cells;
}

std::string NodeStatus(const rapidjson::Value& node) {
  std::string status = "Unknown";
  for (const rapidjson::Value& condition : ArrayAt(node, {"status", "conditions"})) {
    // The last Ready condition counts, as a map keyed by type keeps it.
    if (StringAt(condition, {"type"}) == "Ready") {
      status = StringAt(condition, {"status"}) == "True" ? "Ready" : "NotReady";
    }
  }
  if (BoolAt(node, {"spec", "unschedulable"})) status += ",SchedulingDisabled";
  return status;
}

std::string NodeRoles(const rapidjson::Value& node) {
  constexpr absl::string_view kRolePrefix = "node-role.kubernetes.io/";
  std::set<std::string> roles;
  const rapidjson::Value* labels = FieldAt(node, {"metadata", "labels"});
  if (labels != nullptr && labels->IsObject()) {
    for (const auto& label : labels->GetObject()) {
      absl::string_view key(label.name.GetString(), label.name.GetStringLength());
      if (absl::StartsWith(key, kRolePrefix) && key.size() > kRolePrefix.size()) {
        roles.insert(std::string(key.substr(kRolePrefix.size())));
      } else if (key == "kubernetes.io/role" && label.value.IsString() &&
                 label.value.GetStringLength() > 0) {
        roles.insert(label.value.GetString());
      }
    }
  }
  return OrNone(absl::StrJoin(roles, ","));
}

std::string NodeAddress(const rapidjson::Value& node, absl::string_view type) {
  for (const rapidjson::Value& address : ArrayAt(node, {"status", "addresses"})) {
    if (StringAt(address, {"type"}) == type) return StringAt(address, {"address"});
  }
  return "<none>";
}

std::string OrUnknown(const std::string& value) {
  return value.empty() ? "<unknown>" : value;
}

Cells NodeWideCells(const rapidjson::Value& node) {
  std::string kernel = OrUnknown(StringAt(node, {"status", "nodeInfo", "kernelVersion"}));
  std::string architecture = StringAt(node, {"status", "nodeInfo", "architecture"});
  if (!architecture.empty()) absl::StrAppend(&kernel, " (", architecture, ")");
  return {NodeAddress(node, "InternalIP"), NodeAddress(node, "ExternalIP"),
          OrUnknown(StringAt(node, {"status", "nodeInfo", "osImage"})), kernel,
          OrUnknown(StringAt(node, {"status", "nodeInfo", "containerRuntimeVersion"}))};
}

// A label selector in the syntax of labels.Selector.String(): requirements
// in key order, "k=v", "k in (a,b)", "k notin (a,b)", "k", "!k".
std::string SelectorString(const rapidjson::Value& selector) {
  std::vector<std::pair<std::string, std::string>> requirements;
  const rapidjson::Value* match_labels = FieldAt(selector, {"matchLabels"});
  if (match_labels != nullptr && match_labels->IsObject()) {
    for (const auto& label : match_labels->GetObject()) {
      if (!label.value.IsString()) continue;
      requirements.emplace_back(label.name.GetString(),
                                absl::StrCat(label.name.GetString(), "=",
                                             label.value.GetString()));
    }
  }
  for (const rapidjson::Value& expression : ArrayAt(selector, {"matchExpressions"})) {
    std::string key = StringAt(expression, {"key"});
    std::string op = StringAt(expression, {"operator"});
    std::set<std::string> values;
    for (const rapidjson::Value& value : ArrayAt(expression, {"values"})) {
      if (value.IsString()) values.insert(value.GetString());
    }
    std::string text;
    if (op == "In") {
      text = absl::StrCat(key, " in (", absl::StrJoin(values, ","), ")");
    } else if (op == "NotIn") {
      text = absl::StrCat(key, " notin (", absl::StrJoin(values, ","), ")");
    } else if (op == "Exists") {
      text = key;
    } else if (op == "DoesNotExist") {
      text = absl::StrCat("!", key);
    } else {
      return "<invalid>";
    }
    requirements.emplace_back(key, std::move(text));
  }
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> texts;
  for (auto& [key, text] : requirements) texts.push_back(std::move(text));
  return absl::StrJoin(texts, ",");
}

Cells DeploymentWideCells(const rapidjson::Value& deployment) {
  std::vector<std::string> names, images;
  for (const rapidjson::Value& container :
       ArrayAt(deployment, {"spec", "template", "spec", "containers"})) {
    names.push_back(StringAt(container, {"name"}));
    images.push_back(StringAt(container, {"image"}));
  }
  const rapidjson::Value* selector = FieldAt(deployment, {"spec", "selector"});
  return {absl::StrJoin(names, ","), absl::StrJoin(images, ","),
          selector == nullptr ? "" : SelectorString(*selector)};
}

// The type's cells after NAME, AGE included, matching TypeHeader.
Cells TypeCells(Kind kind, const rapidjson::Value& object, bool wide,
                absl::Time now) {
  const std::string age =
      AgeSince(StringAt(object, {"metadata", "creationTimestamp"}), now);
  switch (kind) {
    case Kind::kPod: {
      PodCells pod = SummarizePod(object, now);
      Cells cells = {pod.ready, pod.status, pod.restarts, age};
      if (wide) {
        cells.insert(cells.end(), {pod.ip, pod.node, pod.nominated_node,
                                   pod.readiness_gates});
      }
      return cells;
    }
    case Kind::kConfigMap:
      return {absl::StrCat(MemberCountAt(object, {"data"}) +
                           MemberCountAt(object, {"binaryData"})),
              age};
    case Kind::kSecret:
      return {StringAt(object, {"type"}),
              absl::StrCat(MemberCountAt(object, {"data"})), age};
    case Kind::kNamespace:
      return {StringAt(object, {"status", "phase"}), age};
    case Kind::kService: {
      Cells cells = ServiceCells(object);
      cells.push_back(age);
      if (wide) cells.push_back(FormatLabelMap(object, {"spec", "selector"}));
      return cells;
    }
    case Kind::kNode: {
      Cells cells = {NodeStatus(object), NodeRoles(object), age,
                     StringAt(object, {"status", "nodeInfo", "kubeletVersion"})};
      if (wide) {
        Cells extra = NodeWideCells(object);
        cells.insert(cells.end(), extra.begin(), extra.end());
      }
      return cells;
    }
    case Kind::kDeployment: {
      // The API server defaults spec.replicas to 1.
      int64_t desired = HasField(object, {"spec", "replicas"})
                            ? IntAt(object, {"spec", "replicas"})
                            : 1;
      Cells cells = {
          absl::StrCat(IntAt(object, {"status", "readyReplicas"}), "/", desired),
          absl::StrCat(IntAt(object, {"status", "updatedReplicas"})),
          absl::StrCat(IntAt(object, {"status", "availableReplicas"})), age};
      if (wide) {
        Cells extra = DeploymentWideCells(object);
        cells.insert(cells.end(), extra.begin(), extra.end());
      }
      return cells;
    }
    case Kind::kOther:
      break;
  }
  return {age};
}

}  // namespace

std::vector<std::string> TableHeader(const informerd::v1::ResourceName& resource,
                                     const TableOptions& options) {
  Cells header;
  if (options.with_namespace) header.push_back("NAMESPACE");
  header.push_back("NAME");
  Cells rest = TypeHeader(KindOf(resource), options.wide);
  header.insert(header.end(), rest.begin(), rest.end());
  return header;
}

std::vector<std::string> TableRow(const informerd::v1::ResourceName& resource,
                                  const informerd::v1::Object& object,
                                  const TableOptions& options) {
  Cells row;
  if (options.with_namespace) row.push_back(object.namespace_());
  row.push_back(object.name());
  const Kind kind = KindOf(resource);
  rapidjson::Document document;
  // Iterative: nesting costs heap, not stack, whatever the server sends.
  document.Parse<rapidjson::kParseIterativeFlag>(object.json().data(),
                                                 object.json().size());
  if (document.HasParseError() || !document.IsObject()) {
    Cells header = TypeHeader(kind, options.wide);
    for (const std::string& column : header) {
      row.push_back(column == "AGE" ? "<unknown>" : "");
    }
    return row;
  }
  Cells rest = TypeCells(kind, document, options.wide, options.now);
  row.insert(row.end(), rest.begin(), rest.end());
  return row;
}

}  // namespace informerctl
}  // namespace informerd
