package integration

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

// TestControllerRuntimeCacheOverInformerd: a controller-runtime cache made by
// crcache.NewCacheFunc serves typed, unstructured and metadata-only reads
// from informers fed by informerd (full objects for the first two, the
// metadata projection for the third), restricted to the cache's namespace and
// label selector, and each converges to the apiserver's LIST.
func TestControllerRuntimeCacheOverInformerd(t *testing.T) {
	lc := newLiveCluster(t, "go-crcache", 8, time.Now().UnixNano(), connection.Options{})
	env, api, namespace, churn, ctx, cancel, conn := lc.env, lc.api, lc.namespace, lc.churn, lc.ctx, lc.cancel, lc.conn
	counter := newCountingClient(conn)

	restConfig, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crcache.NewCacheFunc(counter)(restConfig, cache.Options{
		DefaultNamespaces:    map[string]cache.Config{namespace: {}},
		DefaultLabelSelector: labels.SelectorFromSet(labels.Set{"team": "a"}),
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

	configMapList := corev1.SchemeGroupVersion.WithKind("ConfigMapList")
	read := map[string]func() (map[string]string, error){
		"typed": func() (map[string]string, error) {
			var list corev1.ConfigMapList
			if err := c.List(ctx, &list); err != nil {
				return nil, err
			}
			out := map[string]string{}
			for _, cm := range list.Items {
				out[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
			}
			return out, nil
		},
		"unstructured": func() (map[string]string, error) {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(configMapList)
			if err := c.List(ctx, list); err != nil {
				return nil, err
			}
			out := map[string]string{}
			for _, u := range list.Items {
				if u.GetKind() != "ConfigMap" || u.GetAPIVersion() != "v1" {
					return nil, fmt.Errorf("%s/%s is %s %s", u.GetNamespace(), u.GetName(), u.GetAPIVersion(), u.GetKind())
				}
				out[u.GetNamespace()+"/"+u.GetName()] = u.GetResourceVersion()
			}
			return out, nil
		},
		"metadata": func() (map[string]string, error) {
			list := &metav1.PartialObjectMetadataList{}
			list.SetGroupVersionKind(configMapList)
			if err := c.List(ctx, list, client.InNamespace(namespace)); err != nil {
				return nil, err
			}
			out := map[string]string{}
			for _, m := range list.Items {
				out[m.Namespace+"/"+m.Name] = m.ResourceVersion
			}
			return out, nil
		},
	}
	for name, f := range read {
		if _, err := f(); err != nil { // the first read starts the informer and waits for its sync
			t.Fatalf("%s: %v", name, err)
		}
	}
	churn.steps(t, 30)
	// The selector must pick some objects but not all, whatever the seed
	// made of the teams.
	for _, team := range []string{"a", "b"} {
		if err := churn.createInTeam(team); err != nil {
			t.Fatal(err)
		}
	}
	all, err := api.listConfigMaps(namespace)
	if err != nil {
		t.Fatal(err)
	}
	var teamA corev1.ConfigMapList
	if err := api.call("GET", "/api/v1/namespaces/"+namespace+"/configmaps?labelSelector=team%3Da", "", nil, &teamA); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, cm := range teamA.Items {
		want[namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	if len(want) == 0 || len(want) == len(all) {
		t.Fatalf("the selector team=a picks %d of %d objects; the test needs some but not all", len(want), len(all))
	}
	for name, f := range read {
		var got map[string]string
		ok := waitFor(30*time.Second, func() bool {
			got, err = f()
			return err == nil && reflect.DeepEqual(got, want)
		})
		if !ok {
			t.Errorf("%s reads did not converge within 30s (err %v):\n got  %v\n want %v", name, err, got, want)
		}
	}
	if counter.count(informerdv1.Projection_PROJECTION_FULL) < 2 || counter.count(informerdv1.Projection_PROJECTION_METADATA) < 1 {
		t.Errorf("informerd watches: %d full, %d metadata; want >= 2 (typed, unstructured) and >= 1",
			counter.count(informerdv1.Projection_PROJECTION_FULL), counter.count(informerdv1.Projection_PROJECTION_METADATA))
	}
}
