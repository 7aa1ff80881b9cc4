package informer

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
)

var configMaps = &informerdv1.ResourceName{Resource: "configmaps"}

// runToEnd runs an informer against client until every script is used,
// then stops it. It returns the informer and the errors it reported.
func runToEnd(t *testing.T, client *fakeClient, handler EventHandler) (*RemoteInformer, []error) {
	t.Helper()
	var errs []error
	inf, err := New(client, Config{
		Resource:       configMaps,
		Namespace:      "ns",
		LabelSelector:  "app=web",
		InitialBackoff: time.Millisecond,
		MaxBackoff:     time.Millisecond,
		OnError:        func(err error) { errs = append(errs, err) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := inf.AddEventHandler(handler); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inf.Start(ctx)
	select {
	case <-client.exhausted:
	case <-time.After(10 * time.Second):
		t.Fatal("informer did not use up the scripted streams")
	}
	cancel()
	<-inf.Done()
	return inf, errs
}

func TestInitialSyncThenLiveEventsThenResume(t *testing.T) {
	client := newFakeClient(
		script{
			events: []*informerdv1.WatchEvent{
				added("a", "1"), added("b", "2"), bookmark("2"), initialEventsEnd("3"),
				modified("a", "4"),
				added("b", "5"),    // known key: an update
				deleted("zz", "6"), // unknown key: ignored
				deleted("b", "7"),
				bookmark("8"),
			},
			err: status.Error(codes.Unavailable, "server shutting down"),
		},
		script{events: []*informerdv1.WatchEvent{added("c", "9")}, err: status.Error(codes.Internal, "boom")},
	)
	rec := &recorder{}
	inf, errs := runToEnd(t, client, rec)

	want := []string{"add a 1", "add b 2", "update a 1->4", "update b 2->5", "delete b 7", "add c 9"}
	if got := rec.take(); !reflect.DeepEqual(got, want) {
		t.Errorf("handler calls = %v, want %v", got, want)
	}
	if !inf.HasSynced() {
		t.Error("HasSynced() = false after initial_events_end")
	}
	if got := inf.Lister().Keys(); !reflect.DeepEqual(got, []string{"ns/a", "ns/c"}) {
		t.Errorf("cache keys = %v, want [ns/a ns/c]", got)
	}

	reqs := client.watchRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d Watch calls, want 3", len(reqs))
	}
	first := reqs[0]
	if !first.SendInitialEvents || !first.AllowBookmarks || first.ResourceVersion != "" ||
		first.Namespace != "ns" || first.LabelSelector != "app=web" || first.Resource.Resource != "configmaps" {
		t.Errorf("first request = %v, want a listing watch of ns with app=web", first)
	}
	if reqs[1].SendInitialEvents || reqs[1].ResourceVersion != "8" {
		t.Errorf("second request = %v, want a resume from the bookmark at 8", reqs[1])
	}
	if reqs[2].SendInitialEvents || reqs[2].ResourceVersion != "9" {
		t.Errorf("third request = %v, want a resume from 9", reqs[2])
	}
	if len(errs) != 2 || status.Code(errs[0]) != codes.Unavailable || status.Code(errs[1]) != codes.Internal {
		t.Errorf("reported errors = %v, want UNAVAILABLE then INTERNAL", errs)
	}
}

func TestTooOldOrExhaustedRelistsByDiff(t *testing.T) {
	for _, code := range []codes.Code{codes.OutOfRange, codes.ResourceExhausted} {
		t.Run(code.String(), func(t *testing.T) {
			client := newFakeClient(
				script{
					events: []*informerdv1.WatchEvent{added("same", "1"), added("changed", "2"), added("gone", "3"), initialEventsEnd("3")},
					err:    status.Error(codes.Unavailable, "restart"),
				},
				script{err: status.Error(code, "too old resource version: 3 (10)")},
				script{
					events: []*informerdv1.WatchEvent{added("changed", "11"), added("same", "1"), added("new", "12"), initialEventsEnd("12")},
					err:    status.Error(codes.Unavailable, "restart"),
				},
			)
			rec := &recorder{}
			_, _ = runToEnd(t, client, rec)

			want := []string{
				"add same 1", "add changed 2", "add gone 3",
				"update changed 2->11", "add new 12", "delete gone 3 final-state-unknown",
			}
			if got := rec.take(); !reflect.DeepEqual(got, want) {
				t.Errorf("handler calls = %v, want %v", got, want)
			}
			reqs := client.watchRequests()
			if len(reqs) != 4 {
				t.Fatalf("%d Watch calls, want 4", len(reqs))
			}
			if reqs[1].ResourceVersion != "3" || reqs[1].SendInitialEvents {
				t.Errorf("second request = %v, want a resume from 3", reqs[1])
			}
			if reqs[2].ResourceVersion != "" || !reqs[2].SendInitialEvents {
				t.Errorf("third request = %v, want a relist", reqs[2])
			}
			if reqs[3].ResourceVersion != "12" || reqs[3].SendInitialEvents {
				t.Errorf("fourth request = %v, want a resume from 12", reqs[3])
			}
		})
	}
}

func TestRelistAfterFallingBehindStartsAtOnce(t *testing.T) {
	client := newFakeClient(
		script{
			events: []*informerdv1.WatchEvent{added("a", "1"), initialEventsEnd("1"), modified("a", "2")},
			err:    status.Error(codes.ResourceExhausted, "watcher fell behind"),
		},
		script{events: []*informerdv1.WatchEvent{added("a", "3"), initialEventsEnd("3")}},
	)
	inf, err := New(client, Config{Resource: configMaps, InitialBackoff: time.Hour, OnError: func(error) {}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	if err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf.Start(ctx)
	select {
	case <-client.exhausted: // an hour's backoff would never get here
	case <-time.After(10 * time.Second):
		t.Fatal("the relist waited for the backoff")
	}
	cancel()
	<-inf.Done()
	if got, want := rec.take(), []string{"add a 1", "update a 1->2", "update a 2->3"}; !reflect.DeepEqual(got, want) {
		t.Errorf("handler calls = %v, want %v", got, want)
	}
}

func TestBrokenInitialEventsAreNotApplied(t *testing.T) {
	client := newFakeClient(
		script{events: []*informerdv1.WatchEvent{added("a", "1")}, err: status.Error(codes.Unavailable, "cut")},
		script{events: []*informerdv1.WatchEvent{added("b", "2"), initialEventsEnd("2")}},
	)
	rec := &recorder{}
	inf, _ := runToEnd(t, client, rec)
	if got, want := rec.take(), []string{"add b 2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("handler calls = %v, want %v", got, want)
	}
	if got := inf.Lister().Keys(); !reflect.DeepEqual(got, []string{"ns/b"}) {
		t.Errorf("cache keys = %v, want [ns/b]", got)
	}
	if reqs := client.watchRequests(); !reqs[1].SendInitialEvents || reqs[1].ResourceVersion != "" {
		t.Errorf("retry after a cut listing = %v, want a relist", reqs[1])
	}
}

func TestLiveEventDuringInitialEventsIsAProtocolError(t *testing.T) {
	client := newFakeClient(
		script{events: []*informerdv1.WatchEvent{modified("a", "1")}},
	)
	_, errs := runToEnd(t, client, &recorder{})
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "before the end of the initial events") {
		t.Errorf("errors = %v, want a protocol error", errs)
	}
}

func TestWaitForSyncStopsWithContextAndInformer(t *testing.T) {
	client := newFakeClient() // never syncs
	inf, err := New(client, Config{Resource: configMaps})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	inf.Start(ctx)
	<-client.exhausted
	short, cancelShort := context.WithCancel(context.Background())
	cancelShort()
	if inf.WaitForSync(short) {
		t.Error("WaitForSync = true without a sync")
	}
	cancel()
	<-inf.Done()
	if inf.WaitForSync(context.Background()) {
		t.Error("WaitForSync on a stopped, unsynced informer = true")
	}
	if err := inf.AddEventHandler(&recorder{}); err == nil {
		t.Error("AddEventHandler after Start succeeded")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	cases := []struct {
		config  Config
		wantErr string
	}{
		{Config{}, "Resource.Resource is required"},
		{Config{Resource: configMaps, LabelSelector: "a in"}, "LabelSelector"},
		{Config{Resource: configMaps, Indexers: cache.Indexers{cache.NamespaceIndex: nil}}, "built in"},
	}
	for _, c := range cases {
		_, err := New(newFakeClient(), c.config)
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("New(%+v) error = %v, want one containing %q", c.config, err, c.wantErr)
		}
	}
}
