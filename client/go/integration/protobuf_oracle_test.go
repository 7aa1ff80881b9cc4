package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube"
)

// The protobuf oracle: for every object of rich pods, configmaps,
// deployments, services, nodes and events (and a custom resource, which
// stays JSON), the Go object decoded from informerd's
// application/vnd.kubernetes.protobuf bytes (List, Get, Watch, and through
// the Go adapter) must deep-equal (equality.Semantic, managedFields aside)
// the one decoded from the apiserver's own JSON for the same object, and
// informerd's bytes must be the apiserver's protobuf encoding of the same
// object (managedFields removed), byte for byte.

const protobufMediaType = "application/vnd.kubernetes.protobuf"

type oracleCase struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	example    runtime.Object
	apiPath    string // the collection's path, "%s" for the namespace
}

func TestProtobufOracle(t *testing.T) {
	lc := newLiveClusterFor(t, "proto-oracle", "pods,configmaps,deployments.apps,services,nodes,events,widgets.oracle.informerd.io")
	defer lc.cancel()
	client := informerdv1.NewCacheClient(lc.conn)

	cases := []oracleCase{
		{corev1.SchemeGroupVersion.WithResource("pods"), true, &corev1.Pod{}, "/api/v1/namespaces/%s/pods"},
		{corev1.SchemeGroupVersion.WithResource("configmaps"), true, &corev1.ConfigMap{}, "/api/v1/namespaces/%s/configmaps"},
		{appsv1.SchemeGroupVersion.WithResource("deployments"), true, &appsv1.Deployment{}, "/apis/apps/v1/namespaces/%s/deployments"},
		{corev1.SchemeGroupVersion.WithResource("services"), true, &corev1.Service{}, "/api/v1/namespaces/%s/services"},
		{corev1.SchemeGroupVersion.WithResource("nodes"), false, &corev1.Node{}, "/api/v1/nodes"},
		{corev1.SchemeGroupVersion.WithResource("events"), true, &corev1.Event{}, "/api/v1/namespaces/%s/events"},
	}
	exact, total := 0, 0
	for _, c := range cases {
		t.Run(c.gvr.Resource, func(t *testing.T) {
			e, n := checkOracleCase(t, lc, client, c)
			exact += e
			total += n
		})
	}
	t.Logf("informerd's protobuf bytes equal the apiserver's for %d of %d objects", exact, total)
	t.Run("customresource", func(t *testing.T) { checkCustomResourceStaysJSON(t, lc, client) })
	t.Run("unknownencoding", func(t *testing.T) { checkUnknownEncodingIsRefused(t, lc, client) })
}

// checkUnknownEncodingIsRefused: proto3 enums are open, so an encoding this
// server does not know parses; it must be INVALID_ARGUMENT naming the field.
func checkUnknownEncodingIsRefused(t *testing.T, oc *oracleCluster, client informerdv1.CacheClient) {
	resource := &informerdv1.ResourceName{Version: "v1", Resource: "configmaps"}
	bad := informerdv1.Encoding(7)
	_, listErr := client.List(oc.ctx, &informerdv1.ListRequest{Resource: resource, Namespace: oc.namespace, Encoding: bad})
	_, getErr := client.Get(oc.ctx, &informerdv1.GetRequest{Resource: resource, Namespace: oc.namespace, Name: "cm-0", Encoding: bad})
	var watchErr error
	// Bounded: a server that accepted the encoding would send nothing here.
	ctx, cancel := context.WithTimeout(oc.ctx, 10*time.Second)
	defer cancel()
	if stream, err := client.Watch(ctx, &informerdv1.WatchRequest{Resource: resource, Namespace: oc.namespace, Encoding: bad}); err != nil {
		watchErr = err
	} else {
		_, watchErr = stream.Recv()
	}
	for name, err := range map[string]error{"List": listErr, "Get": getErr, "Watch": watchErr} {
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "encoding: unknown value 7") {
			t.Errorf("%s with encoding 7: %v; want INVALID_ARGUMENT naming encoding", name, err)
		}
	}
}

