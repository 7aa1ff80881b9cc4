package kube

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/informerdv1"
)

var (
	podsGVR       = corev1.SchemeGroupVersion.WithResource("pods")
	configMapsGVR = corev1.SchemeGroupVersion.WithResource("configmaps")
	widgetsGVR    = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
)

// object is informerd's form of an object; json deliberately lacks
// apiVersion and kind, as LIST-ingested objects of older servers do.
func object(namespace, name, rv string) *informerdv1.Object {
	return &informerdv1.Object{
		Json:            []byte(`{"metadata":{"namespace":"` + namespace + `","name":"` + name + `","resourceVersion":"` + rv + `","labels":{"a":"b"}},"spec":{"nodeName":"n1","size":3}}`),
		Namespace:       namespace,
		Name:            name,
		ResourceVersion: rv,
	}
}

func TestErrorsMapToTheAPIServersEquivalents(t *testing.T) {
	for _, c := range []struct {
		code  codes.Code
		check func(error) bool
		name  string
	}{
		{codes.OutOfRange, apierrors.IsResourceExpired, "IsResourceExpired"},
		// Refused before it started: back off, do not relist.
		{codes.ResourceExhausted, apierrors.IsTooManyRequests, "IsTooManyRequests"},
		{codes.NotFound, apierrors.IsNotFound, "IsNotFound"},
		{codes.PermissionDenied, apierrors.IsForbidden, "IsForbidden"},
		{codes.Unauthenticated, apierrors.IsUnauthorized, "IsUnauthorized"},
		{codes.InvalidArgument, apierrors.IsBadRequest, "IsBadRequest"},
		{codes.Internal, apierrors.IsInternalError, "IsInternalError"},
	} {
		t.Run(c.code.String(), func(t *testing.T) {
			server := &fakeServer{
				lists:   []listAnswer{{err: status.Error(c.code, "the server's reason")}},
				watches: []watchScript{{err: status.Error(c.code, "the server's reason")}},
			}
			lw, err := NewListerWatcher(serve(t, server), podsGVR, &corev1.Pod{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = lw.ListWithContext(context.Background(), metav1.ListOptions{})
			if !c.check(err) {
				t.Errorf("List: %v is not %s", err, c.name)
			}
			w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "7"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			ev := next(t, w)
			if ev.Type != watch.Error {
				t.Fatalf("watch event %v, want ERROR", ev.Type)
			}
			if werr := apierrors.FromObject(ev.Object); !c.check(werr) {
				t.Errorf("Watch ERROR event: %v is not %s", werr, c.name)
			}
			if _, open := <-w.ResultChan(); open {
				t.Error("result channel still open after the ERROR event")
			}
		})
	}
}

func TestExpiredIsTheReflectorsRelistSignal(t *testing.T) {
	server := &fakeServer{watches: []watchScript{{err: status.Error(codes.OutOfRange, "too old resource version: 3 (10)")}}}
	lw, _ := NewListerWatcher(serve(t, server), podsGVR, &corev1.Pod{})
	w, _ := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "3"})
	defer w.Stop()
	ev := next(t, w)
	st, ok := ev.Object.(*metav1.Status)
	if !ok || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
		t.Fatalf("ERROR event object %#v, want a 410 Expired Status", ev.Object)
	}
}

