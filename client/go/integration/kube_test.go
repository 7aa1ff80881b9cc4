package integration

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
)

var configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")

// recordingLW passes calls through and records what the Reflector asked and
// which initial-events-end bookmarks it was given.
type recordingLW struct {
	*kube.ListerWatcher
	mu               sync.Mutex
	lists            int
	watchListCalls   int
	endBookmarks     int
	wrongKindObjects []string
}

func (r *recordingLW) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	r.mu.Lock()
	r.lists++
	r.mu.Unlock()
	return r.ListerWatcher.ListWithContext(ctx, options)
}

func (r *recordingLW) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	r.mu.Lock()
	if options.SendInitialEvents != nil && *options.SendInitialEvents {
		r.watchListCalls++
	}
	r.mu.Unlock()
	w, err := r.ListerWatcher.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if ev.Type == watch.Bookmark {
			if m, err := metaOf(ev.Object); err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
				r.endBookmarks++
			}
		}
		if ev.Type != watch.Error && ev.Object.GetObjectKind().GroupVersionKind() != corev1.SchemeGroupVersion.WithKind("ConfigMap") {
			r.wrongKindObjects = append(r.wrongKindObjects, fmt.Sprintf("%v %T %v", ev.Type, ev.Object, ev.Object.GetObjectKind().GroupVersionKind()))
		}
		return ev, true
	}), nil
}

func (r *recordingLW) counts() (lists, watchLists, endBookmarks int, wrongKinds []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lists, r.watchListCalls, r.endBookmarks, append([]string(nil), r.wrongKindObjects...)
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	return m, nil
}

// kubeMirror rebuilds the store from client-go handler calls.
type kubeMirror struct {
	mu      sync.Mutex
	objects map[string]string
}

func (m *kubeMirror) handlers() toolscache.ResourceEventHandlerFuncs {
	put := func(obj interface{}) {
		cm := obj.(*corev1.ConfigMap)
		m.mu.Lock()
		defer m.mu.Unlock()
		m.objects[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc:    put,
		UpdateFunc: func(_, obj interface{}) { put(obj) },
		DeleteFunc: func(obj interface{}) {
			key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err != nil {
				panic(err)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			delete(m.objects, key)
		},
	}
}

func (m *kubeMirror) snapshot() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]string, len(m.objects))
	for k, v := range m.objects {
		out[k] = v
	}
	return out
}

