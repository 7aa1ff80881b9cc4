package crcache

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
)

// Option adjusts NewCacheFunc.
type Option func(*cacheOptions)

type cacheOptions struct {
	noCopy *NoCopyOptions
	masks  []mask
}

// mask is one WithFields: the informers of obj's kind hold only paths.
type mask struct {
	obj   client.Object
	paths []string
}

// WithFields makes the informers of obj's kind hold objects with only the
// named fields, asked of informerd as a field mask (kube.WithFields; the
// rules are informerd.proto's "Field masks"): a masked copy, e.g.
//
//	crcache.NewCacheFunc(cc, crcache.WithFields(&corev1.Pod{},
//		"metadata", "spec.nodeName", "status.phase"))
//
// keeps pods with their metadata, node and phase only, decoded as
// *corev1.Pod; handlers, predicates and the cache's Get and List (without
// NoCopy) see those objects. Label and field selectors are evaluated by
// informerd on the whole object, so MatchingFields and selectors keep
// working for fields the mask leaves out; the cache's own indexes
// (IndexField) see only the masked object. apiVersion, kind and metadata's
// name, namespace, uid and resourceVersion are always there; "metadata"
// keeps the rest of it (labels, ownerReferences, generation, ...). With
// NoCopy, this kind's events hold the mask instead of EventFields, and
// reads still return whole objects. A path that names no field of the kind
// fails the informer's sync with informerd's INVALID_ARGUMENT naming it;
// an empty path fails NewCache.
func WithFields(obj client.Object, paths ...string) Option {
	return func(o *cacheOptions) { o.masks = append(o.masks, mask{obj, append([]string(nil), paths...)}) }
}

// NoCopyOptions configure the no-copy mode (NoCopy).
type NoCopyOptions struct {
	// EventFields is what of each object the informers hold and hand to
	// event handlers. Empty or {"metadata"} (the default): apiVersion, kind
	// and metadata only (informerd's PROJECTION_METADATA), in the
	// informer's own type (a *corev1.Pod with only TypeMeta and ObjectMeta
	// set), which is all EnqueueRequestForObject, EnqueueRequestForOwner and
	// the generation, label and annotation predicates read. {"*"}: whole
	// objects (a full copy in the informers; reads still go to informerd).
	// Any other paths: a field mask for every kind (as WithFields, which
	// overrides it for its own kind), e.g. {"metadata", "spec.nodeName"}.
	EventFields []string
	// LocalCacheObjects bounds an optional local cache of objects read by
	// Get (0, the default: off), least recently used out first, for hot
	// objects read often and changed rarely. Only resources this cache
	// has an informer of (and without a field selector) use it: their
	// watch drops an object's entry as soon as an event of it is received,
	// and every entry of the resource when the informer lists or watches
	// anew, so a hit keeps the read-your-events guarantee. A hit is a
	// deep copy.
	LocalCacheObjects int
}

// NoCopy makes the cache answer Get and List with informerd's Get and List
// RPCs instead of a local store, and its informers hold and deliver
// metadata only (NoCopyOptions.EventFields):
//
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
//		NewCache:       crcache.NewCacheFunc(cc, crcache.NoCopy(crcache.NoCopyOptions{})),
//		MapperProvider: crcache.MapperProvider(cc),
//	})
//
// A read costs an RPC; the controller holds no copy of the objects beyond
// their metadata. Namespaces, label and field selectors (the request's,
// ANDed with the cache's defaults) are evaluated by informerd. A Get names
// its object: it is answered whether or not the cache's selectors match it,
// except that a default label selector is checked on the answer (as the
// object would be absent from a cache that held only matching objects).
//
// Read your events: for each resource, every Get and List is answered at a
// version not older than the highest resourceVersion this cache has
// received from informerd for that resource (a List, any watch event or
// bookmark) when the read starts. Events reach the informers' stores and
// handlers only after they are received, so a reconcile that follows an
// event reads that event's version or later, never earlier: its Get of the
// object returns a resourceVersion >= the event's, or NotFound once it was
// deleted. The bound is per resource: an event of one resource says nothing
// of the version a read of another is answered at. It holds across
// informerd replicas (a replica behind waits, bounded, before it answers,
// then UNAVAILABLE) and restarts (a restarted informerd lists anew from the
// apiserver, whose versions only grow).
func NoCopy(opts NoCopyOptions) Option {
	return func(o *cacheOptions) { o.noCopy = &opts }
}

