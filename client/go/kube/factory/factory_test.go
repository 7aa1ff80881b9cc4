package factory

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// These tests need no server: informers are made but not started (the
// integration package runs them against informerd).

var (
	podsGVR       = corev1.SchemeGroupVersion.WithResource("pods")
	configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")
)

func TestSameKeySharesOneInformerAndOthersDoNot(t *testing.T) {
	f := New(nil, 0, WithNamespace("a"))
	first, err := f.InformerFor(podsGVR, &corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := f.InformerFor(podsGVR, &corev1.Pod{}, WithResync(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	typed, err := Typed[*corev1.Pod](f, podsGVR)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Error("the same key (resync is not part of it) made a second informer")
	}
	if typed.GetIndexer() != first.GetIndexer() {
		t.Error("Typed[*corev1.Pod] is not the informer InformerFor(&corev1.Pod{}) made")
	}
	others := map[string][]Option{
		"namespace":      {WithNamespace("b")},
		"label selector": {WithSelectors("app=x", "")},
		"field selector": {WithSelectors("", "spec.nodeName=n")},
		"transform":      {WithTransform("strip", func(o interface{}) (interface{}, error) { return o, nil })},
	}
	seen := map[cache.SharedIndexInformer]string{first: "defaults"}
	for name, opts := range others {
		informer, err := f.InformerFor(podsGVR, &corev1.Pod{}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := seen[informer]; ok {
			t.Errorf("a different %s got the informer of %s", name, prev)
		}
		seen[informer] = name
	}
	dynamic := f.ForResource(podsGVR).Informer()
	meta, err := f.InformerFor(podsGVR, &metav1.PartialObjectMetadata{})
	if err != nil {
		t.Fatal(err)
	}
	if dynamic == first || meta == first || dynamic == meta {
		t.Error("typed, unstructured and metadata informers of one resource must be three")
	}
	if f.ForResource(podsGVR).Informer() != dynamic {
		t.Error("ForResource twice made two informers")
	}
	if n := len(f.Keys()); n != 7 {
		t.Errorf("%d keys, want 7: %v", n, f.Keys())
	}
}

func TestIndexersOfEveryRequestAreAddedToTheSharedInformer(t *testing.T) {
	byTeam := func(obj interface{}) ([]string, error) { return []string{obj.(*corev1.ConfigMap).Labels["team"]}, nil }
	byData := func(obj interface{}) ([]string, error) { return []string{obj.(*corev1.ConfigMap).Data["n"]}, nil }
	f := New(nil, 0)
	informer, err := f.InformerFor(configMapsGVR, &corev1.ConfigMap{}, WithIndexers(cache.Indexers{"team": byTeam}))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"team": "t-" + name}}, Data: map[string]string{"n": "1"}}
		if err := informer.GetIndexer().Add(cm); err != nil {
			t.Fatal(err)
		}
	}
	// Same index again (a second controller asking for it) and a new one.
	if _, err := f.InformerFor(configMapsGVR, &corev1.ConfigMap{}, WithIndexers(cache.Indexers{"team": byTeam, "data": byData})); err != nil {
		t.Fatal(err)
	}
	got, err := informer.GetIndexer().ByIndex("data", "1")
	if err != nil || len(got) != 2 {
		t.Errorf(`ByIndex("data", "1") = %d objects, %v; want the 2 already cached`, len(got), err)
	}
	if keys, err := informer.GetIndexer().IndexKeys("team", "t-a"); err != nil || len(keys) != 1 || keys[0] != "ns/a" {
		t.Errorf(`IndexKeys("team", "t-a") = %v, %v; want [ns/a]`, keys, err)
	}
	if keys, err := informer.GetIndexer().IndexKeys(cache.NamespaceIndex, "ns"); err != nil || len(keys) != 2 {
		t.Errorf("the namespace index gives %v, %v; want both keys", keys, err)
	}
}

func TestInvalidRequestsAreRefusedByName(t *testing.T) {
	f := New(nil, 0)
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"tweak beyond selectors": {err: func() error {
			_, err := f.InformerFor(podsGVR, &corev1.Pod{}, WithTweakListOptions(func(o *metav1.ListOptions) { o.Limit = 5 }))
			return err
		}(), want: "other than the selectors"},
		"transform without a name": {err: func() error {
			_, err := f.InformerFor(podsGVR, &corev1.Pod{}, WithTransform("", func(o interface{}) (interface{}, error) { return o, nil }))
			return err
		}(), want: "needs both a name and a function"},
		"typed without version": {err: func() error {
			_, err := f.InformerFor(configMapsGVR.GroupResource().WithVersion(""), &corev1.ConfigMap{})
			return err
		}(), want: "needs the version"},
		"type of another resource group": {err: func() error {
			_, err := Typed[*corev1.Pod](f, configMapsGVR.GroupResource().WithVersion("v2"))
			return err
		}(), want: "not of the resource's group and version"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, c.err, c.want)
		}
	}
	// An invalid default makes every request fail, and ForResource's
	// informer fail its lists with that error.
	bad := New(nil, 0, WithTransform("x", nil))
	if _, err := bad.Dynamic(podsGVR); err == nil {
		t.Error("Dynamic on a factory with an invalid option: no error")
	}
	failing := bad.ForResource(podsGVR).Informer()
	if failing == nil || bad.ForResource(podsGVR).Informer() != failing {
		t.Error("ForResource on a factory with an invalid option: want one shared informer that fails")
	}
	if len(bad.Keys()) != 1 {
		t.Errorf("the failing informer is not kept under its key: %v", bad.Keys())
	}
	reported := make(chan error, 1)
	if err := failing.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		select {
		case reported <- err:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	bad.StartWithContext(ctx)
	select {
	case err := <-reported:
		if !strings.Contains(err.Error(), "needs both a name and a function") {
			t.Errorf("the failing informer reported %v, want the option's error", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the failing informer reported no error within 30s")
	}
	cancel()
	bad.Shutdown()
}

func TestTweakSelectorsAreTheKey(t *testing.T) {
	f := New(nil, 0)
	tweaked, err := f.InformerFor(podsGVR, &corev1.Pod{}, WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "app=x" }))
	if err != nil {
		t.Fatal(err)
	}
	selected, err := f.InformerFor(podsGVR, &corev1.Pod{}, WithSelectors("app=x", ""))
	if err != nil {
		t.Fatal(err)
	}
	if tweaked != selected {
		t.Error("a tweak setting app=x and WithSelectors(app=x) made two informers")
	}
}

func TestNothingStartedSyncsTriviallyAndShutdownIsFinal(t *testing.T) {
	var _ dynamicinformer.DynamicSharedInformerFactory = New(nil, 0)
	f := New(nil, 0)
	informer := f.ForResource(podsGVR).Informer()
	if got := f.WaitForCacheSync(make(chan struct{})); len(got) != 0 {
		t.Errorf("WaitForCacheSync before Start reports %v; only started informers are reported", got)
	}
	f.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.StartWithContext(ctx)
	closed := make(chan struct{})
	close(closed)
	if got := f.WaitForCacheSync(closed); len(got) != 0 {
		t.Errorf("Start after Shutdown started informers: %v", got)
	}
	if informer.HasSynced() {
		t.Error("an informer never started has synced")
	}
	f.Shutdown() // again: returns
}
