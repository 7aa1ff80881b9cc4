package integration

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/crcache"
)

// getCounter counts the Get calls that reach informerd.
type getCounter struct {
	informerdv1.CacheClient
	gets atomic.Int64
}

func (g *getCounter) Get(ctx context.Context, req *informerdv1.GetRequest, opts ...grpc.CallOption) (*informerdv1.GetResponse, error) {
	g.gets.Add(1)
	return g.CacheClient.Get(ctx, req, opts...)
}

// TestNoCopyLocalCache: with LocalCacheObjects, a second Get of an object
// of a watched resource is answered locally; once the watch has received a
// change of it, the next Get goes to informerd and returns the change.
// Without an informer of the kind nothing is cached (nothing would
// invalidate it), and with the option off every Get is an RPC.
func TestNoCopyLocalCache(t *testing.T) {
	lc := newLiveCluster(t, "go-nocopy-local", 3, time.Now().UnixNano(), connection.Options{})
	env, api, namespace, ctx := lc.env, lc.api, lc.namespace, lc.ctx
	restConfig, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	start := func(t *testing.T, opts crcache.NoCopyOptions) (cache.Cache, *getCounter) {
		t.Helper()
		counter := &getCounter{CacheClient: informerdv1.NewCacheClient(lc.conn)}
		c, err := crcache.NewCacheFunc(counter, crcache.NoCopy(opts))(restConfig, cache.Options{
			DefaultNamespaces: map[string]cache.Config{namespace: {}},
		})
		if err != nil {
			t.Fatal(err)
		}
		cacheCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := c.Start(cacheCtx); err != nil {
				t.Errorf("cache: %v", err)
			}
		}()
		t.Cleanup(func() { stop(); <-done })
		return c, counter
	}
	key := client.ObjectKey{Namespace: namespace, Name: lc.churn.existing[0]}
	get := func(t *testing.T, c cache.Cache) string {
		t.Helper()
		var cm corev1.ConfigMap
		if err := c.Get(ctx, key, &cm); err != nil {
			t.Fatal(err)
		}
		return cm.ResourceVersion
	}

	t.Run("watched", func(t *testing.T) {
		c, counter := start(t, crcache.NoCopyOptions{LocalCacheObjects: 10})
		informer, err := c.GetInformer(ctx, &corev1.ConfigMap{}) // starts the watch, waits for its sync
		if err != nil {
			t.Fatal(err)
		}
		first := get(t, c)
		if second := get(t, c); second != first || counter.gets.Load() != 1 {
			t.Fatalf("two Gets: %s then %s in %d RPCs, want the same object in 1", first, second, counter.gets.Load())
		}
		var received atomic.Value
		received.Store("")
		if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			UpdateFunc: func(_, obj interface{}) { received.Store(obj.(client.Object).GetResourceVersion()) },
		}); err != nil {
			t.Fatal(err)
		}
		if err := api.patchConfigMap(namespace, key.Name, map[string]string{"n": "changed"}); err != nil {
			t.Fatal(err)
		}
		written, err := api.listConfigMaps(namespace)
		if err != nil {
			t.Fatal(err)
		}
		if !waitFor(30*time.Second, func() bool { return received.Load().(string) == written[key.Name] }) {
			t.Fatalf("the update to %s never reached the informer", written[key.Name])
		}
		if got := get(t, c); got != written[key.Name] || counter.gets.Load() != 2 {
			t.Errorf("Get after the update's event: %s in %d RPCs, want %s in 2", got, counter.gets.Load(), written[key.Name])
		}
		if got := get(t, c); got != written[key.Name] || counter.gets.Load() != 2 {
			t.Errorf("Get again: %s in %d RPCs, want %s from the local cache", got, counter.gets.Load(), written[key.Name])
		}
	})
	t.Run("not watched", func(t *testing.T) {
		c, counter := start(t, crcache.NoCopyOptions{LocalCacheObjects: 10})
		get(t, c)
		get(t, c)
		if n := counter.gets.Load(); n != 2 {
			t.Errorf("two Gets of an unwatched kind made %d RPCs, want 2", n)
		}
	})
	t.Run("off", func(t *testing.T) {
		c, counter := start(t, crcache.NoCopyOptions{})
		if _, err := c.GetInformer(ctx, &corev1.ConfigMap{}); err != nil {
			t.Fatal(err)
		}
		get(t, c)
		get(t, c)
		if n := counter.gets.Load(); n != 2 {
			t.Errorf("two Gets with the local cache off made %d RPCs, want 2", n)
		}
	})
}
