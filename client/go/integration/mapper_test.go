package integration

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
	"github.com/informerd/informerd/client/go/kube/mapper"
)

// resourcesCounter passes calls to informerd, counting ListResources.
type resourcesCounter struct {
	informerdv1.CacheClient
	mu    sync.Mutex
	calls int
}

func (c *resourcesCounter) ListResources(ctx context.Context, req *informerdv1.ListResourcesRequest, opts ...grpc.CallOption) (*informerdv1.ListResourcesResponse, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	return c.CacheClient.ListResources(ctx, req, opts...)
}

func (c *resourcesCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// crdFixture is a fresh API group with a namespaced kind (Widget, widgets)
// and a cluster-scoped one (Gizmo, gizmos), established; both CRDs are
// deleted when the test ends.
type crdFixture struct {
	group string
}

func newCRDFixture(t *testing.T, api *apiserver) crdFixture {
	t.Helper()
	f := crdFixture{group: fmt.Sprintf("mapper-%d.informerd.test", time.Now().UnixNano())}
	for _, c := range []struct{ plural, kind, scope string }{
		{"widgets", "Widget", "Namespaced"},
		{"gizmos", "Gizmo", "Cluster"},
	} {
		name := c.plural + "." + f.group
		crd := map[string]interface{}{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]interface{}{"name": name},
			"spec": map[string]interface{}{
				"group": f.group, "scope": c.scope,
				"names": map[string]interface{}{"plural": c.plural, "singular": strings.ToLower(c.kind), "kind": c.kind},
				"versions": []interface{}{map[string]interface{}{
					"name": "v1", "served": true, "storage": true,
					"schema": map[string]interface{}{"openAPIV3Schema": map[string]interface{}{
						"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				}},
			},
		}
		if err := api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd, nil); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			api.call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "", nil, nil)
		})
	}
	var lastErr error
	ok := waitFor(30*time.Second, func() bool {
		var list metav1.APIResourceList
		lastErr = api.call("GET", "/apis/"+f.group+"/v1", "", nil, &list)
		return lastErr == nil && len(list.APIResources) == 2
	})
	if !ok {
		t.Fatalf("the CRDs of %s are not served after 30s: %v", f.group, lastErr)
	}
	return f
}

// closedConfig is config pointed at a loopback port nothing listens on: any
// request to the apiserver, discovery included, fails at once.
func closedConfig(t *testing.T, config *rest.Config) *rest.Config {
	closed := rest.CopyConfig(config)
	closed.Host = "https://" + freeAddress(t)
	return closed
}

