package integration

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/informerd/informerd/client/go/connection"
)

// liveCluster is where each end-to-end test starts: the apiserver's admin
// client, a fresh namespace (deleted when the test ends) holding `objects`
// ConfigMaps made by a seeded churner, and an informerd serving the
// cluster, dialled with `dial` (its Addresses filled in).
type liveCluster struct {
	env       testEnv
	api       *apiserver
	namespace string
	churn     *churner
	server    *informerd
	ctx       context.Context
	cancel    context.CancelFunc // ends ctx; also called when the test ends
	conn      *grpc.ClientConn
}

func newLiveCluster(t *testing.T, prefix string, objects int, seed int64, dial connection.Options) *liveCluster {
	t.Helper()
	lc := &liveCluster{env: requireEnv(t)}
	var err error
	if lc.api, err = newAPIServer(lc.env); err != nil {
		t.Fatal(err)
	}
	lc.namespace = fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
	if err := lc.api.createNamespace(lc.namespace); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.api.call("DELETE", "/api/v1/namespaces/"+lc.namespace, "", nil, nil) })
	t.Logf("namespace %s, seed %d", lc.namespace, seed)
	lc.churn = &churner{api: lc.api, namespace: lc.namespace, random: rand.New(rand.NewSource(seed))}
	for i := 0; i < objects; i++ {
		if err := lc.churn.create(); err != nil {
			t.Fatal(err)
		}
	}
	lc.server = newInformerd(t, lc.env)
	lc.server.start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	lc.ctx, lc.cancel = ctx, cancel
	dial.Addresses = []string{lc.server.grpcAddress}
	if lc.conn, err = connection.Dial(ctx, dial); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.conn.Close() })
	return lc
}