// eventShape is what the informers of a no-copy cache hold.
type eventShape int

const (
	eventsMetadata eventShape = iota
	eventsFull
	eventsMasked // NoCopyOptions.EventFields as a field mask
)

func (o NoCopyOptions) shape() (eventShape, error) {
	switch {
	case len(o.EventFields) == 0, len(o.EventFields) == 1 && o.EventFields[0] == "metadata":
		return eventsMetadata, nil
	case len(o.EventFields) == 1 && o.EventFields[0] == "*":
		return eventsFull, nil
	}
	for i, path := range o.EventFields {
		if path == "*" {
			return 0, fmt.Errorf("crcache: NoCopyOptions.EventFields[%d] is \"*\" beside other paths; \"*\" (whole objects) stands alone", i)
		}
	}
	if err := checkPaths("NoCopyOptions.EventFields", o.EventFields); err != nil {
		return 0, err
	}
	return eventsMasked, nil
}

// checkPaths refuses what cannot be a field path at all; informerd checks
// the rest against the kind's schema.
func checkPaths(what string, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("crcache: %s: no paths; name at least one field (\"metadata\" for metadata only)", what)
	}
	for i, path := range paths {
		if path == "" {
			return fmt.Errorf("crcache: %s[%d] is empty; a path names a field, e.g. \"spec.nodeName\"", what, i)
		}
	}
	return nil
}

// readShape is the form a read asks informerd for, by the caller's type.
type readShape int

const (
	readTyped readShape = iota
	readUnstructured
	readMetadata
)

type readerKey struct {
	gvk       schema.GroupVersionKind
	shape     readShape
	namespace string
}

// noCopyCache is a controller-runtime cache whose informers come from
// controller-runtime's own cache (fed by informerd, metadata only) and
// whose reads go to informerd.
type noCopyCache struct {
	cache.Cache
	plan *plan
	seen *seenVersions

	mu      sync.Mutex
	readers map[readerKey]*kube.ListerWatcher
	// fields maps a field name given to IndexField to informerd's path.
	fields map[schema.GroupVersionKind]map[string]string
}

var _ cache.Cache = (*noCopyCache)(nil)

// NeedLeaderElection: the cache runs on every replica of a controller, as
// controller-runtime's does.
func (c *noCopyCache) NeedLeaderElection() bool { return false }

// target is the resource, scope and selectors a read of gvk goes to.
func (c *noCopyCache) target(gvk schema.GroupVersionKind) (*meta.RESTMapping, selectors, error) {
	mapping, err := c.plan.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, selectors{}, fmt.Errorf("crcache: %w", err)
	}
	s, ok := c.plan.byGVK[gvk]
	if !ok {
		s = c.plan.defaults
	}
	return mapping, s, nil
}

// namespaceFor is the namespace a read of mapping's resource asks for:
// the caller's, within the cache's.
func (c *noCopyCache) namespaceFor(mapping *meta.RESTMapping, requested string) (string, error) {
	if mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		return "", nil
	}
	switch {
	case c.plan.namespace == "":
		return requested, nil
	case requested == "" || requested == c.plan.namespace:
		return c.plan.namespace, nil
	}
	return "", fmt.Errorf("crcache: namespace %q is not in the cache (it reads namespace %q)", requested, c.plan.namespace)
}

func (c *noCopyCache) reader(key readerKey, mapping *meta.RESTMapping, s selectors) (*kube.ListerWatcher, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if lw, ok := c.readers[key]; ok {
		return lw, nil
	}
	var example runtime.Object
	switch key.shape {
	case readMetadata:
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(key.gvk)
		example = m
	case readUnstructured:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(key.gvk)
		example = u
	default:
		obj, err := c.plan.scheme.New(key.gvk)
		if err != nil {
			return nil, fmt.Errorf("crcache: %w", err)
		}
		example = obj
	}
	lw, err := kube.NewListerWatcher(c.plan.client, mapping.Resource, example,
		kube.WithScheme(c.plan.scheme), kube.WithNamespace(key.namespace), kube.WithSelectors(s.label, s.field))
	if err != nil {
		return nil, err
	}
	c.readers[key] = lw
	return lw, nil
}

