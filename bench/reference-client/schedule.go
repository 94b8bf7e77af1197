package main

import "math"

// schedule is a constant arrival rate: request k is due k/rate s after the start, whatever
// happened to the ones before (the open model), for `count` requests.
type schedule struct {
	rate  float64
	count int
}

func newSchedule(rate, seconds float64) schedule {
	// Every k whose time falls before the end: rate·seconds requests, rounded up.
	n := int(math.Ceil(rate*seconds - 1e-9))
	if n < 0 {
		n = 0
	}
	return schedule{rate: rate, count: n}
}

// dueNs is request k's intended send time in ns from the start: k·1e9/rate in that order, to the ns.
func (s schedule) dueNs(k int) int64 {
	return int64(math.Round(float64(k) * 1e9 / s.rate))
}

// wakeFor is the request whose time a wake is aimed at when `first` is the first request not sent:
// the last one due within windowNs of it. Every request due by then goes out in that wake, so the
// first waits at most the window for the others; requests further apart than the window each get a
// wake of their own. A wake is never aimed before a request's time: nothing is sent early.
func (s schedule) wakeFor(first int, windowNs int64) int {
	limit := s.dueNs(first) + windowNs
	// The estimate from the rate, then corrected by the rounded times themselves.
	k := first + int(float64(windowNs)*s.rate/1e9)
	if k >= s.count {
		k = s.count - 1
	}
	for k > first && s.dueNs(k) > limit {
		k--
	}
	for k+1 < s.count && s.dueNs(k+1) <= limit {
		k++
	}
	return k
}

// dueBy is one past the last request due at or before nowNs, from `first` on.
func (s schedule) dueBy(first int, nowNs int64) int {
	k := first
	for k < s.count && s.dueNs(k) <= nowNs {
		k++
	}
	return k
}
