// Package crcache plugs informerd into controller-runtime: with
//
//	cc := informerdv1.NewCacheClient(conn)
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
//		NewCache:       crcache.NewCacheFunc(cc),
//		MapperProvider: crcache.MapperProvider(cc),
//	})
//
// every informer of the manager's cache (typed, unstructured and
// metadata-only, i.e. builder.OnlyMetadata) lists and watches through
// informerd instead of the kube-apiserver; reads through mgr.GetClient() are
// served from that cache as before, writes still go to the apiserver. With
// MapperProvider, kinds are mapped to resources from informerd's
// ListResources, so those reads need no apiserver at all; without it, the
// manager's default mapper asks the apiserver's discovery, and a cache read
// fails while the apiserver is unreachable.
//
// Why manager.Options.NewCache and not cache.Options.NewInformer: the
// per-informer hook receives the object type and the apiserver's
// ListerWatcher, whose namespace and selectors are sealed inside it; only
// NewCache sees the whole cache.Options (DefaultNamespaces, selectors,
// ByObject, the RESTMapper), from which the informerd requests are made.
// NewCacheFunc then installs the per-informer hook itself and lets
// controller-runtime's own cache do everything else (readers, indexes,
// transforms, multiple kinds).
package crcache

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
	"github.com/informerd/informerd/client/go/kube/mapper"
)

// MapperProvider returns a manager.Options.MapperProvider (also
// cluster.Options.MapperProvider) whose RESTMapper knows kinds from
// informerd's ListResources (package kube/mapper), so that the cache's
// informers, the cached reads of mgr.GetClient() and the manager's other
// mappings (owner references, scope checks) need no apiserver discovery.
// Kinds informerd does not serve fall back to controller-runtime's default
// discovery mapper, asked only then: writes of such kinds still work while
// the apiserver is up.
func MapperProvider(client informerdv1.CacheClient) func(*rest.Config, *http.Client) (meta.RESTMapper, error) {
	return MapperProviderWithOptions(client, mapper.Options{})
}

// MapperProviderWithOptions is MapperProvider with the mapper's options
// (e.g. a Namespace for a caller whose RBAC allows one); a nil
// opts.Fallback is the apiserver's discovery mapper.
func MapperProviderWithOptions(client informerdv1.CacheClient, opts mapper.Options) func(*rest.Config, *http.Client) (meta.RESTMapper, error) {
	return func(config *rest.Config, httpClient *http.Client) (meta.RESTMapper, error) {
		if opts.Fallback == nil {
			if httpClient == nil {
				var err error
				if httpClient, err = rest.HTTPClientFor(config); err != nil {
					return nil, fmt.Errorf("crcache: HTTP client for the fallback RESTMapper: %w", err)
				}
			}
			// Lazy: it asks the apiserver on its first lookup, not here.
			fallback, err := apiutil.NewDynamicRESTMapper(config, httpClient)
			if err != nil {
				return nil, fmt.Errorf("crcache: fallback RESTMapper: %w", err)
			}
			opts.Fallback = fallback
		}
		return mapper.New(client, opts), nil
	}
}

// NewCacheFunc returns a cache.NewCacheFunc (for manager.Options.NewCache or
// cluster.Options.NewCache) whose informers read from informerd through
// client.
//
// Supported cache.Options: DefaultNamespaces with at most one namespace (its
// own selectors win over the defaults), DefaultLabelSelector,
// DefaultFieldSelector, ByObject selectors, and everything controller-runtime
// applies after building an informer (transforms, sync period, deep copy,
// watch error handler). With NoCopy, reads go to informerd and the
// informers hold metadata only (see NoCopy). Without cache.Options.Mapper (a cache made on its
// own; a manager always passes its MapperProvider's), kinds are mapped as
// MapperProvider does. Not supported yet, and refused with an error: more
// than one namespace, ByObject.Namespaces, and a NewInformer of your own.
func NewCacheFunc(client informerdv1.CacheClient, options ...Option) cache.NewCacheFunc {
	var o cacheOptions
	for _, option := range options {
		option(&o)
	}
	return func(config *rest.Config, opts cache.Options) (cache.Cache, error) {
		if opts.NewInformer != nil {
			return nil, errors.New("crcache: cache.Options.NewInformer is set; informerd needs that hook")
		}
		if opts.Scheme == nil {
			opts.Scheme = clientgoscheme.Scheme
		}
		if opts.Mapper == nil {
			var mapperOpts mapper.Options
			for ns := range opts.DefaultNamespaces {
				if len(opts.DefaultNamespaces) == 1 {
					mapperOpts.Namespace = ns
				}
			}
			m, err := MapperProviderWithOptions(client, mapperOpts)(config, opts.HTTPClient)
			if err != nil {
				return nil, err
			}
			opts.Mapper = m
		}
		p, err := newPlan(opts)
		if err != nil {
			return nil, err
		}
		p.client = client
		for _, m := range o.masks {
			gvk, err := apiutil.GVKForObject(m.obj, opts.Scheme)
			if err != nil {
				return nil, fmt.Errorf("crcache: WithFields: %w", err)
			}
			if err := checkPaths(fmt.Sprintf("WithFields(%v)", gvk), m.paths); err != nil {
				return nil, err
			}
			p.masks[gvk] = m.paths
		}
		if o.noCopy != nil {
			if p.events, err = o.noCopy.shape(); err != nil {
				return nil, err
			}
			p.eventFields = o.noCopy.EventFields
			if o.noCopy.LocalCacheObjects < 0 {
				return nil, fmt.Errorf("crcache: NoCopyOptions.LocalCacheObjects is %d; must not be negative", o.noCopy.LocalCacheObjects)
			}
			var hot *hotCache
			if o.noCopy.LocalCacheObjects > 0 {
				hot = newHotCache(o.noCopy.LocalCacheObjects)
			}
			p.seen = newSeenVersions(hot)
		}
		opts.NewInformer = p.newInformer
		informers, err := cache.New(config, opts)
		if err != nil || p.seen == nil {
			return informers, err
		}
		return &noCopyCache{
			Cache:   informers,
			plan:    p,
			seen:    p.seen,
			readers: map[readerKey]*kube.ListerWatcher{},
			fields:  map[schema.GroupVersionKind]map[string]string{},
		}, nil
	}
}

