//! 802.11 timing: the PHY of each `[mac] standard` (how long a frame is on
//! the air) and the DCF's slot, SIFS, DIFS, EIFS and contention window.
//!
//! - `"802.11"`: IEEE 802.11-1999's DSSS PHY (Table 15-1) as ns-2.35's
//!   `PHY_MIB` has it: a 192 µs PLCP, then the frame at its rate, to the
//!   nanosecond; any rate is accepted, as ns-2's `dataRate_`.
//! - `"802.11b"`: HR/DSSS (IEEE 802.11-2016 clause 16 and 17): 1, 2, 5.5 and
//!   11 Mb/s; the long PLCP (192 µs) or the short one (96 µs: a 72-bit
//!   preamble at 1 Mb/s, the 48-bit header at 2 Mb/s) for frames at 2 Mb/s
//!   and more; the PSDU's time is rounded up to whole microseconds (the
//!   PLCP's LENGTH field counts microseconds).
//! - `"802.11a"`: OFDM (clause 17): a 16 µs preamble, a 4 µs SIGNAL symbol,
//!   then 4 µs symbols of N_DBPS bits carrying the 16-bit SERVICE field,
//!   the frame and 6 tail bits; slot 9 µs, SIFS 16 µs, CWmin 15.
//! - `"802.11g"`: ERP (clause 18): the DSSS rates with 802.11b's timing and
//!   the OFDM rates with 802.11a's plus a 6 µs signal extension; slot 20 µs
//!   (the long slot, as stations that have not agreed on the short one use),
//!   SIFS 10 µs, CWmin 15.

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
    /// (IEEE 802.11's three-address data header), without the LLC/SNAP
    /// header before it, as ns-2 leaves it out.
    #[default]
    Standard,
    /// As `Standard`, with the 8-byte LLC/SNAP header (RFC 1042) between
    /// the MAC header and the datagram, as stations send IP and ARP and as
    /// ns-3 counts them: a 1000-byte datagram is a 1036-byte frame.
    LlcSnap,
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

/// When a backoff counts again after a frame received in error (`[mac]
/// eifs_rule`). EIFS is SIFS + DIFS + an ACK at the basic rate in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EifsRule {
    /// As ns-2.35's `Mac/802_11`: EIFS is a NAV, and a backoff resumes
    /// DIFS after the NAV ends, EIFS + DIFS after the frame.
    #[default]
    Ns2,
    /// As IEEE 802.11 (and ns-3): EIFS in all, the backoff counting from
    /// its end.
    Standard,
}

/// When a node answers an RTS addressed to it with a CTS (`[mac]
/// cts_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CtsRule {
    /// As ns-2.35's `check_pktCTRL`: only if the medium is idle SIFS after
    /// the RTS, the receiver hearing nothing and the NAV, which also holds
    /// EIFS and the frames the receiver sensed but did not decode, clear.
    #[default]
    Ns2,
    /// As IEEE 802.11-2012 9.3.2.6 (and ns-3): if the NAV set by other
    /// frames' Duration fields is clear, whatever the receiver senses.
    Standard,
}

/// 802.11g's slot time (`[mac] slot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotTime {
    /// 20 µs, 802.11b's, which an ERP network keeps while any station
    /// might not take the short one.
    #[default]
    Long,
    /// 9 µs, which an ERP network whose stations all support it uses
    /// (IEEE 802.11-2012, 19.4.4).
    Short,
}

/// The rate a CTS or ACK goes at (`[mac] response_rate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseRate {
    /// Every CTS and ACK at `basic_rate_bps`, as ns-2.35 and ns-3's
    /// `ConstantRateWifiManager` (its `ControlMode`) send them.
    #[default]
    Basic,
    /// IEEE 802.11's rule (802.11-2012, 9.7.6.5.2): the highest rate of the
    /// basic rate set that is not above the rate of the frame answered and
    /// of its modulation class (DSSS and HR/DSSS, or OFDM), else the
    /// highest mandatory rate of that class not above it. The basic rate
    /// set is `basic_rate_bps` and the standard's mandatory rates above it.
    Standard,
}

/// The mandatory rates of HR/DSSS (802.11b; 802.11g's DSSS and CCK).
const MANDATORY_DSSS_RATES_BPS: [u64; 4] = DSSS_RATES_BPS;
/// The mandatory OFDM rates (802.11a; 802.11g's ERP-OFDM).
const MANDATORY_OFDM_RATES_BPS: [u64; 3] = [6_000_000, 12_000_000, 24_000_000];