// newLiveClusterFor is a liveCluster whose informerd serves `resources`,
// with the oracle's objects made before informerd starts.
func newLiveClusterFor(t *testing.T, prefix, resources string) *oracleCluster {
	t.Helper()
	env := requireEnv(t)
	api, err := newAPIServer(env)
	if err != nil {
		t.Fatal(err)
	}
	config, err := clientcmd.BuildConfigFromFlags("", env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	oc := &oracleCluster{api: api, clientset: clientset, run: fmt.Sprintf("%d", time.Now().UnixNano())}
	oc.namespace = prefix + "-" + oc.run
	if err := api.createNamespace(oc.namespace); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.call("DELETE", "/api/v1/namespaces/"+oc.namespace, "", nil, nil) })
	oc.makeObjects(t)
	oc.server = newInformerd(t, env)
	oc.server.resources = resources
	oc.server.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	oc.ctx, oc.cancel = ctx, cancel
	if oc.conn, err = connection.Dial(ctx, connection.Options{Addresses: []string{oc.server.grpcAddress}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { oc.conn.Close() })
	return oc
}

type oracleCluster struct {
	api       *apiserver
	clientset *kubernetes.Clientset
	run       string
	namespace string
	server    *informerd
	ctx       context.Context
	cancel    context.CancelFunc
	conn      *grpc.ClientConn
	counts    map[string]int // resource -> objects made
}

func checkOracleCase(t *testing.T, oc *oracleCluster, client informerdv1.CacheClient, c oracleCase) (exact, total int) {
	ctx := oc.ctx
	ns, selector := oc.namespace, ""
	if !c.namespaced {
		ns, selector = "", "oracle-run="+oc.run
	}
	resource := &informerdv1.ResourceName{Group: c.gvr.Group, Version: c.gvr.Version, Resource: c.gvr.Resource}
	want := oc.counts[c.gvr.Resource]
	var list *informerdv1.ListResponse
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		list, err = client.List(ctx, &informerdv1.ListRequest{Resource: resource, Namespace: ns, LabelSelector: selector,
			Encoding: informerdv1.Encoding_ENCODING_PROTOBUF})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) >= want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("informerd has %d %s, want at least %d", len(list.Items), c.gvr.Resource, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if want == 0 {
		t.Fatalf("no %s were made", c.gvr.Resource)
	}
	for _, item := range list.Items {
		if len(item.Protobuf) == 0 || len(item.Json) != 0 {
			t.Errorf("%s %s: protobuf %d bytes, json %d bytes; want protobuf only", c.gvr.Resource, item.Name, len(item.Protobuf), len(item.Json))
			continue
		}
		path := fmt.Sprintf(c.apiPath, item.Namespace) + "/" + item.Name
		if !c.namespaced {
			path = c.apiPath + "/" + item.Name
		}
		apiJSON := oc.raw(t, path, "application/json")
		apiProto := oc.raw(t, path, protobufMediaType)
		fromJSON := decodeOracle(t, apiJSON)
		fromAPIProto := decodeOracle(t, apiProto)
		fromInformerd := decodeOracle(t, item.Protobuf)
		if rv := metaOfOracle(t, fromJSON).GetResourceVersion(); rv != item.ResourceVersion {
			t.Fatalf("%s %s changed while the test ran: apiserver at %s, informerd at %s", c.gvr.Resource, item.Name, rv, item.ResourceVersion)
		}
		comparable(fromJSON)
		comparable(fromAPIProto)
		comparable(fromInformerd)
		if !equality.Semantic.DeepEqual(fromJSON, fromAPIProto) {
			t.Fatalf("%s %s: the apiserver's JSON and protobuf disagree: %s", c.gvr.Resource, item.Name, diff.Diff(fromJSON, fromAPIProto))
		}
		if !equality.Semantic.DeepEqual(fromJSON, fromInformerd) {
			t.Errorf("%s %s: informerd's protobuf (List) decodes differently from the apiserver's JSON (-apiserver +informerd):\n%s",
				c.gvr.Resource, item.Name, diff.Diff(fromJSON, fromInformerd))
		}
		total++
		if want := reencode(t, apiProto); bytes.Equal(item.Protobuf, want) {
			exact++
		} else {
			t.Errorf("%s %s: bytes differ from the apiserver's\n informerd %q\n apiserver %q", c.gvr.Resource, item.Name, item.Protobuf, want)
		}
		got, err := client.Get(ctx, &informerdv1.GetRequest{Resource: resource, Namespace: item.Namespace, Name: item.Name,
			Encoding: informerdv1.Encoding_ENCODING_PROTOBUF})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Object.Protobuf, item.Protobuf) {
			t.Errorf("%s %s: Get's protobuf differs from List's", c.gvr.Resource, item.Name)
		}
	}
	checkWatchAndAdapter(t, oc, client, c, resource, ns, selector, list)
	return exact, total
}

