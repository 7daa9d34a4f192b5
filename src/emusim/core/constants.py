"""Physical and accounting constants of the 2001 study, each defined once.

Sources: "the report" is ``000_823aea286f446f9b.txt`` (C. Lin, 2001); IEEE 802.3 for Ethernet
framing. Where the report's accounting differs from the wire, both are kept and named apart.
"""

REPORT_SOURCE = "000_823aea286f446f9b.txt"
"""File name of the 2001 report, as written in the ``source`` column of data/reference/."""

# --- link -------------------------------------------------------------------------------------

LINK_RATE_bps = 100_000_000
"""Fast Ethernet, 10^8 bit/s (report §3.1.1: 1 Mb/s = 10^6 bit/s)."""

LINK_RATE_Bps = LINK_RATE_bps // 8
"""12 500 000 B/s, the report's "Ideal Theoretical throughput" (§3.1.1)."""

LINK_RATE_B_PER_US = LINK_RATE_Bps / 1_000_000
"""12.5 B/µs, the "Rate" of the report's delay model (§3.2)."""

# --- framing ----------------------------------------------------------------------------------

IP_MTU_B = 1500
"""Largest IP packet on Ethernet: 1448-byte TCP payload + 12 timestamp option + 20 TCP + 20 IP."""

ETH_WRAPPER_REPORT_B = 26
"""Ethernet bytes the report adds per frame: preamble+SFD 8, header 14, FCS 4 (§3.1.1)."""

ETH_INTERFRAME_GAP_B = 12
"""Inter-frame gap, 96 bit times (IEEE 802.3); occupies the wire but the report leaves it out."""

ETH_FRAME_REPORT_B = IP_MTU_B + ETH_WRAPPER_REPORT_B
"""1526 B: the report's bytes per full-size frame, used in every printed throughput."""

ETH_FRAME_WIRE_B = ETH_FRAME_REPORT_B + ETH_INTERFRAME_GAP_B
"""1538 B: wire time of a full-size frame including the inter-frame gap."""

# --- payloads ---------------------------------------------------------------------------------

TCP_WRITE_SIZE_B = 1448
"""TCP blast request size, the "optimal" one: fills a 1500-byte packet with timestamps (§3.1.1)."""

UDP_DATAGRAM_SIZE_B = 1472
"""UDP blast datagram size: 1472 + 8 UDP + 20 IP = 1500 (§3.1.2)."""

# --- ping delay model (§3.2) ------------------------------------------------------------------

ICMP_HEADER_B = 8
IP_HEADER_B = 20

PING_OVERHEAD_REPORT_B = ICMP_HEADER_B + IP_HEADER_B + ETH_WRAPPER_REPORT_B
"""54 B added to the ping request size to get the report's "Packet_Size" (§3.2)."""

PING_HOPS_PER_RTT = 4
"""Serialisations per echo: request and reply each cross two links (Madrid-Dublin-Prague)."""

TWO_POINT_FIT_SIZES_B = (256, 1408)
"""Request sizes of the two points the report's line passes through (§3.2, Figure 3.1)."""

# --- droppers (§2.2, §4.1, §4.2) --------------------------------------------------------------

RANDOM_DROPPER_SCALE = 65535
"""The random dropper drops when a 16-bit random number < rate × 65535 (§2.2)."""

# --- ns-3 point-to-point framing ---------------------------------------------------------------

NS3_P2P_HEADER_B = 2
"""ns-3's PointToPointNetDevice sends each IP packet with a 2-byte PPP header and nothing else."""

NS3_INTERFRAME_GAP_B = ETH_FRAME_WIRE_B - IP_MTU_B - NS3_P2P_HEADER_B
"""36 byte-times: what Ethernet puts on the wire per frame beyond ns-3's PPP frame (preamble and
SFD 8, MAC header 14, FCS 4, inter-frame gap 12, less PPP's 2). As the device's InterframeGap it
makes a full frame occupy 1538 byte-times, as on the hardware."""

NS3_LATE_ARRIVAL_B = ETH_WRAPPER_REPORT_B - NS3_P2P_HEADER_B
"""24 byte-times: an Ethernet frame's last bit arrives this much later than ns-3's PPP frame of
the same packet (the gap itself follows the frame). Added to each link's channel delay."""