func storeContent(store toolscache.Store) map[string]string {
	out := map[string]string{}
	for _, obj := range store.List() {
		m, _ := metaOf(obj.(runtime.Object))
		out[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
	}
	return out
}

// waitFor polls cond until it holds or timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestSharedIndexInformerOverInformerd runs client-go's own
// SharedIndexInformer, unchanged, over the adapter: it syncs through WatchList
// (the initial-events-end bookmark), survives informerd being killed and
// restarted on the same port, is caught up within 3s of the restarted
// server's readiness, and ends equal to the apiserver's LIST.
func TestSharedIndexInformerOverInformerd(t *testing.T) {
	lc := newLiveCluster(t, "go-kube-e2e", 10, time.Now().UnixNano(), connection.Options{})
	api, namespace, churn, server, ctx, conn := lc.api, lc.namespace, lc.churn, lc.server, lc.ctx, lc.conn
	lw, err := kube.NewListerWatcher(informerdv1.NewCacheClient(conn), configMapsGVR, &corev1.ConfigMap{}, kube.WithNamespace(namespace))
	if err != nil {
		t.Fatal(err)
	}
	recorder := &recordingLW{ListerWatcher: lw}
	informer := toolscache.NewSharedIndexInformer(recorder, &corev1.ConfigMap{}, 0, toolscache.Indexers{})
	mirror := &kubeMirror{objects: map[string]string{}}
	if _, err := informer.AddEventHandler(mirror.handlers()); err != nil {
		t.Fatal(err)
	}
	runUntilTestEnds(t, lc, informer)
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !toolscache.WaitForCacheSync(syncCtx.Done(), informer.HasSynced) {
		t.Fatal("informer did not sync within 30s")
	}
	lists, watchLists, endBookmarks, _ := recorder.counts()
	if watchLists == 0 || endBookmarks == 0 || lists != 0 {
		t.Errorf("sync took %d WatchList calls, %d initial-events-end bookmarks and %d Lists; want the WatchList path (>0, >0, 0)", watchLists, endBookmarks, lists)
	}
	if n := len(informer.GetStore().List()); n != 10 {
		t.Errorf("after sync the store holds %d objects, want 10", n)
	}

	churn.steps(t, 40)
	server.kill(t)
	churn.steps(t, 5)
	server.start(t)
	ready := time.Now()
	listed, err := api.listConfigMaps(namespace)
	if err != nil {
		t.Fatal(err)
	}
	want := keyed(namespace, listed)
	if !waitFor(3*time.Second, func() bool { return reflect.DeepEqual(storeContent(informer.GetStore()), want) }) {
		t.Errorf("not caught up 3s after informerd's readiness:\n got  %v\n want %v", storeContent(informer.GetStore()), want)
	}
	t.Logf("caught up %v after informerd's readiness", time.Since(ready))

	churn.steps(t, 40)
	if listed, err = api.listConfigMaps(namespace); err != nil {
		t.Fatal(err)
	}
	want = keyed(namespace, listed)
	if !waitFor(30*time.Second, func() bool { return reflect.DeepEqual(storeContent(informer.GetStore()), want) }) {
		t.Fatalf("store did not converge within 30s:\n got  %v\n want %v", storeContent(informer.GetStore()), want)
	}
	if got := mirror.snapshot(); !reflect.DeepEqual(got, want) {
		t.Errorf("state rebuilt from handler calls differs from the apiserver:\n got  %v\n want %v", got, want)
	}
	for _, obj := range informer.GetStore().List() {
		if cm := obj.(*corev1.ConfigMap); cm.Kind != "ConfigMap" || cm.APIVersion != "v1" {
			t.Errorf("%s/%s in the store has apiVersion %q kind %q", cm.Namespace, cm.Name, cm.APIVersion, cm.Kind)
		}
	}
	if _, _, _, wrong := recorder.counts(); len(wrong) > 0 {
		t.Errorf("events whose object is not a v1 ConfigMap: %v", wrong)
	}
}

// TestMetadataInformerOverInformerd: a metadata-only SharedIndexInformer
// holds PartialObjectMetadata of kind ConfigMap matching the apiserver.
func TestMetadataInformerOverInformerd(t *testing.T) {
	lc := newLiveCluster(t, "go-kube-meta", 5, 1, connection.Options{})
	api, namespace, churn, conn := lc.api, lc.namespace, lc.churn, lc.conn
	lw, err := kube.NewMetadataListerWatcher(informerdv1.NewCacheClient(conn), configMapsGVR, "ConfigMap", kube.WithNamespace(namespace))
	if err != nil {
		t.Fatal(err)
	}
	informer := toolscache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, toolscache.Indexers{})
	runUntilTestEnds(t, lc, informer)
	churn.steps(t, 10)
	listed, err := api.listConfigMaps(namespace)
	if err != nil {
		t.Fatal(err)
	}
	want := keyed(namespace, listed)
	if !waitFor(30*time.Second, func() bool { return reflect.DeepEqual(storeContent(informer.GetStore()), want) }) {
		t.Fatalf("store did not converge within 30s:\n got  %v\n want %v", storeContent(informer.GetStore()), want)
	}
	for _, obj := range informer.GetStore().List() {
		m := obj.(*metav1.PartialObjectMetadata)
		if m.GroupVersionKind() != corev1.SchemeGroupVersion.WithKind("ConfigMap") || m.Labels["team"] == "" {
			t.Errorf("%s/%s: GVK %v labels %v", m.Namespace, m.Name, m.GroupVersionKind(), m.Labels)
		}
	}
}

// runUntilTestEnds runs a client-go informer until the test ends, then
// stops it (cancelling the cluster's context) and waits for it to return.
func runUntilTestEnds(t *testing.T, lc *liveCluster, informer toolscache.SharedIndexInformer) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(lc.ctx)
	}()
	t.Cleanup(func() {
		lc.cancel()
		<-done
	})
}
