//! 802.11 DSSS timing (IEEE 802.11-1999 Table 15-1 and ns-2's `PHY_MIB`).

use serde::{Deserialize, Serialize};

use crate::engine::{SimTime, NS_PER_US};
use crate::net::{Packet, PacketKind};
use crate::scenario;
use crate::transport::tfrc::TfrcHeader;

/// How many bytes a data frame puts on the air for the packet it carries
/// (`[mac] frames`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameSizes {
    /// The IP datagram (or ARP message) in a 28-byte MAC header and FCS
    /// (IEEE 802.11's three-address data header).
    #[default]
    Standard,
    /// As ns-2.35 sizes them: a 34-byte MAC header and FCS (its
    /// `hdr_mac802_11` up to the body, 30 bytes, and FCS), and its
    /// transport headers: a TCP agent counts 40 bytes of TCP/IP header and
    /// the routing agent adds a second 20-byte IP header (a 512-byte
    /// segment is 572 bytes at the MAC, a bare ACK 60), except AODV's,
    /// which leaves TCP packets alone (552 and 40; see
    /// [`MacParams::ns2_tcp_extra_bytes`]), and its UDP agent sends no UDP
    /// header (a 512-byte CBR packet is 532); a TFRC data packet counts 52
    /// bytes of headers beyond its payload, its feedback 60; an SCTP packet
    /// 20 bytes beyond its SCTP/IP bytes.
    Ns2,
}

/// `ns-2.35`'s data header and FCS (`Mac802_11::hdr_len11` without the PLCP).
pub const NS2_DATA_HEADER_BYTES: u32 = 34;
/// The IP header ns-2.35's routing agents add to what a TCP agent already
/// counts as TCP/IP (all but AODV's).
pub const NS2_TCP_EXTRA_BYTES: u32 = 20;
/// The UDP header, which ns-2.35's UDP agent does not send.
const UDP_HEADER_BYTES: u32 = 8;
/// What ns-2.35's TFRC packets weigh beyond manetsim's: over AODV its trace
/// shows a data packet of 512 bytes of payload as 544 at the agent and 564
/// at the receiving agent (manetsim: 552), a feedback packet as 40 and 60
/// (manetsim: 44).
const NS2_TFRC_DATA_EXTRA_BYTES: u32 = 12;
const NS2_TFRC_FEEDBACK_EXTRA_BYTES: u32 = 16;
/// What ns-2.35's SCTP packets weigh beyond manetsim's: the same bytes at
/// the sending agent (a 1000-byte DATA chunk is 1048, a SACK 48), and 20
/// more at the receiving agent over AODV (1068, 68), as TFRC's.
const NS2_SCTP_EXTRA_BYTES: u32 = 20;

/// How a backoff draws its slots (`[mac] backoff_draw`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffDraw {
    /// Uniform over 0..=CW (IEEE 802.11's `Random()` over [0, CW]).
    #[default]
    Standard,
    /// Uniform over 0..CW, one slot fewer, as ns-2.35's
    /// `Random::random() % cw_` draws them.
    Ns2,
}

/// How a paused backoff counts the slots that went by (`[mac]
/// backoff_count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffCount {
    /// Every whole slot since the DIFS wait ended, in exact nanoseconds.
    #[default]
    Exact,
    /// As ns-2.35's `BackoffTimer::pause` counts them: the time since the
    /// DIFS wait ended, in double-precision seconds, over the slot time,
    /// truncated. A pause that falls exactly on a slot boundary (a
    /// neighbour whose backoff began counting at the same idle instant and
    /// ended in that slot) comes out a hair short of it about two times in
    /// three, and counts one slot fewer.
    Ns2,
}

impl BackoffCount {
    /// The whole slots of `slot_ns` that went by until `now` on a backoff
    /// that started counting at `stime`, after a wait of `difs_wait` (none
    /// during the wait).
    pub fn slots(
        self,
        stime: SimTime,
        difs_wait: SimTime,
        now: SimTime,
        slot_ns: SimTime,
    ) -> SimTime {
        match self {
            BackoffCount::Exact => now.saturating_sub(stime + difs_wait) / slot_ns,
            BackoffCount::Ns2 => {
                // ns-2.35's `pause`: `rt = stime + difs_wait`, `sr = st -
                // rt`, `slots = int(sr / slot)`, at least 0, all in
                // seconds as doubles.
                let secs = |t: SimTime| t as f64 / 1e9;
                let rt = secs(stime) + secs(difs_wait);
                let sr = secs(now) - rt;
                (sr / secs(slot_ns)).max(0.0) as SimTime
            }
        }
    }
}

