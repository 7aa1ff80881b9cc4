package kube

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/retry"
)

// Get reads one object of the ListerWatcher's namespace (empty
// for a cluster-scoped resource) by name with informerd's Get, decoded as
// the ListerWatcher's objects. minResourceVersion, when not empty, is
// "not older than": informerd answers once its cache has reached it. The
// ListerWatcher's selectors do not apply (a Get names its object). A
// missing object is a 404 (apierrors.IsNotFound); UNAVAILABLE is retried
// for about 2s, as a List is. cacheVersion is informerd's version when it
// read the object: the object is the state at that version.
func (lw *ListerWatcher) Get(ctx context.Context, name, minResourceVersion string) (obj runtime.Object, cacheVersion string, err error) {
	if name == "" {
		return nil, "", badRequest("name: required")
	}
	req := &informerdv1.GetRequest{
		Resource:           lw.resourceName(),
		Namespace:          lw.namespace,
		Name:               name,
		MinResourceVersion: minResourceVersion,
		Projection:         lw.codec.projection,
		Encoding:           lw.codec.encoding,
		Fields:             lw.fields,
	}
	backoff := retry.NewBackoff(lw.retryInitial, lw.retryMax)
	deadline := time.Now().Add(lw.listRetryFor)
	for {
		resp, err := lw.client.Get(ctx, req)
		if err == nil {
			obj, err := lw.codec.decode(resp.GetObject())
			return obj, resp.GetResourceVersion(), err
		}
		if !transient(err) || time.Now().After(deadline) {
			return nil, "", lw.wrap("get", err)
		}
		klog.FromContext(ctx).V(4).Info("Get failed - retrying", "resource", lw.resource.String(), "err", err)
		if !backoff.Wait(ctx) {
			return nil, "", lw.wrap("get", err)
		}
	}
}
