// Command example is the uniform informerd example informer (see
// hack/example.sh): it watches one resource with a client-go
// SharedIndexInformer from the informerd factory (kube/factory) and prints
// one line per handler call, "SYNCED" once the initial listing is delivered;
// then it adds a second handler to the running informer, whose lines carry
// the prefix "LATE " and which prints "LATE SYNCED" once its registration
// has synced (every cached object delivered to it as an ADD). On SIGTERM it
// stops the informer and prints the whole cache as sorted "CACHE key rv"
// lines. Logs go to stderr; stdout has nothing else.
//
// ADDR is host:port, or several host:port separated by commas (replicas).
//
// Usage: example --server ADDR --resource RESOURCE[.GROUP] [-n NS]
//
//	[-l SELECTOR] [--token-file F] [--ca-file F]
//
// With --ca-file the connection is TLS, verified with that file's
// certificates; without it, plaintext (and a token is then sent in clear
// text: the example talks to a local server).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"github.com/informerd/informerd/client/go/kube/factory"
)

func main() {
	server := flag.String("server", "", "informerd gRPC address (host:port), or several comma-separated (replicas, balanced round robin)")
	resource := flag.String("resource", "", "resource to watch, e.g. configmaps or deployments.apps")
	namespace := flag.String("n", "", "namespace (default: all)")
	selector := flag.String("l", "", "label selector")
	tokenFile := flag.String("token-file", "", "file holding a bearer token, re-read on every call")
	caFile := flag.String("ca-file", "", "PEM CA certificates to verify informerd's TLS certificate with; empty: plaintext")
	flag.Parse()
	if *server == "" || *resource == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*server, *resource, *namespace, *selector, *tokenFile, *caFile); err != nil {
		log.Fatal(err)
	}
}

func run(server, resource, namespace, selector, tokenFile, caFile string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	options := connection.Options{
		// Several replicas fail over by resourceVersion: a watch broken by
		// one resumes on another.
		Addresses: strings.Split(server, ","),
		TokenFile: tokenFile,
	}
	if caFile != "" {
		options.TLS = &connection.TLSOptions{CAFile: caFile}
	} else {
		// Without --ca-file the example talks to a local server (the e2e
		// suites); in a pod it is given the chart's CA.
		options.AllowTokenWithoutTLS = true
	}
	conn, err := connection.Dial(ctx, options)
	if err != nil {
		return err
	}
	defer conn.Close()

	// No version: the one informerd serves (the factory asks it, with the
	// kind, when the informer first lists).
	gvr := schema.GroupVersionResource{Resource: resource}
	if i := strings.IndexByte(resource, '.'); i >= 0 {
		gvr = schema.GroupVersionResource{Group: resource[i+1:], Resource: resource[:i]}
	}
	// Resync 0: resyncs would print UPDATE lines with equal versions.
	f := factory.New(informerdv1.NewCacheClient(conn), 0,
		factory.WithNamespace(namespace), factory.WithSelectors(selector, ""))
	informer := f.ForResource(gvr).Informer()
	informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		log.Printf("informer: %v", err)
	})

	out := &output{}
	first := newPrinter(ctx, out, "")
	if err := first.register(informer); err != nil {
		return err
	}
	terminate := make(chan os.Signal, 1)
	signal.Notify(terminate, syscall.SIGTERM, syscall.SIGINT)
	f.StartWithContext(ctx)
	go func() {
		if !first.waitSynced() {
			return
		}
		// The second handler joins the running informer only now, so no
		// LATE line can come before SYNCED.
		late := newPrinter(ctx, out, "LATE ")
		if err := late.register(informer); err != nil {
			log.Printf("adding the late handler: %v", err) // stopped meanwhile
			return
		}
		late.waitSynced()
	}()
	<-terminate
	cancel()
	f.Shutdown() // no handler runs after this, so the cache is final
	out.printCache(informer.GetIndexer())
	return nil
}

// printer is one handler. Its SYNCED line must come after its initial adds
// and before any live event: it is printed once the registration reports
// HasSynced, by waitSynced when no live event comes first, or by the handler
// before its first live event (which it holds back until then).
type printer struct {
	ctx    context.Context
	out    *output
	prefix string
	// registered is closed once reg is set: a live event can reach the
	// handler before AddEventHandler has returned the registration.
	registered chan struct{}
	reg        cache.ResourceEventHandlerRegistration
	// once makes concurrent callers wait until SYNCED is out.
	once   sync.Once
	synced bool
}

func newPrinter(ctx context.Context, out *output, prefix string) *printer {
	return &printer{ctx: ctx, out: out, prefix: prefix, registered: make(chan struct{})}
}

func (p *printer) register(informer cache.SharedIndexInformer) error {
	reg, err := informer.AddEventHandler(p)
	if err != nil {
		return err
	}
	p.reg = reg
	close(p.registered)
	return nil
}

// waitSynced prints SYNCED once the registration has synced; false if the
// program stops first.
func (p *printer) waitSynced() bool {
	select {
	case <-p.registered:
	case <-p.ctx.Done():
		return false
	}
	if !cache.WaitFor(p.ctx, "", p.reg.HasSyncedChecker()) {
		return false
	}
	p.once.Do(func() {
		p.synced = true
		p.out.emit(p.prefix + "SYNCED")
	})
	return p.synced
}

func (p *printer) OnAdd(obj interface{}, isInInitialList bool) {
	if !isInInitialList && !p.waitSynced() {
		return
	}
	key, rv := describe(obj)
	p.out.emit(fmt.Sprintf("%sADD %s %s", p.prefix, key, rv))
}

func (p *printer) OnUpdate(oldObj, newObj interface{}) {
	if !p.waitSynced() {
		return
	}
	key, rv := describe(newObj)
	_, oldRV := describe(oldObj)
	p.out.emit(fmt.Sprintf("%sUPDATE %s %s %s", p.prefix, key, oldRV, rv))
}

func (p *printer) OnDelete(obj interface{}) {
	if !p.waitSynced() {
		return
	}
	suffix := ""
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		// The object is the last state the informer knew.
		obj, suffix = tombstone.Obj, " final-state-unknown"
	}
	key, rv := describe(obj)
	p.out.emit(fmt.Sprintf("%sDELETE %s %s%s", p.prefix, key, rv, suffix))
}

// describe is an object's key (ns/name, or name if cluster scoped) and
// resourceVersion.
func describe(obj interface{}) (key, rv string) {
	m, err := meta.Accessor(obj)
	if err != nil {
		log.Fatalf("handler got %T: %v", obj, err)
	}
	key = m.GetName()
	if m.GetNamespace() != "" {
		key = m.GetNamespace() + "/" + key
	}
	return key, m.GetResourceVersion()
}

// output writes whole lines to stdout under a lock (both handlers print),
// and nothing after the CACHE lines.
type output struct {
	mu     sync.Mutex
	closed bool
}

// emit writes one line with a single write; os.Stdout is unbuffered, so
// the line is out before emit returns.
func (o *output) emit(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	write(line)
}

func (o *output) printCache(indexer cache.Indexer) {
	var lines []string
	for _, obj := range indexer.List() {
		key, rv := describe(obj)
		lines = append(lines, fmt.Sprintf("CACHE %s %s", key, rv))
	}
	sort.Strings(lines)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	for _, line := range lines {
		write(line)
	}
}

func write(line string) {
	if _, err := os.Stdout.WriteString(line + "\n"); err != nil {
		log.Fatalf("writing stdout: %v", err)
	}
}
