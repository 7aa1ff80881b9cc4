package factory_test

import (
	"context"
	"log"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/factory"
)

// A controller's informers from one factory: two typed informers and a
// dynamic one, a custom index, a late handler with its own resync period,
// and Shutdown once the context ends. Compiled, not run: it needs a server.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{"localhost:50051"}})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	f := factory.New(informerdv1.NewCacheClient(conn), 10*time.Minute, factory.WithNamespace("web"))
	defer f.Shutdown() // after cancel: returns once no handler runs

	byTeam := cache.Indexers{"team": func(obj interface{}) ([]string, error) {
		return []string{obj.(*corev1.ConfigMap).Labels["team"]}, nil
	}}
	configMaps, err := factory.Typed[*corev1.ConfigMap](f, corev1.SchemeGroupVersion.WithResource("configmaps"), factory.WithIndexers(byTeam))
	if err != nil {
		log.Fatal(err)
	}
	pods, err := factory.Typed[*corev1.Pod](f, corev1.SchemeGroupVersion.WithResource("pods"))
	if err != nil {
		log.Fatal(err)
	}
	widgets := f.ForResource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"})

	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(obj interface{}) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	handler := cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, obj interface{}) { enqueue(obj) }, DeleteFunc: enqueue}
	if _, err := configMaps.AddEventHandler(handler); err != nil {
		log.Fatal(err)
	}
	if _, err := pods.AddEventHandler(handler); err != nil {
		log.Fatal(err)
	}
	f.StartWithContext(ctx) // also starts widgets, which has no handler yet
	for key, synced := range f.WaitForCacheSyncWithContext(ctx) {
		if !synced {
			log.Fatalf("%v did not sync", key)
		}
	}

	// Later, on the running informer: first every cached widget as an add,
	// then live events, and a resync of the cache every 10 minutes.
	reg, err := widgets.Informer().AddEventHandlerWithResyncPeriod(handler, 10*time.Minute)
	if err != nil {
		log.Fatal(err)
	}
	if !cache.WaitFor(ctx, "widget handler", reg.HasSyncedChecker()) {
		return
	}
	teamA, _ := configMaps.GetIndexer().ByIndex("team", "a")
	log.Printf("%d config maps of team a", len(teamA))
}
