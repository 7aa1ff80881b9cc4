package integration

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// informerd is one informerd process serving configmaps (or resources) on
// fixed ports, so that a restarted process is reachable at the same address.
type informerd struct {
	env         testEnv
	resources   string // --resources, read at each start
	kubeconfig  string // --kubeconfig when not empty, else the environment's
	config      string // --config when not empty
	grpcAddress string
	httpAddress string
	logFile     string
	cmd         *exec.Cmd
	starts      int
}

func newInformerd(t *testing.T, env testEnv) *informerd {
	t.Helper()
	d := &informerd{
		env:         env,
		resources:   "configmaps",
		grpcAddress: freeAddress(t),
		httpAddress: freeAddress(t),
		logFile:     filepath.Join(t.TempDir(), "informerd.log"),
	}
	t.Cleanup(func() {
		d.stop(t)
		if t.Failed() {
			if log, err := os.ReadFile(d.logFile); err == nil {
				t.Logf("informerd log:\n%s", log)
			}
		}
	})
	return d
}

// freeAddress returns a loopback address with a port nothing listens on.
func freeAddress(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	return listener.Addr().String()
}

// start runs informerd and waits until /readyz says ok.
func (d *informerd) start(t *testing.T) {
	t.Helper()
	log, err := os.OpenFile(d.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	d.starts++
	fmt.Fprintf(log, "--- start %d\n", d.starts)
	resources := d.resources
	if resources == "" {
		resources = "configmaps"
	}
	kubeconfig := d.kubeconfig
	if kubeconfig == "" {
		kubeconfig = d.env.kubeconfig
	}
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--resources=" + resources,
		"--grpc_address=" + d.grpcAddress,
		"--http_address=" + d.httpAddress,
	}
	if d.config != "" {
		args = append(args, "--config="+d.config)
	}
	d.cmd = exec.Command(d.env.informerdBin, args...)
	d.cmd.Stdout, d.cmd.Stderr = log, log
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Polling is the only readiness signal informerd offers.
	deadline := time.Now().Add(30 * time.Second)
	for !d.ready() {
		if time.Now().After(deadline) {
			t.Fatalf("informerd at %s not ready after 30s", d.httpAddress)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (d *informerd) ready() bool {
	resp, err := http.Get("http://" + d.httpAddress + "/readyz")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var body [16]byte
	n, _ := resp.Body.Read(body[:])
	return resp.StatusCode == http.StatusOK && strings.TrimSpace(string(body[:n])) == "ok"
}

// kill ends informerd with SIGKILL, as a crash would: no goodbye to its
// watchers, whose streams just break.
func (d *informerd) kill(t *testing.T) {
	t.Helper()
	if d.cmd == nil {
		return
	}
	cmd := d.cmd
	d.cmd = nil
	if err := cmd.Process.Kill(); err != nil {
		t.Errorf("SIGKILL informerd: %v", err)
	}
	cmd.Wait()
}

// stop sends SIGTERM and waits for the process to exit, killing it after
// 20 seconds. Does nothing when not running.
func (d *informerd) stop(t *testing.T) {
	t.Helper()
	if d.cmd == nil {
		return
	}
	cmd := d.cmd
	d.cmd = nil
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("SIGTERM informerd: %v", err)
	}
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Errorf("informerd did not exit within 20s of SIGTERM; killing it")
		cmd.Process.Kill()
		<-exited
	}
}
