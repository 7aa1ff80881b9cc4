package integration

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/kube/factory"
)

// handlerLog is a client-go event handler that rebuilds the store from its
// calls, notes calls that break the handler contract, and records each
// call, in order.
type handlerLog struct {
	mu         sync.Mutex
	objects    map[string]string // key -> resourceVersion
	violations []string
	calls      []handlerCall
	// block, when set, is called at the start of every call (outside mu).
	block func(handlerCall)
}

type handlerCall struct {
	kind           string // ADD, UPDATE, DELETE, RESYNC (an update with the same rv)
	key, rv        string
	initialList    bool
	at             time.Time
	hasData        bool
	finalUnknown   bool
	oldRV          string
	objectWasTyped bool
}

func newHandlerLog() *handlerLog { return &handlerLog{objects: map[string]string{}} }

func (h *handlerLog) record(c handlerCall) {
	c.at = time.Now()
	if h.block != nil {
		h.block(c)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, c)
	switch c.kind {
	case "ADD":
		if _, known := h.objects[c.key]; known {
			h.violations = append(h.violations, "ADD of known "+c.key)
		}
		h.objects[c.key] = c.rv
	case "UPDATE", "RESYNC":
		if rv, known := h.objects[c.key]; !known || rv != c.oldRV {
			h.violations = append(h.violations, fmt.Sprintf("UPDATE of %s from %s, handler state %q", c.key, c.oldRV, rv))
		}
		h.objects[c.key] = c.rv
	case "DELETE":
		if rv, known := h.objects[c.key]; !known || (c.finalUnknown && rv != c.rv) {
			h.violations = append(h.violations, fmt.Sprintf("DELETE of %s at %s, handler state %q", c.key, c.rv, rv))
		}
		delete(h.objects, c.key)
	}
}

func describe(obj interface{}) (key, rv string, hasData, typed bool) {
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return o.Namespace + "/" + o.Name, o.ResourceVersion, o.Data != nil, true
	case *unstructured.Unstructured:
		_, found, _ := unstructured.NestedMap(o.Object, "data")
		return o.GetNamespace() + "/" + o.GetName(), o.GetResourceVersion(), found, false
	}
	panic(fmt.Sprintf("unexpected object %T", obj))
}

func (h *handlerLog) OnAdd(obj interface{}, isInInitialList bool) {
	key, rv, data, typed := describe(obj)
	h.record(handlerCall{kind: "ADD", key: key, rv: rv, initialList: isInInitialList, hasData: data, objectWasTyped: typed})
}

func (h *handlerLog) OnUpdate(oldObj, newObj interface{}) {
	key, rv, data, typed := describe(newObj)
	_, oldRV, _, _ := describe(oldObj)
	kind := "UPDATE"
	if oldRV == rv {
		kind = "RESYNC"
	}
	h.record(handlerCall{kind: kind, key: key, rv: rv, oldRV: oldRV, hasData: data, objectWasTyped: typed})
}

func (h *handlerLog) OnDelete(obj interface{}) {
	finalUnknown := false
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj, finalUnknown = tombstone.Obj, true
	}
	key, rv, data, typed := describe(obj)
	h.record(handlerCall{kind: "DELETE", key: key, rv: rv, finalUnknown: finalUnknown, hasData: data, objectWasTyped: typed})
}

func (h *handlerLog) state() (map[string]string, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	objects := make(map[string]string, len(h.objects))
	for k, v := range h.objects {
		objects[k] = v
	}
	return objects, append([]string(nil), h.violations...)
}

func (h *handlerLog) history() []handlerCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]handlerCall(nil), h.calls...)
}

func (h *handlerLog) count(kind string) int {
	n := 0
	for _, c := range h.history() {
		if c.kind == kind {
			n++
		}
	}
	return n
}