// plan is what every informer of one cache is built from.
type plan struct {
	client    informerdv1.CacheClient
	scheme    *runtime.Scheme
	mapper    meta.RESTMapper
	namespace string
	defaults  selectors
	byGVK     map[schema.GroupVersionKind]selectors
	// seen is set in the no-copy mode: informers then hold events (metadata
	// only, unless full) and note each version received.
	seen        *seenVersions
	events      eventShape
	eventFields []string // the mask of eventsMasked
	// masks: WithFields, by kind; over events for its kind.
	masks map[schema.GroupVersionKind][]string
}

type selectors struct{ label, field string }

func newPlan(opts cache.Options) (*plan, error) {
	p := &plan{scheme: opts.Scheme, mapper: opts.Mapper, byGVK: map[schema.GroupVersionKind]selectors{}, masks: map[schema.GroupVersionKind][]string{}}
	if opts.DefaultLabelSelector != nil {
		p.defaults.label = opts.DefaultLabelSelector.String()
	}
	if opts.DefaultFieldSelector != nil {
		p.defaults.field = opts.DefaultFieldSelector.String()
	}
	switch len(opts.DefaultNamespaces) {
	case 0:
	case 1:
		for ns, config := range opts.DefaultNamespaces {
			p.namespace = ns
			if config.LabelSelector != nil {
				p.defaults.label = config.LabelSelector.String()
			}
			if config.FieldSelector != nil {
				p.defaults.field = config.FieldSelector.String()
			}
		}
	default:
		return nil, fmt.Errorf("crcache: cache.Options.DefaultNamespaces names %d namespaces; informerd's cache supports one (or all) so far", len(opts.DefaultNamespaces))
	}
	for obj, byObject := range opts.ByObject {
		gvk, err := apiutil.GVKForObject(obj, opts.Scheme)
		if err != nil {
			return nil, fmt.Errorf("crcache: cache.Options.ByObject: %w", err)
		}
		if len(byObject.Namespaces) > 0 {
			return nil, fmt.Errorf("crcache: cache.Options.ByObject[%v].Namespaces is not supported by informerd's cache yet", gvk)
		}
		s := p.defaults
		if byObject.Label != nil {
			s.label = byObject.Label.String()
		}
		if byObject.Field != nil {
			s.field = byObject.Field.String()
		}
		p.byGVK[gvk] = s
	}
	return p, nil
}

// newInformer is cache.Options.NewInformer: the apiserver's ListerWatcher
// it is given is left unused.
func (p *plan) newInformer(_ toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	lw, err := p.listerWatcher(obj)
	if err != nil {
		// The hook cannot fail; an informer that cannot list reports the
		// error through the watch error handler and never syncs.
		return toolscache.NewSharedIndexInformer(failing{err}, obj, resync, indexers)
	}
	if p.seen != nil {
		gvr := lw.Resource()
		return toolscache.NewSharedIndexInformer(&trackingListerWatcher{ListerWatcher: lw, gvr: gvr, seen: p.seen}, obj, resync, indexers)
	}
	return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
}

func (p *plan) listerWatcher(obj runtime.Object) (*kube.ListerWatcher, error) {
	gvk, err := apiutil.GVKForObject(obj, p.scheme)
	if err != nil {
		return nil, fmt.Errorf("crcache: %w", err)
	}
	mapping, err := p.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("crcache: %w", err)
	}
	s, ok := p.byGVK[gvk]
	if !ok {
		s = p.defaults
	}
	options := []kube.Option{kube.WithScheme(p.scheme), kube.WithSelectors(s.label, s.field)}
	switch paths, masked := p.masks[gvk]; {
	case masked:
		options = append(options, kube.WithFields(paths...))
	case p.seen != nil && p.events == eventsMetadata:
		options = append(options, kube.WithMetadataOnly())
	case p.seen != nil && p.events == eventsMasked:
		options = append(options, kube.WithFields(p.eventFields...))
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		options = append(options, kube.WithNamespace(p.namespace))
	}
	// The example names the kind for the two untyped shapes.
	var example runtime.Object
	switch obj.(type) {
	case *metav1.PartialObjectMetadata:
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(gvk)
		example = m
	case runtime.Unstructured:
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		example = u
	default:
		example = obj
	}
	return kube.NewListerWatcher(p.client, mapping.Resource, example, options...)
}

// failing is a ListerWatcher that fails with err.
type failing struct{ err error }

func (f failing) List(metav1.ListOptions) (runtime.Object, error)   { return nil, f.err }
func (f failing) Watch(metav1.ListOptions) (watch.Interface, error) { return nil, f.err }
