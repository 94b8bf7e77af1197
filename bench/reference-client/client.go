package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"time"
)

// connection is one socket to the server: the sender writes to it, its own goroutine reads the
// replies. inFlight is shared between the two; the rest of the counts are the reader's until it ends.
type connection struct {
	socket   net.Conn
	inFlight atomic.Int32
	down     atomic.Bool
	out      []byte
	latency  histogram
	answered uint64
	errors   uint64
	done     chan struct{}
}

// Request ids are the schedule's index plus one; 0 is the handshake's.
const handshakeID = 0

// dial connects and says server.version, waiting for its answer before the schedule starts, as an
// Electrum client must before anything else (protocol 1.4: the first message).
func dial(address string) (*connection, error) {
	socket, err := net.DialTimeout("tcp", address, 5*time.Second)
	if err != nil {
		return nil, err
	}
	if tcp, ok := socket.(*net.TCPConn); ok {
		_ = tcp.SetNoDelay(true)
	}
	hello := `{"jsonrpc":"2.0","id":0,"method":"server.version","params":["electrum-bench-reference 0","1.4"]}` + "\n"
	_ = socket.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := socket.Write([]byte(hello)); err != nil {
		socket.Close()
		return nil, err
	}
	reader := bufio.NewReaderSize(socket, 64<<10)
	line, err := reader.ReadSlice('\n')
	if err != nil {
		socket.Close()
		return nil, fmt.Errorf("no answer to server.version: %w", err)
	}
	if id, ok := replyID(line); !ok || id != handshakeID || hasError(line) {
		socket.Close()
		return nil, fmt.Errorf("server.version was not answered: %.100s", line)
	}
	_ = socket.SetDeadline(time.Time{})
	c := &connection{socket: socket, done: make(chan struct{})}
	return c, nil
}

// read takes the replies until the socket closes: each one's latency from its request's intended
// time (not its write), so a server or a sender that falls behind shows in the latency.
func (c *connection) read(reader *bufio.Reader, sched schedule, start time.Time) {
	defer close(c.done)
	for {
		line, err := reader.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A reply longer than the buffer: its id is near its start, its time is its end's.
			head := append([]byte(nil), line[:min(len(line), 256)]...)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = reader.ReadSlice('\n')
			}
			line = head
		}
		if err != nil {
			c.down.Store(true)
			return
		}
		at := time.Since(start).Nanoseconds()
		id, ok := replyID(line)
		if !ok || id == handshakeID || id > int64(sched.count) {
			continue
		}
		c.latency.record(at - sched.dueNs(int(id-1)))
		if hasError(line) {
			c.errors++
		} else {
			c.answered++
		}
		c.inFlight.Add(-1)
	}
}

// replyID finds the "id" member by scanning, not parsing: a full JSON decode would be most of this
// client's cost per reply, and the null responder's replies are flat.
func replyID(line []byte) (int64, bool) {
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 {
		return 0, false
	}
	j := i + 5
	for j < len(line) && line[j] == ' ' {
		j++
	}
	k := j
	for k < len(line) && line[k] >= '0' && line[k] <= '9' {
		k++
	}
	id, err := strconv.ParseInt(string(line[j:k]), 10, 64)
	return id, err == nil
}

// hasError: a JSON-RPC error member that is not null.
func hasError(line []byte) bool {
	i := bytes.Index(line, []byte(`"error":`))
	if i < 0 {
		return false
	}
	rest := bytes.TrimLeft(line[i+8:], " ")
	return !bytes.HasPrefix(rest, []byte("null"))
}

// appendRequest adds request k's get_balance line to buf.
func appendRequest(buf []byte, k int, scripthash string) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendInt(buf, int64(k+1), 10)
	buf = append(buf, `,"method":"blockchain.scripthash.get_balance","params":["`...)
	buf = append(buf, scripthash...)
	return append(buf, "\"]}\n"...)
}
