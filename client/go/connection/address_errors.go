package connection

import (
	"context"
	"errors"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// namingErrors makes every failed call's status message start with
// "informerd at ADDRESSES: ", so that an error read far from the Dial (a
// Reflector's log, an informer's OnError) says which server it is about: a
// typo in a port then reads as "connection refused" at that port. The code
// and details are kept, so callers still branch on them. Cancellation by
// the caller is the caller's own news and passes unchanged.
func namingErrors(addresses []string) []grpc.DialOption {
	prefix := "informerd at " + strings.Join(addresses, ",") + ": "
	name := func(err error) error {
		if err == nil || status.Code(err) == codes.Canceled {
			return err
		}
		st, ok := status.FromError(err)
		if !ok || strings.HasPrefix(st.Message(), prefix) {
			return err
		}
		p := st.Proto()
		p.Message = prefix + p.Message
		return status.ErrorProto(p)
	}
	unary := func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return name(invoker(ctx, method, req, reply, cc, opts...))
	}
	stream := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
		streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, name(err)
		}
		return &namingStream{ClientStream: s, name: name}, nil
	}
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(unary), grpc.WithChainStreamInterceptor(stream)}
}

// namingStream names the server in a stream's errors, which arrive from
// RecvMsg (a stream's opening does not wait for the server).
type namingStream struct {
	grpc.ClientStream
	name func(error) error
}

func (s *namingStream) RecvMsg(m interface{}) error {
	err := s.ClientStream.RecvMsg(m)
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	return s.name(err)
}

func (s *namingStream) SendMsg(m interface{}) error {
	err := s.ClientStream.SendMsg(m)
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	return s.name(err)
}