/// The PLCP preamble of HR/DSSS frames (`[mac] preamble`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preamble {
    /// 144 bits of preamble and a 48-bit header at 1 Mb/s: 192 µs.
    #[default]
    Long,
    /// 72 bits of preamble at 1 Mb/s and the 48-bit header at 2 Mb/s:
    /// 96 µs, for frames at 2, 5.5 and 11 Mb/s (802.11b and 802.11g); a
    /// frame at 1 Mb/s keeps the long one.
    Short,
}

/// The `[mac] standard` values a run supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MacStandard {
    /// `"802.11"`: DSSS, as ns-2.35's `Mac/802_11`.
    Dsss,
    /// `"802.11b"`: HR/DSSS.
    B,
    /// `"802.11a"`: OFDM.
    A,
    /// `"802.11g"`: ERP (DSSS and OFDM rates).
    G,
}

/// The DSSS and HR/DSSS rates (802.11b, and 802.11g's DSSS rates).
pub const DSSS_RATES_BPS: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];
/// The OFDM rates of a 20 MHz channel (802.11a, and 802.11g's ERP-OFDM).
pub const OFDM_RATES_BPS: [u64; 8] = [
    6_000_000, 9_000_000, 12_000_000, 18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000,
];

impl MacStandard {
    /// Every standard, in the order the messages list them.
    pub const ALL: [MacStandard; 4] = [Self::Dsss, Self::B, Self::A, Self::G];

    /// The standard `name` spells (`[mac] standard`), if a run supports it.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Dsss => "802.11",
            Self::B => "802.11b",
            Self::A => "802.11a",
            Self::G => "802.11g",
        }
    }

    /// What the standard's PHY is, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Dsss => "DSSS, any rate, as ns-2.35's Mac/802_11",
            Self::B => "HR/DSSS: 1, 2, 5.5, 11 Mb/s",
            Self::A => "OFDM: 6 to 54 Mb/s",
            Self::G => "ERP: 802.11b's rates and 802.11a's",
        }
    }

    /// The rates the standard's PHY sends at; `None`: any rate.
    pub fn rates_bps(self) -> Option<&'static [u64]> {
        const G: [u64; 12] = [
            1_000_000, 2_000_000, 5_500_000, 6_000_000, 9_000_000, 11_000_000, 12_000_000,
            18_000_000, 24_000_000, 36_000_000, 48_000_000, 54_000_000,
        ];
        match self {
            Self::Dsss => None,
            Self::B => Some(&DSSS_RATES_BPS),
            Self::A => Some(&OFDM_RATES_BPS),
            Self::G => Some(&G),
        }
    }

    /// Whether `[mac] preamble = "short"` means anything here.
    pub fn has_short_preamble(self) -> bool {
        matches!(self, Self::B | Self::G)
    }

    /// The data and basic rates when the scenario gives none: 2 and 1 Mb/s
    /// where DSSS rates exist, else the lowest OFDM rate for both (as ns-3's
    /// `ConstantRateWifiManager` defaults to `OfdmRate6Mbps`).
    pub fn default_rates_bps(self) -> (u64, u64) {
        match self {
            Self::Dsss | Self::B => (2_000_000, 1_000_000),
            Self::A | Self::G => (6_000_000, 6_000_000),
        }
    }
}

/// How long a frame is on the air, by PHY.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phy {
    /// ns-2.35's DSSS: 192 µs of PLCP, then the frame at its rate, rounded
    /// up to the nanosecond.
    Dsss,
    /// HR/DSSS: the PLCP, then the frame rounded up to whole microseconds.
    HrDsss { short_preamble: bool },
    /// OFDM: preamble and SIGNAL (20 µs), then whole 4 µs symbols.
    Ofdm,
    /// ERP: HR/DSSS at DSSS rates, OFDM and a 6 µs signal extension at the
    /// others.
    Erp { short_preamble: bool },
}

const LONG_PLCP_NS: SimTime = 192 * NS_PER_US;
const SHORT_PLCP_NS: SimTime = 96 * NS_PER_US;
/// OFDM's preamble (16 µs) and SIGNAL symbol (4 µs).
const OFDM_PREAMBLE_NS: SimTime = 20 * NS_PER_US;
const OFDM_SYMBOL_NS: SimTime = 4 * NS_PER_US;
/// The SERVICE field and tail bits around an OFDM frame's bits.
const OFDM_SERVICE_TAIL_BITS: u64 = 16 + 6;
/// ERP-OFDM's signal extension.
const ERP_SIGNAL_EXTENSION_NS: SimTime = 6 * NS_PER_US;

