package main

import "testing"

func TestScheduleCountsEveryRequestBeforeTheEnd(t *testing.T) {
	for _, c := range []struct {
		rate, seconds float64
		want          int
	}{{400, 5, 2000}, {29, 1, 29}, {2.5, 1, 3}, {100_000, 12, 1_200_000}} {
		s := newSchedule(c.rate, c.seconds)
		if s.count != c.want {
			t.Errorf("%v/s for %v s: %d requests, want %d", c.rate, c.seconds, s.count, c.want)
		}
		if last := s.dueNs(s.count - 1); float64(last) >= c.seconds*1e9 {
			t.Errorf("%v/s for %v s: the last request is due at %d ns, after the end", c.rate, c.seconds, last)
		}
	}
}

func TestIntendedTimesAreExactMultiplesOfTheGap(t *testing.T) {
	s := newSchedule(29, 1)
	// k·1e9/rate, not k·(1e9/rate): 29·(1e9/29) lands under 1e9.
	if got := s.dueNs(29); got != 1_000_000_000 {
		t.Fatalf("request 29 at 29/s: due %d ns, want 1e9", got)
	}
	s = newSchedule(2000, 1)
	for k := 0; k < s.count; k++ {
		if got := s.dueNs(k); got != int64(k)*500_000 {
			t.Fatalf("request %d at 2000/s: due %d ns, want %d", k, got, int64(k)*500_000)
		}
	}
}

func TestAWakeTakesEveryRequestDueWithinTheWindow(t *testing.T) {
	const window = 800_000
	s := newSchedule(20_000, 1)
	// 50 µs apart: the first and the 16 after it lie within 0.8 ms.
	if got := s.wakeFor(0, window); got != 16 {
		t.Fatalf("20,000/s, 0.8 ms window: aimed at request %d, want 16", got)
	}
	if got := s.wakeFor(100, window); got != 116 {
		t.Fatalf("20,000/s from request 100: aimed at %d, want 116", got)
	}
	// Near the end the wake takes what is left.
	if got := s.wakeFor(s.count-3, window); got != s.count-1 {
		t.Fatalf("20,000/s near the end: aimed at %d, want %d", got, s.count-1)
	}
	// 20 ms apart: every request has a wake of its own.
	s = newSchedule(50, 1)
	for k := 0; k < s.count; k++ {
		if got := s.wakeFor(k, window); got != k {
			t.Fatalf("50/s: request %d's wake aimed at %d", k, got)
		}
	}
	// Times rounded to the ns: at 3/s request 1 is due at 333,333,333 ns, within a window of that.
	if got := newSchedule(3, 1).wakeFor(0, 333_333_333); got != 1 {
		t.Fatalf("3/s, window 333,333,333 ns: aimed at %d, want 1", got)
	}
	// No window: a wake per request at any rate.
	if got := newSchedule(100_000, 1).wakeFor(7, 0); got != 7 {
		t.Fatalf("no window: aimed at %d, want 7", got)
	}
}

func TestNothingIsDueBeforeItsTime(t *testing.T) {
	s := newSchedule(2000, 1)
	if got := s.dueBy(0, 0); got != 1 {
		t.Fatalf("at 0 ns: %d due, want 1", got)
	}
	if got := s.dueBy(1, 499_999); got != 1 {
		t.Fatalf("1 ns before request 1: due up to %d, want none more", got)
	}
	if got := s.dueBy(1, 1_000_000); got != 3 {
		t.Fatalf("at 1 ms: due up to %d, want 3", got)
	}
	if got := s.dueBy(0, 5e9); got != s.count {
		t.Fatalf("after the end: due up to %d, want %d", got, s.count)
	}
}