func shapeOf(obj runtime.Object) readShape {
	switch obj.(type) {
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return readMetadata
	case runtime.Unstructured:
		return readUnstructured
	}
	return readTyped
}

// Get is informerd's Get, not older than the last version received for
// the resource.
func (c *noCopyCache) Get(ctx context.Context, key client.ObjectKey, out client.Object, _ ...client.GetOption) error {
	gvk, err := apiutil.GVKForObject(out, c.plan.scheme)
	if err != nil {
		return err
	}
	mapping, s, err := c.target(gvk)
	if err != nil {
		return err
	}
	namespace, err := c.namespaceFor(mapping, key.Namespace)
	if err != nil {
		return err
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace && namespace == "" {
		return apierrors.NewBadRequest(fmt.Sprintf("crcache: Get %v %q: a namespaced object needs a namespace", gvk, key.Name))
	}
	lw, err := c.reader(readerKey{gvk: gvk, shape: shapeOf(out), namespace: namespace}, mapping, s)
	if err != nil {
		return err
	}
	hk := hotKey{gvr: mapping.Resource, shape: shapeOf(out), key: objectKey(namespace, key.Name)}
	var ticket hotTicket
	if s.field == "" {
		var hit runtime.Object
		if hit, ticket = c.seen.hotGet(hk); hit != nil {
			return setInto(out, hit)
		}
	}
	obj, cacheVersion, err := lw.Get(ctx, key.Name, c.seen.minimum(mapping.Resource))
	if err != nil {
		return err
	}
	if s.label != "" {
		// The selector parsed when informerd accepted it for the watches;
		// one it refuses fails here too.
		selector, err := labels.Parse(s.label)
		if err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("crcache: label selector %q: %v", s.label, err))
		}
		accessor, err := meta.Accessor(obj)
		if err != nil {
			return err
		}
		if !selector.Matches(labels.Set(accessor.GetLabels())) {
			return apierrors.NewNotFound(mapping.Resource.GroupResource(), key.Name)
		}
	}
	if ticket.ok {
		c.seen.hotOffer(hk, ticket, obj.DeepCopyObject(), cacheVersion)
	}
	return setInto(out, obj)
}

// List is informerd's List, not older than the last version received for
// the resource; without a Limit, every page.
func (c *noCopyCache) List(ctx context.Context, out client.ObjectList, opts ...client.ListOption) error {
	gvk, err := apiutil.GVKForObject(out, c.plan.scheme)
	if err != nil {
		return err
	}
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	mapping, s, err := c.target(gvk)
	if err != nil {
		return err
	}
	var listOpts client.ListOptions
	listOpts.ApplyOptions(opts)
	namespace, err := c.namespaceFor(mapping, listOpts.Namespace)
	if err != nil {
		return err
	}
	lw, err := c.reader(readerKey{gvk: gvk, shape: shapeOf(out), namespace: namespace}, mapping, s)
	if err != nil {
		return err
	}
	options := metav1.ListOptions{Limit: listOpts.Limit, Continue: listOpts.Continue}
	if listOpts.LabelSelector != nil {
		options.LabelSelector = listOpts.LabelSelector.String()
	}
	if listOpts.FieldSelector != nil {
		if options.FieldSelector, err = c.fieldSelector(gvk, listOpts.FieldSelector.String()); err != nil {
			return err
		}
	}
	if options.Continue == "" {
		options.ResourceVersion = c.seen.minimum(mapping.Resource)
	}
	list, err := lw.ListWithContext(ctx, options)
	if err != nil {
		return err
	}
	if listOpts.Limit == 0 {
		// informerd caps a page in bytes; a List without a limit is whole.
		if list, err = c.remainingPages(ctx, lw, options, list); err != nil {
			return err
		}
	}
	kind := out.GetObjectKind().GroupVersionKind()
	if err := setInto(out, list); err != nil {
		return err
	}
	if !kind.Empty() {
		out.GetObjectKind().SetGroupVersionKind(kind)
	}
	return nil
}

