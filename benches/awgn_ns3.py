"""Bit errors beside ns-3.44's error-rate model, frame by frame.

Usage: python benches/awgn_ns3.py [--seeds N]   (3 by default, about 20 s)

Two nodes under two-ray ground at 914 MHz, sending 0.126 mW so that the
802.11b rates lose frames between 150 and 260 m, with the thresholds at
1e-13 W (the noise is 4.4e-13 W: the SNR, not a threshold, decides), AODV,
node 0 sending 512-byte UDP datagrams to node 1 four times a second for
300 s without RTS/CTS. For each data rate and distance it runs manetsim with
`radio.error_model = "awgn"` and the ns-3 program (`--bitErrors=true`: ns-3's
`YansErrorRateModel`, whose DSSS rates are its `DsssErrorRateModel`, at the
same 7 dB noise figure; `--frameCounts=true` counts the frames each PHY
decoded, its `RxOk`) over seeds 1..N, and prints the fraction of node 0's
frames node 1 decoded and the CBR delivery in each. The fraction mixes the
data frames with the few AODV requests once a route breaks. Basic rate 1
Mb/s: the ACKs, and node 1's frames, get through in both at every distance
shown.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fading_ns3 import measure, setup

# (data rate in b/s, distance in m)
CASES: list[tuple[int, float]] = [
    (1_000_000, 240.0),
    (1_000_000, 250.0),
    (2_000_000, 180.0),
    (2_000_000, 190.0),
    (5_500_000, 165.0),
    (5_500_000, 175.0),
    (11_000_000, 150.0),
    (11_000_000, 160.0),
]


def overrides(rate_bps: int) -> dict[str, Any]:
    return {
        "radio.error_model": "awgn",
        "radio.rx_threshold_w": 1e-13,
        "radio.cs_threshold_w": 1e-13,
        "radio.tx_power_w": 1.26e-4,
        "mac.data_rate_bps": rate_bps,
        "mac.basic_rate_bps": 1_000_000,
    }


def main(argv: list[str]) -> int:
    ready = setup(__doc__.splitlines()[0], argv, 3)
    if ready is None:
        return 2
    binary, seeds = ready
    print("| rate | distance | decoded 0→1, manetsim / ns-3 | CBR delivery manetsim / ns-3 |")
    print("|---|---|---|---|")
    for rate_bps, distance_m in CASES:
        ours, theirs = measure("none", distance_m, overrides(rate_bps), seeds, binary)
        assert theirs is not None
        a, b = ours.fractions(), theirs.fractions()
        print(
            f"| {rate_bps / 1e6:g} Mb/s | {distance_m:g} m | {a[0]:.4f} / {b[0]:.4f} "
            f"| {a[2]:.3f} / {b[2]:.3f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
