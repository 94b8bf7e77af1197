"""
Syncs one wallet from scratch with the real BDK (PyPI bdkpython, over bdk_electrum): a new
in-memory wallet from the two descriptors, one full scan over Electrum, the update applied. Prints
one JSON line per sync: the time from opening the client to the scan's end, and what the wallet
then holds, so a workload's time and findings can be set beside the real client's.

  python bdk_sync.py --url tcp://127.0.0.1:PORT --receive DESC --change DESC [--stop-gap 20] [--batch-size 10] [--syncs 1]
"""
import argparse
import json
import time

import bdkpython as bdk


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument('--url', required=True)
    ap.add_argument('--receive', required=True)
    ap.add_argument('--change', required=True)
    ap.add_argument('--stop-gap', type=int, default=20)
    ap.add_argument('--batch-size', type=int, default=10)
    ap.add_argument('--syncs', type=int, default=1)
    a = ap.parse_args()
    net = bdk.Network.REGTEST
    for _ in range(a.syncs):
        # Descriptors take the kind of network (tpub keys: TEST); the wallet the network itself.
        receive, change = (bdk.Descriptor(d, bdk.NetworkKind.TEST) for d in (a.receive, a.change))
        wallet = bdk.Wallet(receive, change, net, bdk.Persister.new_in_memory())
        start = time.perf_counter()
        client = bdk.ElectrumClient(a.url)
        update = client.full_scan(wallet.start_full_scan().build(), a.stop_gap, a.batch_size, False)
        ms = (time.perf_counter() - start) * 1000
        wallet.apply_update(update)
        balance = wallet.balance()
        print(json.dumps({
            'ms': ms,
            'confirmed': balance.confirmed.to_sat(),
            'unconfirmed': balance.trusted_pending.to_sat() + balance.untrusted_pending.to_sat(),
            'txs': len(wallet.transactions()),
        }), flush=True)


if __name__ == '__main__':
    main()
