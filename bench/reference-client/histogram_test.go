package main

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

func TestPercentileOfNothingIsZero(t *testing.T) {
	var h histogram
	if got := h.percentile(99); got != 0 {
		t.Fatalf("p99 of no values: got %d, want 0", got)
	}
}

func TestPercentileIsExactBelow256(t *testing.T) {
	var h histogram
	for v := int64(1); v <= 200; v++ {
		h.record(v)
	}
	for _, c := range []struct {
		p    float64
		want int64
	}{{50, 100}, {99, 198}, {100, 200}, {0.1, 1}} {
		if got := h.percentile(c.p); got != c.want {
			t.Errorf("p%v of 1..200: got %d, want %d", c.p, got, c.want)
		}
	}
}

// Against the sorted array: the ceil(p/100·n)-th smallest value, never below it, within 1/128 above.
func TestPercentileIsWithinABucketOfTheSortedValue(t *testing.T) {
	r := rand.New(rand.NewSource(41))
	var h histogram
	values := make([]int64, 100_000)
	for i := range values {
		// Latencies in ns spread over six decades, as a run's are (µs to seconds).
		values[i] = int64(1e3 * math.Pow(10, r.Float64()*6))
		h.record(values[i])
	}
	sort.Slice(values, func(a, b int) bool { return values[a] < values[b] })
	for _, p := range []float64{1, 50, 90, 99, 99.9, 100} {
		rank := int(p / 100 * float64(len(values)))
		if float64(rank) < p/100*float64(len(values)) {
			rank++
		}
		want := values[rank-1]
		got := h.percentile(p)
		if got < want || float64(got-want) > float64(want)/128 {
			t.Errorf("p%v: got %d, sorted array %d (allowed up to +1/128)", p, got, want)
		}
	}
}

func TestMergeAddsCounts(t *testing.T) {
	var a, b histogram
	for v := int64(0); v < 1000; v++ {
		a.record(v * 1000)
		b.record(v*1000 + 1_000_000)
	}
	a.merge(&b)
	if a.total != 2000 {
		t.Fatalf("total after merge: got %d, want 2000", a.total)
	}
	if got := a.percentile(50); got < 999_000 || got > 999_000+999_000/128 {
		t.Fatalf("p50 after merge: got %d, want ~999000", got)
	}
}