impl Phy {
    /// Airtime of a frame of `bytes` (MAC header + body + FCS) at `rate_bps`.
    #[inline]
    pub fn txtime(self, bytes: u32, rate_bps: u64) -> SimTime {
        let bits = u64::from(bytes) * 8;
        match self {
            Phy::Dsss => LONG_PLCP_NS + (bits * 1_000_000_000).div_ceil(rate_bps),
            Phy::HrDsss { short_preamble } => hr_dsss_txtime(bits, rate_bps, short_preamble),
            Phy::Ofdm => ofdm_txtime(bits, rate_bps),
            Phy::Erp { short_preamble } => {
                if DSSS_RATES_BPS.contains(&rate_bps) {
                    hr_dsss_txtime(bits, rate_bps, short_preamble)
                } else {
                    ofdm_txtime(bits, rate_bps) + ERP_SIGNAL_EXTENSION_NS
                }
            }
        }
    }
}

impl Phy {
    /// The PLCP preamble and header of a frame at `rate_bps`, before its
    /// first bit of MAC header (IEEE 802.11's aRxPHYStartDelay, near
    /// enough: 192 µs for DSSS, 96 µs for HR/DSSS's short preamble, 20 µs
    /// for OFDM).
    pub fn preamble_and_header_ns(self, rate_bps: u64) -> SimTime {
        let short = match self {
            Phy::Dsss => return LONG_PLCP_NS,
            Phy::Ofdm => return OFDM_PREAMBLE_NS,
            Phy::HrDsss { short_preamble } => short_preamble,
            Phy::Erp { short_preamble } => {
                if !DSSS_RATES_BPS.contains(&rate_bps) {
                    return OFDM_PREAMBLE_NS;
                }
                short_preamble
            }
        };
        if short && rate_bps > 1_000_000 {
            SHORT_PLCP_NS
        } else {
            LONG_PLCP_NS
        }
    }
}

fn hr_dsss_txtime(bits: u64, rate_bps: u64, short_preamble: bool) -> SimTime {
    let plcp = if short_preamble && rate_bps > 1_000_000 {
        SHORT_PLCP_NS
    } else {
        LONG_PLCP_NS
    };
    plcp + (bits * 1_000_000).div_ceil(rate_bps) * NS_PER_US
}

fn ofdm_txtime(bits: u64, rate_bps: u64) -> SimTime {
    // Bits per 4 µs symbol (N_DBPS): 24 at 6 Mb/s, 216 at 54 Mb/s.
    let per_symbol = (rate_bps * OFDM_SYMBOL_NS / 1_000_000_000).max(1);
    OFDM_PREAMBLE_NS + (bits + OFDM_SERVICE_TAIL_BITS).div_ceil(per_symbol) * OFDM_SYMBOL_NS
}

/// Timing and policy parameters of the DCF, all times in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MacParams {
    pub slot_ns: SimTime,
    pub sifs_ns: SimTime,
    pub difs_ns: SimTime,
    /// The NAV after a frame received in error (or not decodable), after
    /// which a backoff waits DIFS more, as after any NAV: EIFS (SIFS, DIFS
    /// and an ACK at the basic rate) with `eifs_rule = "ns2"`, EIFS less
    /// DIFS with `"standard"`, so that the backoff counts from EIFS's end.
    pub eifs_ns: SimTime,
    /// How long a frame is on the air.
    pub phy: Phy,
    /// RTS, CTS and ACK airtimes at the basic rate, computed once.
    pub(crate) rts_ns: SimTime,
    pub(crate) cts_ns: SimTime,
    pub(crate) ack_ns: SimTime,
    /// The shortest ACK a data frame may be answered with: `ack_ns`, or
    /// with IEEE 802.11's response rates the one after the fastest rate.
    pub(crate) shortest_ack_ns: SimTime,
    /// The propagation each way a response timeout allows for: `[mac]
    /// max_propagation_delay_s`, by default ns-2's `DSSS_MaxPropagationDelay`
    /// (2 µs).
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
    pub response_rate: ResponseRate,
    pub cts_rule: CtsRule,
    /// The longest NAV an overheard RTS sets (`[mac] nav_reset`): with
    /// it, 2 SIFS + a CTS + the CTS's PLCP preamble and header + 2 slots
    /// (IEEE 802.11-2012 9.3.2.4), else `SimTime::MAX`.
    pub rts_nav_limit_ns: SimTime,
}