func TestListRetriesUnavailable(t *testing.T) {
	server := &fakeServer{lists: []listAnswer{
		{err: status.Error(codes.Unavailable, "not synced")},
		{err: status.Error(codes.Unavailable, "not synced")},
		{resp: &informerdv1.ListResponse{Items: []*informerdv1.Object{object("ns", "p1", "5")}, ResourceVersion: "9", ContinueToken: "next"}},
	}}
	lw, _ := NewListerWatcher(serve(t, server), podsGVR, &corev1.Pod{}, WithNamespace("ns"), WithSelectors("a=b", ""))
	got, err := lw.ListWithContext(context.Background(), metav1.ListOptions{LabelSelector: "c", FieldSelector: "spec.nodeName=n1", Limit: 10, ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	list, ok := got.(*corev1.PodList)
	if !ok {
		t.Fatalf("List returned %T, want *corev1.PodList", got)
	}
	if list.ResourceVersion != "9" || list.Continue != "next" || len(list.Items) != 1 {
		t.Fatalf("list meta %+v with %d items", list.ListMeta, len(list.Items))
	}
	pod := list.Items[0]
	if pod.APIVersion != "v1" || pod.Kind != "Pod" || pod.Name != "p1" || pod.Spec.NodeName != "n1" {
		t.Errorf("item %s/%s %s/%s nodeName %q", pod.APIVersion, pod.Kind, pod.Namespace, pod.Name, pod.Spec.NodeName)
	}
	reqs := server.recordedLists()
	if len(reqs) != 3 {
		t.Fatalf("%d List calls, want 3 (two retries)", len(reqs))
	}
	req := reqs[2]
	if req.Namespace != "ns" || req.LabelSelector != "a=b,c" || req.FieldSelector != "spec.nodeName=n1" ||
		req.Limit != 10 || req.ResourceVersion != "" || req.Resource.GetResource() != "pods" || req.Resource.GetVersion() != "v1" {
		t.Errorf("request %v", req)
	}
}

func TestListRefusesExactResourceVersionMatch(t *testing.T) {
	lw, _ := NewListerWatcher(serve(t, &fakeServer{}), podsGVR, &corev1.Pod{})
	_, err := lw.ListWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("%v, want BadRequest", err)
	}
}

// A watch cut off after it delivered events (it fell behind informerd's
// history) has lost its resume point: 410, so that client-go relists.
func TestAWatchCutOffWhileRunningIsExpired(t *testing.T) {
	server := &fakeServer{watches: []watchScript{{
		events: []*informerdv1.WatchEvent{{Type: informerdv1.WatchEvent_MODIFIED, Object: object("ns", "p1", "9"), ResourceVersion: "9"}},
		err:    status.Error(codes.ResourceExhausted, "watcher fell behind the event history; resume from resource_version 9 or relist"),
	}}}
	lw, _ := NewListerWatcher(serve(t, server), podsGVR, &corev1.Pod{})
	w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "7"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := next(t, w); ev.Type != watch.Modified {
		t.Fatalf("first event %v, want MODIFIED", ev.Type)
	}
	ev := next(t, w)
	if werr := apierrors.FromObject(ev.Object); ev.Type != watch.Error || !apierrors.IsResourceExpired(werr) {
		t.Errorf("event %v %v, want an ERROR that is IsResourceExpired", ev.Type, werr)
	}
}

func TestWatchListEndsWithTheAnnotatedBookmark(t *testing.T) {
	server := &fakeServer{watches: []watchScript{{events: []*informerdv1.WatchEvent{
		{Type: informerdv1.WatchEvent_ADDED, Object: object("ns", "p1", "4"), ResourceVersion: "4"},
		{Type: informerdv1.WatchEvent_BOOKMARK, ResourceVersion: "8", InitialEventsEnd: true, Object: &informerdv1.Object{ResourceVersion: "8"}},
		{Type: informerdv1.WatchEvent_MODIFIED, Object: object("ns", "p1", "9"), ResourceVersion: "9"},
	}}}}
	lw, _ := NewListerWatcher(serve(t, server), podsGVR, &corev1.Pod{})
	w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{
		SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev := next(t, w); ev.Type != watch.Added || ev.Object.(*corev1.Pod).Kind != "Pod" {
		t.Fatalf("first event %v %#v", ev.Type, ev.Object)
	}
	ev := next(t, w)
	pod, ok := ev.Object.(*corev1.Pod)
	if ev.Type != watch.Bookmark || !ok {
		t.Fatalf("second event %v %T, want a BOOKMARK with a *corev1.Pod", ev.Type, ev.Object)
	}
	want := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{
		ResourceVersion: "8", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"},
	}}
	if !reflect.DeepEqual(pod, want) {
		t.Errorf("bookmark object %#v, want %#v", pod, want)
	}
	if ev := next(t, w); ev.Type != watch.Modified || ev.Object.(*corev1.Pod).ResourceVersion != "9" {
		t.Errorf("third event %v %#v", ev.Type, ev.Object)
	}
	req := server.recordedWatches()[0]
	if !req.SendInitialEvents || req.ResourceVersion != "" || !req.AllowBookmarks {
		t.Errorf("request %v", req)
	}
}

func TestWatchListNeedsNotOlderThan(t *testing.T) {
	lw, _ := NewListerWatcher(serve(t, &fakeServer{}), podsGVR, &corev1.Pod{})
	_, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{SendInitialEvents: ptr.To(true)})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("%v, want BadRequest", err)
	}
}

