package kube

import (
	"bytes"
	"context"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
)

// reportWithin is how soon a failure must reach the caller: client-go
// against a dead apiserver reports its first failed list at once.
const reportWithin = 5 * time.Second

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// notGRPC is a TCP server that answers every connection with a plain HTTP
// error, as a wrong port (a web server, a metrics port) would.
func notGRPC(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return l.Addr().String()
}

// plainGRPC is an informerd-like gRPC server without TLS, answering as
// fake does.
func plainGRPC(t *testing.T, fake *fakeServer) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	informerdv1.RegisterCacheServer(s, fake)
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return l.Addr().String()
}

func dialed(t *testing.T, opts connection.Options) informerdv1.CacheClient {
	t.Helper()
	conn, err := connection.Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return informerdv1.NewCacheClient(conn)
}

// firstWatchError runs client-go's SharedIndexInformer over lw and returns
// the first error its WatchErrorHandler is given, and when; it fails the
// test unless a second error follows, which shows that the Reflector keeps
// retrying.
func firstWatchError(t *testing.T, lw cache.ListerWatcher) (error, time.Duration) {
	t.Helper()
	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	errs := make(chan error, 2)
	if err := informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		select {
		case errs <- err:
		default:
		}
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); informer.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	select {
	case err := <-errs:
		after := time.Since(start)
		select {
		case <-errs:
		case <-time.After(3 * reportWithin):
			t.Errorf("no second error within %v of the first: the Reflector stopped retrying", 3*reportWithin)
		}
		return err, after
	case <-time.After(reportWithin):
		t.Fatalf("no error reached the WatchErrorHandler within %v", reportWithin)
	}
	return nil, 0
}

// TestFailuresReachTheWatchErrorHandler: a wrong address (nothing
// listening, something that is not gRPC, TLS to a plaintext server) or a
// refused token is
// reported to client-go's WatchErrorHandler within 5s, naming the address and
// the reason, and the Reflector keeps retrying (a second report comes).
func TestFailuresReachTheWatchErrorHandler(t *testing.T) {
	for _, c := range []struct {
		name   string
		opts   func(t *testing.T) connection.Options
		reason string // a regexp
	}{
		{"closed port", func(t *testing.T) connection.Options {
			return connection.Options{Addresses: []string{closedPort(t)}}
		}, "connection refused"},
		{"not gRPC", func(t *testing.T) connection.Options {
			return connection.Options{Addresses: []string{notGRPC(t)}}
		}, "server preface|http2|frame"},
		{"TLS to a plaintext server", func(t *testing.T) connection.Options {
			return connection.Options{Addresses: []string{plainGRPC(t, &fakeServer{})}, TLS: &connection.TLSOptions{}}
		}, "tls|handshake"},
		// Fault injection: the server refuses the token as informerd does
		// when the apiserver's TokenReview says it is not authenticated.
		{"refused token", func(t *testing.T) connection.Options {
			refused := status.Error(codes.Unauthenticated, "token not authenticated by the apiserver")
			refusing := &fakeServer{lists: []listAnswer{{err: refused}, {err: refused}}, watches: []watchScript{{err: refused}, {err: refused}}}
			return connection.Options{Addresses: []string{plainGRPC(t, refusing)}, Token: "wrong", AllowTokenWithoutTLS: true}
		}, "Unauthorized|not authenticated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts(t)
			lw, err := NewListerWatcher(dialed(t, opts), podsGVR, &corev1.Pod{})
			if err != nil {
				t.Fatal(err)
			}
			err, after := firstWatchError(t, lw)
			t.Logf("after %v: %v", after, err)
			msg := err.Error()
			if !strings.Contains(msg, opts.Addresses[0]) || !strings.Contains(msg, "pods") ||
				!regexp.MustCompile("(?i)"+c.reason).MatchString(msg) {
				t.Errorf("error %q does not name the address %s, the resource and the reason /%s/", msg, opts.Addresses[0], c.reason)
			}
		})
	}
}

// TestListEndsWithTheErrorNamingTheAddress: one List against a closed port
// returns (does not wait for ever) with a 503 naming the address.
func TestListEndsWithTheErrorNamingTheAddress(t *testing.T) {
	addr := closedPort(t)
	lw, _ := NewListerWatcher(dialed(t, connection.Options{Addresses: []string{addr}}), podsGVR, &corev1.Pod{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*reportWithin)
	defer cancel()
	start := time.Now()
	_, err := lw.ListWithContext(ctx, metav1.ListOptions{})
	took := time.Since(start)
	if err == nil || ctx.Err() != nil || took > reportWithin {
		t.Fatalf("List returned %v after %v, want an error within %v", err, took, reportWithin)
	}
	if !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("List error %q does not name %s and the reason", err, addr)
	}
}

// syncBuffer is a bytes.Buffer safe for klog's concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFailuresAreLoggedAtDefaultVerbosity: with client-go's default
// WatchErrorHandler, a closed port shows in klog's output at the default
// verbosity (no -v), as client-go's own list failures do.
func TestFailuresAreLoggedAtDefaultVerbosity(t *testing.T) {
	var out syncBuffer
	klog.LogToStderr(false)
	klog.SetOutput(&out)
	defer func() { klog.SetOutput(nil); klog.LogToStderr(true) }()

	addr := closedPort(t)
	lw, _ := NewListerWatcher(dialed(t, connection.Options{Addresses: []string{addr}}), podsGVR, &corev1.Pod{})
	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); informer.RunWithContext(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(reportWithin)
	for !(strings.Contains(out.String(), addr) && strings.Contains(out.String(), "connection refused")) {
		if time.Now().After(deadline) {
			t.Fatalf("klog output %v after start does not name %s and the reason:\n%s", reportWithin, addr, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("klog:\n%s", out.String())
}
