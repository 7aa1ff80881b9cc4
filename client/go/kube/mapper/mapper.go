// Package mapper is a meta.RESTMapper built from informerd's ListResources,
// so that a controller-runtime manager (or anything else that maps kinds to
// resources) that only reads through informerd needs no apiserver
// discovery:
//
//	m := mapper.New(informerdv1.NewCacheClient(conn))
//	mapping, err := m.RESTMapping(schema.GroupKind{Kind: "Pod"})
//
// What it knows is what informerd serves: for each resource its group,
// version, plural, kind and scope. From these it answers as client-go's
// discovery mapper (restmapper.NewDiscoveryRESTMapper, which it is built
// with) answers from the apiserver's discovery documents, with these
// differences, all because ListResources does not carry the facts:
//   - the singular is the lower-case kind (discovery's own guess when a
//     server lists no singular; true of every built-in resource and of CRDs
//     that keep the default singular);
//   - informerd serves each resource at one version: a lookup without a
//     version finds that one, RESTMappings(gk) returns only it (discovery
//     returns every version the apiserver serves), and other versions do
//     not match (they go to the Fallback). A group's versions are those of
//     its served resources, the highest by Kubernetes' version order
//     (v1 > v1beta2 > v1alpha1) preferred;
//   - groups are ordered core first, then by name, where the apiserver
//     orders them by priority: this only matters for a lookup that names a
//     resource or kind without its group and matches several groups
//     (events, in core and events.k8s.io: core wins in both orders).
//
// A lookup that matches nothing asks informerd again (a resource or CRD
// served since the last answer), at most once per MinRefreshInterval
// (default 1s) whatever the number of callers: concurrent misses share one
// call, and misses in between answer at once from what is known, so a
// flood of unknown kinds costs informerd one ListResources a second. When
// informerd does not serve the kind either, the optional Fallback (the
// apiserver's discovery mapper, for writes of kinds informerd does not
// serve) is asked.
package mapper

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/restmapper"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// Options configure a Mapper. The zero value is valid.
type Options struct {
	// Namespace is passed to ListResources: with RBAC on, a caller allowed
	// to list only in this namespace sees its namespaced resources too.
	Namespace string
	// Fallback answers lookups informerd cannot (kinds it does not serve,
	// or informerd unreachable), e.g. apiutil.NewDynamicRESTMapper for
	// writes. Nil: such lookups fail.
	Fallback meta.RESTMapper
	// MinRefreshInterval is the least time between two ListResources calls
	// made for misses. Zero: 1s.
	MinRefreshInterval time.Duration
	// Timeout bounds each ListResources call (RESTMapper methods take no
	// context). Zero: 10s.
	Timeout time.Duration
}

// Mapper is a meta.RESTMapper over informerd's ListResources. It is safe for
// concurrent use. It asks informerd on first use, not when made.
type Mapper struct {
	client informerdv1.CacheClient
	opts   Options

	// refreshMu serialises ListResources calls; held without mu.
	refreshMu sync.Mutex

	mu          sync.RWMutex
	current     meta.RESTMapper // nil until a ListResources succeeded
	generation  uint64          // incremented by every ListResources attempt
	lastAttempt time.Time
	lastErr     error
	calls       int
}

var _ meta.RESTMapper = (*Mapper)(nil)

// New returns a Mapper asking client.
func New(client informerdv1.CacheClient, opts Options) *Mapper {
	if opts.MinRefreshInterval <= 0 {
		opts.MinRefreshInterval = time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	return &Mapper{client: client, opts: opts}
}

// Calls is the number of ListResources calls made so far.
func (m *Mapper) Calls() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.calls
}

func (m *Mapper) snapshot() (meta.RESTMapper, uint64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.current, m.generation
}

// refreshAfterMiss asks informerd again unless a call started after the
// caller's snapshot (seen) or the last one is too recent; it returns what
// is known afterwards and the last call's error.
func (m *Mapper) refreshAfterMiss(seen uint64) (meta.RESTMapper, error) {
	m.refreshMu.Lock()
	defer m.refreshMu.Unlock()
	m.mu.RLock()
	current, generation, last, lastErr := m.current, m.generation, m.lastAttempt, m.lastErr
	m.mu.RUnlock()
	if generation != seen || (!last.IsZero() && time.Since(last) < m.opts.MinRefreshInterval) {
		return current, lastErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.opts.Timeout)
	defer cancel()
	err := m.load(ctx)
	current, _ = m.snapshot()
	return current, err
}

