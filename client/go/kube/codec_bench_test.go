package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// benchPod is a pod as a controller sees many of: two containers with
// resources, probes, env and mounts, status with conditions and times.
func benchPod(i int) *corev1.Pod {
	now := metav1.NewTime(time.Unix(1700000000, 0))
	container := func(name string) corev1.Container {
		return corev1.Container{
			Name: name, Image: "registry.example/app:1.2.3", Args: []string{"--port=8080", "--verbose"},
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			Env:   []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("256Mi")},
			},
			VolumeMounts:   []corev1.VolumeMount{{Name: "token", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
			LivenessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("http")}}, PeriodSeconds: 10},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(8080)}}},
		}
	}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "default", UID: "6aba3716-0a9d-40f2-a720-c83b617da773",
			ResourceVersion: fmt.Sprint(1000 + i), CreationTimestamp: now, Labels: map[string]string{"app": "web", "pod-template-hash": "abc123"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc123", UID: "u", Controller: new(true)}}},
		Spec: corev1.PodSpec{
			Containers:  []corev1.Container{container("app"), container("sidecar")},
			Volumes:     []corev1.Volume{{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: new(int64(3607))}}}}}}},
			Tolerations: []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64(300))}},
			NodeName:    "node-1", ServiceAccountName: "default", RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst,
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.5", HostIP: "10.0.0.1", StartTime: &now, QOSClass: corev1.PodQOSBurstable,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, Image: "registry.example/app:1.2.3", ImageID: "sha256:1", ContainerID: "containerd://1",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}},
	}
}

// BenchmarkDecode10kPods decodes 10,000 pods per iteration as the Go adapter
// does, from informerd's JSON and from the Kubernetes protobuf encoding.
func BenchmarkDecode10kPods(b *testing.B) {
	const n = 10000
	c, err := typedCodec(scheme.Scheme, corev1.SchemeGroupVersion.WithResource("pods"), &corev1.Pod{})
	if err != nil {
		b.Fatal(err)
	}
	encoder := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	jsonObjects := make([]*informerdv1.Object, n)
	protoObjects := make([]*informerdv1.Object, n)
	jsonBytes, protoBytes := 0, 0
	for i := range n {
		pod := benchPod(i)
		data, err := json.Marshal(pod)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := encoder.Encode(pod, &buf); err != nil {
			b.Fatal(err)
		}
		jsonObjects[i] = &informerdv1.Object{Json: data, Name: pod.Name, Namespace: pod.Namespace}
		protoObjects[i] = &informerdv1.Object{Protobuf: buf.Bytes(), Name: pod.Name, Namespace: pod.Namespace}
		jsonBytes += len(data)
		protoBytes += buf.Len()
	}
	for _, bc := range []struct {
		name    string
		objects []*informerdv1.Object
		size    int
	}{{"json", jsonObjects, jsonBytes}, {"protobuf", protoObjects, protoBytes}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(bc.size))
			for b.Loop() {
				for _, obj := range bc.objects {
					if _, err := c.decode(obj); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