// startManager runs a manager reading through informerd (cc) with opts
// until the test ends, and waits for its cache to start.
func startManager(t *testing.T, ctx context.Context, config *rest.Config, cc informerdv1.CacheClient, opts manager.Options) manager.Manager {
	t.Helper()
	opts.NewCache = crcache.NewCacheFunc(cc)
	// controller-runtime's client reads unstructured objects from the
	// apiserver unless told to use the cache.
	opts.Client = client.Options{Cache: &client.CacheOptions{Unstructured: true}}
	opts.Metrics = metricsserver.Options{BindAddress: "0"}
	opts.Logger = testr.New(t)
	mgr, err := manager.New(config, opts)
	if err != nil {
		t.Fatalf("manager.New: %v", err)
	}
	mctx, mcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	t.Cleanup(func() {
		mcancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	// Until the manager has started its cache, reads fail for that.
	sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
	defer scancel()
	if !mgr.GetCache().WaitForCacheSync(sctx) {
		t.Fatal("the manager's cache did not start within 30s")
	}
	return mgr
}

// TestManagerReadsThroughInformerdWithoutAPIServer: a controller-runtime
// manager whose rest.Config names a closed port syncs and reads pods,
// configmaps, namespaces (cluster-scoped) and a CRD's objects from
// informerd when its RESTMapper is informerd's (crcache.MapperProvider),
// and fails at its first read without it: the default mapper needs
// apiserver discovery.
func TestManagerReadsThroughInformerdWithoutAPIServer(t *testing.T) {
	env := requireEnv(t)
	api, err := newAPIServer(env)
	if err != nil {
		t.Fatal(err)
	}
	crds := newCRDFixture(t, api)
	namespace := fmt.Sprintf("go-mapper-%d", time.Now().UnixNano())
	if err := api.createNamespace(namespace); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.call("DELETE", "/api/v1/namespaces/"+namespace, "", nil, nil) })
	for i := 0; i < 3; i++ {
		if err := api.createConfigMap(namespace, configMap{Metadata: metadata{Name: fmt.Sprintf("cm-%d", i)}}); err != nil {
			t.Fatal(err)
		}
		pod := map[string]interface{}{
			"metadata": metadata{Name: fmt.Sprintf("pod-%d", i)},
			"spec":     map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "c", "image": "registry.invalid/none"}}},
		}
		if err := api.call("POST", "/api/v1/namespaces/"+namespace+"/pods", "application/json", pod, nil); err != nil {
			t.Fatal(err)
		}
		widget := map[string]interface{}{"apiVersion": crds.group + "/v1", "kind": "Widget",
			"metadata": metadata{Name: fmt.Sprintf("widget-%d", i)}, "spec": map[string]interface{}{"size": i}}
		if err := api.call("POST", "/apis/"+crds.group+"/v1/namespaces/"+namespace+"/widgets", "application/json", widget, nil); err != nil {
			t.Fatal(err)
		}
	}
	gizmo := map[string]interface{}{"apiVersion": crds.group + "/v1", "kind": "Gizmo", "metadata": metadata{Name: namespace}}
	if err := api.call("POST", "/apis/"+crds.group+"/v1/gizmos", "application/json", gizmo, nil); err != nil {
		t.Fatal(err)
	}

	server := newInformerd(t, env)
	server.resources = "configmaps,pods,namespaces,widgets." + crds.group + ",gizmos." + crds.group
	server.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{server.grpcAddress}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	cc := informerdv1.NewCacheClient(conn)
	config, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	closed := closedConfig(t, config)

	// start runs a manager with options until the test ends.
	start := func(t *testing.T, opts manager.Options) manager.Manager {
		return startManager(t, ctx, closed, cc, opts)
	}

	t.Run("without the mapper, the first read fails", func(t *testing.T) {
		mgr := start(t, manager.Options{})
		rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
		defer rcancel()
		var cm corev1.ConfigMap
		err := mgr.GetClient().Get(rctx, client.ObjectKey{Namespace: namespace, Name: "cm-0"}, &cm)
		if err == nil {
			t.Fatalf("read configmap %s/cm-0 through a manager whose apiserver is closed, without informerd's mapper", namespace)
		}
		if !strings.Contains(err.Error(), "failed to get server groups") {
			t.Errorf("error %q does not say that discovery failed", err)
		}
		t.Logf("without the mapper: %v", err)
	})

	t.Run("with the mapper, reads are served", func(t *testing.T) {
		mgr := start(t, manager.Options{MapperProvider: crcache.MapperProvider(cc)})
		rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
		defer rcancel()
		c := mgr.GetClient()
		names := func(items []string) string { sort.Strings(items); return strings.Join(items, ",") }

		var cm corev1.ConfigMap
		if err := c.Get(rctx, client.ObjectKey{Namespace: namespace, Name: "cm-1"}, &cm); err != nil {
			t.Fatalf("get configmap: %v", err)
		}
		var pods corev1.PodList
		if err := c.List(rctx, &pods, client.InNamespace(namespace)); err != nil {
			t.Fatalf("list pods: %v", err)
		}
		var podNames []string
		for _, p := range pods.Items {
			podNames = append(podNames, p.Name)
		}
		if got := names(podNames); got != "pod-0,pod-1,pod-2" {
			t.Errorf("pods: %s", got)
		}
		var ns corev1.Namespace
		if err := c.Get(rctx, client.ObjectKey{Name: namespace}, &ns); err != nil {
			t.Errorf("get namespace (cluster-scoped): %v", err)
		}
		widgets := &unstructured.UnstructuredList{}
		widgets.SetGroupVersionKind(schema.GroupVersionKind{Group: crds.group, Version: "v1", Kind: "WidgetList"})
		if err := c.List(rctx, widgets, client.InNamespace(namespace)); err != nil {
			t.Fatalf("list widgets: %v", err)
		}
		var widgetNames []string
		for _, w := range widgets.Items {
			widgetNames = append(widgetNames, w.GetName())
		}
		if got := names(widgetNames); got != "widget-0,widget-1,widget-2" {
			t.Errorf("widgets: %s", got)
		}
		g := &unstructured.Unstructured{}
		g.SetGroupVersionKind(schema.GroupVersionKind{Group: crds.group, Version: "v1", Kind: "Gizmo"})
		if err := c.Get(rctx, client.ObjectKey{Name: namespace}, g); err != nil {
			t.Errorf("get gizmo (cluster-scoped CRD): %v", err)
		}
		metaList := &metav1.PartialObjectMetadataList{}
		metaList.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
		if err := c.List(rctx, metaList, client.InNamespace(namespace)); err != nil {
			t.Errorf("list configmaps' metadata: %v", err)
		}
		if !mgr.GetCache().WaitForCacheSync(rctx) {
			t.Fatal("cache not synced")
		}
		// Scope, as the manager's other users (owner handlers) ask it.
		for obj, want := range map[client.Object]bool{&corev1.Pod{}: true, &corev1.Namespace{}: false, g: false} {
			namespaced, err := apiutil.IsObjectNamespaced(obj, mgr.GetScheme(), mgr.GetRESTMapper())
			if err != nil || namespaced != want {
				t.Errorf("IsObjectNamespaced(%T %v) = %v, %v; want %v", obj, obj.GetObjectKind().GroupVersionKind(), namespaced, err, want)
			}
		}
		// A change made at the apiserver reaches the cache.
		if err := api.createConfigMap(namespace, configMap{Metadata: metadata{Name: "late"}}); err != nil {
			t.Fatal(err)
		}
		if !waitFor(30*time.Second, func() bool {
			return c.Get(rctx, client.ObjectKey{Namespace: namespace, Name: "late"}, &corev1.ConfigMap{}) == nil
		}) {
			t.Error("configmap late, created at the apiserver, is not in the cache after 30s")
		}
		// A kind informerd does not serve fails, naming both mappers.
		start := time.Now()
		err := c.Get(rctx, client.ObjectKey{Namespace: namespace, Name: "x"}, &corev1.Secret{})
		if err == nil || !meta.IsNoMatchError(err) || !strings.Contains(err.Error(), "fallback mapper") {
			t.Errorf("get secret (not served): error %v; want no match, naming the fallback", err)
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("get secret (not served) took %v", elapsed)
		}
		t.Logf("not served: %v", err)
	})

	t.Run("with the mapper and the apiserver up, writes go to the apiserver", func(t *testing.T) {
		mgr := startManager(t, ctx, config, cc, manager.Options{MapperProvider: crcache.MapperProvider(cc)})
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		defer wcancel()
		c := mgr.GetClient()
		// A served kind (mapped by informerd) and one informerd does not
		// serve (mapped by the fallback, the apiserver's discovery).
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "written"}}
		if err := c.Create(wctx, cm); err != nil {
			t.Errorf("create configmap: %v", err)
		}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "written"}}
		if err := c.Create(wctx, secret); err != nil {
			t.Errorf("create secret (not served by informerd): %v", err)
		}
		var got corev1.Secret
		if err := mgr.GetAPIReader().Get(wctx, client.ObjectKey{Namespace: namespace, Name: "written"}, &got); err != nil || got.UID != secret.UID {
			t.Errorf("the apiserver's secret: %v (uid %s, created %s)", err, got.UID, secret.UID)
		}
		if !waitFor(30*time.Second, func() bool {
			return c.Get(wctx, client.ObjectKey{Namespace: namespace, Name: "written"}, &corev1.ConfigMap{}) == nil
		}) {
			t.Error("the configmap written through the manager is not in its informerd-fed cache after 30s")
		}
	})
}

