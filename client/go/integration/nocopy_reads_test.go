package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

// TestNoCopyReads: the no-copy cache's Get and List are informerd's, with
// namespaces, label selectors and field selectors evaluated there, and
// answer as the apiserver does: List by an indexed field
// (client.MatchingFields after IndexField, with controller-runtime's
// ".spec.nodeName" spelling), by label, typed and metadata-only, equal
// the apiserver's LIST with the same selectors; a Get is the whole object.
// IndexField of a field informerd does not index fails, naming the field.
func TestNoCopyReads(t *testing.T) {
	env := requireEnv(t)
	api, err := newAPIServer(env)
	if err != nil {
		t.Fatal(err)
	}
	namespace := fmt.Sprintf("go-nocopy-reads-%d", time.Now().UnixNano())
	if err := api.createNamespace(namespace); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.call("DELETE", "/api/v1/namespaces/"+namespace, "", nil, nil) })
	restConfig, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer, err := client.New(restConfig, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("pod-%d", i),
				Labels: map[string]string{"tier": []string{"web", "db"}[i%2]}},
			Spec: corev1.PodSpec{NodeName: []string{"node-a", "node-b", "node-c"}[i%3],
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
		}
		if err := writer.Create(ctx, pod); err != nil {
			t.Fatal(err)
		}
	}

	configFile := filepath.Join(t.TempDir(), "informerd.yaml")
	if err := os.WriteFile(configFile, []byte("resources:\n  - resource: pods\n    fieldIndexes: [spec.nodeName]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	server := newInformerd(t, env)
	server.config = configFile
	server.start(t)
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{server.grpcAddress}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cc := informerdv1.NewCacheClient(conn)
	c, err := crcache.NewCacheFunc(cc, crcache.NoCopy(crcache.NoCopyOptions{}))(restConfig, cache.Options{
		DefaultNamespaces: map[string]cache.Config{namespace: {}},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Start(ctx); err != nil {
			t.Errorf("cache: %v", err)
		}
	}()
	defer func() {
		cancel()
		<-done
	}()

	if err := c.IndexField(ctx, &corev1.Pod{}, ".spec.nodeName", func(client.Object) []string {
		t.Error("the extract function was called; informerd evaluates the field")
		return nil
	}); err != nil {
		t.Fatalf("IndexField .spec.nodeName: %v", err)
	}
	err = c.IndexField(ctx, &corev1.Pod{}, "spec.serviceAccountName", func(client.Object) []string { return nil })
	if err == nil || !strings.Contains(err.Error(), `"spec.serviceAccountName"`) || !strings.Contains(err.Error(), "fieldIndexes") {
		t.Errorf("IndexField of an unindexed field: error %v, want one naming \"spec.serviceAccountName\" and fieldIndexes", err)
	}

	apiNames := func(query string) []string {
		t.Helper()
		var list corev1.PodList
		if err := api.call("GET", "/api/v1/namespaces/"+namespace+"/pods?"+query, "", nil, &list); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list.Items {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		return names
	}
	typedNames := func(opts ...client.ListOption) []string {
		t.Helper()
		var list corev1.PodList
		if err := c.List(ctx, &list, opts...); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list.Items {
			if p.Spec.NodeName == "" {
				t.Errorf("List: pod %s has no spec: a metadata-only item in a typed list", p.Name)
			}
			names = append(names, p.Name)
		}
		sort.Strings(names)
		return names
	}
	metadataNames := func(opts ...client.ListOption) []string {
		t.Helper()
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
		if err := c.List(ctx, list, opts...); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list.Items {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		return names
	}
	for _, check := range []struct {
		what  string
		query string
		opts  []client.ListOption
	}{
		{"all", "", nil},
		{"by field", "fieldSelector=spec.nodeName%3Dnode-a", []client.ListOption{client.MatchingFields{".spec.nodeName": "node-a"}}},
		{"by field, in the namespace", "fieldSelector=spec.nodeName%3Dnode-b", []client.ListOption{client.InNamespace(namespace), client.MatchingFields{".spec.nodeName": "node-b"}}},
		{"by label", "labelSelector=tier%3Dweb", []client.ListOption{client.MatchingLabels{"tier": "web"}}},
		{"by label and field", "labelSelector=tier%3Ddb&fieldSelector=spec.nodeName%3Dnode-c", []client.ListOption{client.MatchingLabels{"tier": "db"}, client.MatchingFields{"spec.nodeName": "node-c"}}},
	} {
		want := apiNames(check.query)
		if len(want) == 0 {
			t.Fatalf("%s: the apiserver lists nothing; the check needs objects", check.what)
		}
		if got := typedNames(check.opts...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: typed List %v, the apiserver %v", check.what, got, want)
		}
		if got := metadataNames(check.opts...); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: metadata List %v, the apiserver %v", check.what, got, want)
		}
	}
	if err := c.List(ctx, &corev1.PodList{}, client.InNamespace("elsewhere")); err == nil || !strings.Contains(err.Error(), `"elsewhere"`) {
		t.Errorf("List in a namespace outside the cache: error %v, want one naming it", err)
	}

	var pod corev1.Pod
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "pod-4"}, &pod); err != nil {
		t.Fatal(err)
	}
	if pod.Spec.NodeName != "node-b" || len(pod.Spec.Containers) != 1 || pod.Labels["tier"] != "web" {
		t.Errorf("Get pod-4: %+v, want the whole object (node-b, one container, tier=web)", pod)
	}
	err = c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "absent"}, &pod)
	if !apierrors.IsNotFound(err) {
		t.Errorf("Get of an absent pod: %v, want NotFound", err)
	}
}
