package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
)

// TestUnservedResourceReachesTheWatchErrorHandler: a client-go informer of
// a resource the real informerd does not serve (it serves configmaps;
// secrets exist in the apiserver) is told so by its WatchErrorHandler within
// 5s, with the resource, the reason and the server's address.
func TestUnservedResourceReachesTheWatchErrorHandler(t *testing.T) {
	lc := newLiveCluster(t, "go-unserved", 0, 1, connection.Options{})
	lw, err := kube.NewListerWatcher(informerdv1.NewCacheClient(lc.conn), corev1.SchemeGroupVersion.WithResource("secrets"), &corev1.Secret{})
	if err != nil {
		t.Fatal(err)
	}
	informer := toolscache.NewSharedIndexInformer(lw, &corev1.Secret{}, 0, toolscache.Indexers{})
	errs := make(chan error, 1)
	if err := informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *toolscache.Reflector, err error) {
		select {
		case errs <- err:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	runUntilTestEnds(t, lc, informer)
	select {
	case err := <-errs:
		t.Logf("after %v: %v", time.Since(start), err)
		msg := err.Error()
		for _, want := range []string{"secrets", "not served", lc.server.grpcAddress} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not say %q", msg, want)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no error reached the WatchErrorHandler within 5s")
	}
}
