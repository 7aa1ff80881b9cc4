package kube

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/retry"
)

// ListerWatcher lists and watches one resource through informerd. It is a
// client-go cache.ListerWatcher and cache.ListerWatcherWithContext. Safe for
// concurrent use.
type ListerWatcher struct {
	client        informerdv1.CacheClient
	resource      schema.GroupVersionResource
	namespace     string
	labelSelector string
	fieldSelector string
	fields        []string
	codec         *codec
	retryInitial  time.Duration
	retryMax      time.Duration
	// listRetryFor bounds how long one List retries UNAVAILABLE before it
	// returns the error to the Reflector, which reports it (its
	// WatchErrorHandler) and retries with its own backoff.
	listRetryFor time.Duration
	// resumeFor bounds how long a watch that has been receiving tries to
	// resume a broken stream before it ends with the error.
	resumeFor time.Duration
}

var (
	_ cache.ListerWatcher            = (*ListerWatcher)(nil)
	_ cache.ListerWatcherWithContext = (*ListerWatcher)(nil)
)

// Option adjusts a ListerWatcher.
type Option func(*options)

type options struct {
	namespace     string
	scheme        *runtime.Scheme
	labelSelector string
	fieldSelector string
	metadataOnly  bool
	fields        []string
}

// WithNamespace restricts lists and watches to one namespace, as
// cache.NewListWatchFromClient's namespace argument does. Default: all.
func WithNamespace(namespace string) Option {
	return func(o *options) { o.namespace = namespace }
}

// WithScheme names the scheme that knows a typed example object's kind and
// list type. Default: client-go's kubernetes/scheme (the built-in kinds).
func WithScheme(s *runtime.Scheme) Option {
	return func(o *options) { o.scheme = s }
}

// WithSelectors adds label and field selectors to every request, ANDed with
// those in the metav1.ListOptions a caller passes (as a cache's
// DefaultLabelSelector would be). Empty strings add nothing.
func WithSelectors(labelSelector, fieldSelector string) Option {
	return func(o *options) { o.labelSelector, o.fieldSelector = labelSelector, fieldSelector }
}

// WithMetadataOnly asks informerd for metadata only (PROJECTION_METADATA)
// while keeping the example's type: a typed example yields objects of its
// type with only apiVersion, kind and metadata set (an empty spec and
// status), an unstructured one objects holding only those three keys. This
// is for handlers that need a typed object but read nothing beyond its
// metadata (controller-runtime's source.Kind asserts the type): the
// objects decode from informerd's JSON, a few hundred bytes each.
func WithMetadataOnly() Option {
	return func(o *options) { o.metadataOnly = true }
}

// WithFields asks informerd for a field mask: every listed, watched and
// read object holds only the named fields (dotted JSON paths such as
// "spec.nodeName", "status.podIP", "metadata.labels"; "metadata" for the
// whole of it), plus apiVersion, kind and metadata's name, namespace, uid
// and resourceVersion, decoded into the example's type (a *corev1.Pod with
// only those fields set). With WithMetadataOnly the mask adds to the whole
// of metadata. Selectors and authorization still see the whole object on
// the server. A path that names no field of the resource's schema fails
// the List (and so the informer's sync) with an INVALID_ARGUMENT naming
// it. The paths' rules are informerd.proto's "Field masks".
func WithFields(paths ...string) Option {
	return func(o *options) { o.fields = append([]string(nil), paths...) }
}

// NewListerWatcher returns a ListerWatcher of resource whose objects have
// the type of example:
//   - a typed object, e.g. &corev1.Pod{}, known to the scheme (WithScheme;
//     default client-go's): lists are the kind's typed list (*corev1.PodList);
//   - *unstructured.Unstructured with apiVersion and kind set, for CRDs and
//     anything without Go types: lists are *unstructured.UnstructuredList;
//   - *metav1.PartialObjectMetadata with apiVersion and kind set: metadata
//     only, as NewMetadataListerWatcher.
func NewListerWatcher(client informerdv1.CacheClient, resource schema.GroupVersionResource, example runtime.Object, opts ...Option) (*ListerWatcher, error) {
	o := options{scheme: scheme.Scheme}
	for _, opt := range opts {
		opt(&o)
	}
	if resource.Resource == "" || resource.Version == "" {
		return nil, fmt.Errorf("kube: resource %q: Resource and Version are required", resource.String())
	}
	var c *codec
	switch ex := example.(type) {
	case nil:
		return nil, fmt.Errorf("kube: example object is nil")
	case *unstructured.Unstructured, *metav1.PartialObjectMetadata:
		gvk := ex.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" {
			return nil, fmt.Errorf("kube: example %T %w", example, errNoKind)
		}
		if gvk.Group != resource.Group || gvk.Version != resource.Version {
			return nil, fmt.Errorf("kube: example %T is %v, not of the resource's group and version %v", example, gvk, resource.GroupVersion())
		}
		if _, ok := ex.(*metav1.PartialObjectMetadata); ok {
			c = metadataCodec(gvk)
		} else {
			c = unstructuredCodec(gvk)
		}
	default:
		var err error
		if c, err = typedCodec(o.scheme, resource, example); err != nil {
			return nil, err
		}
	}
	if o.metadataOnly {
		c = c.metadataOnly()
	}
	return newListerWatcher(client, resource, c, o), nil
}

// NewMetadataListerWatcher returns a ListerWatcher that asks informerd for
// metadata only (PROJECTION_METADATA) and yields *metav1.PartialObjectMetadata
// in *metav1.PartialObjectMetadataList, each with kind's GVK, as client-go's
// metadata informers and controller-runtime's OnlyMetadata caches keep them.
func NewMetadataListerWatcher(client informerdv1.CacheClient, resource schema.GroupVersionResource, kind string, opts ...Option) (*ListerWatcher, error) {
	if kind == "" {
		return nil, fmt.Errorf("kube: kind is required")
	}
	example := &metav1.PartialObjectMetadata{}
	example.SetGroupVersionKind(resource.GroupVersion().WithKind(kind))
	return NewListerWatcher(client, resource, example, opts...)
}

