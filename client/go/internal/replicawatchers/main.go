// Command watchers runs many independent informers (client/go's
// RemoteInformer), each on a connection of its own to the same informerd
// replicas, as many light clients would: the bulk of the replicas suite's
// watching clients (tests/replicas).
//
// Each informer's handler keeps the state its calls imply and notes every
// call that a client failing over without a relist must never see: an ADD
// of a key it has, an UPDATE whose old version is not the one it has (a
// replayed or missed event), a DELETE of an unknown key, a
// final-state-unknown DELETE (which only a relist makes). A Watch that asks
// for the initial state after the informer has synced is a relist, and is
// counted.
//
// Protocol (stdout carries only these lines; logs go to stderr):
//   - "SYNCED" once every informer has synced;
//   - for each stdin line "CHECK <JSON object key -> resourceVersion>" (the
//     apiserver's LIST), one line "STATUS <JSON>" (see report);
//   - stdin closed, SIGTERM or SIGINT: the informers stop, exit 0.
//
// Usage: watchers --server ADDR[,ADDR...] --namespace NS --count N
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/internal/cache"
	"github.com/informerd/informerd/client/go/internal/informer"
)

// maxReported bounds the errors and differences a STATUS line lists.
const maxReported = 20

func main() {
	server := flag.String("server", "", "informerd addresses, comma-separated")
	namespace := flag.String("namespace", "", "namespace whose configmaps every informer watches")
	count := flag.Int("count", 0, "number of informers")
	flag.Parse()
	if *server == "" || *namespace == "" || *count <= 0 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(strings.Split(*server, ","), *namespace, *count); err != nil {
		log.Fatal(err)
	}
}

func run(addresses []string, namespace string, count int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchers := make([]*watcher, count)
	for i := range watchers {
		w, err := startWatcher(ctx, i, addresses, namespace)
		if err != nil {
			return err
		}
		defer w.conn.Close()
		watchers[i] = w
	}
	out := &output{}
	go func() {
		for _, w := range watchers {
			if !w.inf.WaitForSync(ctx) {
				return
			}
		}
		out.line("SYNCED")
	}()

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	inputDone := make(chan error, 1)
	go func() { inputDone <- serve(os.Stdin, out, watchers) }()
	var err error
	select {
	case <-stop:
	case err = <-inputDone:
	}
	cancel()
	for _, w := range watchers {
		<-w.inf.Done()
	}
	return err
}

// serve answers CHECK lines until input ends.
func serve(input *os.File, out *output, watchers []*watcher) error {
	scanner := bufio.NewScanner(input)
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	for scanner.Scan() {
		command, argument, _ := strings.Cut(scanner.Text(), " ")
		if command != "CHECK" {
			return fmt.Errorf("unknown command %q", command)
		}
		want := map[string]string{}
		if err := json.Unmarshal([]byte(argument), &want); err != nil {
			return fmt.Errorf("CHECK: %w", err)
		}
		encoded, err := json.Marshal(check(watchers, want))
		if err != nil {
			return err
		}
		out.line("STATUS " + string(encoded))
	}
	return scanner.Err()
}

// report is the answer to CHECK.
type report struct {
	Informers int `json:"informers"`
	Synced    int `json:"synced"`
	// Informers whose handler state and cache both equal the LIST.
	Matching int `json:"matching"`
	// Relists of all informers after their first sync.
	Relists int `json:"relists"`
	// Streams that ended in an error, by gRPC code: failovers show here.
	StreamErrors map[string]int `json:"stream_errors"`
	// The handler calls a failover without relist never makes (first few),
	// and how many there were.
	Errors      []string `json:"errors"`
	ErrorsTotal int      `json:"errors_total"`
	// How the first informers that differ from the LIST differ (first few).
	Differences []string `json:"differences"`
}

func check(watchers []*watcher, want map[string]string) report {
	s := report{Informers: len(watchers), StreamErrors: map[string]int{}}
	for _, w := range watchers {
		w.mu.Lock()
		if w.inf.HasSynced() {
			s.Synced++
		}
		s.Relists += w.relists
		for code, n := range w.streamErrors {
			s.StreamErrors[code] += n
		}
		s.ErrorsTotal += len(w.errors)
		for _, e := range w.errors {
			if len(s.Errors) < maxReported {
				s.Errors = append(s.Errors, fmt.Sprintf("informer %d: %s", w.id, e))
			}
		}
		differences := diff("handler state", w.state, want)
		w.mu.Unlock()
		differences = append(differences, diff("cache", cacheState(w.inf.Lister()), want)...)
		if len(differences) == 0 {
			s.Matching++
		}
		for _, d := range differences {
			if len(s.Differences) < maxReported {
				s.Differences = append(s.Differences, fmt.Sprintf("informer %d: %s", w.id, d))
			}
		}
	}
	return s
}