// converges waits until the store of every informer and the state of every
// handler log equal the apiserver's LIST of the namespace.
func converges(t *testing.T, lc *liveCluster, stores []toolscache.Store, logs []*handlerLog) {
	t.Helper()
	listed, err := lc.api.listConfigMaps(lc.namespace)
	if err != nil {
		t.Fatal(err)
	}
	want := keyed(lc.namespace, listed)
	for i, store := range stores {
		if !waitFor(30*time.Second, func() bool { return reflect.DeepEqual(storeContent(store), want) }) {
			t.Fatalf("store %d did not converge within 30s:\n got  %v\n want %v", i, storeContent(store), want)
		}
	}
	for i, log := range logs {
		if !waitFor(30*time.Second, func() bool { got, _ := log.state(); return reflect.DeepEqual(got, want) }) {
			got, _ := log.state()
			t.Fatalf("handler %d did not converge within 30s:\n got  %v\n want %v", i, got, want)
		}
		if _, violations := log.state(); len(violations) > 0 {
			t.Errorf("handler %d broke the handler contract: %v", i, violations)
		}
	}
}

func syncWithin(t *testing.T, ctx context.Context, checkers ...toolscache.DoneChecker) {
	t.Helper()
	syncCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if !toolscache.WaitFor(syncCtx, "", checkers...) {
		t.Fatal("not synced within 30s")
	}
}