func newListerWatcher(client informerdv1.CacheClient, resource schema.GroupVersionResource, c *codec, o options) *ListerWatcher {
	return &ListerWatcher{
		client:        client,
		resource:      resource,
		namespace:     o.namespace,
		labelSelector: o.labelSelector,
		fieldSelector: o.fieldSelector,
		fields:        o.fields,
		codec:         c,
		retryInitial:  200 * time.Millisecond, // the clients' retry policy (docs/ARCHITECTURE.md, Retries)
		retryMax:      time.Second,
		listRetryFor:  defaultListRetryFor,
		resumeFor:     defaultResumeFor,
	}
}

// Resource is the resource this ListerWatcher reads.
func (lw *ListerWatcher) Resource() schema.GroupVersionResource { return lw.resource }

// GroupVersionKind is the kind of the objects this ListerWatcher yields.
func (lw *ListerWatcher) GroupVersionKind() schema.GroupVersionKind { return lw.codec.gvk }

// IsWatchListSemanticsUnSupported tells client-go's Reflector that WatchList
// (sendInitialEvents) works here, so it is used when client-go's
// WatchListClient feature is on.
func (lw *ListerWatcher) IsWatchListSemanticsUnSupported() bool { return false }

// List is ListWithContext without a context.
//
// Deprecated: use ListWithContext.
func (lw *ListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), options)
}

// Watch is WatchWithContext without a context.
//
// Deprecated: use WatchWithContext.
func (lw *ListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), options)
}

// defaultListRetryFor: long enough for a restarting informerd's next
// connection attempt (at most 1s apart, see connection.Dial), short enough
// that a wrong address is reported within a few seconds, as client-go's
// "failed to list" is against a dead apiserver.
const defaultListRetryFor = 2 * time.Second

// defaultResumeFor: a watch that was receiving rides out an informerd
// restart (seconds) without a relist; longer than the Reflector's largest
// backoff (30s), a server that stays away is reported and the Reflector
// relists, as it would after the apiserver's watch failed.
const defaultResumeFor = 30 * time.Second

// ListWithContext lists as the apiserver would: resourceVersion "" or "0"
// is the latest state, another is "not older than" (resourceVersionMatch
// Exact is refused); limit and continue page. A server that is unreachable
// or not yet synced (UNAVAILABLE) is retried for about 2s, then the error
// (a 503 whose message names the server, when the connection comes from
// connection.Dial, and the reason) is returned: the Reflector reports it to
// its WatchErrorHandler and lists again after its backoff.
func (lw *ListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	req, err := lw.listRequest(options)
	if err != nil {
		return nil, err
	}
	backoff := retry.NewBackoff(lw.retryInitial, lw.retryMax)
	deadline := time.Now().Add(lw.listRetryFor)
	for {
		// Not WaitForReady: a call on a connection that cannot be made
		// fails with the reason (refused, TLS, not gRPC) instead of
		// waiting for a server that may never come.
		resp, err := lw.client.List(ctx, req)
		if err == nil {
			return lw.codec.list(resp)
		}
		if !transient(err) || time.Now().After(deadline) {
			return nil, lw.wrap("list", err)
		}
		klog.FromContext(ctx).V(4).Info("List failed - retrying", "resource", lw.resource.String(), "err", err)
		if !backoff.Wait(ctx) {
			return nil, lw.wrap("list", err)
		}
	}
}

func (lw *ListerWatcher) listRequest(options metav1.ListOptions) (*informerdv1.ListRequest, error) {
	rv, err := notOlderThan(options)
	if err != nil {
		return nil, err
	}
	if options.Limit < 0 {
		return nil, badRequest("limit: must not be negative")
	}
	return &informerdv1.ListRequest{
		Resource:      lw.resourceName(),
		Namespace:     lw.namespace,
		LabelSelector: and(lw.labelSelector, options.LabelSelector),
		FieldSelector: and(lw.fieldSelector, options.FieldSelector),
		Limit:         options.Limit,
		ContinueToken: options.Continue,
		// The apiserver ignores resourceVersion on continued pages; the
		// token holds the snapshot.
		ResourceVersion: map[bool]string{true: "", false: rv}[options.Continue != ""],
		Projection:      lw.codec.projection,
		Encoding:        lw.codec.encoding,
		Fields:          lw.fields,
	}, nil
}

// notOlderThan is the resourceVersion to ask informerd for: "0" (any) and ""
// (most recent) are both informerd's latest state, which is never older than
// what the caller saw; resourceVersionMatch NotOlderThan is informerd's only
// meaning of a resourceVersion.
func notOlderThan(options metav1.ListOptions) (string, error) {
	switch options.ResourceVersionMatch {
	case "", metav1.ResourceVersionMatchNotOlderThan:
	default:
		return "", badRequest(fmt.Sprintf("resourceVersionMatch: %q is not supported by informerd (only NotOlderThan)", options.ResourceVersionMatch))
	}
	if options.ResourceVersion == "0" {
		return "", nil
	}
	return options.ResourceVersion, nil
}

func (lw *ListerWatcher) resourceName() *informerdv1.ResourceName {
	return &informerdv1.ResourceName{Group: lw.resource.Group, Version: lw.resource.Version, Resource: lw.resource.Resource}
}

func (lw *ListerWatcher) wrap(op string, err error) error {
	return apiError(op, lw.resource.GroupResource(), err)
}

func and(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "," + b
}
