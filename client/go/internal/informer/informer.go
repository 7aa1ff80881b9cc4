package informer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
	"github.com/informerd/informerd/client/go/internal/retry"
	"k8s.io/apimachinery/pkg/labels"
)

// Retry delays used when Config leaves them zero. The cap is low so that an
// informer is caught up within a few seconds of a restarted server becoming
// ready; the server answers a retry cheaply (UNAVAILABLE while not synced).
const (
	DefaultInitialBackoff = 200 * time.Millisecond
	DefaultMaxBackoff     = time.Second
)

// Config says what an informer watches.
type Config struct {
	// Resource is required; see informerdv1.ResourceName.
	Resource *informerdv1.ResourceName
	// Namespace restricts the informer to one namespace; empty: all.
	Namespace string
	// LabelSelector and FieldSelector use the server's syntax and are
	// evaluated by the server. An object that stops matching is delivered
	// as a delete.
	LabelSelector string
	FieldSelector string
	// Indexers adds indexes to the cache beside cache.NamespaceIndex.
	Indexers cache.Indexers
	// InitialBackoff and MaxBackoff bound the delay between retries; zero
	// means DefaultInitialBackoff and DefaultMaxBackoff.
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// OnError is told why each stream ended, on the informer's goroutine,
	// before the informer retries. Nil logs with the standard logger.
	OnError func(err error)
}

// RemoteInformer keeps a local cache of one resource in sync with an
// informerd server and tells event handlers about every change (see the
// package documentation for the protocol).
//
// Thread safety: HasSynced, WaitForSync, Lister and Done may be called from
// any goroutine. AddEventHandler and Start are for the owner.
type RemoteInformer struct {
	client   informerdv1.CacheClient
	config   Config
	store    *cache.Store
	handlers []EventHandler

	startOnce sync.Once
	started   bool
	synced    chan struct{} // closed once the first listing is cached
	done      chan struct{} // closed when the informer's goroutine returns
}

// New returns an informer that is not started. It fails if config names no
// resource, if the label selector does not parse, or if config.Indexers
// names cache.NamespaceIndex.
func New(client informerdv1.CacheClient, config Config) (*RemoteInformer, error) {
	if config.Resource.GetResource() == "" {
		return nil, errors.New("informer: Config.Resource.Resource is required")
	}
	if _, err := labels.Parse(config.LabelSelector); err != nil {
		return nil, fmt.Errorf("informer: Config.LabelSelector: %w", err)
	}
	if _, ok := config.Indexers[cache.NamespaceIndex]; ok {
		return nil, fmt.Errorf("informer: Config.Indexers: %q is built in", cache.NamespaceIndex)
	}
	return &RemoteInformer{
		client: client,
		config: config,
		store:  cache.NewStore(config.Indexers),
		synced: make(chan struct{}),
		done:   make(chan struct{}),
	}, nil
}

// AddEventHandler registers h. Handlers are called in registration order.
// Fails once the informer has started, since h would miss earlier events.
func (inf *RemoteInformer) AddEventHandler(h EventHandler) error {
	if inf.started {
		return errors.New("informer: AddEventHandler after Start")
	}
	inf.handlers = append(inf.handlers, h)
	return nil
}

// Start runs the informer on its own goroutine until ctx is cancelled.
// Calls after the first do nothing. Wait on Done for a clean shutdown:
// after it is closed no handler is running or will run.
func (inf *RemoteInformer) Start(ctx context.Context) {
	inf.startOnce.Do(func() {
		inf.started = true
		go inf.run(ctx)
	})
}

// Done is closed when the informer has stopped.
func (inf *RemoteInformer) Done() <-chan struct{} { return inf.done }

// HasSynced reports whether the first listing is in the cache and was
// delivered to the handlers. It stays true across relists.
func (inf *RemoteInformer) HasSynced() bool {
	select {
	case <-inf.synced:
		return true
	default:
		return false
	}
}

// WaitForSync waits until HasSynced, ctx is done or the informer stopped,
// and returns HasSynced.
func (inf *RemoteInformer) WaitForSync(ctx context.Context) bool {
	select {
	case <-inf.synced:
	case <-ctx.Done():
	case <-inf.done:
	}
	return inf.HasSynced()
}

// Lister reads the cache.
func (inf *RemoteInformer) Lister() cache.Lister { return inf.store }

func (inf *RemoteInformer) run(ctx context.Context) {
	defer close(inf.done)
	backoff := newBackoff(inf.config.InitialBackoff, inf.config.MaxBackoff)
	resumeVersion := "" // empty: list first
	for {
		err := inf.watch(ctx, &resumeVersion, backoff)
		if ctx.Err() != nil {
			return
		}
		inf.reportError(err)
		// A server that cannot resume us is healthy and asks for a relist:
		// do it at once, but back off if that relist fails the same way.
		if code := status.Code(err); code == codes.OutOfRange || code == codes.ResourceExhausted {
			if resumeVersion != "" {
				resumeVersion = ""
				continue
			}
		}
		if !backoff.Wait(ctx) {
			return
		}
	}
}

