package integration

import (
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// stallProxy is fault injection between an informerd and the apiserver: a
// TCP proxy whose apiserver-to-informerd direction can be held (stall) and
// let go (resume), so that this informerd falls behind the others by as
// much as the test writes meanwhile. TLS passes through untouched.
type stallProxy struct {
	listener net.Listener
	target   string

	mu      sync.Mutex
	cond    *sync.Cond
	stalled bool
	conns   []net.Conn
	closed  bool
}

func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{listener: listener, target: target}
	p.cond = sync.NewCond(&p.mu)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *stallProxy) address() string { return p.listener.Addr().String() }

func (p *stallProxy) accept() {
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return
		}
		upstream, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			client.Close()
			upstream.Close()
			return
		}
		p.conns = append(p.conns, client, upstream)
		p.mu.Unlock()
		go func() {
			io.Copy(upstream, client)
			upstream.Close()
		}()
		go func() {
			p.copyHeld(client, upstream)
			client.Close()
		}()
	}
}

// copyHeld copies src to dst, holding each read chunk while stalled.
func (p *stallProxy) copyHeld(dst, src net.Conn) {
	buf := make([]byte, 32*1024)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			for p.stalled && !p.closed {
				p.cond.Wait()
			}
			p.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *stallProxy) stall() {
	p.mu.Lock()
	p.stalled = true
	p.mu.Unlock()
}

func (p *stallProxy) resume() {
	p.mu.Lock()
	p.stalled = false
	p.cond.Broadcast()
	p.mu.Unlock()
}

func (p *stallProxy) close() {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.cond.Broadcast()
	p.mu.Unlock()
	p.listener.Close()
	for _, c := range conns {
		c.Close()
	}
}

// kubeconfigThrough writes a copy of the environment's kubeconfig whose
// clusters are reached through the proxy, and returns its path.
func kubeconfigThrough(t *testing.T, env testEnv, p *stallProxy) string {
	t.Helper()
	config, err := clientcmd.LoadFromFile(env.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, cluster := range config.Clusters {
		u, err := url.Parse(cluster.Server)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = p.address()
		cluster.Server = u.String()
	}
	path := filepath.Join(t.TempDir(), "through-proxy.kubeconfig")
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// apiserverAddress is host:port of the environment's apiserver.
func apiserverAddress(t *testing.T, env testEnv) string {
	t.Helper()
	u, err := url.Parse(env.apiserverURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
