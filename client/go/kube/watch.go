package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"google.golang.org/protobuf/proto"

	"github.com/informerd/informerd/client/go/internal/retry"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// watchPlan is a metav1.ListOptions watch in informerd's terms.
type watchPlan struct {
	req *informerdv1.WatchRequest
	// bookmarks: the caller allowed BOOKMARK events.
	bookmarks bool
	// annotateEnd: the caller asked for sendInitialEvents, so the bookmark
	// ending them carries the k8s.io/initial-events-end annotation (and is
	// sent even when bookmarks were not allowed, as the apiserver does).
	annotateEnd bool
	timeout     time.Duration
}

// WatchWithContext watches as the apiserver would:
//   - sendInitialEvents=true (with resourceVersionMatch=NotOlderThan, as the
//     apiserver requires): the state at resourceVersion (or the latest) as
//     ADDED events, then the bookmark annotated k8s.io/initial-events-end;
//   - resourceVersion "" or "0" without sendInitialEvents: the current
//     state as ADDED events, then changes (the legacy watch);
//   - another resourceVersion: every change after it.
//
// When the stream of a watch that has been receiving breaks because informerd
// is unreachable or restarting, the watch resumes by itself from the last
// resourceVersion it delivered, so the caller sees no gap and no error, for
// up to 30s; during initial events (before their end bookmark) the result
// channel is closed instead, and the caller starts over, as after an
// apiserver watch timeout. Errors arrive as one ERROR event holding a
// metav1.Status (410 Expired when informerd's history no longer covers the
// resume point; 503 naming the server and the reason when it cannot be
// reached: at once for a watch that never received anything, after 30s for
// one that did), after which the channel is closed. timeoutSeconds ends the
// watch cleanly.
func (lw *ListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	plan, err := lw.watchPlan(options)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{result: make(chan watch.Event), cancel: cancel}
	runCtx := ctx
	if plan.timeout > 0 {
		// Not derived into ctx: Stop must still cancel everything.
		var cancelTimeout context.CancelFunc
		runCtx, cancelTimeout = context.WithTimeout(ctx, plan.timeout)
		w.cancel = func() { cancelTimeout(); cancel() }
	}
	go w.run(runCtx, lw, plan)
	return w, nil
}

func (lw *ListerWatcher) watchPlan(options metav1.ListOptions) (*watchPlan, error) {
	switch options.ResourceVersionMatch {
	case "", metav1.ResourceVersionMatchNotOlderThan:
	default:
		return nil, badRequest(fmt.Sprintf("resourceVersionMatch: %q is not supported for watch (only NotOlderThan, with sendInitialEvents)", options.ResourceVersionMatch))
	}
	plan := &watchPlan{
		req: &informerdv1.WatchRequest{
			Resource:       lw.resourceName(),
			Namespace:      lw.namespace,
			LabelSelector:  and(lw.labelSelector, options.LabelSelector),
			FieldSelector:  and(lw.fieldSelector, options.FieldSelector),
			AllowBookmarks: true, // to keep the resume point fresh even if the caller takes none
			Projection:     lw.codec.projection,
			Encoding:       lw.codec.encoding,
			Fields:         lw.fields,
		},
		bookmarks: options.AllowWatchBookmarks,
	}
	if options.TimeoutSeconds != nil && *options.TimeoutSeconds > 0 {
		plan.timeout = time.Duration(*options.TimeoutSeconds) * time.Second
	}
	rv := options.ResourceVersion
	if rv == "0" {
		rv = "" // "any": informerd's latest state is as good
	}
	switch {
	case options.SendInitialEvents != nil && *options.SendInitialEvents:
		if options.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan {
			return nil, badRequest("resourceVersionMatch: must be NotOlderThan when sendInitialEvents is true")
		}
		plan.req.SendInitialEvents, plan.req.ResourceVersion, plan.annotateEnd = true, rv, true
	case options.SendInitialEvents == nil && rv == "":
		plan.req.SendInitialEvents = true
	default:
		plan.req.ResourceVersion = rv
	}
	return plan, nil
}

// watcher is the watch.Interface of one WatchWithContext.
type watcher struct {
	result chan watch.Event
	cancel context.CancelFunc
}