// load calls ListResources. REQUIRES: refreshMu held.
func (m *Mapper) load(ctx context.Context) error {
	resp, err := m.client.ListResources(ctx, &informerdv1.ListResourcesRequest{Namespace: m.opts.Namespace})
	var built meta.RESTMapper
	if err == nil {
		built, err = Build(resp.GetResources())
	} else {
		err = fmt.Errorf("mapper: informerd ListResources: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.generation++
	m.calls++
	m.lastAttempt = time.Now()
	m.lastErr = err
	if err == nil {
		m.current = built
	}
	return err
}

// Build makes the mapping of the resources a ListResources answer names.
// An entry without a version, resource or kind, or whose resource has a
// '/', fails with an error naming it.
func Build(resources []*informerdv1.ResourceStatus) (meta.RESTMapper, error) {
	groups := map[string]*restmapper.APIGroupResources{}
	for i, status := range resources {
		name := status.GetResource()
		if name.GetVersion() == "" || name.GetResource() == "" || status.GetKind() == "" ||
			strings.Contains(name.GetResource(), "/") {
			return nil, fmt.Errorf("mapper: informerd ListResources entry %d (group %q, version %q, resource %q, kind %q): version, resource and kind must be set, and resource be a plural without '/'",
				i, name.GetGroup(), name.GetVersion(), name.GetResource(), status.GetKind())
		}
		g := groups[name.GetGroup()]
		if g == nil {
			g = &restmapper.APIGroupResources{
				Group:              metav1.APIGroup{Name: name.GetGroup()},
				VersionedResources: map[string][]metav1.APIResource{},
			}
			groups[name.GetGroup()] = g
		}
		if _, ok := g.VersionedResources[name.GetVersion()]; !ok {
			g.Group.Versions = append(g.Group.Versions, metav1.GroupVersionForDiscovery{
				GroupVersion: schema.GroupVersion{Group: name.GetGroup(), Version: name.GetVersion()}.String(),
				Version:      name.GetVersion(),
			})
		}
		g.VersionedResources[name.GetVersion()] = append(g.VersionedResources[name.GetVersion()], metav1.APIResource{
			Name:       name.GetResource(),
			Namespaced: status.GetNamespaced(),
			Group:      name.GetGroup(),
			Version:    name.GetVersion(),
			Kind:       status.GetKind(),
			Verbs:      metav1.Verbs{"get", "list", "watch"},
		})
	}
	ordered := make([]*restmapper.APIGroupResources, 0, len(groups))
	for _, g := range groups {
		sort.Slice(g.Group.Versions, func(a, b int) bool {
			return version.CompareKubeAwareVersionStrings(g.Group.Versions[a].Version, g.Group.Versions[b].Version) > 0
		})
		g.Group.PreferredVersion = g.Group.Versions[0]
		ordered = append(ordered, g)
	}
	sort.Slice(ordered, func(a, b int) bool {
		// "" (core) sorts first.
		return ordered[a].Group.Name < ordered[b].Group.Name
	})
	return restmapper.NewDiscoveryRESTMapper(ordered), nil
}

// lookup runs f on what informerd is known to serve, asks informerd again
// on a miss, then asks the fallback.
func (m *Mapper) lookup(f func(meta.RESTMapper) error) error {
	current, seen := m.snapshot()
	var err error
	if current != nil {
		if err = f(current); err == nil || !meta.IsNoMatchError(err) {
			return err
		}
	}
	refreshed, loadErr := m.refreshAfterMiss(seen)
	if refreshed != nil && refreshed != current {
		if err = f(refreshed); err == nil || !meta.IsNoMatchError(err) {
			return err
		}
	}
	if refreshed == nil {
		// Never loaded: informerd's error is the reason.
		err = loadErr
		if err == nil {
			err = errors.New("mapper: informerd has not answered ListResources yet")
		}
	}
	if m.opts.Fallback == nil {
		return err
	}
	fallbackErr := f(m.opts.Fallback)
	if fallbackErr == nil {
		return nil
	}
	return fmt.Errorf("%w (and the fallback mapper: %w)", err, fallbackErr)
}

// KindFor implements meta.RESTMapper.
func (m *Mapper) KindFor(resource schema.GroupVersionResource) (gvk schema.GroupVersionKind, err error) {
	err = m.lookup(func(r meta.RESTMapper) (err error) { gvk, err = r.KindFor(resource); return })
	return gvk, err
}

// KindsFor implements meta.RESTMapper.
func (m *Mapper) KindsFor(resource schema.GroupVersionResource) (gvks []schema.GroupVersionKind, err error) {
	err = m.lookup(func(r meta.RESTMapper) (err error) { gvks, err = r.KindsFor(resource); return })
	return gvks, err
}

// ResourceFor implements meta.RESTMapper.
func (m *Mapper) ResourceFor(input schema.GroupVersionResource) (gvr schema.GroupVersionResource, err error) {
	err = m.lookup(func(r meta.RESTMapper) (err error) { gvr, err = r.ResourceFor(input); return })
	return gvr, err
}

// ResourcesFor implements meta.RESTMapper.
func (m *Mapper) ResourcesFor(input schema.GroupVersionResource) (gvrs []schema.GroupVersionResource, err error) {
	err = m.lookup(func(r meta.RESTMapper) (err error) { gvrs, err = r.ResourcesFor(input); return })
	return gvrs, err
}

// RESTMapping implements meta.RESTMapper.
func (m *Mapper) RESTMapping(gk schema.GroupKind, versions ...string) (mapping *meta.RESTMapping, err error) {
	err = m.lookup(func(r meta.RESTMapper) (err error) { mapping, err = r.RESTMapping(gk, versions...); return })
	return mapping, err
}

// RESTMappings implements meta.RESTMapper.
func (m *Mapper) RESTMappings(gk schema.GroupKind, versions ...string) (mappings []*meta.RESTMapping, err error) {
	err = m.lookup(func(r meta.RESTMapper) (err error) { mappings, err = r.RESTMappings(gk, versions...); return })
	return mappings, err
}

// ResourceSingularizer implements meta.RESTMapper.
func (m *Mapper) ResourceSingularizer(resource string) (singular string, err error) {
	err = m.lookup(func(r meta.RESTMapper) (err error) { singular, err = r.ResourceSingularizer(resource); return })
	return singular, err
}