/// What comes first when a timer expires in the nanosecond a frame starts
/// arriving (`[mac] tie_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    /// The timer: a frame that starts arriving as a backoff ends is not
    /// sensed by it (two stations whose backoffs end in the same slot both
    /// transmit). Every event falls on its nanosecond.
    #[default]
    TimersFirst,
    /// Whichever is earlier in ns-2.35's clock of doubles: each reception
    /// keeps the part of its propagation delay that rounding to whole
    /// nanoseconds took away, and what a reception's start or end sets off
    /// (a backoff resuming, a timeout) keeps it too; at one nanosecond the
    /// earlier comes first (see [`crate::engine::Phase`]). A backoff that
    /// resumed at the end of a node's frame and ends as that node's next
    /// frame starts arriving then defers when the two came closer in
    /// between, and transmits when they moved apart, as in ns-2.35.
    Ns2,
}

/// Timing and policy parameters of the DCF, all times in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MacParams {
    pub slot_ns: SimTime,
    pub sifs_ns: SimTime,
    pub difs_ns: SimTime,
    pub eifs_ns: SimTime,
    /// PLCP preamble + header, always sent at 1 Mb/s: 192 µs (long preamble).
    pub plcp_ns: SimTime,
    /// ns-2's `DSSS_MaxPropagationDelay` (2 µs), added to response timeouts.
    pub max_prop_delay_ns: SimTime,
    pub data_rate_bps: u64,
    pub basic_rate_bps: u64,
    pub cw_min: u32,
    pub cw_max: u32,
    /// Unicast frames whose MSDU is at least this many bytes use RTS/CTS.
    pub rts_threshold_bytes: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    pub frames: FrameSizes,
    /// With ns-2's frame sizes, what the routing agent adds to a TCP
    /// packet: [`NS2_TCP_EXTRA_BYTES`], or 0 over AODV, whose ns-2.35
    /// agent adds its IP header to every packet it originates but TCP's
    /// (`aodv.cc`; its trace shows a 512-byte segment as `tcp 610` at the
    /// MAC, PLCP included, where DSR, DSDV and AOMDV show `tcp 630`).
    pub ns2_tcp_extra_bytes: u32,
    pub backoff_draw: BackoffDraw,
    pub backoff_count: BackoffCount,
}

impl MacParams {
    pub fn from_scenario(m: &scenario::Mac) -> Self {
        let slot_ns = 20 * NS_PER_US;
        let sifs_ns = 10 * NS_PER_US;
        let difs_ns = sifs_ns + 2 * slot_ns;
        let mut p = Self {
            slot_ns,
            sifs_ns,
            difs_ns,
            eifs_ns: 0,
            plcp_ns: 192 * NS_PER_US,
            max_prop_delay_ns: 2 * NS_PER_US,
            data_rate_bps: m.data_rate_bps,
            basic_rate_bps: m.basic_rate_bps,
            cw_min: 31,
            cw_max: 1023,
            rts_threshold_bytes: m.rts_threshold_bytes,
            short_retry_limit: m.short_retry_limit,
            long_retry_limit: m.long_retry_limit,
            frames: m.frames,
            ns2_tcp_extra_bytes: NS2_TCP_EXTRA_BYTES,
            backoff_draw: m.backoff_draw,
            backoff_count: m.backoff_count,
        };
        // EIFS = SIFS + DIFS + ACK at the basic rate (ns-2 `getEIFS`).
        p.eifs_ns = sifs_ns + difs_ns + p.ack_time();
        p
    }

    /// The bytes of a data frame carrying `packet` (MAC header + body + FCS).
    pub fn data_frame_bytes(&self, packet: &Packet) -> u32 {
        let size = packet.size_bytes;
        match self.frames {
            FrameSizes::Standard => size + super::DATA_HEADER_BYTES,
            FrameSizes::Ns2 => {
                let body = if packet.tcp().is_some() {
                    size + self.ns2_tcp_extra_bytes
                } else if let Some(h) = packet.tfrc() {
                    size + match h {
                        TfrcHeader::Data(_) => NS2_TFRC_DATA_EXTRA_BYTES,
                        TfrcHeader::Feedback(_) => NS2_TFRC_FEEDBACK_EXTRA_BYTES,
                    }
                } else if packet.sctp().is_some() {
                    size + NS2_SCTP_EXTRA_BYTES
                } else if matches!(packet.kind, PacketKind::Data { .. }) {
                    // A UDP datagram: ns-2 sends no UDP header.
                    size.saturating_sub(UDP_HEADER_BYTES)
                } else {
                    size
                };
                body + NS2_DATA_HEADER_BYTES
            }
        }
    }

