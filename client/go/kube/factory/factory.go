// Package factory is client-go's shared informer factory with informerd as
// the source: informers.NewSharedInformerFactory and dynamicinformer.
// NewDynamicSharedInformerFactory, handing out client-go's own
// cache.SharedIndexInformer, each reading through kube.ListerWatcher.
//
//	f := factory.New(informerdv1.NewCacheClient(conn), 10*time.Minute, factory.WithNamespace("web"))
//	defer f.Shutdown()
//	pods, err := factory.Typed[*corev1.Pod](f, corev1.SchemeGroupVersion.WithResource("pods"))
//	widgets := f.ForResource(widgetsGVR) // unstructured, as dynamicinformer
//	f.StartWithContext(ctx)
//	f.WaitForCacheSyncWithContext(ctx)
//
// Everything an informer does after it is made is client-go's: handlers added
// at any time get the cache as adds first and report their own HasSynced;
// each handler has its own goroutine and queue (client-go's
// processorListener), so a slow handler delays no other; per-handler resync
// periods replay the local cache; transforms and indexers apply before
// storing. The factory adds the sharing (one informer, and so one informerd
// Watch stream, per key), lazy creation, and Start/WaitForCacheSync/Shutdown
// over all of them.
package factory

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
)

// Key identifies a shared informer: requests with equal keys get the same
// informer. Resync and indexers are not part of it (see WithResync,
// WithIndexers).
type Key struct {
	// Resource as requested; an empty Version (Dynamic, ForResource) means
	// the version informerd serves.
	Resource schema.GroupVersionResource
	// Type is the objects' Go type: a typed object (*corev1.Pod),
	// *unstructured.Unstructured or *metav1.PartialObjectMetadata.
	Type          reflect.Type
	Namespace     string
	LabelSelector string
	FieldSelector string
	// Transform is the name given to WithTransform ("" for none).
	Transform string
}

func (k Key) String() string {
	s := fmt.Sprintf("%v %v", k.Resource, k.Type)
	if k.Namespace != "" {
		s += " namespace=" + k.Namespace
	}
	if k.LabelSelector != "" {
		s += " labels=" + k.LabelSelector
	}
	if k.FieldSelector != "" {
		s += " fields=" + k.FieldSelector
	}
	if k.Transform != "" {
		s += " transform=" + k.Transform
	}
	return s
}

var (
	unstructuredType = reflect.TypeOf(&unstructured.Unstructured{})
	metadataType     = reflect.TypeOf(&metav1.PartialObjectMetadata{})
)

// Factory makes and shares informers over one informerd connection. Safe for
// concurrent use. It implements dynamicinformer.DynamicSharedInformerFactory.
type Factory struct {
	client        informerdv1.CacheClient
	defaultResync time.Duration
	defaults      settings
	// defaultsErr is an invalid option given to New, returned by every
	// request (New has no error result, as client-go's factories).
	defaultsErr error
	// stopAll ends every started informer (Shutdown).
	stopped context.Context
	stopAll context.CancelFunc

	mu        sync.Mutex
	informers map[Key]*entry
	// shuttingDown: Start does nothing any more.
	shuttingDown bool
	// running counts the informers' Run goroutines; Shutdown waits for it.
	running sync.WaitGroup
}

var _ dynamicinformer.DynamicSharedInformerFactory = (*Factory)(nil)

type entry struct {
	informer cache.SharedIndexInformer
	resource schema.GroupResource
	started  bool
}

// New returns a factory reading from client. defaultResync is every
// informer's resync period unless WithResync says otherwise (0: none);
// opts are defaults for every informer.
func New(client informerdv1.CacheClient, defaultResync time.Duration, opts ...Option) *Factory {
	f := &Factory{
		client:        client,
		defaultResync: defaultResync,
		informers:     map[Key]*entry{},
	}
	f.defaults, f.defaultsErr = settings{scheme: scheme.Scheme}.with(opts)
	f.stopped, f.stopAll = context.WithCancel(context.Background())
	return f
}

