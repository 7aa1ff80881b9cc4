package factory

import (
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// Option sets how informers are made. Given to New, it is a default for every
// informer of the factory (as client-go's SharedInformerOption); given to
// InformerFor, Dynamic or Typed, it applies to that request only, over the
// defaults.
type Option func(*settings) error

// settings is what one informer request asks for.
type settings struct {
	namespace     string
	labelSelector string
	fieldSelector string
	transformName string
	transform     cache.TransformFunc
	resync        *time.Duration
	indexers      cache.Indexers
	scheme        *runtime.Scheme
}

func (s settings) with(opts []Option) (settings, error) {
	// Indexers are merged, so the defaults' map must not be written to.
	s.indexers = mergeIndexers(nil, s.indexers)
	for _, opt := range opts {
		if err := opt(&s); err != nil {
			return settings{}, err
		}
	}
	return s, nil
}

// WithNamespace restricts informers to one namespace (default: all).
// Part of an informer's key.
func WithNamespace(namespace string) Option {
	return func(s *settings) error {
		s.namespace = namespace
		return nil
	}
}

// WithSelectors sets the label and field selectors that informerd filters
// by. Part of an informer's key: informers of one resource with different
// selectors are different informers, each with its own Watch stream.
func WithSelectors(labelSelector, fieldSelector string) Option {
	return func(s *settings) error {
		s.labelSelector, s.fieldSelector = labelSelector, fieldSelector
		return nil
	}
}

// WithTweakListOptions is client-go's tweak function (informers.
// WithTweakListOptions), for code that already has one. It is called once,
// when the option is applied, on ListOptions holding the selectors so far;
// the selectors it leaves become the informer's, exactly as WithSelectors.
// Only the selectors may be changed: informerd keys informers by them, and a
// tweak that sets anything else (limit, timeouts, resourceVersion) is
// refused with an error, since the informer's Reflector owns those.
func WithTweakListOptions(tweak func(*metav1.ListOptions)) Option {
	return func(s *settings) error {
		options := metav1.ListOptions{LabelSelector: s.labelSelector, FieldSelector: s.fieldSelector}
		tweak(&options)
		rest := options
		rest.LabelSelector, rest.FieldSelector = "", ""
		if !reflect.DeepEqual(rest, metav1.ListOptions{}) {
			return fmt.Errorf("factory: the tweak set ListOptions other than the selectors (%+v); informerd's informers take only selectors", rest)
		}
		s.labelSelector, s.fieldSelector = options.LabelSelector, options.FieldSelector
		return nil
	}
}

// WithTransform sets a transform (cache.TransformFunc, e.g. one dropping
// fields) applied to every object before it is stored and handed to handlers.
// Functions cannot be compared, so name identifies the transform: it is part
// of the informer's key, and requests with the same name share the informer
// made by the first (whose function it keeps). An empty name with a nil fn
// means no transform.
func WithTransform(name string, fn cache.TransformFunc) Option {
	return func(s *settings) error {
		if (name == "") != (fn == nil) {
			return fmt.Errorf("factory: a transform needs both a name and a function (name %q)", name)
		}
		s.transformName, s.transform = name, fn
		return nil
	}
}

// WithResync sets the informer's resync period: the default of its handlers
// (AddEventHandler) and the shortest any handler can ask for
// (AddEventHandlerWithResyncPeriod), as client-go's resync argument. Not part
// of the key: the first request of a key decides, as with client-go's
// WithCustomResyncConfig. A resync replays the informer's own cache to the
// handlers whose period is due; it never lists again.
func WithResync(period time.Duration) Option {
	return func(s *settings) error {
		s.resync = &period
		return nil
	}
}

// WithIndexers adds index functions to the informer's indexer (ByIndex,
// IndexKeys). Not part of the key: on a shared informer the indexes of every
// request are added (also to a running informer, which indexes its cache
// then). An index name already present keeps its first function.
// Every informer also has client-go's cache.NamespaceIndex.
func WithIndexers(indexers cache.Indexers) Option {
	return func(s *settings) error {
		s.indexers = mergeIndexers(s.indexers, indexers)
		return nil
	}
}

// WithScheme names the scheme that knows typed objects' kinds and list
// types. Default: client-go's kubernetes/scheme.
func WithScheme(scheme *runtime.Scheme) Option {
	return func(s *settings) error {
		s.scheme = scheme
		return nil
	}
}

// mergeIndexers returns a new map with into's indexers, then those of add
// whose names are not yet there.
func mergeIndexers(into, add cache.Indexers) cache.Indexers {
	out := cache.Indexers{}
	for name, fn := range into {
		out[name] = fn
	}
	for name, fn := range add {
		if _, ok := out[name]; !ok {
			out[name] = fn
		}
	}
	return out
}
