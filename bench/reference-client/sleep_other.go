//go:build !linux

package main

import "time"

// sleeper off Linux: time.Sleep, whose waits under 1 ms may last about 1 ms.
type sleeper struct{}

func newSleeper() (*sleeper, error) { return &sleeper{}, nil }

func (s *sleeper) sleep(d time.Duration) error {
	time.Sleep(d)
	return nil
}
