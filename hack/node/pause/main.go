// Command pause is the first process of every pod on the test node
// (hack/node.sh): it holds the pod's namespaces open and does nothing else.
// No registry is reachable here, so the node cannot pull the usual pause
// image; this one is built from source and imported into the runtime.
//
// As PID 1 of the pod it must exit on SIGTERM or SIGINT (the kernel ignores
// signals to PID 1 that have no handler) and reap children that reparent
// to it, as with a shared process namespace.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