func TestWatchResumesAfterUnavailableWithoutTheCallerNoticing(t *testing.T) {
	server := &fakeServer{watches: []watchScript{
		{events: []*informerdv1.WatchEvent{
			{Type: informerdv1.WatchEvent_MODIFIED, Object: object("ns", "p1", "11"), ResourceVersion: "11"},
			{Type: informerdv1.WatchEvent_BOOKMARK, ResourceVersion: "12", Object: &informerdv1.Object{ResourceVersion: "12"}},
		}, err: status.Error(codes.Unavailable, "server shutting down")},
		{err: status.Error(codes.Unavailable, "not synced yet")},
		{events: []*informerdv1.WatchEvent{
			{Type: informerdv1.WatchEvent_DELETED, Object: object("ns", "p1", "13"), ResourceVersion: "13"},
		}},
	}}
	lw, _ := NewListerWatcher(serve(t, server), podsGVR, &corev1.Pod{})
	// Bookmarks not allowed: the one at 12 is not delivered, but is the
	// resume point all the same.
	w, _ := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "10"})
	defer w.Stop()
	if ev := next(t, w); ev.Type != watch.Modified {
		t.Fatalf("first event %v", ev.Type)
	}
	if ev := next(t, w); ev.Type != watch.Deleted || ev.Object.(*corev1.Pod).ResourceVersion != "13" {
		t.Fatalf("second event %v %#v", ev.Type, ev.Object)
	}
	reqs := server.recordedWatches()
	if len(reqs) != 3 {
		t.Fatalf("%d Watch calls, want 3", len(reqs))
	}
	for i, want := range []string{"10", "12", "12"} {
		if reqs[i].ResourceVersion != want || reqs[i].SendInitialEvents {
			t.Errorf("Watch call %d from %q (initial events %v), want from %q", i, reqs[i].ResourceVersion, reqs[i].SendInitialEvents, want)
		}
	}
}

func TestWatchBrokenDuringInitialEventsEndsTheWatch(t *testing.T) {
	server := &fakeServer{watches: []watchScript{{events: []*informerdv1.WatchEvent{
		{Type: informerdv1.WatchEvent_ADDED, Object: object("ns", "p1", "4"), ResourceVersion: "4"},
	}, err: status.Error(codes.Unavailable, "server shutting down")}}}
	lw, _ := NewListerWatcher(serve(t, server), podsGVR, &corev1.Pod{})
	w, _ := lw.WatchWithContext(context.Background(), metav1.ListOptions{
		SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
	})
	defer w.Stop()
	if ev := next(t, w); ev.Type != watch.Added {
		t.Fatalf("first event %v", ev.Type)
	}
	select {
	case ev, open := <-w.ResultChan():
		if open {
			t.Fatalf("event %v after the break, want the channel closed", ev.Type)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("channel not closed 10s after the break")
	}
}

func TestMetadataOnly(t *testing.T) {
	server := &fakeServer{
		lists: []listAnswer{{resp: &informerdv1.ListResponse{Items: []*informerdv1.Object{object("ns", "c1", "5")}, ResourceVersion: "6"}}},
		watches: []watchScript{{events: []*informerdv1.WatchEvent{
			{Type: informerdv1.WatchEvent_ADDED, Object: object("ns", "c2", "7"), ResourceVersion: "7"},
			{Type: informerdv1.WatchEvent_BOOKMARK, ResourceVersion: "8", Object: &informerdv1.Object{ResourceVersion: "8"}},
		}}},
	}
	lw, err := NewMetadataListerWatcher(serve(t, server), configMapsGVR, "ConfigMap")
	if err != nil {
		t.Fatal(err)
	}
	got, err := lw.ListWithContext(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, ok := got.(*metav1.PartialObjectMetadataList)
	if !ok || len(list.Items) != 1 {
		t.Fatalf("List returned %#v", got)
	}
	wantGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	if gvk := list.Items[0].GroupVersionKind(); gvk != wantGVK || list.Items[0].Labels["a"] != "b" {
		t.Errorf("item %v labels %v", gvk, list.Items[0].Labels)
	}
	w, _ := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "6", AllowWatchBookmarks: true})
	defer w.Stop()
	for _, want := range []watch.EventType{watch.Added, watch.Bookmark} {
		ev := next(t, w)
		obj, ok := ev.Object.(*metav1.PartialObjectMetadata)
		if ev.Type != want || !ok || obj.GroupVersionKind() != wantGVK {
			t.Errorf("event %v %#v, want %v of a PartialObjectMetadata %v", ev.Type, ev.Object, want, wantGVK)
		}
	}
	if p := server.recordedLists()[0].Projection; p != informerdv1.Projection_PROJECTION_METADATA {
		t.Errorf("List projection %v", p)
	}
	if p := server.recordedWatches()[0].Projection; p != informerdv1.Projection_PROJECTION_METADATA {
		t.Errorf("Watch projection %v", p)
	}
}