impl MacParams {
    /// The parameters of `m`. A standard a run does not support (a
    /// scenario built in code and not validated) is taken as `"802.11"`.
    pub fn from_scenario(m: &scenario::Mac) -> Self {
        let standard = MacStandard::parse(&m.standard).unwrap_or(MacStandard::Dsss);
        let short_preamble = m.preamble == Preamble::Short;
        let (phy, slot_us, sifs_us, cw_min) = match standard {
            MacStandard::Dsss => (Phy::Dsss, 20, 10, 31),
            MacStandard::B => (Phy::HrDsss { short_preamble }, 20, 10, 31),
            MacStandard::A => (Phy::Ofdm, 9, 16, 15),
            MacStandard::G => {
                let slot_us = if m.slot == SlotTime::Short { 9 } else { 20 };
                (Phy::Erp { short_preamble }, slot_us, 10, 15)
            }
        };
        let slot_ns = slot_us * NS_PER_US;
        let sifs_ns = sifs_us * NS_PER_US;
        let difs_ns = sifs_ns + 2 * slot_ns;
        let mut p = Self {
            slot_ns,
            sifs_ns,
            difs_ns,
            eifs_ns: 0,
            phy,
            rts_ns: phy.txtime(super::RTS_BYTES, m.basic_rate_bps),
            cts_ns: phy.txtime(super::CTS_BYTES, m.basic_rate_bps),
            ack_ns: phy.txtime(super::ACK_BYTES, m.basic_rate_bps),
            shortest_ack_ns: 0,
            max_prop_delay_ns: crate::engine::from_secs(m.max_propagation_delay_s),
            data_rate_bps: m.data_rate_bps,
            basic_rate_bps: m.basic_rate_bps,
            cw_min,
            cw_max: 1023,
            rts_threshold_bytes: m.rts_threshold_bytes,
            short_retry_limit: m.short_retry_limit,
            long_retry_limit: m.long_retry_limit,
            frames: m.frames,
            ns2_tcp_extra_bytes: NS2_TCP_EXTRA_BYTES,
            backoff_draw: m.backoff_draw,
            backoff_count: m.backoff_count,
            response_rate: m.response_rate,
            cts_rule: m.cts_rule,
            rts_nav_limit_ns: SimTime::MAX,
        };
        // EIFS = SIFS + DIFS + ACK at the basic rate (ns-2 `getEIFS`),
        // counted as a NAV before DIFS (ns-2.35) or ending with that DIFS.
        p.eifs_ns = sifs_ns + p.ack_time();
        let fastest = standard
            .rates_bps()
            .map_or(m.data_rate_bps, |r| r[r.len() - 1]);
        p.shortest_ack_ns = p.ack_time_after(fastest).min(p.ack_ns);
        if m.eifs_rule == EifsRule::Ns2 {
            p.eifs_ns += difs_ns;
        }
        if m.nav_reset {
            p.rts_nav_limit_ns =
                2 * sifs_ns + p.cts_ns + phy.preamble_and_header_ns(m.basic_rate_bps) + 2 * slot_ns;
        }
        p
    }

    /// The NAV a frame for another node sets when it is decoded: its
    /// Duration field, cut for an RTS to [`Self::rts_nav_limit_ns`].
    #[inline]
    pub fn nav_of(&self, f: &super::Frame) -> SimTime {
        if f.kind == super::FrameKind::Rts {
            f.duration_ns.min(self.rts_nav_limit_ns)
        } else {
            f.duration_ns
        }
    }

