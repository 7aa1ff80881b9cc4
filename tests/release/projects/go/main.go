// Lists the configmaps of one namespace through informerd with the Go
// client as a user installs it (tests/release): one NAMESPACE/NAME a line.
//
// Usage: releasetest ADDRESS NAMESPACE
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: releasetest ADDRESS NAMESPACE")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := connection.Dial(ctx, connection.Options{Addresses: []string{os.Args[1]}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	resp, err := informerdv1.NewCacheClient(conn).List(ctx, &informerdv1.ListRequest{
		Resource:  &informerdv1.ResourceName{Resource: "configmaps"},
		Namespace: os.Args[2],
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, obj := range resp.GetItems() {
		fmt.Printf("%s/%s\n", obj.GetNamespace(), obj.GetName())
	}
}
