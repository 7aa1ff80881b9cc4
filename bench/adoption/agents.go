package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
)

// agentFields is a node agent's five-field mask (the shape of issue 36's
// node agents: the pods of its node, a few fields of each).
var agentFields = []string{"spec.nodeName", "status.podIP", "metadata.labels", "spec.containers.image", "status.phase"}

// runAgents is the node-agent shape: one watch per node (node-0 ..
// node-<nodes-1>, the pod fixture's nodes) of the namespace's pods with
// fieldSelector spec.nodeName=<node>, from the current version on, each
// event decoded into a corev1.Pod. Direct (server empty): client-go's typed
// watch in protobuf, the apiserver's full objects. Through informerd: its
// Watch with the same selector, agentFields as the mask, in protobuf. It
// prints "ready watches=N" once every watch is open, then on each SIGUSR1
//
//	mark events=E bytes=B cpu_seconds=C rss_kib=R
//
// (events decoded so far, the bytes they arrived in: response body bytes
// direct, serialized gRPC messages through informerd), until SIGTERM.
func runAgents(config *rest.Config, namespace string, nodes int, server string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var events, bytes atomic.Int64
	var failure atomic.Value
	fail := func(err error) {
		failure.CompareAndSwap(nil, err)
		cancel()
	}
	var opened sync.WaitGroup
	opened.Add(nodes)
	if server == "" {
		config = rest.CopyConfig(config)
		config.ContentType = "application/vnd.kubernetes.protobuf"
		config.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
		config.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{rt, &bytes} })
		cs, err := kubernetes.NewForConfig(config)
		if err != nil {
			return err
		}
		start, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return err
		}
		for i := 0; i < nodes; i++ {
			go func(node string) {
				w, err := cs.CoreV1().Pods(namespace).Watch(ctx, metav1.ListOptions{
					FieldSelector: "spec.nodeName=" + node, ResourceVersion: start.ResourceVersion, AllowWatchBookmarks: true})
				opened.Done()
				if err != nil {
					fail(fmt.Errorf("watch %s: %w", node, err))
					return
				}
				defer w.Stop()
				for ev := range w.ResultChan() {
					if ev.Type == watch.Error {
						fail(fmt.Errorf("watch %s: %v", node, ev.Object))
						return
					}
					if _, ok := ev.Object.(*corev1.Pod); ok && ev.Type != watch.Bookmark {
						events.Add(1)
					}
				}
			}(fmt.Sprintf("node-%d", i))
		}
	} else {
		conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{server}},
			grpc.WithChainStreamInterceptor(countingStream(&bytes)))
		if err != nil {
			return err
		}
		defer conn.Close()
		cc := informerdv1.NewCacheClient(conn)
		resource := &informerdv1.ResourceName{Version: "v1", Resource: "pods"}
		start, err := cc.List(ctx, &informerdv1.ListRequest{Resource: resource, Namespace: namespace, Limit: 1,
			Projection: informerdv1.Projection_PROJECTION_METADATA})
		if err != nil {
			return err
		}
		decoder := clientgoscheme.Codecs.UniversalDeserializer()
		for i := 0; i < nodes; i++ {
			go func(node string) {
				stream, err := cc.Watch(ctx, &informerdv1.WatchRequest{Resource: resource, Namespace: namespace,
					FieldSelector: "spec.nodeName=" + node, ResourceVersion: start.ResourceVersion, AllowBookmarks: true,
					Fields: agentFields, Encoding: informerdv1.Encoding_ENCODING_PROTOBUF})
				opened.Done()
				if err != nil {
					fail(fmt.Errorf("watch %s: %w", node, err))
					return
				}
				for {
					ev, err := stream.Recv()
					if err != nil {
						if ctx.Err() == nil {
							fail(fmt.Errorf("watch %s: %w", node, err))
						}
						return
					}
					if ev.Type == informerdv1.WatchEvent_BOOKMARK {
						continue
					}
					obj, _, err := decoder.Decode(ev.GetObject().GetProtobuf(), nil, &corev1.Pod{})
					if err != nil {
						fail(fmt.Errorf("watch %s: decoding %s: %w", node, ev.GetObject().GetName(), err))
						return
					}
					if _, ok := obj.(*corev1.Pod); ok {
						events.Add(1)
					}
				}
			}(fmt.Sprintf("node-%d", i))
		}
	}
	opened.Wait()
	fmt.Printf("ready watches=%d\n", nodes)
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	for {
		select {
		case <-ctx.Done():
			if err, _ := failure.Load().(error); err != nil {
				return err
			}
			return nil
		case s := <-signals:
			if s != syscall.SIGUSR1 {
				return nil
			}
			fmt.Printf("mark events=%d bytes=%d cpu_seconds=%.3f rss_kib=%d\n",
				events.Load(), bytes.Load(), cpuSeconds(), statusKiB("VmRSS"))
		}
	}
}

// countingTransport adds the response body bytes read to n.
type countingTransport struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err == nil {
		resp.Body = countingBody{resp.Body, t.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// countingStream adds the serialized size of every message a stream
// receives to n.
func countingStream(n *atomic.Int64) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, err
		}
		return countedStream{s, n}, nil
	}
}

type countedStream struct {
	grpc.ClientStream
	n *atomic.Int64
}

func (s countedStream) RecvMsg(m interface{}) error {
	err := s.ClientStream.RecvMsg(m)
	if pm, ok := m.(proto.Message); ok && err == nil {
		s.n.Add(int64(proto.Size(pm)))
	}
	return err
}
