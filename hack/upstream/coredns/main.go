// Command coredns is CoreDNS with the few plugins the test node uses to
// resolve Service names: cluster.local from the apiserver (kubernetes),
// answers cached briefly (cache), the node's address only (bind), and health
// and readiness endpoints that hack/node.sh waits on. Every other name gets NXDOMAIN or SERVFAIL: the
// node has no network beyond this machine, so there is nothing to forward to.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	// The order in which a query passes the plugins, as CoreDNS's own
	// plugin.cfg orders these; a Corefile may use any subset.
	dnsserver.Directives = []string{"bind", "ready", "health", "errors", "log", "cache", "kubernetes"}
}

func main() { coremain.Run() }