func TestWithFieldsAsksForTheMask(t *testing.T) {
	server := &fakeServer{
		lists:   []listAnswer{{resp: &informerdv1.ListResponse{Items: []*informerdv1.Object{object("ns", "c1", "5")}, ResourceVersion: "6"}}},
		watches: []watchScript{{events: []*informerdv1.WatchEvent{{Type: informerdv1.WatchEvent_BOOKMARK, ResourceVersion: "8", Object: &informerdv1.Object{ResourceVersion: "8"}}}}},
	}
	mask := []string{"metadata.labels", "data"}
	lw, err := NewListerWatcher(serve(t, server), configMapsGVR, &corev1.ConfigMap{}, WithFields(mask...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lw.ListWithContext(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: "6", AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	next(t, w)
	w.Stop()
	list, watch := server.recordedLists()[0], server.recordedWatches()[0]
	if !reflect.DeepEqual(list.Fields, mask) || !reflect.DeepEqual(watch.Fields, mask) {
		t.Errorf("fields: List %q, Watch %q; want %q on both", list.Fields, watch.Fields, mask)
	}
	if list.Projection != informerdv1.Projection_PROJECTION_FULL || watch.Projection != informerdv1.Projection_PROJECTION_FULL {
		t.Errorf("projection: List %v, Watch %v; want FULL (the mask alone decides)", list.Projection, watch.Projection)
	}
}

func TestUnstructured(t *testing.T) {
	server := &fakeServer{lists: []listAnswer{{resp: &informerdv1.ListResponse{Items: []*informerdv1.Object{object("ns", "w1", "5")}, ResourceVersion: "6"}}}}
	example := &unstructured.Unstructured{}
	example.SetGroupVersionKind(widgetsGVR.GroupVersion().WithKind("Widget"))
	lw, err := NewListerWatcher(serve(t, server), widgetsGVR, example)
	if err != nil {
		t.Fatal(err)
	}
	got, err := lw.ListWithContext(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list := got.(*unstructured.UnstructuredList)
	item := list.Items[0]
	size, _, _ := unstructured.NestedInt64(item.Object, "spec", "size")
	if item.GetAPIVersion() != "example.com/v1" || item.GetKind() != "Widget" || size != 3 || list.GetResourceVersion() != "6" {
		t.Errorf("item %s %s size %d, list rv %q", item.GetAPIVersion(), item.GetKind(), size, list.GetResourceVersion())
	}
	if list.GetKind() != "WidgetList" {
		t.Errorf("list kind %q", list.GetKind())
	}
}

func TestConstructorErrorsNameTheProblem(t *testing.T) {
	client := serve(t, &fakeServer{})
	for name, build := range map[string]func() error{
		"unstructured without kind": func() error {
			_, err := NewListerWatcher(client, widgetsGVR, &unstructured.Unstructured{})
			return err
		},
		"typed of another group": func() error {
			_, err := NewListerWatcher(client, widgetsGVR, &corev1.Pod{})
			return err
		},
		"no version": func() error {
			_, err := NewListerWatcher(client, schema.GroupVersionResource{Resource: "pods"}, &corev1.Pod{})
			return err
		},
	} {
		if err := build(); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("result channel closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return watch.Event{}
}