// checkWatchAndAdapter: Watch's initial events carry the same bytes as List,
// and the Go adapter (which asks for protobuf for built-in types) decodes
// the same objects as the apiserver's JSON.
func checkWatchAndAdapter(t *testing.T, oc *oracleCluster, client informerdv1.CacheClient, c oracleCase,
	resource *informerdv1.ResourceName, ns, selector string, list *informerdv1.ListResponse) {
	byName := map[string][]byte{}
	for _, item := range list.Items {
		byName[item.Namespace+"/"+item.Name] = item.Protobuf
	}
	ctx, cancel := context.WithTimeout(oc.ctx, 30*time.Second)
	defer cancel()
	stream, err := client.Watch(ctx, &informerdv1.WatchRequest{Resource: resource, Namespace: ns, LabelSelector: selector,
		SendInitialEvents: true, AllowBookmarks: true, Encoding: informerdv1.Encoding_ENCODING_PROTOBUF})
	if err != nil {
		t.Fatal(err)
	}
	for {
		event, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if event.InitialEventsEnd {
			break
		}
		if event.Type != informerdv1.WatchEvent_ADDED {
			continue
		}
		key := event.Object.Namespace + "/" + event.Object.Name
		if want, ok := byName[key]; ok && !bytes.Equal(event.Object.Protobuf, want) {
			t.Errorf("%s %s: Watch's protobuf differs from List's", c.gvr.Resource, key)
		}
	}
	var opts []kube.Option
	if ns != "" {
		opts = append(opts, kube.WithNamespace(ns))
	}
	recording := &encodingRecorder{CacheClient: client}
	lw, err := kube.NewListerWatcher(recording, c.gvr, c.example, opts...)
	if err != nil {
		t.Fatal(err)
	}
	adapted, err := lw.ListWithContext(oc.ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	items, err := meta.ExtractList(adapted)
	if err != nil {
		t.Fatal(err)
	}
	if recording.protobuf != len(items) || recording.json != 0 {
		t.Errorf("%s: the Go adapter got %d objects as protobuf and %d as JSON; want all %d as protobuf",
			c.gvr.Resource, recording.protobuf, recording.json, len(items))
	}
	for _, obj := range items {
		m := metaOfOracle(t, obj)
		path := fmt.Sprintf(c.apiPath, m.GetNamespace()) + "/" + m.GetName()
		if !c.namespaced {
			path = c.apiPath + "/" + m.GetName()
		}
		fromJSON := decodeOracle(t, oc.raw(t, path, "application/json"))
		comparable(fromJSON)
		comparable(obj)
		if !equality.Semantic.DeepEqual(fromJSON, obj) {
			t.Errorf("%s %s: the Go adapter's object differs from the apiserver's JSON: %s", c.gvr.Resource, m.GetName(), diff.Diff(fromJSON, obj))
		}
	}
}

// checkCustomResourceStaysJSON: a custom resource has no protobuf schema, so
// informerd sends JSON even when asked for protobuf, and it decodes as the
// apiserver's.
func checkCustomResourceStaysJSON(t *testing.T, oc *oracleCluster, client informerdv1.CacheClient) {
	resource := &informerdv1.ResourceName{Group: "oracle.informerd.io", Version: "v1", Resource: "widgets"}
	list, err := client.List(oc.ctx, &informerdv1.ListRequest{Resource: resource, Namespace: oc.namespace,
		Encoding: informerdv1.Encoding_ENCODING_PROTOBUF})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != oc.counts["widgets"] {
		t.Fatalf("informerd has %d widgets, want %d", len(list.Items), oc.counts["widgets"])
	}
	for _, item := range list.Items {
		if len(item.Protobuf) != 0 || len(item.Json) == 0 {
			t.Errorf("widget %s: protobuf %d bytes, json %d bytes; want json only", item.Name, len(item.Protobuf), len(item.Json))
		}
		var fromAPI, fromInformerd map[string]interface{}
		if err := oc.api.call("GET", "/apis/oracle.informerd.io/v1/namespaces/"+oc.namespace+"/widgets/"+item.Name, "", nil, &fromAPI); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(item.Json, &fromInformerd); err != nil {
			t.Fatal(err)
		}
		delete(fromAPI["metadata"].(map[string]interface{}), "managedFields")
		delete(fromInformerd["metadata"].(map[string]interface{}), "managedFields")
		if !equality.Semantic.DeepEqual(fromAPI, fromInformerd) {
			t.Errorf("widget %s: %s", item.Name, diff.Diff(fromAPI, fromInformerd))
		}
	}
}

func (oc *oracleCluster) raw(t *testing.T, path, accept string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", oc.api.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+oc.api.token)
	req.Header.Set("Accept", accept)
	resp, err := oc.api.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s (%s): %v %s %s", path, accept, err, resp.Status, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, accept) {
		t.Fatalf("GET %s: asked for %s, got %s", path, accept, ct)
	}
	return body
}