// watch runs one Watch stream until it fails, keeping *resumeVersion at the
// last version applied to the cache. It lists first when *resumeVersion is
// empty. It always returns an error: streams do not end cleanly.
func (inf *RemoteInformer) watch(ctx context.Context, resumeVersion *string, backoff *retry.Backoff) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	listing := *resumeVersion == ""
	stream, err := inf.client.Watch(ctx, &informerdv1.WatchRequest{
		Resource:          inf.config.Resource,
		Namespace:         inf.config.Namespace,
		LabelSelector:     inf.config.LabelSelector,
		FieldSelector:     inf.config.FieldSelector,
		ResourceVersion:   *resumeVersion,
		SendInitialEvents: listing,
		AllowBookmarks:    true,
	})
	if err != nil {
		return err
	}
	var listed []*informerdv1.Object
	for {
		event, err := stream.Recv()
		if err == io.EOF {
			return errors.New("informer: the server ended the watch stream")
		}
		if err != nil {
			return err
		}
		backoff.Reset()
		if listing {
			if event.GetType() == informerdv1.WatchEvent_BOOKMARK && event.GetInitialEventsEnd() {
				inf.applyListing(listed)
				listed, listing = nil, false
				*resumeVersion = event.GetResourceVersion()
				continue
			}
			if err := checkInitialEvent(event); err != nil {
				return err
			}
			if event.GetType() == informerdv1.WatchEvent_ADDED {
				listed = append(listed, event.GetObject())
			}
			continue
		}
		if err := inf.applyEvent(event); err != nil {
			return err
		}
		if event.GetResourceVersion() != "" {
			*resumeVersion = event.GetResourceVersion()
		}
	}
}

func checkInitialEvent(event *informerdv1.WatchEvent) error {
	switch event.GetType() {
	case informerdv1.WatchEvent_BOOKMARK:
		return nil
	case informerdv1.WatchEvent_ADDED:
		if event.GetObject().GetName() == "" {
			return errors.New("informer: initial ADDED event without an object name")
		}
		return nil
	}
	return fmt.Errorf("informer: %v event before the end of the initial events", event.GetType())
}

// applyListing makes the cache equal to listed, tells the handlers the
// differences and marks the informer synced.
func (inf *RemoteInformer) applyListing(listed []*informerdv1.Object) {
	for _, c := range diffListing(inf.store, listed) {
		switch c.kind {
		case changeAdd:
			inf.store.Put(c.newObj)
			inf.dispatch(func(h EventHandler) { h.OnAdd(c.newObj) })
		case changeUpdate:
			inf.store.Put(c.newObj)
			inf.dispatch(func(h EventHandler) { h.OnUpdate(c.oldObj, c.newObj) })
		case changeDelete:
			inf.store.Delete(cache.ObjectKey(c.oldObj))
			inf.dispatch(func(h EventHandler) { h.OnDelete(c.oldObj, true) })
		}
	}
	if !inf.HasSynced() {
		close(inf.synced)
	}
}

func (inf *RemoteInformer) applyEvent(event *informerdv1.WatchEvent) error {
	obj := event.GetObject()
	switch event.GetType() {
	case informerdv1.WatchEvent_BOOKMARK:
		return nil
	case informerdv1.WatchEvent_ADDED, informerdv1.WatchEvent_MODIFIED:
		if obj.GetName() == "" {
			return fmt.Errorf("informer: %v event without an object name", event.GetType())
		}
		if old, existed := inf.store.Put(obj); existed {
			inf.dispatch(func(h EventHandler) { h.OnUpdate(old, obj) })
		} else {
			inf.dispatch(func(h EventHandler) { h.OnAdd(obj) })
		}
		return nil
	case informerdv1.WatchEvent_DELETED:
		if obj.GetName() == "" {
			return errors.New("informer: DELETED event without an object name")
		}
		if _, existed := inf.store.Delete(cache.ObjectKey(obj)); existed {
			inf.dispatch(func(h EventHandler) { h.OnDelete(obj, event.GetFinalStateUnknown()) })
		}
		return nil
	}
	return fmt.Errorf("informer: unknown event type %v", event.GetType())
}

func (inf *RemoteInformer) dispatch(call func(EventHandler)) {
	for _, h := range inf.handlers {
		call(h)
	}
}

func (inf *RemoteInformer) reportError(err error) {
	if inf.config.OnError != nil {
		inf.config.OnError(err)
		return
	}
	log.Printf("informer %s: %v", inf.config.Resource.GetResource(), err)
}
