#include "bench/pod_fixture.h"

#include "absl/strings/str_cat.h"

namespace informerd::bench {
namespace {

constexpr int kContainers = 2;
constexpr int kEnvVars = 6;

std::string Container(int c, size_t index) {
  std::string env;
  for (int e = 0; e < kEnvVars; ++e) {
    absl::StrAppend(&env, e == 0 ? "" : ",", "{\"name\":\"APP_SETTING_", e,
                    "\",\"value\":\"value-", index, "-", c, "-", e,
                    "-lorem-ipsum-dolor-sit-amet\"}");
  }
  absl::StrAppend(&env, ",{\"name\":\"POD_NAME\",\"valueFrom\":{\"fieldRef\":{\"apiVersion\":"
                        "\"v1\",\"fieldPath\":\"metadata.name\"}}}");
  return absl::StrCat(
      "{\"name\":\"container-", c, "\",\"image\":\"registry.example.com/team/service-", c,
      ":v1.", index % 17, ".3\",\"command\":[\"/bin/server\"],\"args\":[\"--port=", 8080 + c,
      "\",\"--log-level=info\",\"--config=/etc/config/app.yaml\"],\"ports\":[{\"name\":\"http\","
      "\"containerPort\":",
      8080 + c,
      ",\"protocol\":\"TCP\"},{\"name\":\"metrics\",\"containerPort\":9090,\"protocol\":\"TCP\"}],"
      "\"env\":[",
      env,
      "],\"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"},\"requests\":{\"cpu\":"
      "\"100m\",\"memory\":\"128Mi\"}},\"volumeMounts\":[{\"name\":\"config\",\"mountPath\":\"/etc/"
      "config\",\"readOnly\":true},{\"name\":\"data\",\"mountPath\":\"/var/lib/data\"},{\"name\":"
      "\"kube-api-access\",\"readOnly\":true,\"mountPath\":\"/var/run/secrets/kubernetes.io/"
      "serviceaccount\"}],\"livenessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":",
      8080 + c,
      ",\"scheme\":\"HTTP\"},\"initialDelaySeconds\":10,\"timeoutSeconds\":1,\"periodSeconds\":10,"
      "\"successThreshold\":1,\"failureThreshold\":3},\"readinessProbe\":{\"httpGet\":{\"path\":\"/"
      "readyz\",\"port\":",
      8080 + c,
      ",\"scheme\":\"HTTP\"},\"timeoutSeconds\":1,\"periodSeconds\":5,\"successThreshold\":1,"
      "\"failureThreshold\":3},\"terminationMessagePath\":\"/dev/termination-log\","
      "\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":\"IfNotPresent\","
      "\"securityContext\":{\"runAsNonRoot\":true,\"readOnlyRootFilesystem\":true,"
      "\"allowPrivilegeEscalation\":false}}");
}

std::string ContainerStatus(int c, size_t index) {
  return absl::StrCat(
      "{\"name\":\"container-", c,
      "\",\"state\":{\"running\":{\"startedAt\":\"2024-05-01T10:00:0", c,
      "Z\"}},\"lastState\":{},\"ready\":true,\"restartCount\":0,\"image\":\"registry.example.com/"
      "team/service-",
      c, ":v1.", index % 17,
      ".3\",\"imageID\":\"registry.example.com/team/service@sha256:"
      "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945\",\"containerID\":"
      "\"containerd://",
      index, "a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0", c,
      "\",\"started\":true}");
}

// The fieldsV1 tree for one container, as server-side apply records it.
std::string ContainerFields(int c) {
  std::string env;
  for (int e = 0; e < kEnvVars; ++e) {
    absl::StrAppend(&env, "\"k:{\\\"name\\\":\\\"APP_SETTING_", e,
                    "\\\"}\":{\".\":{},\"f:name\":{},\"f:value\":{}},");
  }
  return absl::StrCat(
      "\"k:{\\\"name\\\":\\\"container-", c,
      "\\\"}\":{\".\":{},\"f:args\":{},\"f:command\":{},\"f:env\":{\".\":{},",
      env,
      "\"k:{\\\"name\\\":\\\"POD_NAME\\\"}\":{\".\":{},\"f:name\":{},\"f:valueFrom\":{\".\":{},"
      "\"f:fieldRef\":{}}}},\"f:image\":{},\"f:imagePullPolicy\":{},\"f:livenessProbe\":{\".\":{},"
      "\"f:failureThreshold\":{},\"f:httpGet\":{\".\":{},\"f:path\":{},\"f:port\":{},\"f:scheme\":{}},"
      "\"f:initialDelaySeconds\":{},\"f:periodSeconds\":{},\"f:successThreshold\":{},"
      "\"f:timeoutSeconds\":{}},\"f:name\":{},\"f:ports\":{\".\":{},\"k:{\\\"containerPort\\\":",
      8080 + c,
      ",\\\"protocol\\\":\\\"TCP\\\"}\":{\".\":{},\"f:containerPort\":{},\"f:name\":{},"
      "\"f:protocol\":{}}},\"f:readinessProbe\":{\".\":{},\"f:failureThreshold\":{},\"f:httpGet\":{"
      "\".\":{},\"f:path\":{},\"f:port\":{},\"f:scheme\":{}},\"f:periodSeconds\":{},"
      "\"f:successThreshold\":{},\"f:timeoutSeconds\":{}},\"f:resources\":{\".\":{},\"f:limits\":{"
      "\".\":{},\"f:cpu\":{},\"f:memory\":{}},\"f:requests\":{\".\":{},\"f:cpu\":{},\"f:memory\":{}}},"
      "\"f:securityContext\":{\".\":{},\"f:allowPrivilegeEscalation\":{},\"f:readOnlyRootFilesystem\":"
      "{},\"f:runAsNonRoot\":{}},\"f:terminationMessagePath\":{},\"f:terminationMessagePolicy\":{},"
      "\"f:volumeMounts\":{\".\":{},\"k:{\\\"mountPath\\\":\\\"/etc/config\\\"}\":{\".\":{},"
      "\"f:mountPath\":{},\"f:name\":{},\"f:readOnly\":{}},\"k:{\\\"mountPath\\\":\\\"/var/lib/"
      "data\\\"}\":{\".\":{},\"f:mountPath\":{},\"f:name\":{}}}}");
}

std::string ManagedFields() {
  std::string containers;
  for (int c = 0; c < kContainers; ++c) absl::StrAppend(&containers, c == 0 ? "" : ",", ContainerFields(c));
  return absl::StrCat(
      "[{\"manager\":\"kube-controller-manager\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
      "\"time\":\"2024-05-01T10:00:00Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{"
      "\"f:generateName\":{},\"f:labels\":{\".\":{},\"f:app\":{},\"f:pod-template-hash\":{},"
      "\"f:team\":{},\"f:tier\":{},\"f:version\":{},\"f:shard\":{}},\"f:ownerReferences\":{\".\":{},"
      "\"k:{\\\"uid\\\":\\\"7c1e2d3f-0000-4000-8000-00000000abcd\\\"}\":{}}},\"f:spec\":{"
      "\"f:containers\":{",
      containers,
      "},\"f:dnsPolicy\":{},\"f:enableServiceLinks\":{},\"f:restartPolicy\":{},"
      "\"f:schedulerName\":{},\"f:securityContext\":{},\"f:terminationGracePeriodSeconds\":{},"
      "\"f:volumes\":{}}}},{\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\","
      "\"time\":\"2024-05-01T10:00:09Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{"
      "\"f:conditions\":{\"k:{\\\"type\\\":\\\"ContainersReady\\\"}\":{\".\":{},"
      "\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},\"f:status\":{},\"f:type\":{}},"
      "\"k:{\\\"type\\\":\\\"Initialized\\\"}\":{\".\":{},\"f:lastProbeTime\":{},"
      "\"f:lastTransitionTime\":{},\"f:status\":{},\"f:type\":{}},\"k:{\\\"type\\\":\\\"Ready\\\"}\":"
      "{\".\":{},\"f:lastProbeTime\":{},\"f:lastTransitionTime\":{},\"f:status\":{},\"f:type\":{}}},"
      "\"f:containerStatuses\":{},\"f:hostIP\":{},\"f:phase\":{},\"f:podIP\":{},\"f:podIPs\":{\".\":"
      "{},\"k:{\\\"ip\\\":\\\"10.0.0.1\\\"}\":{\".\":{},\"f:ip\":{}}},\"f:startTime\":{}}}}]");
}

}  // namespace

