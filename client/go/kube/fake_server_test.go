package kube

import (
	"context"
	"net"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// watchScript is what one Watch call answers: events, then err (nil: the
// stream stays open until the client goes away).
type watchScript struct {
	events []*informerdv1.WatchEvent
	err    error
}

// fakeServer is an in-process informerd: List answers come from lists in
// order, Watch answers from watches in order; every request is recorded.
type fakeServer struct {
	informerdv1.UnimplementedCacheServer

	mu            sync.Mutex
	lists         []listAnswer
	watches       []watchScript
	listRequests  []*informerdv1.ListRequest
	watchRequests []*informerdv1.WatchRequest
}

type listAnswer struct {
	resp *informerdv1.ListResponse
	err  error
}

func (s *fakeServer) List(_ context.Context, req *informerdv1.ListRequest) (*informerdv1.ListResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listRequests = append(s.listRequests, req)
	if len(s.lists) == 0 {
		return &informerdv1.ListResponse{}, nil
	}
	a := s.lists[0]
	s.lists = s.lists[1:]
	return a.resp, a.err
}

func (s *fakeServer) Watch(req *informerdv1.WatchRequest, stream informerdv1.Cache_WatchServer) error {
	s.mu.Lock()
	s.watchRequests = append(s.watchRequests, req)
	var script watchScript
	if len(s.watches) > 0 {
		script = s.watches[0]
		s.watches = s.watches[1:]
	}
	s.mu.Unlock()
	for _, ev := range script.events {
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	if script.err != nil {
		return script.err
	}
	<-stream.Context().Done()
	return nil
}

func (s *fakeServer) recordedWatches() []*informerdv1.WatchRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*informerdv1.WatchRequest(nil), s.watchRequests...)
}

func (s *fakeServer) recordedLists() []*informerdv1.ListRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*informerdv1.ListRequest(nil), s.listRequests...)
}

// serve runs s on an in-memory listener and returns a client of it.
func serve(t *testing.T, s *fakeServer) informerdv1.CacheClient {
	t.Helper()
	listener := bufconn.Listen(1 << 20)
	server := grpc.NewServer()
	informerdv1.RegisterCacheServer(server, s)
	go server.Serve(listener)
	t.Cleanup(server.Stop)
	conn, err := grpc.NewClient("passthrough:///fake",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return listener.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return informerdv1.NewCacheClient(conn)
}