// decodeOracle decodes JSON or protobuf (by content) as client-go does.
func decodeOracle(t *testing.T, data []byte) runtime.Object {
	t.Helper()
	obj, _, err := clientgoscheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatalf("decoding %.80q: %v", data, err)
	}
	return obj
}

func metaOfOracle(t *testing.T, obj runtime.Object) metav1.Object {
	t.Helper()
	m, err := metaOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// comparable removes what the comparison leaves aside: managedFields
// (informerd strips them by default) and the type meta (the apiserver's
// decoders leave it set or not by path).
func comparable(obj runtime.Object) {
	if m, err := metaOf(obj); err == nil {
		m.SetManagedFields(nil)
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
}

// reencode is the apiserver's protobuf encoding of an object without its
// managedFields: apiserverBytes decoded, re-encoded by the same Go code the
// apiserver uses.
func reencode(t *testing.T, apiserverBytes []byte) []byte {
	t.Helper()
	fresh := decodeOracle(t, apiserverBytes)
	if m, err := metaOf(fresh); err == nil {
		m.SetManagedFields(nil)
	}
	var out bytes.Buffer
	if err := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(fresh, &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// encodingRecorder counts how List's objects came: the Go adapter must ask
// for protobuf for built-in types.
type encodingRecorder struct {
	informerdv1.CacheClient
	protobuf, json int
}

func (r *encodingRecorder) List(ctx context.Context, in *informerdv1.ListRequest, opts ...grpc.CallOption) (*informerdv1.ListResponse, error) {
	resp, err := r.CacheClient.List(ctx, in, opts...)
	if err == nil {
		for _, item := range resp.Items {
			if len(item.Protobuf) > 0 {
				r.protobuf++
			} else {
				r.json++
			}
		}
	}
	return resp, err
}
