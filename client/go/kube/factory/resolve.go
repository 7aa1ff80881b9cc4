package factory

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
)

// resolvingListerWatcher is the source of an unstructured or metadata-only
// informer, whose kind only informerd knows: dynamicinformer needs no kind
// because the apiserver sends it, but kube.ListerWatcher stamps every object
// and bookmark with the resource's kind. The first List or Watch asks
// informerd's ListResources for the kind, the version (when not given) and
// whether the resource is namespaced, then delegates to a kube.ListerWatcher;
// a failure is returned to the Reflector, which retries with backoff.
type resolvingListerWatcher struct {
	client   informerdv1.CacheClient
	resource schema.GroupVersionResource
	metadata bool
	opts     []kube.Option

	mu       sync.Mutex
	resolved *kube.ListerWatcher
}

var (
	_ cache.ListerWatcher            = (*resolvingListerWatcher)(nil)
	_ cache.ListerWatcherWithContext = (*resolvingListerWatcher)(nil)
)

func (r *resolvingListerWatcher) get(ctx context.Context) (*kube.ListerWatcher, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resolved != nil {
		return r.resolved, nil
	}
	// Not WaitForReady: an unreachable server is an error for the
	// Reflector to report, not a wait without end.
	resp, err := r.client.ListResources(ctx, &informerdv1.ListResourcesRequest{})
	if err != nil {
		return nil, fmt.Errorf("factory: asking informerd for the kind of %v: %w", r.resource, err)
	}
	for _, status := range resp.GetResources() {
		name := status.GetResource()
		if name.GetGroup() != r.resource.Group || name.GetResource() != r.resource.Resource ||
			(r.resource.Version != "" && name.GetVersion() != r.resource.Version) {
			continue
		}
		gvr := schema.GroupVersionResource{Group: name.GetGroup(), Version: name.GetVersion(), Resource: name.GetResource()}
		gvk := gvr.GroupVersion().WithKind(status.GetKind())
		opts := r.opts
		if !status.GetNamespaced() {
			// A cluster-scoped resource in a namespaced factory: all of it,
			// as the apiserver ignores the namespace of such a resource.
			opts = append(append([]kube.Option(nil), opts...), kube.WithNamespace(""))
		}
		var lw *kube.ListerWatcher
		if r.metadata {
			lw, err = kube.NewMetadataListerWatcher(r.client, gvr, gvk.Kind, opts...)
		} else {
			example := &unstructured.Unstructured{}
			example.SetGroupVersionKind(gvk)
			lw, err = kube.NewListerWatcher(r.client, gvr, example, opts...)
		}
		if err != nil {
			return nil, err
		}
		r.resolved = lw
		return lw, nil
	}
	notServed := apierrors.NewNotFound(r.resource.GroupResource(), "")
	notServed.ErrStatus.Message = fmt.Sprintf("factory: informerd does not serve %v (it serves %d resources; see its ListResources)", r.resource, len(resp.GetResources()))
	return nil, notServed
}

func (r *resolvingListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	lw, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return lw.ListWithContext(ctx, options)
}

func (r *resolvingListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	lw, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return lw.WatchWithContext(ctx, options)
}

// List is ListWithContext without a context.
//
// Deprecated: use ListWithContext.
func (r *resolvingListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return r.ListWithContext(context.Background(), options)
}

// Watch is WatchWithContext without a context.
//
// Deprecated: use WatchWithContext.
func (r *resolvingListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return r.WatchWithContext(context.Background(), options)
}

// IsWatchListSemanticsUnSupported: informerd supports WatchList, as
// kube.ListerWatcher says.
func (r *resolvingListerWatcher) IsWatchListSemanticsUnSupported() bool { return false }

// failing is a ListerWatcher whose every call fails with err.
type failing struct{ err error }

func (f failing) List(metav1.ListOptions) (runtime.Object, error)   { return nil, f.err }
func (f failing) Watch(metav1.ListOptions) (watch.Interface, error) { return nil, f.err }