// InformerFor returns the shared informer of resource whose objects have
// example's type, making it on first request. example is a typed object
// known to the scheme (&corev1.Pod{}), an *unstructured.Unstructured, or a
// *metav1.PartialObjectMetadata (metadata only: informerd sends only
// metadata); for the last two, as in Dynamic, the kind comes from informerd.
// The resource is named explicitly, not guessed from the kind: plurals are
// not always regular (Endpoints, CRDs).
//
// A new informer is not running until the next Start.
func (f *Factory) InformerFor(resource schema.GroupVersionResource, example runtime.Object, opts ...Option) (cache.SharedIndexInformer, error) {
	e, err := f.informerFor(resource, example, opts)
	if err != nil {
		return nil, err
	}
	return e.informer, nil
}

// Typed is InformerFor with the object type as a type parameter, returning
// client-go's TypedSharedIndexInformer (AddTypedEventHandler,
// GetTypedIndexer). T is a pointer to a typed object, e.g. *corev1.Pod.
func Typed[T cache.Object](f *Factory, resource schema.GroupVersionResource, opts ...Option) (cache.TypedSharedIndexInformer[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("factory: Typed needs a pointer to a struct type, not %v", t)
	}
	example, ok := reflect.New(t.Elem()).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("factory: %v is not a runtime.Object", t)
	}
	informer, err := f.InformerFor(resource, example, opts...)
	if err != nil {
		return nil, err
	}
	return cache.NewTypedSharedIndexInformer[T](informer), nil
}

// Dynamic returns the shared informer of resource's objects as
// *unstructured.Unstructured, with a lister, as dynamicinformer does. The
// kind (and the version, when resource.Version is empty) is asked of
// informerd's ListResources when the informer first lists, so this never
// contacts the server.
func (f *Factory) Dynamic(resource schema.GroupVersionResource, opts ...Option) (informers.GenericInformer, error) {
	e, err := f.informerFor(resource, &unstructured.Unstructured{}, opts)
	if err != nil {
		return nil, err
	}
	return genericInformer{e}, nil
}

// ForResource is Dynamic with the factory's defaults only: the method of
// dynamicinformer.DynamicSharedInformerFactory, which has no error result.
// An unknown resource, like an invalid request, shows as an informer that
// never syncs: its Reflector reports the error through the watch error
// handler and retries.
func (f *Factory) ForResource(resource schema.GroupVersionResource) informers.GenericInformer {
	e, err := f.informerFor(resource, &unstructured.Unstructured{}, nil)
	if err == nil {
		return genericInformer{e}
	}
	// An invalid option given to New, or no Resource: a shared informer
	// whose every list fails with that error, started and reported (never
	// synced) like the others.
	key := Key{Resource: resource, Type: unstructuredType}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.informers[key]; ok {
		return genericInformer{e}
	}
	e = &entry{
		informer: cache.NewSharedIndexInformer(failing{err}, &unstructured.Unstructured{}, 0, cache.Indexers{}),
		resource: resource.GroupResource(),
	}
	f.informers[key] = e
	return genericInformer{e}
}

func (f *Factory) informerFor(resource schema.GroupVersionResource, example runtime.Object, opts []Option) (*entry, error) {
	if f.defaultsErr != nil {
		return nil, f.defaultsErr
	}
	if example == nil {
		return nil, fmt.Errorf("factory: example object is nil")
	}
	if resource.Resource == "" {
		return nil, fmt.Errorf("factory: resource %q has no Resource", resource.String())
	}
	s, err := f.defaults.with(opts)
	if err != nil {
		return nil, err
	}
	key := Key{
		Resource:      resource,
		Type:          reflect.TypeOf(example),
		Namespace:     s.namespace,
		LabelSelector: s.labelSelector,
		FieldSelector: s.fieldSelector,
		Transform:     s.transformName,
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.informers[key]; ok {
		if err := addIndexers(e.informer, s.indexers); err != nil {
			return nil, fmt.Errorf("factory: %v: %w", key, err)
		}
		return e, nil
	}
	lw, err := f.listerWatcher(key, example, s)
	if err != nil {
		return nil, err
	}
	resync := f.defaultResync
	if s.resync != nil {
		resync = *s.resync
	}
	informer := cache.NewSharedIndexInformerWithOptions(lw, example.DeepCopyObject(), cache.SharedIndexInformerOptions{
		ResyncPeriod:      resync,
		Indexers:          mergeIndexers(s.indexers, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}),
		ObjectDescription: key.String(),
	})
	if s.transform != nil {
		if err := informer.SetTransform(s.transform); err != nil {
			return nil, fmt.Errorf("factory: %v: %w", key, err)
		}
	}
	e := &entry{informer: informer, resource: resource.GroupResource()}
	f.informers[key] = e
	return e, nil
}

