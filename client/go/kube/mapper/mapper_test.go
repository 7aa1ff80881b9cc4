package mapper

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
)

func status(group, version, resource, kind string, namespaced bool) *informerdv1.ResourceStatus {
	return &informerdv1.ResourceStatus{
		Resource:   &informerdv1.ResourceName{Group: group, Version: version, Resource: resource},
		Kind:       kind,
		Namespaced: namespaced,
	}
}

// A malformed ListResources entry fails the build with an error naming it,
// instead of a mapping that cannot be used.
func TestBuildRefusesMalformedEntriesByName(t *testing.T) {
	for name, bad := range map[string]*informerdv1.ResourceStatus{
		"no version":  status("apps", "", "deployments", "Deployment", true),
		"no resource": status("apps", "v1", "", "Deployment", true),
		"no kind":     status("apps", "v1", "deployments", "", true),
		"subresource": status("apps", "v1", "deployments/scale", "Scale", true),
		"no name":     {Kind: "Deployment"},
	} {
		_, err := Build([]*informerdv1.ResourceStatus{status("", "v1", "pods", "Pod", true), bad})
		if err == nil || !strings.Contains(err.Error(), "entry 1 (") {
			t.Errorf("%s: error %v; want one naming entry 1", name, err)
		}
	}
}

// Each resource maps at the version informerd serves it, with its scope,
// also in a group whose resources are served at different versions; other
// versions do not match.
func TestBuildMapsEachResourceAtItsServedVersion(t *testing.T) {
	m, err := Build([]*informerdv1.ResourceStatus{
		status("example.com", "v1beta1", "gadgets", "Gadget", true),
		status("example.com", "v1", "widgets", "Widget", false),
		status("example.com", "v2alpha1", "gizmos", "Gizmo", true),
	})
	if err != nil {
		t.Fatal(err)
	}
	gvk, err := m.KindFor(schema.GroupVersionResource{Group: "example.com", Resource: "widgets"})
	if err != nil || gvk.Version != "v1" {
		t.Errorf("KindFor(widgets) = %v, %v", gvk, err)
	}
	mapping, err := m.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Gadget"})
	if err != nil || mapping.Resource.Version != "v1beta1" || mapping.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Errorf("RESTMapping(Gadget) = %+v, %v", mapping, err)
	}
	mapping, err = m.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"})
	if err != nil || mapping.Scope.Name() != meta.RESTScopeNameRoot {
		t.Errorf("RESTMapping(Widget) = %+v, %v", mapping, err)
	}
	if _, err := m.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"}, "v2"); !meta.IsNoMatchError(err) {
		t.Errorf("RESTMapping(Widget, v2): %v; want no match", err)
	}
}

// countingClient counts the ListResources calls that reach client.
type countingClient struct {
	informerdv1.CacheClient
	calls atomic.Int32
}

func (c *countingClient) ListResources(ctx context.Context, req *informerdv1.ListResourcesRequest, opts ...grpc.CallOption) (*informerdv1.ListResourcesResponse, error) {
	c.calls.Add(1)
	return c.CacheClient.ListResources(ctx, req, opts...)
}

// With informerd unreachable, a lookup fails naming informerd's address,
// and lookups within MinRefreshInterval get that error without a call.
func TestUnreachableInformerdFailsByAddressAtBoundedRate(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := listener.Addr().String()
	listener.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{address}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := &countingClient{CacheClient: informerdv1.NewCacheClient(conn)}
	m := New(client, Options{MinRefreshInterval: time.Hour})
	for i := 0; i < 100; i++ {
		_, err := m.RESTMapping(schema.GroupKind{Kind: "Pod"})
		if err == nil || !strings.Contains(err.Error(), "informerd ListResources") || !strings.Contains(err.Error(), address) {
			t.Fatalf("lookup %d: error %v; want one naming ListResources and %s", i, err, address)
		}
	}
	if n := client.calls.Load(); n != 1 {
		t.Errorf("%d ListResources calls for 100 lookups within MinRefreshInterval; want 1", n)
	}
}
