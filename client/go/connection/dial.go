package connection

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
)

const roundRobin = `{"loadBalancingConfig":[{"round_robin":{}}]}`

// reconnect replaces gRPC's default connection backoff, which grows to two
// minutes: after a server restart, informers would wait that long for the
// channel. Capped at 1s so that a client is caught up within a few seconds
// of a restarted server's readiness; one connection attempt a second to a
// down server costs nothing worth saving.
var reconnect = grpc.WithConnectParams(grpc.ConnectParams{
	Backoff: backoff.Config{
		BaseDelay:  100 * time.Millisecond,
		Multiplier: 1.6,
		Jitter:     0.2,
		MaxDelay:   time.Second,
	},
	MinConnectTimeout: 5 * time.Second,
})

// resolverCount makes each Dial's resolver scheme unique, so connections
// with different address lists never share one.
var resolverCount int64

// Dial returns a connection to informerd configured by opts. Like
// grpc.Dial it does not wait for the server: calls fail with UNAVAILABLE
// (and informers retry) until it is reachable; a lost connection is retried
// at most 1s apart. The message of every failed call starts "informerd at
// ADDRESSES: ". extra options are appended and win over Dial's, e.g.
// grpc.WithBlock(). The caller closes the connection.
func Dial(ctx context.Context, opts Options, extra ...grpc.DialOption) (*grpc.ClientConn, error) {
	target, dialOptions, err := dialSettings(opts)
	if err != nil {
		return nil, err
	}
	return grpc.DialContext(ctx, target, append(dialOptions, extra...)...)
}

// dialSettings turns opts into a gRPC target and dial options.
func dialSettings(opts Options) (string, []grpc.DialOption, error) {
	target, dialOptions, err := targetSettings(opts.Addresses)
	if err != nil {
		return "", nil, err
	}
	if opts.TLS != nil {
		config, err := tlsConfig(opts.TLS)
		if err != nil {
			return "", nil, err
		}
		dialOptions = append(dialOptions, grpc.WithTransportCredentials(credentials.NewTLS(config)))
	} else {
		dialOptions = append(dialOptions, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if opts.Token != "" && opts.TokenFile != "" {
		return "", nil, errors.New("connection: set at most one of Token and TokenFile")
	}
	if opts.Token != "" || opts.TokenFile != "" {
		if opts.TLS == nil && !opts.AllowTokenWithoutTLS {
			return "", nil, errors.New("connection: a token needs TLS (or AllowTokenWithoutTLS)")
		}
		dialOptions = append(dialOptions, grpc.WithPerRPCCredentials(bearerToken{
			token: opts.Token, file: opts.TokenFile, requireTLS: opts.TLS != nil,
		}))
	}
	if opts.CallTimeout < 0 {
		return "", nil, errors.New("connection: CallTimeout must not be negative")
	}
	if opts.CallTimeout > 0 {
		dialOptions = append(dialOptions, grpc.WithChainUnaryInterceptor(defaultDeadline(opts.CallTimeout)))
	}
	dialOptions = append(dialOptions, flowControl...)
	dialOptions = append(dialOptions, namingErrors(opts.Addresses)...)
	return target, dialOptions, nil
}

// flowControl: fixed HTTP/2 receive windows. With gRPC's default (64 KiB,
// grown by BDP pings only under high bandwidth) a Watch of objects of a few
// KiB at a steady rate makes the client acknowledge nearly every event with
// a WINDOW_UPDATE, a write here and a read in informerd: in bench/adoption's
// profile of 100 pod updates/s, the client's write syscalls were 11% of its
// CPU; with these windows they are gone from it. Windows of 1 MiB per stream
// and 4 MiB per connection cost at most that much buffering in the client
// for a reader that stops.
var flowControl = []grpc.DialOption{
	grpc.WithInitialWindowSize(1 << 20),
	grpc.WithInitialConnWindowSize(4 << 20),
}

// targetSettings returns the target for addresses: a plain target for one
// address, or a private resolver that lists them all.
func targetSettings(addresses []string) (string, []grpc.DialOption, error) {
	if len(addresses) == 0 {
		return "", nil, errors.New("connection: Addresses is empty")
	}
	for i, a := range addresses {
		if strings.TrimSpace(a) == "" {
			return "", nil, fmt.Errorf("connection: Addresses[%d] is empty", i)
		}
	}
	balance := grpc.WithDefaultServiceConfig(roundRobin)
	if len(addresses) == 1 {
		return addresses[0], []grpc.DialOption{balance, reconnect}, nil
	}
	state := resolver.State{}
	for i, a := range addresses {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			return "", nil, fmt.Errorf("connection: Addresses[%d]: %w", i, err)
		}
		// ServerName: TLS verifies each server by its own host, not by the
		// resolver's made-up authority.
		state.Addresses = append(state.Addresses, resolver.Address{Addr: a, ServerName: host})
	}
	scheme := fmt.Sprintf("informerd-addresses-%d", atomic.AddInt64(&resolverCount, 1))
	r := manual.NewBuilderWithScheme(scheme)
	r.InitialState(state)
	return scheme + ":///informerd", []grpc.DialOption{balance, reconnect, grpc.WithResolvers(r)}, nil
}

func defaultDeadline(timeout time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn,
		invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}