func (c *noCopyCache) remainingPages(ctx context.Context, lw *kube.ListerWatcher, options metav1.ListOptions, first runtime.Object) (runtime.Object, error) {
	firstMeta, err := meta.ListAccessor(first)
	if err != nil {
		return nil, err
	}
	if firstMeta.GetContinue() == "" {
		return first, nil
	}
	items, err := meta.ExtractList(first)
	if err != nil {
		return nil, err
	}
	for next := firstMeta.GetContinue(); next != ""; {
		options.Continue, options.ResourceVersion = next, ""
		page, err := lw.ListWithContext(ctx, options)
		if err != nil {
			return nil, err
		}
		more, err := meta.ExtractList(page)
		if err != nil {
			return nil, err
		}
		items = append(items, more...)
		pageMeta, err := meta.ListAccessor(page)
		if err != nil {
			return nil, err
		}
		next = pageMeta.GetContinue()
	}
	if err := meta.SetList(first, items); err != nil {
		return nil, err
	}
	firstMeta.SetContinue("")
	return first, nil
}

// IndexField does not index locally: it checks that informerd indexes
// field for the kind's resource (metadata.name, metadata.namespace or one
// of the resource's configured fieldIndexes; a leading "." is allowed, as
// in ".spec.nodeName"), so that List with client.MatchingFields{field: v}
// is answered by informerd's index. extractValue is never called:
// informerd reads the field from the object itself. A field informerd does
// not index is an error naming it, returned here, so a controller fails
// at setup rather than at its first List.
func (c *noCopyCache) IndexField(ctx context.Context, obj client.Object, field string, _ client.IndexerFunc) error {
	gvk, err := apiutil.GVKForObject(obj, c.plan.scheme)
	if err != nil {
		return err
	}
	mapping, _, err := c.target(gvk)
	if err != nil {
		return err
	}
	path := strings.TrimPrefix(field, ".")
	namespace := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		namespace = c.plan.namespace
	}
	// One item of metadata: the answer does not matter, only whether
	// informerd knows the index.
	_, err = c.plan.client.List(ctx, &informerdv1.ListRequest{
		Resource:   &informerdv1.ResourceName{Group: mapping.Resource.Group, Version: mapping.Resource.Version, Resource: mapping.Resource.Resource},
		Namespace:  namespace,
		IndexName:  path,
		Limit:      1,
		Projection: informerdv1.Projection_PROJECTION_METADATA,
	})
	if status.Code(err) == codes.InvalidArgument {
		return fmt.Errorf("crcache: IndexField %q on %v: informerd has no index %q for %s (%s); in the no-copy mode List by field is answered by informerd, so add it to the resource's fieldIndexes in informerd's configuration", field, gvk, path, mapping.Resource.GroupResource(), status.Convert(err).Message())
	}
	if err != nil {
		return fmt.Errorf("crcache: IndexField %q on %v: checking informerd's index: %w", field, gvk, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fields[gvk] == nil {
		c.fields[gvk] = map[string]string{}
	}
	c.fields[gvk][field] = path
	return nil
}

// fieldSelector renames the fields IndexField registered under another
// name (".spec.nodeName") to informerd's paths; informerd checks the rest.
func (c *noCopyCache) fieldSelector(gvk schema.GroupVersionKind, selector string) (string, error) {
	parsed, err := fields.ParseSelector(selector)
	if err != nil {
		return "", apierrors.NewBadRequest(fmt.Sprintf("crcache: field selector %q: %v", selector, err))
	}
	c.mu.Lock()
	names := c.fields[gvk]
	c.mu.Unlock()
	renamed, err := parsed.Transform(func(field, value string) (string, string, error) {
		if path, ok := names[field]; ok {
			return path, value, nil
		}
		return field, value, nil
	})
	if err != nil {
		return "", err
	}
	return renamed.String(), nil
}

// setInto sets out (a pointer to an object or list) to obj, of the same
// type.
func setInto(out, obj runtime.Object) error {
	if u, ok := out.(*unstructured.Unstructured); ok {
		u.Object = obj.(*unstructured.Unstructured).Object
		return nil
	}
	if u, ok := out.(*unstructured.UnstructuredList); ok {
		list := obj.(*unstructured.UnstructuredList)
		u.Object, u.Items = list.Object, list.Items
		return nil
	}
	dst, src := reflect.ValueOf(out), reflect.ValueOf(obj)
	if dst.Type() != src.Type() || dst.Kind() != reflect.Pointer {
		return fmt.Errorf("crcache: cannot read %T into %T", obj, out)
	}
	dst.Elem().Set(src.Elem())
	return nil
}
