package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

// The field-mask oracle through the Go client: a pod List, Get and Watch
// with a five-field mask, in protobuf, decoded by client-go, equals the
// apiserver's JSON of the same pod with every field outside the mask (and
// the identity informerd always adds) removed, decoded the same way.

var nodeAgentMask = []string{"spec.nodeName", "status.podIP", "metadata.labels", "spec.containers.image", "status.phase"}

// maskIdentity: what every mask holds besides its own paths.
var maskIdentity = []string{"apiVersion", "kind", "metadata.name", "metadata.namespace", "metadata.uid", "metadata.resourceVersion"}

// prune removes from value every object member off the paths: a path
// through a list applies to each element; scalars stay.
func prune(value interface{}, paths [][]string) {
	switch v := value.(type) {
	case []interface{}:
		for _, element := range v {
			prune(element, paths)
		}
	case map[string]interface{}:
		for name, member := range v {
			var below [][]string
			kept, whole := false, false
			for _, path := range paths {
				if path[0] != name {
					continue
				}
				kept = true
				if len(path) == 1 {
					whole = true
				} else {
					below = append(below, path[1:])
				}
			}
			switch {
			case !kept:
				delete(v, name)
			case !whole:
				prune(member, below)
			}
		}
	}
}

func prunedPod(t *testing.T, apiJSON []byte, fields []string) runtime.Object {
	t.Helper()
	var object map[string]interface{}
	if err := json.Unmarshal(apiJSON, &object); err != nil {
		t.Fatal(err)
	}
	var paths [][]string
	for _, field := range append(append([]string{}, fields...), maskIdentity...) {
		paths = append(paths, strings.Split(field, "."))
	}
	prune(object, paths)
	pruned, err := json.Marshal(object)
	if err != nil {
		t.Fatal(err)
	}
	obj := decodeOracle(t, pruned)
	comparable(obj)
	return obj
}

func expectMasked(t *testing.T, where string, served *informerdv1.Object, want runtime.Object) {
	t.Helper()
	if len(served.Protobuf) == 0 || len(served.Json) != 0 {
		t.Fatalf("%s %s: protobuf %d bytes, json %d bytes; want protobuf only", where, served.Name, len(served.Protobuf), len(served.Json))
	}
	got := decodeOracle(t, served.Protobuf)
	comparable(got)
	if !equality.Semantic.DeepEqual(want, got) {
		t.Errorf("%s %s: the masked pod differs from the apiserver's pruned (-apiserver +informerd):\n%s", where, served.Name, diff.Diff(want, got))
	}
}