func (w *watcher) Stop()                          { w.cancel() }
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// watchState is what survives a broken stream.
type watchState struct {
	initial  bool   // still in the initial events
	sentAny  bool   // delivered an event of the initial events
	resumeRV string // the last version delivered after the initial events
	// received: some stream of this watch delivered an event, so the
	// server was there; a watch that never reached it reports at once.
	received bool
	// failingSince: when the streams started failing in a row; zero while
	// one is receiving.
	failingSince time.Time
}

func (w *watcher) run(ctx context.Context, lw *ListerWatcher, plan *watchPlan) {
	defer close(w.result)
	defer w.cancel()
	req := plan.req
	state := watchState{initial: req.SendInitialEvents, resumeRV: req.ResourceVersion}
	backoff := retry.NewBackoff(lw.retryInitial, lw.retryMax)
	for {
		err := w.stream(ctx, lw, plan, req, &state, backoff)
		if ctx.Err() != nil {
			return
		}
		if transient(err) || errors.Is(err, io.EOF) {
			now := time.Now()
			if state.failingSince.IsZero() {
				state.failingSince = now
			}
			if transient(err) && (!state.received || now.Sub(state.failingSince) > lw.resumeFor) {
				w.send(ctx, watch.Event{Type: watch.Error, Object: statusOf(lw.wrap("watch", err))})
				return
			}
			switch {
			case state.initial && state.sentAny, !state.initial && state.resumeRV == "":
				// No exact resume point: the caller starts over.
				return
			case !state.initial:
				resumed := proto.Clone(req).(*informerdv1.WatchRequest)
				resumed.SendInitialEvents, resumed.ResourceVersion = false, state.resumeRV
				req = resumed
			}
			klog.FromContext(ctx).V(4).Info("Watch failed - resuming", "resource", lw.resource.String(), "resourceVersion", req.ResourceVersion, "err", err)
			if !backoff.Wait(ctx) {
				return
			}
			continue
		}
		op := opWatchRunning
		if !state.received {
			op = "watch start"
		}
		w.send(ctx, watch.Event{Type: watch.Error, Object: statusOf(lw.wrap(op, err))})
		return
	}
}

// stream runs one Watch call until it fails.
func (w *watcher) stream(ctx context.Context, lw *ListerWatcher, plan *watchPlan, req *informerdv1.WatchRequest, state *watchState, backoff *retry.Backoff) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Not WaitForReady, as in List: an unreachable server is an error.
	stream, err := lw.client.Watch(ctx, req)
	if err != nil {
		return err
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			return err
		}
		backoff.Reset()
		state.received, state.failingSince = true, time.Time{}
		var out watch.Event
		switch ev.GetType() {
		case informerdv1.WatchEvent_BOOKMARK:
			end := state.initial && ev.GetInitialEventsEnd()
			if end {
				state.initial = false
			}
			if plan.bookmarks || (end && plan.annotateEnd) {
				obj, err := lw.codec.bookmark(ev.GetResourceVersion(), end && plan.annotateEnd)
				if err != nil {
					return err
				}
				out = watch.Event{Type: watch.Bookmark, Object: obj}
			}
		case informerdv1.WatchEvent_ADDED, informerdv1.WatchEvent_MODIFIED, informerdv1.WatchEvent_DELETED:
			obj, err := lw.codec.decode(ev.GetObject())
			if err != nil {
				return err
			}
			out = watch.Event{Type: eventTypes[ev.GetType()], Object: obj}
		default:
			return fmt.Errorf("kube: watch event of unknown type %v", ev.GetType())
		}
		if out.Object != nil {
			if !w.send(ctx, out) {
				return ctx.Err()
			}
			if state.initial {
				state.sentAny = true
			}
		}
		if !state.initial && ev.GetResourceVersion() != "" {
			state.resumeRV = ev.GetResourceVersion()
		}
	}
}

var eventTypes = map[informerdv1.WatchEvent_Type]watch.EventType{
	informerdv1.WatchEvent_ADDED:    watch.Added,
	informerdv1.WatchEvent_MODIFIED: watch.Modified,
	informerdv1.WatchEvent_DELETED:  watch.Deleted,
}

func (w *watcher) send(ctx context.Context, ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// statusOf is the metav1.Status an ERROR event carries for err, which
// apierrors.FromObject turns back into the same error.
func statusOf(err error) *metav1.Status {
	var s apierrors.APIStatus
	if !errors.As(err, &s) {
		s = apierrors.NewInternalError(err)
	}
	st := s.Status()
	return &st
}