// TestInformerdMapperMatchesDiscovery: informerd serving every resource the
// apiserver lists and watches (and two CRDs) yields a mapper that answers
// as controller-runtime's discovery mapper does, resource by resource:
// RESTMapping with and without the version, KindFor, ResourceFor by plural
// and singular, ResourceSingularizer.
func TestInformerdMapperMatchesDiscovery(t *testing.T) {
	env := requireEnv(t)
	api, err := newAPIServer(env)
	if err != nil {
		t.Fatal(err)
	}
	crds := newCRDFixture(t, api)
	config, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var preferred []*metav1.APIResourceList
	if !waitFor(30*time.Second, func() bool {
		preferred, err = dc.ServerPreferredResources()
		for _, list := range preferred {
			if list.GroupVersion == crds.group+"/v1" && len(list.APIResources) == 2 {
				return err == nil
			}
		}
		return false
	}) {
		t.Fatalf("discovery does not list the CRDs of %s after 30s (%v)", crds.group, err)
	}
	// Discovery lags: a CRD deleted by an earlier test may still be listed
	// there, and informerd would wait for it for ever. A group outside
	// Kubernetes' own (core, no dot, *.k8s.io) is taken only when a CRD
	// that is not being deleted serves it.
	var crdList struct {
		Items []struct {
			Metadata struct {
				DeletionTimestamp *string `json:"deletionTimestamp"`
			} `json:"metadata"`
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Plural string `json:"plural"`
				} `json:"names"`
			} `json:"spec"`
		} `json:"items"`
	}
	if err := api.call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "", nil, &crdList); err != nil {
		t.Fatal(err)
	}
	staying := sets.New[string]()
	for _, crd := range crdList.Items {
		if crd.Metadata.DeletionTimestamp == nil {
			staying.Insert(crd.Spec.Names.Plural + "." + crd.Spec.Group)
		}
	}
	var flags []string
	for _, list := range preferred {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !sets.New(r.Verbs...).HasAll("list", "watch") {
				continue
			}
			switch {
			case gv.Group == "":
				flags = append(flags, r.Name)
			case !strings.Contains(gv.Group, ".") || strings.HasSuffix(gv.Group, ".k8s.io") || staying.Has(r.Name+"."+gv.Group):
				flags = append(flags, r.Name+"."+gv.Group)
			}
		}
	}
	server := newInformerd(t, env)
	server.resources = strings.Join(flags, ",")
	server.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{server.grpcAddress}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	cc := informerdv1.NewCacheClient(conn)
	served, err := cc.ListResources(ctx, &informerdv1.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(served.GetResources()) != len(flags) {
		t.Fatalf("informerd serves %d resources; asked for %d: %s", len(served.GetResources()), len(flags), server.resources)
	}
	ours := mapper.New(cc, mapper.Options{})
	httpClient, err := rest.HTTPClientFor(config)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := apiutil.NewDynamicRESTMapper(config, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		Value interface{}
		Err   string
	}
	ask := func(f func(meta.RESTMapper) (interface{}, error)) (answer, answer) {
		a, errA := f(ours)
		b, errB := f(theirs)
		toAnswer := func(v interface{}, err error) answer {
			if err != nil {
				return answer{Err: "error"}
			}
			if m, ok := v.(*meta.RESTMapping); ok {
				return answer{Value: [3]interface{}{m.Resource, m.GroupVersionKind, m.Scope.Name()}}
			}
			return answer{Value: v}
		}
		return toAnswer(a, errA), toAnswer(b, errB)
	}
	compared := 0
	for _, status := range served.GetResources() {
		name := status.GetResource()
		gvr := schema.GroupVersionResource{Group: name.GetGroup(), Version: name.GetVersion(), Resource: name.GetResource()}
		gk := schema.GroupKind{Group: gvr.Group, Kind: status.GetKind()}
		singular := strings.ToLower(status.GetKind())
		questions := map[string]func(meta.RESTMapper) (interface{}, error){
			"RESTMapping(gk)":    func(m meta.RESTMapper) (interface{}, error) { return m.RESTMapping(gk) },
			"RESTMapping(gk, v)": func(m meta.RESTMapper) (interface{}, error) { return m.RESTMapping(gk, gvr.Version) },
			"RESTMappings(gk, v)": func(m meta.RESTMapper) (interface{}, error) {
				r, err := m.RESTMappings(gk, gvr.Version)
				var out []interface{}
				for _, mapping := range r {
					out = append(out, [3]interface{}{mapping.Resource, mapping.GroupVersionKind, mapping.Scope.Name()})
				}
				return out, err
			},
			"KindFor(gvr)": func(m meta.RESTMapper) (interface{}, error) { return m.KindFor(gvr) },
			"KindFor(gr)":  func(m meta.RESTMapper) (interface{}, error) { return m.KindFor(gvr.GroupResource().WithVersion("")) },
			"ResourceFor(gr)": func(m meta.RESTMapper) (interface{}, error) {
				return m.ResourceFor(gvr.GroupResource().WithVersion(""))
			},
			"ResourceFor(singular)": func(m meta.RESTMapper) (interface{}, error) {
				return m.ResourceFor(gvr.GroupVersion().WithResource(singular))
			},
			"ResourceSingularizer(r)": func(m meta.RESTMapper) (interface{}, error) { return m.ResourceSingularizer(gvr.Resource) },
		}
		// In one order, not Go's random map order: controller-runtime's lazy
		// mapper loads a group on the first question about it, and once in
		// a full run it answered ResourceSingularizer for
		// persistentvolumeclaims with an empty singular (not reproduced
		// since; the order it depends on, if any, not established).
		names := make([]string, 0, len(questions))
		for q := range questions {
			names = append(names, q)
		}
		sort.Strings(names)
		for _, q := range names {
			f := questions[q]
			a, b := ask(f)
			if a.Err != "" || !reflect.DeepEqual(a, b) {
				t.Errorf("%v %s: informerd's mapper %+v, discovery's %+v", gvr, q, a, b)
			}
			compared++
		}
		// Without a version, discovery knows every version the apiserver
		// serves, informerd's mapper the one informerd serves.
		all, err := theirs.RESTMappings(gk)
		if err != nil {
			t.Errorf("%v: discovery's RESTMappings: %v", gk, err)
		}
		servedMappings, err := ours.RESTMappings(gk)
		if err != nil || len(servedMappings) != 1 || servedMappings[0].Resource != gvr {
			t.Errorf("%v: informerd's RESTMappings: %v, %v; want the served %v only", gk, servedMappings, err, gvr)
		}
		found := false
		for _, m := range all {
			found = found || m.Resource == gvr
		}
		if !found {
			t.Errorf("%v: discovery's RESTMappings do not include the served %v", gk, gvr)
		}
	}
	t.Logf("%d resources, %d answers compared; %d ListResources calls", len(served.GetResources()), compared, ours.Calls())
}

