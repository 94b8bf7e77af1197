// Command reference-client is a constant-rate, open-model Electrum client written apart from the
// toolkit's engine (issue #41): the figure the engine's own cost is compared with in
// bench/load-generator.ts's table. It sends blockchain.scripthash.get_balance lines on a fixed
// schedule over a few connections, never waiting for earlier answers (as wrk2 and k6's
// constant-arrival-rate do), and times every request from its intended send time, so a late send
// or a slow answer counts in the latency (no coordinated omission). It prints one JSON line.
//
// Batching: a wake is aimed at the last request due within -window of the first one not sent, and
// sends everything due by then, one write per connection it uses; requests further apart than the
// window each get a wake of their own. A wake's requests go to one connection while it has room
// (then the next); the next wake starts at the next connection. A request finding no connection
// with room (-inflight reached on all, or all down) is dropped, never sent late.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	host         string
	port         int
	rate         float64
	seconds      float64
	connections  int
	inflight     int
	window       time.Duration
	drain        time.Duration
	scripthashes []string
}

// usageError is a mistake in the command line: one line naming the input, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func parseConfig(args []string) (config, error) {
	fs := flag.NewFlagSet("reference-client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c config
	var scripthash, scripthashFile string
	fs.StringVar(&c.host, "host", "127.0.0.1", "server host")
	fs.IntVar(&c.port, "port", 0, "server TCP port (plain, no TLS)")
	fs.Float64Var(&c.rate, "rate", 0, "requests per second")
	fs.Float64Var(&c.seconds, "seconds", 10, "length of the schedule")
	fs.IntVar(&c.connections, "connections", 8, "sockets to the server")
	fs.IntVar(&c.inflight, "inflight", 16, "requests in flight per socket; beyond, requests are dropped")
	fs.DurationVar(&c.window, "window", 800*time.Microsecond, "the most the first request of a wake waits for the others")
	fs.DurationVar(&c.drain, "drain", 2*time.Second, "how long answers are awaited after the last send")
	fs.StringVar(&scripthash, "scripthash", "", "the scripthash every request asks for (64 hex)")
	fs.StringVar(&scripthashFile, "scripthash-file", "", "a file of scripthashes, one a line, asked for in turn")
	if err := fs.Parse(args); err != nil {
		return c, usageError{err.Error()}
	}
	switch {
	case fs.NArg() > 0:
		return c, usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	case c.port < 1 || c.port > 65535:
		return c, usageError{fmt.Sprintf("-port must be 1–65535, got %d", c.port)}
	case !(c.rate > 0) || math.IsInf(c.rate, 0):
		return c, usageError{fmt.Sprintf("-rate must be a number > 0, got %v", c.rate)}
	case !(c.seconds > 0) || math.IsInf(c.seconds, 0):
		return c, usageError{fmt.Sprintf("-seconds must be a number > 0, got %v", c.seconds)}
	case c.connections < 1:
		return c, usageError{fmt.Sprintf("-connections must be at least 1, got %d", c.connections)}
	case c.inflight < 1:
		return c, usageError{fmt.Sprintf("-inflight must be at least 1, got %d", c.inflight)}
	case c.window < 0:
		return c, usageError{fmt.Sprintf("-window must not be negative, got %v", c.window)}
	case c.drain < 0:
		return c, usageError{fmt.Sprintf("-drain must not be negative, got %v", c.drain)}
	case (scripthash == "") == (scripthashFile == ""):
		return c, usageError{"give one of -scripthash HEX or -scripthash-file FILE"}
	}
	if scripthash != "" {
		if !isScripthash(scripthash) {
			return c, usageError{fmt.Sprintf("-scripthash must be 64 hex digits, got %q", scripthash)}
		}
		c.scripthashes = []string{scripthash}
		return c, nil
	}
	text, err := os.ReadFile(scripthashFile)
	if err != nil {
		return c, usageError{fmt.Sprintf("-scripthash-file %s: %v", scripthashFile, errors.Unwrap(err))}
	}
	for i, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !isScripthash(line) {
			return c, usageError{fmt.Sprintf("-scripthash-file %s line %d: not 64 hex digits: %.70q", scripthashFile, i+1, line)}
		}
		c.scripthashes = append(c.scripthashes, line)
	}
	if len(c.scripthashes) == 0 {
		return c, usageError{fmt.Sprintf("-scripthash-file %s holds no scripthash", scripthashFile)}
	}
	return c, nil
}

func isScripthash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

// result is the line printed: times in µs (percentiles) and ms (CPU, wall). CPU and wall span the
// schedule's start to the last answer (or the drain's end), as the engine counts its generator's CPU.
type result struct {
	Rate         float64 `json:"rate"`
	Seconds      float64 `json:"seconds"`
	Connections  int     `json:"connections"`
	Inflight     int     `json:"inflight"`
	WindowUs     float64 `json:"windowUs"`
	Scheduled    int     `json:"scheduled"`
	Sent         uint64  `json:"sent"`
	Answered     uint64  `json:"answered"`
	Errors       uint64  `json:"errors"`
	Dropped      uint64  `json:"dropped"`
	LagP50Us     float64 `json:"lagP50Us"`
	LagP99Us     float64 `json:"lagP99Us"`
	LatencyP50Us float64 `json:"latencyP50Us"`
	LatencyP99Us float64 `json:"latencyP99Us"`
	CPUUserMs    float64 `json:"cpuUserMs"`
	CPUSysMs     float64 `json:"cpuSysMs"`
	WallMs       float64 `json:"wallMs"`
}

