package main

import "math/bits"

// histogram counts non-negative values (ns) in HDR-like buckets: exact below 256, above that 128
// buckets per power of two, so a percentile is within 1/128 of the value it stands for, in a fixed
// ~7,400 buckets whatever the run's length.
type histogram struct {
	counts [256 + 56*128]uint64
	total  uint64
}

// bucketOf is the index of v's bucket: v itself below 256; above, the power of two v falls in and
// v's next 7 bits after its top one.
func bucketOf(v int64) int {
	if v < 256 {
		if v < 0 {
			return 0
		}
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - 8
	return 256 + (shift-1)*128 + int(v>>shift) - 128
}

// highestIn is the largest value bucket i holds (as HDR reports a percentile: never below the value).
func highestIn(i int) int64 {
	if i < 256 {
		return int64(i)
	}
	shift := (i-256)/128 + 1
	top := int64((i-256)%128 + 128)
	return (top+1)<<shift - 1
}

func (h *histogram) record(v int64) {
	h.counts[bucketOf(v)]++
	h.total++
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
}

// percentile is the value at or below which p % of the values lie (the ceil(p/100·n)-th smallest,
// to its bucket); 0 when nothing was recorded.
func (h *histogram) percentile(p float64) int64 {
	if h.total == 0 {
		return 0
	}
	rank := uint64(p / 100 * float64(h.total))
	if float64(rank) < p/100*float64(h.total) {
		rank++
	}
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return highestIn(i)
		}
	}
	return highestIn(len(h.counts) - 1)
}
