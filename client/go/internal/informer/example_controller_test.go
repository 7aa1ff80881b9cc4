package informer_test

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
	"github.com/informerd/informerd/client/go/internal/decode"
	"github.com/informerd/informerd/client/go/internal/informer"
)

// configMap is the part of a ConfigMap this controller reads.
type configMap struct {
	Data map[string]string `json:"data"`
}

// keyQueue holds each key at most once, so a burst of events for one object
// becomes one piece of work.
type keyQueue struct {
	mu      sync.Mutex
	pending map[string]bool
	order   []string
	ready   chan struct{}
}

func newKeyQueue() *keyQueue {
	return &keyQueue{pending: map[string]bool{}, ready: make(chan struct{}, 1)}
}

func (q *keyQueue) add(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.pending[key] {
		q.pending[key] = true
		q.order = append(q.order, key)
	}
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *keyQueue) takeAll() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	keys := q.order
	q.order, q.pending = nil, map[string]bool{}
	return keys
}

// A controller: handlers only enqueue keys; a worker reads each object's
// current state from the lister, so it never acts on a stale event.
func Example_controller() {
	ctx := context.Background()
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{"127.0.0.1:50051"}})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	inf, err := informer.New(informerdv1.NewCacheClient(conn), informer.Config{
		Resource:  &informerdv1.ResourceName{Resource: "configmaps"},
		Namespace: "default",
	})
	if err != nil {
		log.Fatal(err)
	}
	queue := newKeyQueue()
	enqueue := func(obj *informerdv1.Object) { queue.add(cache.ObjectKey(obj)) }
	_ = inf.AddEventHandler(informer.EventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, newObj *informerdv1.Object) { enqueue(newObj) },
		DeleteFunc: func(obj *informerdv1.Object, _ bool) { enqueue(obj) },
	})
	inf.Start(ctx)
	if !inf.WaitForSync(ctx) {
		log.Fatal("informer stopped before syncing")
	}

	for range queue.ready {
		for _, key := range queue.takeAll() {
			obj, exists := inf.Lister().Get(cache.SplitKey(key))
			if !exists {
				fmt.Println("gone:", key)
				continue
			}
			cm, err := decode.Decode[configMap](obj)
			if err != nil {
				log.Printf("%s: %v", key, err)
				continue
			}
			fmt.Println("reconcile:", key, len(cm.Data), "keys")
		}
	}
}