func cacheState(lister cache.Lister) map[string]string {
	state := map[string]string{}
	for _, obj := range lister.List(nil) {
		state[cache.ObjectKey(obj)] = obj.GetResourceVersion()
	}
	return state
}

func diff(what string, got, want map[string]string) []string {
	var out []string
	for key, rv := range want {
		if g, ok := got[key]; !ok {
			out = append(out, fmt.Sprintf("%s lacks %s (rv %s in the LIST)", what, key, rv))
		} else if g != rv {
			out = append(out, fmt.Sprintf("%s has %s at rv %s, the LIST at %s", what, key, g, rv))
		}
	}
	for key, rv := range got {
		if _, ok := want[key]; !ok {
			out = append(out, fmt.Sprintf("%s has %s at rv %s, absent from the LIST", what, key, rv))
		}
	}
	sort.Strings(out)
	return out
}

// watcher is one informer, its connection and what its handler saw.
type watcher struct {
	id   int
	conn *grpc.ClientConn
	inf  *informer.RemoteInformer

	mu           sync.Mutex
	state        map[string]string // key -> rv, from the handler calls
	errors       []string
	relists      int
	streamErrors map[string]int
}

func startWatcher(ctx context.Context, id int, addresses []string, namespace string) (*watcher, error) {
	conn, err := connection.Dial(ctx, connection.Options{Addresses: addresses})
	if err != nil {
		return nil, fmt.Errorf("informer %d: %w", id, err)
	}
	w := &watcher{id: id, conn: conn, state: map[string]string{}, streamErrors: map[string]int{}}
	client := &countingClient{CacheClient: informerdv1.NewCacheClient(conn), w: w}
	inf, err := informer.New(client, informer.Config{
		Resource:  &informerdv1.ResourceName{Resource: "configmaps"},
		Namespace: namespace,
		OnError:   w.streamEnded,
	})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("informer %d: %w", id, err)
	}
	if err := inf.AddEventHandler(w); err != nil {
		conn.Close()
		return nil, err
	}
	w.inf = inf
	inf.Start(ctx)
	return w, nil
}

func (w *watcher) streamEnded(err error) {
	code := status.Code(err).String()
	w.mu.Lock()
	w.streamErrors[code]++
	w.mu.Unlock()
	log.Printf("informer %d: stream ended: %v", w.id, err)
}

func (w *watcher) fail(format string, args ...any) {
	w.errors = append(w.errors, fmt.Sprintf(format, args...))
}

func (w *watcher) OnAdd(obj *informerdv1.Object) {
	key, rv := cache.ObjectKey(obj), obj.GetResourceVersion()
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, ok := w.state[key]; ok {
		w.fail("ADD %s %s of a key already at rv %s", key, rv, old)
	}
	w.state[key] = rv
}

func (w *watcher) OnUpdate(oldObj, newObj *informerdv1.Object) {
	key, oldRV, rv := cache.ObjectKey(newObj), oldObj.GetResourceVersion(), newObj.GetResourceVersion()
	w.mu.Lock()
	defer w.mu.Unlock()
	if have, ok := w.state[key]; !ok {
		w.fail("UPDATE %s %s %s of an unknown key", key, oldRV, rv)
	} else if have != oldRV {
		w.fail("UPDATE %s %s %s, but the handler state has rv %s (a replayed or missed event)", key, oldRV, rv, have)
	}
	if older(rv, oldRV) {
		w.fail("UPDATE %s %s %s goes back in versions (a replayed event)", key, oldRV, rv)
	}
	w.state[key] = rv
}

func (w *watcher) OnDelete(obj *informerdv1.Object, finalStateUnknown bool) {
	key, rv := cache.ObjectKey(obj), obj.GetResourceVersion()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.state[key]; !ok {
		w.fail("DELETE %s %s of an unknown key", key, rv)
	}
	if finalStateUnknown {
		w.fail("DELETE %s %s final-state-unknown: learnt from a relist", key, rv)
	}
	delete(w.state, key)
}

// older reports whether resourceVersion a is below b; both are etcd
// revisions (decimal), which informerd serves as the apiserver does.
func older(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x < y
}

// countingClient counts the Watch calls of a synced informer that ask for
// the initial state: its relists.
type countingClient struct {
	informerdv1.CacheClient
	w *watcher
}

func (c *countingClient) Watch(ctx context.Context, in *informerdv1.WatchRequest, opts ...grpc.CallOption) (informerdv1.Cache_WatchClient, error) {
	if in.GetSendInitialEvents() && c.w.inf.HasSynced() {
		c.w.mu.Lock()
		c.w.relists++
		c.w.mu.Unlock()
		log.Printf("informer %d: relisting", c.w.id)
	}
	return c.CacheClient.Watch(ctx, in, opts...)
}

// output writes whole lines to stdout under a lock.
type output struct{ mu sync.Mutex }

func (o *output) line(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := os.Stdout.WriteString(s + "\n"); err != nil {
		log.Fatalf("writing stdout: %v", err)
	}
}
