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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
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
// each; typed, dynamic (also without a version) and metadata-only informers,
// selectors, a transform and custom indexes give the caches they should;
// Shutdown returns only once a running handler has returned.
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
	// And metadata only, and a dynamic one without a version (informerd's).
	metadata, err := f.InformerFor(configMapsGVR, &metav1.PartialObjectMetadata{})
	if err != nil {
		t.Fatal(err)
	}
	unversioned := schema.GroupVersionResource{Resource: "configmaps"}
	teamB, err := f.Dynamic(unversioned, factory.WithSelectors("team=b", ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.WaitForCacheSync(lc.ctx.Done()); !reflect.DeepEqual(got, map[schema.GroupVersionResource]bool{configMapsGVR: true}) {
		t.Errorf("before the second Start, WaitForCacheSync = %v, want only the two started informers' resource, synced", got)
	}
	f.StartWithContext(lc.ctx)
	syncWithin(t, lc.ctx, selected.HasSyncedChecker(), transformed.HasSyncedChecker(), metadata.HasSyncedChecker(), teamB.Informer().HasSyncedChecker())
	if watches, lists := counter.calls(); watches != 6 || lists != 0 {
		t.Errorf("after the second Start, %d Watch and %d List calls; want 6 and 0 (one per informer)", watches, lists)
	}
	if n := counter.count(informerdv1.Projection_PROJECTION_METADATA); n != 1 {
		t.Errorf("%d metadata-only Watch calls, want 1", n)
	}
	if got := f.WaitForCacheSync(lc.ctx.Done()); !reflect.DeepEqual(got, map[schema.GroupVersionResource]bool{configMapsGVR: true, unversioned: true}) {
		t.Errorf("WaitForCacheSync = %v", got)
	}

	lc.churn.steps(t, 30)
	converges(t, lc, []toolscache.Store{typed.GetStore(), dynamic.Informer().GetStore(), transformed.GetStore(), metadata.GetStore()}, []*handlerLog{typedLog, dynamicLog})
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
	if n, all := len(teamB.Informer().GetStore().List()), len(typed.GetStore().List()); n != all-teamA {
		t.Errorf("the dynamic team=b informer holds %d objects, want %d", n, all-teamA)
	}
	for _, obj := range metadata.GetStore().List() {
		if m := obj.(*metav1.PartialObjectMetadata); m.GroupVersionKind() != corev1.SchemeGroupVersion.WithKind("ConfigMap") {
			t.Errorf("%s: metadata of kind %v", m.Name, m.GroupVersionKind())
		}
	}
	byIndex, err := typed.GetIndexer().ByIndex("team", "a")
	if err != nil || len(byIndex) != teamA {
		t.Errorf(`ByIndex("team", "a") = %d objects (%v), want %d`, len(byIndex), err, teamA)
	}
	indexKeys, err := typed.GetIndexer().IndexKeys("team", "a")
	if err != nil || len(indexKeys) != teamA {
		t.Errorf(`IndexKeys("team", "a") = %v (%v), want %d keys`, indexKeys, err, teamA)
	}
	if watches, lists := counter.calls(); watches != 6 || lists != 0 {
		t.Errorf("after churn, %d Watch and %d List calls; want still 6 and 0", watches, lists)
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

// startTyped makes a factory over counter for the cluster's namespace and
// the ConfigMap informer in it (opts added), with handlers added before
// Start; it returns once the informer has synced.
func startTyped(t *testing.T, lc *liveCluster, counter *countingClient, opts []factory.Option, handlers ...*handlerLog) (*factory.Factory, toolscache.SharedIndexInformer) {
	t.Helper()
	f := factory.New(counter, 0, factory.WithNamespace(lc.namespace))
	t.Cleanup(f.Shutdown)
	informer, err := f.InformerFor(configMapsGVR, &corev1.ConfigMap{}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var checkers []toolscache.DoneChecker
	for _, h := range handlers {
		reg, err := informer.AddEventHandler(h)
		if err != nil {
			t.Fatal(err)
		}
		checkers = append(checkers, reg.HasSyncedChecker())
	}
	f.StartWithContext(lc.ctx)
	syncWithin(t, lc.ctx, append(checkers, informer.HasSyncedChecker())...)
	return f, informer
}

// TestFactoryLateHandler: a handler added to a running informer while
// objects change first gets every cached object as an add (isInInitialList),
// then only live events, its registration syncs, it ends equal to the
// apiserver; once removed (ShutDownEventHandler) it gets nothing more.
func TestFactoryLateHandler(t *testing.T) {
	lc := newLiveCluster(t, "go-factory-late", 15, time.Now().UnixNano(), connection.Options{})
	counter := newCountingClient(lc.conn)
	first := newHandlerLog()
	_, informer := startTyped(t, lc, counter, nil, first)

	stopChurn, churned := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stopChurn:
				churned <- nil
				return
			default:
			}
			if err := lc.churn.step(); err != nil {
				churned <- err
				return
			}
		}
	}()
	if !waitFor(30*time.Second, func() bool { return len(first.history()) >= 15+5 }) {
		t.Fatal("no live events reached the first handler within 30s")
	}
	late := newHandlerLog()
	reg, err := informer.AddEventHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	syncWithin(t, lc.ctx, reg.HasSyncedChecker())
	initialAtSync := 0
	for _, c := range late.history() {
		if c.initialList {
			initialAtSync++
		}
	}
	if !waitFor(30*time.Second, func() bool { return len(late.history()) > initialAtSync+3 }) {
		t.Fatal("the late handler got no live events within 30s")
	}
	close(stopChurn)
	if err := <-churned; err != nil {
		t.Fatal(err)
	}
	converges(t, lc, []toolscache.Store{informer.GetStore()}, []*handlerLog{first, late})

	calls := late.history()
	live := -1
	for i, c := range calls {
		switch {
		case c.initialList && c.kind != "ADD":
			t.Errorf("call %d of the late handler: %s in the initial list", i, c.kind)
		case c.initialList && live >= 0:
			t.Errorf("call %d of the late handler: an initial add after a live event (call %d)", i, live)
		case !c.initialList && live < 0:
			live = i
		}
	}
	if live != initialAtSync || initialAtSync == 0 {
		t.Errorf("the late handler got %d initial adds, %d of them before its registration synced; want all, and some", live, initialAtSync)
	}

	if err := toolscache.ShutDownEventHandler(informer, reg); err != nil {
		t.Fatal(err)
	}
	removedAt := len(late.history())
	lc.churn.steps(t, 10)
	converges(t, lc, []toolscache.Store{informer.GetStore()}, []*handlerLog{first})
	if n := len(late.history()); n != removedAt {
		t.Errorf("the removed handler got %d calls after its removal", n-removedAt)
	}
	if watches, lists := counter.calls(); watches != 1 || lists != 0 {
		t.Errorf("%d Watch and %d List calls; a late handler must cost none (want 1 and 0)", watches, lists)
	}
}

// TestFactorySlowHandlerDelaysNoOther: while one handler sleeps a second
// per event, another gets each event within 50ms of its arrival from
// informerd.
func TestFactorySlowHandlerDelaysNoOther(t *testing.T) {
	const objects, changes = 5, 5
	lc := newLiveCluster(t, "go-factory-slow", objects, time.Now().UnixNano(), connection.Options{})
	counter := newCountingClient(lc.conn)
	slow, fast := newHandlerLog(), newHandlerLog()
	slow.block = func(c handlerCall) {
		if !c.initialList {
			time.Sleep(time.Second) // the slow handler's work, not synchronisation
		}
	}
	startTyped(t, lc, counter, nil, slow, fast)

	for i := 0; i < changes; i++ {
		if err := lc.api.patchConfigMap(lc.namespace, lc.churn.existing[i%len(lc.churn.existing)], map[string]string{"n": fmt.Sprint("slow-", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if !waitFor(30*time.Second, func() bool { return fast.count("UPDATE") == changes }) {
		t.Fatalf("the fast handler got %d of %d updates within 30s", fast.count("UPDATE"), changes)
	}
	if n := slow.count("UPDATE"); n >= changes {
		t.Errorf("the slow handler had finished all %d updates when the fast one had; it was not slow", n)
	}
	var worst time.Duration
	for _, c := range fast.history() {
		if c.kind != "UPDATE" {
			continue
		}
		received, ok := counter.receivedAt(c.rv)
		if !ok {
			t.Errorf("%s rv %s reached the handler but not through the Watch stream", c.key, c.rv)
			continue
		}
		if d := c.at.Sub(received); d > worst {
			worst = d
		}
	}
	t.Logf("fast handler: worst delay %v after informerd's event arrived", worst)
	if worst > 50*time.Millisecond {
		t.Errorf("the fast handler got an event %v after it arrived from informerd, want at most 50ms", worst)
	}
	start := time.Now()
	converges(t, lc, nil, []*handlerLog{slow, fast})
	t.Logf("the slow handler caught up %v later", time.Since(start))
}

// TestFactoryResyncPerHandler: with the informer's resync at 1s, a handler
// asking for 1s gets resyncs (updates with old and new the same) about
// three times as often as one asking for 3s, one asking for none gets none,
// and no resync makes a request to informerd.
func TestFactoryResyncPerHandler(t *testing.T) {
	const objects = 4
	lc := newLiveCluster(t, "go-factory-resync", objects, time.Now().UnixNano(), connection.Options{})
	counter := newCountingClient(lc.conn)
	f := factory.New(counter, 0, factory.WithNamespace(lc.namespace))
	t.Cleanup(f.Shutdown)
	informer, err := f.InformerFor(configMapsGVR, &corev1.ConfigMap{}, factory.WithResync(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	every1s, every3s, never := newHandlerLog(), newHandlerLog(), newHandlerLog()
	for h, period := range map[*handlerLog]time.Duration{every1s: time.Second, every3s: 3 * time.Second, never: 0} {
		if _, err := informer.AddEventHandlerWithResyncPeriod(h, period); err != nil {
			t.Fatal(err)
		}
	}
	f.StartWithContext(lc.ctx)
	syncWithin(t, lc.ctx, informer.HasSyncedChecker())
	// Six rounds of the 1s handler take the 3s one through at least one.
	if !waitFor(30*time.Second, func() bool { return every1s.count("RESYNC") >= 6*objects }) {
		t.Fatalf("the 1s handler got %d resyncs in 30s", every1s.count("RESYNC"))
	}
	fastN, slowN, neverN := every1s.count("RESYNC"), every3s.count("RESYNC"), never.count("RESYNC")
	t.Logf("resyncs: 1s handler %d, 3s handler %d, no-resync handler %d", fastN, slowN, neverN)
	if neverN != 0 {
		t.Errorf("the handler without a resync period got %d resyncs", neverN)
	}
	if slowN < objects || slowN >= fastN {
		t.Errorf("the 3s handler got %d resyncs, the 1s one %d; want at least one round (%d) and fewer", slowN, fastN, objects)
	}
	for _, h := range []*handlerLog{every1s, every3s, never} {
		if n := h.count("UPDATE"); n != 0 {
			t.Errorf("%d updates with a new resourceVersion, nothing changed", n)
		}
	}
	converges(t, lc, []toolscache.Store{informer.GetStore()}, []*handlerLog{every1s, every3s, never})
	if watches, lists := counter.calls(); watches != 1 || lists != 0 {
		t.Errorf("%d Watch and %d List calls; resyncs must come from the local cache (want 1 and 0)", watches, lists)
	}
}