// TestInformerdMapperRefreshesOnMissAtBoundedRate: a kind informerd starts
// serving after the mapper's first answer is found on the next miss, and
// a flood of lookups of kinds nobody serves costs informerd at most one
// ListResources per MinRefreshInterval.
func TestInformerdMapperRefreshesOnMissAtBoundedRate(t *testing.T) {
	env := requireEnv(t)
	server := newInformerd(t, env)
	server.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{server.grpcAddress}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	counter := &resourcesCounter{CacheClient: informerdv1.NewCacheClient(conn)}
	const interval = 500 * time.Millisecond
	m := mapper.New(counter, mapper.Options{MinRefreshInterval: interval})

	if _, err := m.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.RESTMapping(schema.GroupKind{Kind: "Pod"}); !meta.IsNoMatchError(err) {
		t.Fatalf("Pod before informerd serves pods: %v; want no match", err)
	}

	// informerd now serves pods too (same address).
	server.stop(t)
	server.resources = "configmaps,pods"
	server.start(t)
	var mapping *meta.RESTMapping
	if !waitFor(10*time.Second, func() bool {
		mapping, err = m.RESTMapping(schema.GroupKind{Kind: "Pod"})
		return err == nil
	}) {
		t.Fatalf("Pod is not mapped 10s after informerd serves pods: %v", err)
	}
	if mapping.Resource != corev1.SchemeGroupVersion.WithResource("pods") || mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Errorf("Pod maps to %v, scope %s", mapping.Resource, mapping.Scope.Name())
	}

	// The flood: 16 goroutines asking for unknown kinds, as fast as they can.
	before := counter.count()
	const flood = 3 * time.Second
	var lookups sync.WaitGroup
	var mu sync.Mutex
	total := 0
	begin := time.Now()
	for g := 0; g < 16; g++ {
		lookups.Add(1)
		go func(g int) {
			defer lookups.Done()
			n := 0
			for time.Since(begin) < flood {
				if _, err := m.RESTMapping(schema.GroupKind{Group: "nowhere.test", Kind: fmt.Sprintf("Nope%d%d", g, n)}); !meta.IsNoMatchError(err) {
					t.Errorf("unknown kind: %v; want no match", err)
					return
				}
				n++
			}
			mu.Lock()
			total += n
			mu.Unlock()
		}(g)
	}
	lookups.Wait()
	elapsed := time.Since(begin)
	calls := counter.count() - before
	limit := int(elapsed/interval) + 1
	t.Logf("%d lookups of unknown kinds in %v: %d ListResources calls (limit %d)", total, elapsed.Round(time.Millisecond), calls, limit)
	if calls > limit || calls < 1 {
		t.Errorf("%d ListResources calls for %d misses in %v; want between 1 and %d", calls, total, elapsed, limit)
	}
}