func run(c config) (result, error) {
	sched := newSchedule(c.rate, c.seconds)
	address := net.JoinHostPort(c.host, strconv.Itoa(c.port))
	conns := make([]*connection, 0, c.connections)
	defer func() {
		for _, conn := range conns {
			conn.socket.Close()
		}
	}()
	readers := make([]*bufio.Reader, 0, c.connections)
	for i := 0; i < c.connections; i++ {
		conn, err := dial(address)
		if err != nil {
			return result{}, usageError{fmt.Sprintf("-host %s -port %d: %v", c.host, c.port, err)}
		}
		conns = append(conns, conn)
		readers = append(readers, bufio.NewReaderSize(conn.socket, 64<<10))
	}
	sleep, err := newSleeper()
	if err != nil {
		return result{}, fmt.Errorf("timerfd: %w", err)
	}
	var lag histogram
	var sent, dropped uint64
	ru0 := rusage()
	start := time.Now()
	for i, conn := range conns {
		go conn.read(readers[i], sched, start)
	}
	next := 0 // the connection the next wake's requests go to first
	limit := int32(c.inflight)
	for first := 0; first < sched.count; {
		aim := sched.dueNs(sched.wakeFor(first, c.window.Nanoseconds()))
		if wait := aim - time.Since(start).Nanoseconds(); wait > 0 {
			if err := sleep.sleep(time.Duration(wait)); err != nil {
				return result{}, fmt.Errorf("timerfd: %w", err)
			}
		}
		end := sched.dueBy(first, time.Since(start).Nanoseconds())
		if end == first {
			continue
		}
		k := first
		// From the connection after the last one written to, each taking what fits.
		for tried := 0; k < end && tried < len(conns); tried++ {
			conn := conns[next]
			next = (next + 1) % len(conns)
			room := int(limit - conn.inFlight.Load())
			if conn.down.Load() || room <= 0 {
				continue
			}
			from := k
			conn.out = conn.out[:0]
			for ; k < end && k-from < room; k++ {
				conn.out = appendRequest(conn.out, k, c.scripthashes[k%len(c.scripthashes)])
			}
			// Counted in flight before the write: its answers may come before the write returns.
			conn.inFlight.Add(int32(k - from))
			writeNs := time.Since(start).Nanoseconds()
			if _, err := conn.socket.Write(conn.out); err != nil {
				conn.down.Store(true)
				conn.inFlight.Add(-int32(k - from))
				dropped += uint64(k - from)
				continue
			}
			sent += uint64(k - from)
			for j := from; j < k; j++ {
				lag.record(writeNs - sched.dueNs(j))
			}
		}
		dropped += uint64(end - k)
		first = end
	}
	drainUntil := time.Now().Add(c.drain)
	for time.Now().Before(drainUntil) && inFlight(conns) > 0 {
		if err := sleep.sleep(time.Millisecond); err != nil {
			return result{}, fmt.Errorf("timerfd: %w", err)
		}
	}
	wall := time.Since(start)
	ru1 := rusage()
	for _, conn := range conns {
		conn.socket.Close()
		<-conn.done
	}
	var latency histogram
	var answered, failed uint64
	for _, conn := range conns {
		latency.merge(&conn.latency)
		answered += conn.answered
		failed += conn.errors
	}
	us := func(ns int64) float64 { return math.Round(float64(ns)/100) / 10 }
	ms := func(tv syscall.Timeval) float64 { return float64(tv.Nano()) / 1e6 }
	return result{
		Rate: c.rate, Seconds: c.seconds, Connections: c.connections, Inflight: c.inflight,
		WindowUs: float64(c.window.Nanoseconds()) / 1000, Scheduled: sched.count,
		Sent: sent, Answered: answered, Errors: failed, Dropped: dropped,
		LagP50Us: us(lag.percentile(50)), LagP99Us: us(lag.percentile(99)),
		LatencyP50Us: us(latency.percentile(50)), LatencyP99Us: us(latency.percentile(99)),
		CPUUserMs: math.Round((ms(ru1.Utime)-ms(ru0.Utime))*1000) / 1000,
		CPUSysMs:  math.Round((ms(ru1.Stime)-ms(ru0.Stime))*1000) / 1000,
		WallMs:    math.Round(float64(wall.Microseconds())) / 1000,
	}, nil
}

func inFlight(conns []*connection) int32 {
	var n int32
	for _, conn := range conns {
		if !conn.down.Load() {
			n += conn.inFlight.Load()
		}
	}
	return n
}

func rusage() syscall.Rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru
}

func main() {
	c, err := parseConfig(os.Args[1:])
	if err == nil {
		var r result
		r, err = run(c)
		if err == nil {
			line, _ := json.Marshal(r)
			fmt.Println(string(line))
			return
		}
	}
	fmt.Fprintf(os.Stderr, "reference-client: %v\n", err)
	var usage usageError
	if errors.As(err, &usage) {
		os.Exit(2)
	}
	os.Exit(1)
}
