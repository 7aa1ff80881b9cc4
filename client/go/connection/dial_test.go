package connection

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// recordingServer answers ListResources and remembers each call's
// authorization header.
type recordingServer struct {
	informerdv1.UnimplementedCacheServer
	mu      sync.Mutex
	headers []string
}

func (s *recordingServer) ListResources(ctx context.Context, _ *informerdv1.ListResourcesRequest) (*informerdv1.ListResourcesResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	s.mu.Lock()
	s.headers = append(s.headers, md.Get("authorization")...)
	s.mu.Unlock()
	return &informerdv1.ListResourcesResponse{}, nil
}

// Get blocks until the caller gives up, to exercise deadlines.
func (s *recordingServer) Get(ctx context.Context, _ *informerdv1.GetRequest) (*informerdv1.GetResponse, error) {
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}

func (s *recordingServer) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.headers)
}

func startServer(t *testing.T, opts ...grpc.ServerOption) (*recordingServer, string) {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := grpc.NewServer(opts...)
	rs := &recordingServer{}
	informerdv1.RegisterCacheServer(server, rs)
	go server.Serve(listener)
	t.Cleanup(server.Stop)
	return rs, listener.Addr().String()
}

func dial(t *testing.T, opts Options) informerdv1.CacheClient {
	t.Helper()
	conn, err := Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return informerdv1.NewCacheClient(conn)
}

func TestTLSWithClientCertificateAndRotatingTokenFile(t *testing.T) {
	p := newTestPKI(t)
	rs, addr := startServer(t, grpc.Creds(credentials.NewTLS(p.serverConfig(t))))
	tokenFile := filepath.Join(t.TempDir(), "token")
	client := dial(t, Options{
		Addresses: []string{addr},
		TLS:       &TLSOptions{CAFile: p.caFile, CertFile: p.clientCertFile, KeyFile: p.clientKeyFile},
		TokenFile: tokenFile,
	})
	for _, token := range []string{"one", "two"} {
		if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := client.ListResources(context.Background(), &informerdv1.ListResourcesRequest{}, grpc.WaitForReady(true)); err != nil {
			t.Fatal(err)
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.headers) != 2 || rs.headers[0] != "Bearer one" || rs.headers[1] != "Bearer two" {
		t.Errorf("server saw authorization %v, want [Bearer one, Bearer two]", rs.headers)
	}
}

func TestTLSRejectsUnknownServer(t *testing.T) {
	p := newTestPKI(t)
	other := newTestPKI(t)
	_, addr := startServer(t, grpc.Creds(credentials.NewTLS(p.serverConfig(t))))
	client := dial(t, Options{Addresses: []string{addr}, TLS: &TLSOptions{CAFile: other.caFile}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := client.ListResources(ctx, &informerdv1.ListResourcesRequest{})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("call to a server signed by another CA: %v, want UNAVAILABLE", err)
	}
}

func TestSeveralAddressesAreBalanced(t *testing.T) {
	first, firstAddr := startServer(t)
	second, secondAddr := startServer(t)
	client := dial(t, Options{Addresses: []string{firstAddr, secondAddr}, Token: "tok", AllowTokenWithoutTLS: true})
	// Round robin only uses a server once its connection is ready, so
	// keep calling until both have answered.
	deadline := time.Now().Add(10 * time.Second)
	for first.calls() == 0 || second.calls() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("calls: first %d, second %d; want both > 0", first.calls(), second.calls())
		}
		if _, err := client.ListResources(context.Background(), &informerdv1.ListResourcesRequest{}, grpc.WaitForReady(true)); err != nil {
			t.Fatal(err)
		}
	}
	if first.headers[0] != "Bearer tok" {
		t.Errorf("authorization = %q, want Bearer tok", first.headers[0])
	}
}

func TestCallTimeoutAppliesWithoutDeadline(t *testing.T) {
	_, addr := startServer(t)
	client := dial(t, Options{Addresses: []string{addr}, CallTimeout: 50 * time.Millisecond})
	_, err := client.Get(context.Background(), &informerdv1.GetRequest{}, grpc.WaitForReady(true))
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("Get without deadline: %v, want DEADLINE_EXCEEDED", err)
	}
}

func TestDefaultDeadlineKeepsAnExistingDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	want, _ := ctx.Deadline()
	invoker := func(ctx context.Context, _ string, _, _ interface{}, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
		if got, ok := ctx.Deadline(); !ok || !got.Equal(want) {
			t.Errorf("deadline = %v, %v; want the caller's %v", got, ok, want)
		}
		return nil
	}
	if err := defaultDeadline(time.Millisecond)(ctx, "/m", nil, nil, nil, invoker); err != nil {
		t.Fatal(err)
	}
}