    /// The bytes of a data frame carrying `packet` (MAC header + body + FCS).
    pub fn data_frame_bytes(&self, packet: &Packet) -> u32 {
        let size = packet.size_bytes;
        match self.frames {
            FrameSizes::Standard => size + super::DATA_HEADER_BYTES,
            FrameSizes::LlcSnap => size + super::DATA_HEADER_BYTES + super::LLC_SNAP_BYTES,
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
        self.phy.txtime(bytes, rate_bps)
    }

    /// The rate `f` goes at: RTS, CTS and ACK, and data for the broadcast
    /// address, at the basic rate (IEEE 802.11 (1999) section 9.6 for
    /// group-addressed frames, as ns-2.35's `sendDATA` and ns-3 send them);
    /// unicast data at the data rate.
    #[inline]
    pub fn frame_rate_bps(&self, f: &super::Frame) -> u64 {
        if f.kind != super::FrameKind::Data || f.ra == crate::net::BROADCAST {
            self.basic_rate_bps
        } else {
            self.data_rate_bps
        }
    }

    /// The rate of a CTS or ACK answering a frame sent at `rate_bps`
    /// (see [`ResponseRate`]).
    pub fn response_rate_bps(&self, rate_bps: u64) -> u64 {
        if self.response_rate == ResponseRate::Basic {
            return self.basic_rate_bps;
        }
        let dsss = |r: u64| DSSS_RATES_BPS.contains(&r);
        let mandatory: &[u64] = match self.phy {
            Phy::Dsss => return self.basic_rate_bps,
            Phy::HrDsss { .. } => &MANDATORY_DSSS_RATES_BPS,
            Phy::Ofdm => &MANDATORY_OFDM_RATES_BPS,
            Phy::Erp { .. } if dsss(rate_bps) => &MANDATORY_DSSS_RATES_BPS,
            Phy::Erp { .. } => &MANDATORY_OFDM_RATES_BPS,
        };
        let basic = self.basic_rate_bps;
        // Under 802.11g the basic rate may be of the other class.
        let same_class = !matches!(self.phy, Phy::Erp { .. }) || dsss(basic) == dsss(rate_bps);
        let not_above = |r: &&u64| **r <= rate_bps;
        let basic_set = mandatory
            .iter()
            .filter(|r| **r > basic)
            .chain(same_class.then_some(&basic))
            .filter(not_above)
            .max();
        basic_set
            .or_else(|| mandatory.iter().filter(not_above).max())
            .copied()
            .unwrap_or(basic)
    }

    /// The airtime of the ACK answering a data frame sent at `rate_bps`.
    #[inline]
    pub fn ack_time_after(&self, rate_bps: u64) -> SimTime {
        match self.response_rate {
            ResponseRate::Basic => self.ack_ns,
            ResponseRate::Standard => {
                self.txtime(super::ACK_BYTES, self.response_rate_bps(rate_bps))
            }
        }
    }

    #[inline]
    pub fn rts_time(&self) -> SimTime {
        self.rts_ns
    }
    #[inline]
    pub fn cts_time(&self) -> SimTime {
        self.cts_ns
    }
    #[inline]
    pub fn ack_time(&self) -> SimTime {
        self.ack_ns
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

    /// The parameters of `standard` with `basic_rate_bps` and IEEE 802.11's
    /// response rates.
    fn standard_responses(standard: &str, basic_rate_bps: u64) -> MacParams {
        MacParams::from_scenario(&scenario::Mac {
            standard: standard.into(),
            basic_rate_bps,
            response_rate: ResponseRate::Standard,
            ..Default::default()
        })
    }

    #[test]
    fn a_response_goes_at_the_highest_basic_rate_not_above_the_frame_answered() {
        let mb = |x: f64| (x * 1e6) as u64;
        let answers = |p: &MacParams, pairs: &[(f64, f64)]| {
            for &(frame, answer) in pairs {
                assert_eq!(p.response_rate_bps(mb(frame)), mb(answer), "{frame} Mb/s");
            }
        };
        // 802.11a from 6 Mb/s: the basic rate set is 6, 12 and 24.
        let a = standard_responses("802.11a", mb(6.0));
        answers(
            &a,
            &[
                (54.0, 24.0),
                (48.0, 24.0),
                (36.0, 24.0),
                (24.0, 24.0),
                (18.0, 12.0),
                (12.0, 12.0),
                (9.0, 6.0),
                (6.0, 6.0),
            ],
        );
        // A basic rate that is not mandatory joins the set; below it, the
        // mandatory rates answer.
        let a9 = standard_responses("802.11a", mb(9.0));
        answers(&a9, &[(54.0, 24.0), (18.0, 12.0), (9.0, 9.0), (6.0, 6.0)]);
        // 802.11b: every rate is mandatory.
        let b = standard_responses("802.11b", mb(1.0));
        answers(&b, &[(11.0, 11.0), (5.5, 5.5), (2.0, 2.0), (1.0, 1.0)]);
        let b2 = standard_responses("802.11b", mb(2.0));
        answers(&b2, &[(11.0, 11.0), (1.0, 1.0)]);
        // 802.11g: each class answers in its own rates.
        let g = standard_responses("802.11g", mb(1.0));
        answers(
            &g,
            &[
                (54.0, 24.0),
                (9.0, 6.0),
                (6.0, 6.0),
                (11.0, 11.0),
                (1.0, 1.0),
            ],
        );
        let g6 = standard_responses("802.11g", mb(6.0));
        answers(&g6, &[(54.0, 24.0), (6.0, 6.0), (11.0, 11.0), (2.0, 2.0)]);
        // The ACK after a 54 Mb/s frame: 20 µs + two symbols at 24 Mb/s
        // (134 bits of 96 a symbol), against six at 6 Mb/s.
        assert_eq!(a.ack_time_after(mb(54.0)), 28_000);
        assert_eq!(a.ack_time_after(mb(6.0)), 44_000);
        // ns-2.35's rule: the basic rate, whatever is answered.
        let basic = MacParams::from_scenario(&scenario::Mac {
            standard: "802.11a".into(),
            basic_rate_bps: mb(6.0),
            ..Default::default()
        });
        assert_eq!(basic.response_rate_bps(mb(54.0)), mb(6.0));
        assert_eq!(basic.ack_time_after(mb(54.0)), basic.ack_time());
        assert_eq!(basic.ack_time(), 44_000);
    }

    #[test]
    fn erp_takes_the_short_slot_when_asked() {
        let g = |slot| {
            MacParams::from_scenario(&scenario::Mac {
                standard: "802.11g".into(),
                basic_rate_bps: 6_000_000,
                slot,
                ..Default::default()
            })
        };
        let (long, short) = (g(SlotTime::Long), g(SlotTime::Short));
        assert_eq!((long.slot_ns, long.difs_ns), (20_000, 50_000));
        assert_eq!((short.slot_ns, short.difs_ns), (9_000, 28_000));
        // EIFS (ns-2's rule, DIFS after it): SIFS, the ACK at 6 Mb/s with
        // its 6 µs extension, and DIFS.
        assert_eq!(short.eifs_ns, 10_000 + 50_000 + 28_000);
        assert_eq!(short.sifs_ns, long.sifs_ns);
    }

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

    fn params(standard: &str, data_mbps: f64, basic_mbps: f64, preamble: Preamble) -> MacParams {
        MacParams::from_scenario(&scenario::Mac {
            standard: standard.into(),
            data_rate_bps: (data_mbps * 1e6) as u64,
            basic_rate_bps: (basic_mbps * 1e6) as u64,
            preamble,
            ..scenario::Mac::default()
        })
    }

    #[test]
    fn ofdm_timings_match_802_11a() {
        let p = params("802.11a", 54.0, 6.0, Preamble::Long);
        assert_eq!((p.slot_ns, p.sifs_ns, p.difs_ns), (9_000, 16_000, 34_000));
        assert_eq!((p.cw_min, p.cw_max), (15, 1023));
        // 14 bytes at 6 Mb/s: 16 + 112 + 6 bits in 24-bit symbols, 6 of
        // them after the 20 µs of preamble and SIGNAL (ns-3's 44 µs).
        assert_eq!(p.ack_time(), 44_000);
        assert_eq!(p.cts_time(), 44_000);
        assert_eq!(p.rts_time(), 52_000);
        assert_eq!(p.eifs_ns, 16_000 + 34_000 + 44_000);
        // A 1500-byte packet in a 28-byte header and FCS at 54 Mb/s:
        // 12,246 bits in 216-bit symbols, 57 of them.
        assert_eq!(p.txtime(1528, 54_000_000), 20_000 + 57 * 4_000);
        // Every rate's bits per symbol: 6 Mb/s carries 24, 9 Mb/s 36...
        for (rate, n_dbps) in OFDM_RATES_BPS
            .iter()
            .zip([24, 36, 48, 72, 96, 144, 192, 216])
        {
            assert_eq!(p.txtime(0, *rate), 20_000 + 22u64.div_ceil(n_dbps) * 4_000);
            assert_eq!(
                p.txtime(1000, *rate),
                20_000 + (8022u64).div_ceil(n_dbps) * 4_000,
                "{rate}"
            );
        }
    }

    #[test]
    fn hr_dsss_timings_match_802_11b() {
        let long = params("802.11b", 11.0, 1.0, Preamble::Long);
        let short = params("802.11b", 11.0, 2.0, Preamble::Short);
        assert_eq!(
            (long.slot_ns, long.sifs_ns, long.difs_ns),
            (20_000, 10_000, 50_000)
        );
        assert_eq!((long.cw_min, long.cw_max), (31, 1023));
        // 1056 bytes at 11 Mb/s: 768 µs after the PLCP.
        assert_eq!(long.txtime(1056, 11_000_000), 192_000 + 768_000);
        assert_eq!(short.txtime(1056, 11_000_000), 96_000 + 768_000);
        // The PSDU's time is rounded up to whole microseconds: 8000 bits
        // at 11 Mb/s are 727.3 µs, 112 at 5.5 Mb/s 20.4 µs.
        assert_eq!(long.txtime(1000, 11_000_000), 192_000 + 728_000);
        assert_eq!(long.txtime(14, 5_500_000), 192_000 + 21_000);
        // A frame at 1 Mb/s keeps the long preamble.
        assert_eq!(short.txtime(14, 1_000_000), 304_000);
        assert_eq!(short.ack_time(), 96_000 + 56_000);
        assert_eq!(long.ack_time(), 304_000);
        assert_eq!(long.eifs_ns, 364_000);
        assert_eq!(short.eifs_ns, 10_000 + 50_000 + 152_000);
    }

    #[test]
    fn erp_sends_dsss_rates_as_802_11b_and_ofdm_with_a_signal_extension() {
        let g = params("802.11g", 54.0, 6.0, Preamble::Short);
        let a = params("802.11a", 54.0, 6.0, Preamble::Long);
        let b = params("802.11b", 11.0, 2.0, Preamble::Short);
        assert_eq!((g.slot_ns, g.sifs_ns, g.difs_ns), (20_000, 10_000, 50_000));
        assert_eq!((g.cw_min, g.cw_max), (15, 1023));
        for bytes in [14, 20, 80, 1528] {
            assert_eq!(
                g.txtime(bytes, 54_000_000),
                a.txtime(bytes, 54_000_000) + 6_000
            );
            assert_eq!(
                g.txtime(bytes, 6_000_000),
                a.txtime(bytes, 6_000_000) + 6_000
            );
            for rate in DSSS_RATES_BPS {
                assert_eq!(g.txtime(bytes, rate), b.txtime(bytes, rate), "{rate}");
            }
        }
        assert_eq!(g.ack_time(), 50_000);
        assert_eq!(g.eifs_ns, 10_000 + 50_000 + 50_000);
    }

    #[test]
    fn the_standards_eifs_ends_with_the_difs_a_backoff_waits_after_a_nav() {
        let standard = MacParams::from_scenario(&scenario::Mac {
            eifs_rule: EifsRule::Standard,
            ..scenario::Mac::default()
        });
        // EIFS = 10 + 50 + 304 µs: ns-2.35's NAV is all of it, the
        // standard's leaves the DIFS to the backoff's own wait.
        assert_eq!(MacParams::default().eifs_ns, 364_000);
        assert_eq!(standard.eifs_ns + standard.difs_ns, 364_000);
    }

    #[test]
    fn an_unknown_standard_is_taken_as_802_11() {
        let p = params("802.11n", 2.0, 1.0, Preamble::Long);
        assert_eq!(p, MacParams::default());
        assert_eq!(MacStandard::parse("802.11"), Some(MacStandard::Dsss));
        for s in MacStandard::ALL {
            assert_eq!(MacStandard::parse(s.name()), Some(s));
            let (data, basic) = s.default_rates_bps();
            if let Some(rates) = s.rates_bps() {
                assert!(rates.contains(&data) && rates.contains(&basic), "{s:?}");
            }
        }
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
        // The standard frames: datagram + 28; with LLC/SNAP, 8 more.
        assert_eq!(MacParams::default().data_frame_bytes(&data), 552 + 28);
        let llc = MacParams {
            frames: FrameSizes::LlcSnap,
            ..MacParams::default()
        };
        assert_eq!(llc.data_frame_bytes(&data), 552 + 28 + 8);
        assert_eq!(llc.data_frame_bytes(&feedback), 44 + 28 + 8);
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
