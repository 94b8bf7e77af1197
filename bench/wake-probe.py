"""The machine's own floor for a send on time, for bench/late-floor.ts.

It wakes on a constant schedule the way the load engine's open model does at low rates
(src/engine/arrival-driver.ts): a sleep to QUEUE_AHEAD before each due time, then waiting in place
until it. Nothing else runs in it (no event loop, no garbage collector in the way, no network), so
how late it gets its CPU back at a due time is the machine's: the kernel's and the hypervisor's
wake-ups while the servers beside it work. Run it at the generator's priority (under chrt for a
`--realtime` load) and on the generator's schedule.

    python3 bench/wake-probe.py RATE SECONDS [AHEAD_US]

Prints one line of JSON: due times, and how many were late by more than 0.1 ms, 0.2 ms and 1 ms,
with p50 / p99 / max in µs.
"""
import json
import sys
import time

rate, seconds = float(sys.argv[1]), float(sys.argv[2])
ahead = (float(sys.argv[3]) if len(sys.argv) > 3 else 500) / 1e6
gap = 1 / rate
count = int(rate * seconds)
late_us = []
start = time.monotonic() + 0.05
for k in range(count):
    due = start + k * gap
    sleep = due - ahead - time.monotonic()
    if sleep > 0:
        time.sleep(sleep)
    while time.monotonic() < due:
        pass
    late_us.append((time.monotonic() - due) * 1e6)
late_us.sort()


def share_over(us):
    return sum(1 for x in late_us if x > us)


print(json.dumps({
    'due': count,
    'over100us': share_over(100),
    'over200us': share_over(200),
    'over1ms': share_over(1000),
    'p50Us': late_us[count // 2],
    'p99Us': late_us[min(count - 1, int(0.99 * count))],
    'maxUs': late_us[-1],
}))