    /// How many backoff slots a contention window `cw` draws from.
    pub fn backoff_choices(&self, cw: u32) -> u64 {
        match self.backoff_draw {
            BackoffDraw::Standard => u64::from(cw) + 1,
            BackoffDraw::Ns2 => u64::from(cw).max(1),
        }
    }

    /// Airtime of a frame of `bytes` (MAC header + body + FCS) at `rate_bps`.
    #[inline]
    pub fn txtime(&self, bytes: u32, rate_bps: u64) -> SimTime {
        self.plcp_ns + (bytes as u64 * 8 * 1_000_000_000).div_ceil(rate_bps)
    }

    pub fn rts_time(&self) -> SimTime {
        self.txtime(super::RTS_BYTES, self.basic_rate_bps)
    }
    pub fn cts_time(&self) -> SimTime {
        self.txtime(super::CTS_BYTES, self.basic_rate_bps)
    }
    pub fn ack_time(&self) -> SimTime {
        self.txtime(super::ACK_BYTES, self.basic_rate_bps)
    }
}

impl Default for MacParams {
    fn default() -> Self {
        Self::from_scenario(&scenario::Mac::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsss_timings_match_the_standard() {
        let p = MacParams::default();
        assert_eq!(p.difs_ns, 50_000);
        assert_eq!(p.ack_time(), 304_000);
        assert_eq!(p.cts_time(), 304_000);
        assert_eq!(p.rts_time(), 352_000);
        assert_eq!(p.eifs_ns, 364_000);
        // 1000 B payload + UDP 8 + IP 20 + MAC 28 at 2 Mb/s: 192 + 4224 µs.
        assert_eq!(p.txtime(1056, p.data_rate_bps), 4_416_000);
    }

    fn packet(size_bytes: u32, kind: PacketKind, tcp: bool) -> Packet {
        Packet {
            uid: 0,
            kind,
            src: 0,
            dst: 1,
            ttl: 32,
            size_bytes,
            payload_bytes: 0,
            created_at: 0,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: if tcp {
                crate::net::TransportHeader::tcp(Default::default())
            } else {
                None
            },
        }
    }

    #[test]
    fn ns2_frame_sizes_give_tfrc_packets_ns2s_sizes() {
        use crate::net::TransportHeader;
        use crate::transport::tfrc::{TfrcData, TfrcFeedback};
        let ns2 = MacParams {
            frames: FrameSizes::Ns2,
            ..MacParams::default()
        };
        let mut data = packet(552, PacketKind::Data { flow: 0, seq: 0 }, false);
        data.transport = TransportHeader::tfrc(TfrcHeader::Data(TfrcData {
            seq: 0,
            sent_at: 0,
            rtt: 0,
            bytes: 512,
            round: 0,
            urgent: false,
            t_rto: 0,
        }));
        let mut feedback = packet(44, PacketKind::TcpAck { flow: 0 }, false);
        feedback.transport = TransportHeader::tfrc(TfrcHeader::Feedback(TfrcFeedback {
            echo: 0,
            delay: 0,
            x_recv_bps: 0.0,
            p: 0.0,
        }));
        // ns-2.35's trace over AODV: `tcpFriend 564` and `tcpFriendCtl 60`
        // at the receiving agent, the MAC's 34 bytes on top.
        assert_eq!(ns2.data_frame_bytes(&data), 564 + 34);
        assert_eq!(ns2.data_frame_bytes(&feedback), 60 + 34);
        // The standard frames: datagram + 28.
        assert_eq!(MacParams::default().data_frame_bytes(&data), 552 + 28);
    }

    #[test]
    fn ns2_frame_sizes_give_sctp_packets_ns2s_sizes() {
        use crate::net::TransportHeader;
        use crate::transport::sctp::{SctpChunk, SctpSack};
        let ns2 = MacParams {
            frames: FrameSizes::Ns2,
            ..MacParams::default()
        };
        let chunk = SctpChunk::data(0, 1000);
        let mut data = packet(
            20 + chunk.wire_len(),
            PacketKind::Data { flow: 0, seq: 0 },
            false,
        );
        data.transport = TransportHeader::sctp(chunk);
        let sack = SctpChunk::Sack(SctpSack {
            cum_next: 1,
            a_rwnd: 65_536,
            gaps: vec![],
            dups: vec![],
        });
        let mut ack = packet(20 + sack.wire_len(), PacketKind::TcpAck { flow: 0 }, false);
        ack.transport = TransportHeader::sctp(sack);
        // ns-2.35's trace over AODV: `sctp 1068` and `sctp 68` at the
        // receiving agent, the MAC's 34 bytes on top; no UDP header is
        // taken off a DATA packet.
        assert_eq!(ns2.data_frame_bytes(&data), 1068 + 34);
        assert_eq!(ns2.data_frame_bytes(&ack), 68 + 34);
    }

    #[test]
    fn ns2_frame_sizes_give_ns2s_airtimes() {
        let standard = MacParams::default();
        let ns2 = MacParams {
            frames: FrameSizes::Ns2,
            ..MacParams::default()
        };
        let segment = packet(552, PacketKind::Data { flow: 0, seq: 0 }, true);
        let ack = packet(40, PacketKind::TcpAck { flow: 0 }, true);
        let cbr = packet(540, PacketKind::Data { flow: 0, seq: 0 }, false);
        let rreq = packet(52, PacketKind::Control, false);
        let air = |p: &MacParams, pkt: &Packet| p.txtime(p.data_frame_bytes(pkt), p.data_rate_bps);
        // The standard frames: datagram + 28.
        assert_eq!(standard.data_frame_bytes(&segment), 580);
        assert_eq!(standard.data_frame_bytes(&ack), 68);
        assert_eq!(standard.data_frame_bytes(&cbr), 568);
        assert_eq!(standard.data_frame_bytes(&rreq), 80);
        // ns-2.35 traces a 512-byte segment as `tcp 630` at the MAC (PLCP
        // included) and its ACK as `ack 118`, 2,616 µs and 568 µs on the
        // air at 2 Mb/s (measured between `s` and `r` on chain6); a
        // 512-byte CBR packet is 532 bytes with the routing agent's IP
        // header; control packets only get the longer MAC header.
        assert_eq!(ns2.data_frame_bytes(&segment), 630 - 24);
        assert_eq!(ns2.data_frame_bytes(&ack), 118 - 24);
        assert_eq!(air(&ns2, &segment), 2_616_000);
        assert_eq!(air(&ns2, &ack), 568_000);
        assert_eq!(ns2.data_frame_bytes(&cbr), 532 + 34);
        assert_eq!(ns2.data_frame_bytes(&rreq), 52 + 34);
        // Over AODV ns-2.35 traces the segment as `tcp 610` and its ACK as
        // `ack 98`: no second IP header (chain6, Reno, seed 1).
        let aodv = MacParams {
            ns2_tcp_extra_bytes: 0,
            ..ns2
        };
        assert_eq!(aodv.data_frame_bytes(&segment), 610 - 24);
        assert_eq!(aodv.data_frame_bytes(&ack), 98 - 24);
        assert_eq!(air(&aodv, &segment), 2_536_000);
        assert_eq!(aodv.data_frame_bytes(&cbr), 532 + 34);
    }

    /// Counted in doubles, a pause on a slot boundary (three slots after
    /// DIFS) comes out one slot short about two times in three over a
    /// spread of instants; off the boundary, and before DIFS ends, both
    /// counts agree.
    #[test]
    fn ns2s_count_of_slots_falls_short_on_boundaries_only() {
        let (difs, slot) = (50_000, 20_000);
        let mut short = 0;
        for i in 0..1_000u64 {
            let stime = 1_000_000_000 + i * 7_919_113;
            let on = stime + difs + 3 * slot;
            let exact = BackoffCount::Exact.slots(stime, difs, on, slot);
            let ns2 = BackoffCount::Ns2.slots(stime, difs, on, slot);
            assert_eq!(exact, 3);
            assert!(ns2 == 3 || ns2 == 2, "{ns2}");
            short += u32::from(ns2 == 2);
            for now in [on + 1, on + slot - 1, on - 1, stime + difs - 1, stime] {
                assert_eq!(
                    BackoffCount::Ns2.slots(stime, difs, now, slot),
                    BackoffCount::Exact.slots(stime, difs, now, slot),
                    "{stime} {now}"
                );
            }
        }
        assert!((500..800).contains(&short), "{short} of 1000 short");
    }

    #[test]
    fn ns2_backoff_draws_one_slot_fewer() {
        let ns2 = MacParams {
            backoff_draw: BackoffDraw::Ns2,
            ..MacParams::default()
        };
        assert_eq!(MacParams::default().backoff_choices(31), 32);
        assert_eq!(ns2.backoff_choices(31), 31);
        assert_eq!(ns2.backoff_choices(1023), 1023);
    }
}
