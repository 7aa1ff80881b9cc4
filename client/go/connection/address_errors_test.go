package connection

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/informerdv1"
)

// TestErrorsNameTheServerAndKeepTheirCode: a server's error (unary and
// stream) reads "informerd at ADDRESS: ..." with its code unchanged; the
// caller's own cancellation is passed as it is.
func TestErrorsNameTheServerAndKeepTheirCode(t *testing.T) {
	_, addr := startServer(t)
	client := dial(t, Options{Addresses: []string{addr}})
	prefix := "informerd at " + addr + ": "

	_, err := client.List(context.Background(), &informerdv1.ListRequest{})
	if st := status.Convert(err); st.Code() != codes.Unimplemented || !strings.HasPrefix(st.Message(), prefix) {
		t.Errorf("unary: %v, want UNIMPLEMENTED starting %q", err, prefix)
	}
	stream, err := client.Watch(context.Background(), &informerdv1.WatchRequest{})
	if err == nil {
		_, err = stream.Recv()
	}
	if st := status.Convert(err); st.Code() != codes.Unimplemented || !strings.HasPrefix(st.Message(), prefix) {
		t.Errorf("stream: %v, want UNIMPLEMENTED starting %q", err, prefix)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = client.List(ctx, &informerdv1.ListRequest{})
	if st := status.Convert(err); st.Code() != codes.Canceled || strings.Contains(st.Message(), addr) {
		t.Errorf("cancelled: %v, want CANCELED as gRPC says it", err)
	}
}