// listerWatcher is the informer's source. Typed objects know their kind
// from the scheme; the untyped shapes learn it from informerd on first use.
func (f *Factory) listerWatcher(key Key, example runtime.Object, s settings) (cache.ListerWatcher, error) {
	opts := []kube.Option{kube.WithNamespace(s.namespace), kube.WithSelectors(s.labelSelector, s.fieldSelector), kube.WithScheme(s.scheme)}
	switch key.Type {
	case unstructuredType, metadataType:
		return &resolvingListerWatcher{client: f.client, resource: key.Resource, metadata: key.Type == metadataType, opts: opts}, nil
	}
	if key.Resource.Version == "" {
		return nil, fmt.Errorf("factory: resource %v: a typed informer needs the version", key.Resource)
	}
	return kube.NewListerWatcher(f.client, key.Resource, example, opts...)
}

// addIndexers adds to a shared informer the indexes it lacks.
func addIndexers(informer cache.SharedIndexInformer, indexers cache.Indexers) error {
	existing := informer.GetIndexer().GetIndexers()
	missing := cache.Indexers{}
	for name, fn := range indexers {
		if _, ok := existing[name]; !ok {
			missing[name] = fn
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return informer.AddIndexers(missing)
}

// Start is StartWithContext until stopCh is closed (client-go's signature).
func (f *Factory) Start(stopCh <-chan struct{}) {
	f.StartWithContext(wait.ContextForChannel(stopCh))
}

// StartWithContext runs every informer not yet started, until ctx ends or
// Shutdown; informers requested later need another Start. Does not block.
// Does nothing after Shutdown.
func (f *Factory) StartWithContext(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	for _, e := range f.informers {
		if e.started {
			continue
		}
		e.started = true
		runCtx, cancel := context.WithCancel(ctx)
		stop := context.AfterFunc(f.stopped, cancel)
		informer := e.informer
		f.running.Go(func() {
			defer stop()
			defer cancel()
			informer.RunWithContext(runCtx)
		})
	}
}

// Shutdown stops every informer and returns once none runs: client-go's
// informer returns from Run only after each handler's current call has
// returned, so after Shutdown no handler runs and the caches are final.
// Unlike client-go's Shutdown, which waits for the caller to close the stop
// channels, this one also stops the informers. Start does nothing afterwards.
// Safe to call more than once and concurrently.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	f.mu.Unlock()
	f.stopAll()
	f.running.Wait()
}

// WaitForCacheSync waits until every started informer has synced or stopCh
// is closed, and reports each resource: true when all its informers synced
// (dynamicinformer's signature; WaitForCacheSyncWithContext reports by key).
func (f *Factory) WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool {
	byKey := f.WaitForCacheSyncWithContext(wait.ContextForChannel(stopCh))
	out := map[schema.GroupVersionResource]bool{}
	for key, synced := range byKey {
		if prev, ok := out[key.Resource]; ok {
			synced = synced && prev
		}
		out[key.Resource] = synced
	}
	return out
}

// WaitForCacheSyncWithContext waits until every started informer has synced
// or ctx ends, and reports each informer's state by key.
func (f *Factory) WaitForCacheSyncWithContext(ctx context.Context) map[Key]bool {
	started := f.started()
	checkers := make([]cache.DoneChecker, 0, len(started))
	for _, informer := range started {
		checkers = append(checkers, informer.HasSyncedChecker())
	}
	cache.WaitFor(ctx, "", checkers...)
	out := make(map[Key]bool, len(started))
	for key, informer := range started {
		out[key] = informer.HasSynced()
	}
	return out
}

// Keys lists the keys of the informers made so far, sorted by String.
func (f *Factory) Keys() []Key {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]Key, 0, len(f.informers))
	for key := range f.informers {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

func (f *Factory) started() map[Key]cache.SharedIndexInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[Key]cache.SharedIndexInformer{}
	for key, e := range f.informers {
		if e.started {
			out[key] = e.informer
		}
	}
	return out
}

// genericInformer is informers.GenericInformer over one entry.
type genericInformer struct{ e *entry }

func (g genericInformer) Informer() cache.SharedIndexInformer { return g.e.informer }

func (g genericInformer) Lister() cache.GenericLister {
	return cache.NewGenericLister(g.e.informer.GetIndexer(), g.e.resource)
}
