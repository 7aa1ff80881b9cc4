package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func q(s string) resource.Quantity { return resource.MustParse(s) }

// makeObjects makes the oracle's objects: rich in the fields whose protobuf
// form differs from their JSON (quantities, int-or-strings, times and
// micro-times, inlined structs, maps, byte fields, optional pointers to zero
// values).
func (oc *oracleCluster) makeObjects(t *testing.T) {
	t.Helper()
	ctx, cs, ns := context.Background(), oc.clientset, oc.namespace
	oc.counts = map[string]int{}
	check := func(resource string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("making %s: %v", resource, err)
		}
		oc.counts[resource]++
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	labels := map[string]string{"app": "oracle", "tier": "backend", "empty": ""}
	annotations := map[string]string{"note": "unicode ✓ <&> \"quoted\"", "empty": ""}

	for i := 0; i < 3; i++ {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Labels: labels, Annotations: annotations},
			Data:       map[string]string{"a": "1", "z": "last", "empty": "", "multi": "line1\nline2\ttab"},
			BinaryData: map[string][]byte{"bin": {0, 1, 2, 255, byte(i)}, "nothing": {}},
			Immutable:  ptr.To(i == 1),
		}, metav1.CreateOptions{})
		check("configmaps", err)
	}
	_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-bare"}}, metav1.CreateOptions{})
	check("configmaps", err)

	podSpec := func(i int) corev1.PodSpec {
		return corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox", Command: []string{"true"}}},
			Containers: []corev1.Container{{
				Name: "app", Image: "nginx:1.25", Command: []string{"/bin/app"}, Args: []string{"--port=8080", ""},
				WorkingDir: "/srv",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
					{Name: "metrics", ContainerPort: 9090, HostPort: 0, Protocol: corev1.ProtocolUDP}},
				Env: []corev1.EnvVar{
					{Name: "PLAIN", Value: "v"},
					{Name: "EMPTY"},
					{Name: "FROM_CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
						LocalObjectReference: corev1.LocalObjectReference{Name: "cm-0"}, Key: "a", Optional: ptr.To(true)}}},
					{Name: "FROM_FIELD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
					{Name: "FROM_RES", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{
						ContainerName: "app", Resource: "limits.memory", Divisor: q("1Mi")}}},
				},
				EnvFrom: []corev1.EnvFromSource{{Prefix: "CM_", ConfigMapRef: &corev1.ConfigMapEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "cm-1"}}}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: q("250m"), corev1.ResourceMemory: q("64Mi")},
					Limits: corev1.ResourceList{corev1.ResourceCPU: q("1500m"), corev1.ResourceMemory: q("128Mi"),
						corev1.ResourceEphemeralStorage: q("1Gi")},
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "cfg", MountPath: "/etc/cfg", ReadOnly: true},
					{Name: "tmp", MountPath: "/tmp", SubPath: "x"}},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
					Path: "/healthz", Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP,
					HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Probe", Value: "1"}}}},
					InitialDelaySeconds: 3, PeriodSeconds: 10, TimeoutSeconds: 2, FailureThreshold: 4, SuccessThreshold: 1},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{
					Port: intstr.FromInt32(8080)}}, PeriodSeconds: 5},
				StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{
					Command: []string{"cat", "/tmp/ready"}}}, FailureThreshold: 30},
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "5"}}}},
				SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To(int64(1000 + i)), RunAsNonRoot: ptr.To(true),
					ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
					Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}, Drop: []corev1.Capability{"ALL"}}},
				ImagePullPolicy: corev1.PullIfNotPresent,
			}},
			Volumes: []corev1.Volume{
				{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "cm-0"}, DefaultMode: ptr.To(int32(0o640)),
					Items: []corev1.KeyToPath{{Key: "a", Path: "a.txt", Mode: ptr.To(int32(0o400))}}}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
					Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(q("256Mi"))}}},
				{Name: "empty", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "downward", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
					Items: []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}},
			},
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
				{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "oracle", Effect: corev1.TaintEffectNoSchedule},
				{Key: "zero", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(0))},
			},
			Affinity: &corev1.Affinity{
				NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}}}}}}},
				PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
					Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "oracle"},
							MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}}}}}}},
			},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone",
				WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "oracle"}}}},
			NodeSelector:                  map[string]string{"disk": "ssd"},
			TerminationGracePeriodSeconds: ptr.To(int64(i * 15)),
			ActiveDeadlineSeconds:         ptr.To(int64(3600)),
			DNSPolicy:                     corev1.DNSClusterFirst,
			DNSConfig:                     &corev1.PodDNSConfig{Nameservers: []string{"10.0.0.10"}, Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}, {Name: "edns0"}}},
			HostAliases:                   []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"a.example", "b.example"}}},
			SecurityContext:               &corev1.PodSecurityContext{FSGroup: ptr.To(int64(2000)), SupplementalGroups: []int64{1, 2, 3}, Sysctls: []corev1.Sysctl{{Name: "net.ipv4.ip_local_port_range", Value: "1024 65535"}}},
			EnableServiceLinks:            ptr.To(false),
			AutomountServiceAccountToken:  ptr.To(false),
		}
	}
	for i := 0; i < 3; i++ {
		pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", i), Labels: labels, Annotations: annotations,
				Finalizers: []string{"oracle.informerd.io/keep"}},
			Spec: podSpec(i),
		}, metav1.CreateOptions{})
		check("pods", err)
		// Status only through the status subresource: times, conditions, IPs.
		pod.Status = corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "10.0.0.1", PodIP: fmt.Sprintf("10.244.0.%d", i+2),
			PodIPs:    []corev1.PodIP{{IP: fmt.Sprintf("10.244.0.%d", i+2)}},
			StartTime: &now, QOSClass: corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: "r", Message: "m"},
			},
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "init", Image: "busybox", ImageID: "sha256:1",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}}}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, RestartCount: int32(i), Image: "nginx:1.25", ImageID: "sha256:2",
				ContainerID: "containerd://abc", Started: ptr.To(true),
				State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Signal: 9, Reason: "OOMKilled", StartedAt: now, FinishedAt: now}}}},
		}
		_, err = cs.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("pod status: %v", err)
		}
	}
	t.Cleanup(func() {
		for i := 0; i < 3; i++ {
			cs.CoreV1().Pods(ns).Patch(context.Background(), fmt.Sprintf("pod-%d", i), "application/merge-patch+json",
				[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		}
	})

	for i := 0; i < 2; i++ {
		template := podSpec(i)
		template.ActiveDeadlineSeconds = nil
		_, err := cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("deploy-%d", i), Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To(int32(i)), // 0 is a set pointer, not an absent field
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "oracle"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: template},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(int32(i)))}},
				MinReadySeconds: 5, RevisionHistoryLimit: ptr.To(int32(3)), ProgressDeadlineSeconds: ptr.To(int32(600)),
			},
		}, metav1.CreateOptions{})
		check("deployments", err)
	}
	_, err = cs.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "deploy-recreate"},
		Spec: appsv1.DeploymentSpec{Paused: true, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}},
	}, metav1.CreateOptions{})
	check("deployments", err)

	services := []*corev1.Service{
		{ObjectMeta: metav1.ObjectMeta{Name: "svc-cluster", Labels: labels},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "oracle"}, Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP},
				{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9091), Protocol: corev1.ProtocolUDP}},
				SessionAffinity:       corev1.ServiceAffinityClientIP,
				SessionAffinityConfig: &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To(int32(600))}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "svc-nodeport"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "oracle"},
				ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyTypeLocal,
				Ports:                 []corev1.ServicePort{{Port: 443, TargetPort: intstr.FromInt32(8443)}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "svc-headless"},
			Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, PublishNotReadyAddresses: true,
				Ports: []corev1.ServicePort{{Port: 53, Protocol: corev1.ProtocolUDP}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "svc-external"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}},
	}
	for _, svc := range services {
		_, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
		check("services", err)
	}

	for i := 0; i < 2; i++ {
		node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("oracle-%s-%d", oc.run, i),
				Labels: map[string]string{"oracle-run": oc.run, "kubernetes.io/os": "linux"}},
			Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.244.%d.0/24", i), PodCIDRs: []string{fmt.Sprintf("10.244.%d.0/24", i)},
				Unschedulable: i == 1,
				Taints: []corev1.Taint{{Key: "dedicated", Value: "oracle", Effect: corev1.TaintEffectNoSchedule},
					{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute, TimeAdded: &now}}},
		}, metav1.CreateOptions{})
		check("nodes", err)
		name := node.Name
		t.Cleanup(func() { cs.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
		node.Status = corev1.NodeStatus{
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: q("4"), corev1.ResourceMemory: q("8Gi"), corev1.ResourcePods: q("110"), "hugepages-2Mi": q("0")},
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: q("3800m"), corev1.ResourceMemory: q("7.5Gi"), corev1.ResourcePods: q("110")},
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: now, LastTransitionTime: now, Reason: "KubeletReady", Message: "ok"},
				{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: now, LastTransitionTime: now}},
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeHostName, Address: "node"}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo:        corev1.NodeSystemInfo{MachineID: "m", KernelVersion: "6.1", OSImage: "Debian", ContainerRuntimeVersion: "containerd://1.7", KubeletVersion: "v1.37.2", OperatingSystem: "linux", Architecture: "amd64"},
			Images:          []corev1.ContainerImage{{Names: []string{"nginx:1.25", "nginx@sha256:abc"}, SizeBytes: 187654321}},
			VolumesInUse:    []corev1.UniqueVolumeName{"kubernetes.io/csi/x"},
		}
		if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("node status: %v", err)
		}
	}

	micro := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	_, err = cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "event-legacy"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "pod-0", APIVersion: "v1", FieldPath: "spec.containers{app}"},
		Reason:         "BackOff", Message: "Back-off restarting failed container",
		Source:         corev1.EventSource{Component: "kubelet", Host: "node"},
		FirstTimestamp: now, LastTimestamp: now, Count: 7, Type: corev1.EventTypeWarning,
	}, metav1.CreateOptions{})
	check("events", err)
	_, err = cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "event-series"},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Namespace: ns, Name: "deploy-0", APIVersion: "apps/v1"},
		Reason:         "ScalingReplicaSet", Message: "Scaled up",
		EventTime:           micro,
		Series:              &corev1.EventSeries{Count: 2, LastObservedTime: micro},
		ReportingController: "oracle.informerd.io/controller", ReportingInstance: "oracle-1", Action: "Scale",
		Type: corev1.EventTypeNormal,
	}, metav1.CreateOptions{})
	check("events", err)

	// A custom resource: its CRD first, then one object.
	crd := map[string]interface{}{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]interface{}{"name": "widgets.oracle.informerd.io"},
		"spec": map[string]interface{}{
			"group": "oracle.informerd.io", "scope": "Namespaced",
			"names": map[string]interface{}{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []interface{}{map[string]interface{}{"name": "v1", "served": true, "storage": true,
				"schema": map[string]interface{}{"openAPIV3Schema": map[string]interface{}{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}
	if err := oc.api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd, nil); err != nil &&
		!isAlreadyExists(err) {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := oc.api.call("POST", "/apis/oracle.informerd.io/v1/namespaces/"+ns+"/widgets", "application/json",
			map[string]interface{}{"apiVersion": "oracle.informerd.io/v1", "kind": "Widget",
				"metadata": map[string]interface{}{"name": "w"},
				"spec":     map[string]interface{}{"size": 3, "time": "2024-01-01T00:00:00Z", "port": "http"}}, nil)
		if err == nil {
			oc.counts["widgets"]++
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("creating a widget: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func isAlreadyExists(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "409") || strings.Contains(err.Error(), "AlreadyExists"))
}