func TestFieldMaskOracle(t *testing.T) {
	oc := newLiveClusterFor(t, "field-mask", "pods")
	defer oc.cancel()
	client := informerdv1.NewCacheClient(oc.conn)
	ctx, ns := oc.ctx, oc.namespace
	pods := oc.counts["pods"]
	if pods == 0 {
		t.Fatal("no pods were made")
	}
	resource := &informerdv1.ResourceName{Version: "v1", Resource: "pods"}
	var list *informerdv1.ListResponse
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		list, err = client.List(ctx, &informerdv1.ListRequest{Resource: resource, Namespace: ns,
			Encoding: informerdv1.Encoding_ENCODING_PROTOBUF, Fields: nodeAgentMask})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) >= pods || time.Now().After(deadline) {
			break
		}
	}
	if len(list.Items) != pods {
		t.Fatalf("informerd lists %d pods, want %d", len(list.Items), pods)
	}
	for _, item := range list.Items {
		want := prunedPod(t, oc.raw(t, fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", ns, item.Name), "application/json"), nodeAgentMask)
		expectMasked(t, "List", item, want)
		got, err := client.Get(ctx, &informerdv1.GetRequest{Resource: resource, Namespace: ns, Name: item.Name,
			Encoding: informerdv1.Encoding_ENCODING_PROTOBUF, Fields: nodeAgentMask})
		if err != nil {
			t.Fatal(err)
		}
		expectMasked(t, "Get", got.Object, want)
	}

	// A watch from the list: a label change (inside the mask) arrives as
	// the apiserver's new object, pruned.
	watchCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	stream, err := client.Watch(watchCtx, &informerdv1.WatchRequest{Resource: resource, Namespace: ns,
		ResourceVersion: list.ResourceVersion, Encoding: informerdv1.Encoding_ENCODING_PROTOBUF, Fields: nodeAgentMask})
	if err != nil {
		t.Fatal(err)
	}
	name := list.Items[0].Name
	patched, err := oc.clientset.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"masked":"yes"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		event, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if event.Type != informerdv1.WatchEvent_MODIFIED || event.Object.Name != name {
			continue
		}
		if event.Object.ResourceVersion != patched.ResourceVersion {
			t.Fatalf("MODIFIED at %s, want the patch's %s", event.Object.ResourceVersion, patched.ResourceVersion)
		}
		apiJSON := oc.raw(t, fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", ns, name), "application/json")
		expectMasked(t, "Watch", event.Object, prunedPod(t, apiJSON, nodeAgentMask))
		if got := decodeOracle(t, event.Object.Protobuf).(*corev1.Pod); got.Labels["masked"] != "yes" || got.Spec.Containers[0].Name != "" {
			t.Errorf("Watch: labels %v, first container name %q; want the new label and no name", got.Labels, got.Spec.Containers[0].Name)
		}
		break
	}

	// A typo names the path.
	_, err = client.Get(ctx, &informerdv1.GetRequest{Resource: resource, Namespace: ns, Name: name,
		Fields: []string{"spec.nodeNmae"}})
	if status.Code(err) != codes.InvalidArgument ||
		!strings.Contains(err.Error(), `fields[0] "spec.nodeNmae": no field "nodeNmae" in k8s.io.api.core.v1.PodSpec`) {
		t.Errorf("Get with a typo: %v; want INVALID_ARGUMENT naming the path", err)
	}
}

// TestMaskedCopyCache: a controller-runtime cache whose pod informer holds a
// field mask (crcache.WithFields) holds and hands out each pod as the
// apiserver's pod with every field outside the mask removed, in the
// informer's own type, and follows a change inside the mask.
func TestMaskedCopyCache(t *testing.T) {
	oc := newLiveClusterFor(t, "masked-copy", "pods")
	defer oc.cancel()
	ctx, ns := oc.ctx, oc.namespace
	if oc.counts["pods"] == 0 {
		t.Fatal("no pods were made")
	}
	restConfig, err := clientcmd.BuildConfigFromFlags("", requireEnv(t).kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crcache.NewCacheFunc(informerdv1.NewCacheClient(oc.conn), crcache.WithFields(&corev1.Pod{}, nodeAgentMask...))(
		restConfig, cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	cacheCtx, stop := context.WithCancel(ctx)
	go func() {
		defer close(done)
		if err := c.Start(cacheCtx); err != nil {
			t.Errorf("cache: %v", err)
		}
	}()
	defer func() { stop(); <-done }()

	direct, err := oc.clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cached corev1.PodList
	if !waitFor(30*time.Second, func() bool {
		return c.List(ctx, &cached) == nil && len(cached.Items) == len(direct.Items)
	}) {
		t.Fatalf("the masked cache holds %d pods, the apiserver %d", len(cached.Items), len(direct.Items))
	}
	for i := range cached.Items {
		got := &cached.Items[i]
		want := prunedPod(t, oc.raw(t, fmt.Sprintf("/api/v1/namespaces/%s/pods/%s", ns, got.Name), "application/json"), nodeAgentMask)
		comparable(got)
		if !equality.Semantic.DeepEqual(want, got) {
			t.Errorf("cached %s differs from the apiserver's pod pruned to the mask (-apiserver +cache):\n%s", got.Name, diff.Diff(want, got))
		}
	}

	// A change inside the mask reaches the cache as the new pruned pod.
	name := direct.Items[0].Name
	patched, err := oc.clientset.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"masked":"yes"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var pod corev1.Pod
	if !waitFor(30*time.Second, func() bool {
		return c.Get(ctx, crclient.ObjectKey{Namespace: ns, Name: name}, &pod) == nil && pod.ResourceVersion == patched.ResourceVersion
	}) {
		t.Fatalf("the cache's %s is at %s, want the patch's %s", name, pod.ResourceVersion, patched.ResourceVersion)
	}
	if pod.Labels["masked"] != "yes" || pod.Spec.Containers[0].Name != "" || pod.Spec.Containers[0].Image == "" {
		t.Errorf("%s after the patch: labels %v, first container name %q image %q; want the new label, an image and no name",
			name, pod.Labels, pod.Spec.Containers[0].Name, pod.Spec.Containers[0].Image)
	}
}
