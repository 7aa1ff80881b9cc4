// Command example is the uniform informerd example informer (see
// hack/example.sh): it watches one resource and prints one line per handler
// call, "SYNCED" once the initial listing is delivered, and on SIGTERM the
// whole cache as sorted "CACHE key rv" lines. Logs go to stderr; stdout has
// nothing else.
//
// Usage: example --server ADDR --resource RESOURCE[.GROUP] [-n NS]
//
//	[-l SELECTOR] [--token-file F]
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

	"github.com/informerd/informerd/client/go/cache"
	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informer"
	"github.com/informerd/informerd/client/go/informerdv1"
)

func main() {
	server := flag.String("server", "", "informerd gRPC address (host:port)")
	resource := flag.String("resource", "", "resource to watch, e.g. configmaps or deployments.apps")
	namespace := flag.String("n", "", "namespace (default: all)")
	selector := flag.String("l", "", "label selector")
	tokenFile := flag.String("token-file", "", "file holding a bearer token, re-read on every call")
	flag.Parse()
	if *server == "" || *resource == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*server, *resource, *namespace, *selector, *tokenFile); err != nil {
		log.Fatal(err)
	}
}

func run(server, resource, namespace, selector, tokenFile string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := connection.Dial(ctx, connection.Options{
		Addresses: []string{server},
		TokenFile: tokenFile,
		// The uniform example has no TLS flags; it talks to a local server.
		AllowTokenWithoutTLS: true,
	})
	if err != nil {
		return err
	}
	defer conn.Close()

	name, group := resource, ""
	if i := strings.IndexByte(resource, '.'); i >= 0 {
		name, group = resource[:i], resource[i+1:]
	}
	inf, err := informer.New(informerdv1.NewCacheClient(conn), informer.Config{
		Resource:      &informerdv1.ResourceName{Group: group, Resource: name},
		Namespace:     namespace,
		LabelSelector: selector,
	})
	if err != nil {
		return err
	}
	out := &printer{informer: inf}
	if err := inf.AddEventHandler(out); err != nil {
		return err
	}

	terminate := make(chan os.Signal, 1)
	signal.Notify(terminate, syscall.SIGTERM, syscall.SIGINT)
	inf.Start(ctx)
	go func() {
		if inf.WaitForSync(ctx) {
			out.synced()
		}
	}()
	<-terminate
	cancel()
	<-inf.Done() // no handler runs after this, so the cache is final
	out.printCache(inf.Lister())
	return nil
}

// printer prints the handler calls. SYNCED must come after the initial adds
// and before any live event: the informer marks itself synced right after
// delivering the initial listing on its own goroutine, so a handler that
// sees HasSynced has a live event and prints SYNCED first, and main prints
// it when no live event comes.
type printer struct {
	informer *informer.RemoteInformer
	// once makes concurrent callers wait until SYNCED is out.
	once sync.Once
}

func (p *printer) synced() { p.once.Do(func() { emit("SYNCED") }) }

func (p *printer) OnAdd(obj *informerdv1.Object) {
	p.syncedIfLive()
	emit(fmt.Sprintf("ADD %s %s", cache.ObjectKey(obj), obj.GetResourceVersion()))
}

func (p *printer) OnUpdate(oldObj, newObj *informerdv1.Object) {
	p.syncedIfLive()
	emit(fmt.Sprintf("UPDATE %s %s %s", cache.ObjectKey(newObj), oldObj.GetResourceVersion(), newObj.GetResourceVersion()))
}

func (p *printer) OnDelete(obj *informerdv1.Object, finalStateUnknown bool) {
	p.syncedIfLive()
	line := fmt.Sprintf("DELETE %s %s", cache.ObjectKey(obj), obj.GetResourceVersion())
	if finalStateUnknown {
		line += " final-state-unknown"
	}
	emit(line)
}

func (p *printer) syncedIfLive() {
	if p.informer.HasSynced() {
		p.synced()
	}
}

func (p *printer) printCache(lister cache.Lister) {
	var lines []string
	for _, obj := range lister.List(nil) {
		lines = append(lines, fmt.Sprintf("CACHE %s %s", cache.ObjectKey(obj), obj.GetResourceVersion()))
	}
	sort.Strings(lines)
	for _, line := range lines {
		emit(line)
	}
}

// emit writes one line with a single write; os.Stdout is unbuffered, so
// the line is out before emit returns.
func emit(line string) {
	if _, err := os.Stdout.WriteString(line + "\n"); err != nil {
		log.Fatalf("writing stdout: %v", err)
	}
}