std::string PodJson(size_t index, uint64_t resource_version) {
  std::string containers;
  std::string statuses;
  for (int c = 0; c < kContainers; ++c) {
    absl::StrAppend(&containers, c == 0 ? "" : ",", Container(c, index));
    absl::StrAppend(&statuses, c == 0 ? "" : ",", ContainerStatus(c, index));
  }
  const size_t app = index % 40;
  return absl::StrCat(
      "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"service-", app,
      "-7d4b9c8f6d-", index, "\",\"generateName\":\"service-", app,
      "-7d4b9c8f6d-\",\"namespace\":\"ns-", index % 50, "\",\"uid\":\"", 10000000 + index,
      "-2f1e-4d3c-9b8a-7f6e5d4c3b2a\",\"resourceVersion\":\"", resource_version,
      "\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"labels\":{\"app\":\"service-", app,
      "\",\"pod-template-hash\":\"7d4b9c8f6d\",\"team\":\"team-", index % 7,
      "\",\"tier\":\"backend\",\"version\":\"v1.", index % 17, ".3\",\"shard\":\"", index % 64,
      "\"},\"annotations\":{\"prometheus.io/scrape\":\"true\",\"prometheus.io/port\":\"9090\","
      "\"kubectl.kubernetes.io/restartedAt\":\"2024-05-01T09:59:00Z\",\"example.com/"
      "build-info\":\"commit=0123456789abcdef0123456789abcdef01234567;pipeline=",
      index,
      "\"},\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":"
      "\"service-",
      app,
      "-7d4b9c8f6d\",\"uid\":\"7c1e2d3f-0000-4000-8000-00000000abcd\",\"controller\":true,"
      "\"blockOwnerDeletion\":true}],\"managedFields\":",
      ManagedFields(),
      "},\"spec\":{\"volumes\":[{\"name\":\"config\",\"configMap\":{\"name\":\"service-config\","
      "\"defaultMode\":420}},{\"name\":\"data\",\"emptyDir\":{}},{\"name\":\"kube-api-access\","
      "\"projected\":{\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":"
      "\"token\"}},{\"configMap\":{\"name\":\"kube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\","
      "\"path\":\"ca.crt\"}]}}],\"defaultMode\":420}}],\"containers\":[",
      containers,
      "],\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":"
      "\"ClusterFirst\",\"serviceAccountName\":\"default\",\"nodeName\":\"node-",
      index % 100,
      "\",\"securityContext\":{},\"schedulerName\":\"default-scheduler\",\"tolerations\":[{\"key\":"
      "\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
      "\"tolerationSeconds\":300}],\"priority\":0,\"enableServiceLinks\":true,"
      "\"preemptionPolicy\":\"PreemptLowerPriority\"},\"status\":{\"phase\":\"Running\","
      "\"conditions\":[{\"type\":\"Initialized\",\"status\":\"True\",\"lastProbeTime\":null,"
      "\"lastTransitionTime\":\"2024-05-01T10:00:00Z\"},{\"type\":\"Ready\",\"status\":\"True\","
      "\"lastProbeTime\":null,\"lastTransitionTime\":\"2024-05-01T10:00:09Z\"},{\"type\":"
      "\"ContainersReady\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":"
      "\"2024-05-01T10:00:09Z\"},{\"type\":\"PodScheduled\",\"status\":\"True\",\"lastProbeTime\":"
      "null,\"lastTransitionTime\":\"2024-05-01T10:00:00Z\"}],\"hostIP\":\"192.168.",
      index % 100 / 10, ".", index % 100, "\",\"podIP\":\"10.", index / 65536 % 256, ".",
      index / 256 % 256, ".", index % 256, "\",\"podIPs\":[{\"ip\":\"10.", index / 65536 % 256, ".",
      index / 256 % 256, ".", index % 256,
      "\"}],\"startTime\":\"2024-05-01T10:00:00Z\",\"containerStatuses\":[", statuses,
      "],\"qosClass\":\"Burstable\"}}");
}

std::string PodListJson(size_t first, size_t count, uint64_t resource_version) {
  std::string list = absl::StrCat(
      "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"",
      resource_version, "\"},\"items\":[");
  for (size_t i = first; i < first + count; ++i) {
    absl::StrAppend(&list, i == first ? "" : ",", PodJson(i, i + 1));
  }
  list += "]}";
  return list;
}

std::string PodWatchFrameJson(const char* type, size_t index, uint64_t resource_version) {
  return absl::StrCat("{\"type\":\"", type, "\",\"object\":", PodJson(index, resource_version),
                      "}");
}

}  // namespace informerd::bench