// TestFactorySharesStartsAndShutsDown: equal keys share one informer and one
// Watch stream; Start starts only what is new; WaitForCacheSync reports
// each; a transform and custom indexes apply to the cache; Shutdown returns
// only once a running handler has returned.
func TestFactorySharesStartsAndShutsDown(t *testing.T) {
	lc := newLiveCluster(t, "go-factory", 10, time.Now().UnixNano(), connection.Options{})
	counter := newCountingClient(lc.conn)
	byTeam := toolscache.Indexers{"team": func(obj interface{}) ([]string, error) {
		return []string{obj.(*corev1.ConfigMap).Labels["team"]}, nil
	}}
	dropData := func(obj interface{}) (interface{}, error) {
		if cm, ok := obj.(*corev1.ConfigMap); ok {
			cm.Data = nil
		}
		return obj, nil
	}
	f := factory.New(counter, 0, factory.WithNamespace(lc.namespace))
	defer f.Shutdown()

	typed, err := factory.Typed[*corev1.ConfigMap](f, configMapsGVR, factory.WithIndexers(byTeam))
	if err != nil {
		t.Fatal(err)
	}
	same, err := f.InformerFor(configMapsGVR, &corev1.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}
	if same.GetIndexer() != typed.GetIndexer() {
		t.Fatal("InformerFor and Typed of one key made two informers")
	}
	dynamic := f.ForResource(configMapsGVR)
	typedLog, dynamicLog := newHandlerLog(), newHandlerLog()
	if _, err := typed.AddEventHandler(typedLog); err != nil {
		t.Fatal(err)
	}
	if _, err := dynamic.Informer().AddEventHandler(dynamicLog); err != nil {
		t.Fatal(err)
	}

	f.StartWithContext(lc.ctx)
	f.StartWithContext(lc.ctx) // nothing new: starts nothing
	syncCtx, cancel := context.WithTimeout(lc.ctx, 30*time.Second)
	synced := f.WaitForCacheSyncWithContext(syncCtx)
	cancel()
	if len(synced) != 2 {
		t.Errorf("WaitForCacheSyncWithContext reports %d informers, want 2: %v", len(synced), synced)
	}
	for key, ok := range synced {
		if !ok {
			t.Errorf("%v not synced", key)
		}
	}
	if watches, lists := counter.calls(); watches != 2 || lists != 0 {
		t.Errorf("two informers, started twice, made %d Watch and %d List calls; want 2 and 0", watches, lists)
	}

	// Two more keys after Start: a selector and a transform. They are not
	// running until the next Start, which starts only them.
	selected, err := f.InformerFor(configMapsGVR, &corev1.ConfigMap{}, factory.WithSelectors("team=a", ""))
	if err != nil {
		t.Fatal(err)
	}
	transformed, err := f.InformerFor(configMapsGVR, &corev1.ConfigMap{}, factory.WithTransform("drop-data", dropData))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.WaitForCacheSync(lc.ctx.Done()); !reflect.DeepEqual(got, map[schema.GroupVersionResource]bool{configMapsGVR: true}) {
		t.Errorf("before the second Start, WaitForCacheSync = %v, want only the two started informers' resource, synced", got)
	}
	f.StartWithContext(lc.ctx)
	syncWithin(t, lc.ctx, selected.HasSyncedChecker(), transformed.HasSyncedChecker())
	if watches, lists := counter.calls(); watches != 4 || lists != 0 {
		t.Errorf("after the second Start, %d Watch and %d List calls; want 4 and 0 (one per informer)", watches, lists)
	}
	if got := f.WaitForCacheSync(lc.ctx.Done()); !reflect.DeepEqual(got, map[schema.GroupVersionResource]bool{configMapsGVR: true}) {
		t.Errorf("WaitForCacheSync = %v", got)
	}

	lc.churn.steps(t, 30)
	converges(t, lc, []toolscache.Store{typed.GetStore(), dynamic.Informer().GetStore(), transformed.GetStore()}, []*handlerLog{typedLog, dynamicLog})
	listed, err := lc.api.listConfigMaps(lc.namespace)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := dynamic.Lister().ByNamespace(lc.namespace).List(labels.Everything()); err != nil || len(got) != len(listed) {
		t.Errorf("the dynamic lister lists %d objects (%v), want %d", len(got), err, len(listed))
	}
	for _, obj := range transformed.GetStore().List() {
		if cm := obj.(*corev1.ConfigMap); cm.Data != nil {
			t.Errorf("%s: the transform did not drop data: %v", cm.Name, cm.Data)
		}
	}
	teamA := 0
	for _, obj := range typed.GetStore().List() {
		if obj.(*corev1.ConfigMap).Labels["team"] == "a" {
			teamA++
		}
	}
	if n := len(selected.GetStore().List()); n != teamA {
		t.Errorf("the team=a informer holds %d objects, the whole cache %d of team a", n, teamA)
	}
	byIndex, err := typed.GetIndexer().ByIndex("team", "a")
	if err != nil || len(byIndex) != teamA {
		t.Errorf(`ByIndex("team", "a") = %d objects (%v), want %d`, len(byIndex), err, teamA)
	}
	indexKeys, err := typed.GetIndexer().IndexKeys("team", "a")
	if err != nil || len(indexKeys) != teamA {
		t.Errorf(`IndexKeys("team", "a") = %v (%v), want %d keys`, indexKeys, err, teamA)
	}
	if watches, lists := counter.calls(); watches != 4 || lists != 0 {
		t.Errorf("after churn, %d Watch and %d List calls; want still 4 and 0", watches, lists)
	}

	// Shutdown while a handler runs: it returns only after the handler.
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var handlerDone, shutdownSawHandlerDone bool
	var doneMu sync.Mutex
	if _, err := typed.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, _ interface{}) {
			once.Do(func() {
				close(entered)
				<-release
				doneMu.Lock()
				handlerDone = true
				doneMu.Unlock()
			})
		},
	}); err != nil {
		t.Fatal(err)
	}
	for _, name := range lc.churn.existing {
		if err := lc.api.patchConfigMap(lc.namespace, name, map[string]string{"n": "shutdown"}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the blocking handler was not called within 30s")
	}
	shutdown := make(chan struct{})
	go func() {
		f.Shutdown()
		doneMu.Lock()
		shutdownSawHandlerDone = handlerDone
		doneMu.Unlock()
		close(shutdown)
	}()
	// A negative check needs a bound: Shutdown must still be waiting.
	select {
	case <-shutdown:
		t.Fatal("Shutdown returned while a handler was running")
	case <-time.After(500 * time.Millisecond):
	}
	close(release)
	select {
	case <-shutdown:
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown did not return within 30s of the handler returning")
	}
	if !shutdownSawHandlerDone {
		t.Error("Shutdown returned before the running handler had")
	}
}
