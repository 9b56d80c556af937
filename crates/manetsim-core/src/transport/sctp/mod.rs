//! SCTP (RFC 4960): one association's sending end ([`SctpSender`]) and
//! receiving end ([`SctpReceiver`]) as sans-IO state machines, as TCP's and
//! TFRC's are.
//!
//! Nothing here reads a clock: every entry point takes `now`, chunks leave
//! through `poll_transmit`, and timers are deadlines from `poll_timeout`
//! (call `on_timeout` when one passes).
//!
//! What is modelled, by section of RFC 4960:
//! - 5.1: the four-way handshake (INIT, INIT ACK, COOKIE ECHO, COOKIE ACK)
//!   with the T1-init and T1-cookie timers, doubled on each expiry, and
//!   `Max.Init.Retransmits` (8) before the association fails;
//! - 6.1: sending within `cwnd` (one chunk may overrun it, as rule B
//!   allows), the peer's receive window, retransmissions first, and at most
//!   `Max.Burst` (4) packets per event, the second of 6.1's two ways
//!   ([`MaxBurstRule::Rfc`]; [`MaxBurstRule::Ns2`] is ns-2.35's narrower
//!   use of the limit);
//! - 6.2, 6.7: the receiver's SACK with gap-ack blocks and duplicate TSNs,
//!   delayed up to 200 ms or every second packet, and at once while there
//!   are gaps, when a gap is filled, or for a duplicate; a chunk that does
//!   not fit the receiver's window is dropped, or the highest TSN held for
//!   reordering makes room for it ([`WindowRule::Rfc`]);
//! - 6.3: the RTO (RTO.Initial 3 s, RTO.Min 1 s, RTO.Max 60 s, α = 1/8,
//!   β = 1/4), one RTT measurement at a time and none from a retransmitted
//!   chunk (Karn), the T3-rtx timer rules R1–R3, and on its expiry E1–E3:
//!   RTO doubled, every outstanding chunk marked for retransmission;
//! - 7.2.1–7.2.3: the initial `cwnd` of `min(4 MTU, max(2 MTU, 4380))`,
//!   slow start by at most one MTU per SACK that advances the cumulative TSN
//!   while `cwnd` is fully used, congestion avoidance by
//!   `partial_bytes_acked`, and after a T3 expiry `ssthresh = max(cwnd / 2,
//!   4 MTU)`, `cwnd = 1 MTU`; for each RTO without a DATA packet sent,
//!   `cwnd = max(cwnd / 2, 4 MTU)` ([`IdleRule`]);
//! - 7.2.4: fast retransmit after three miss indications counted by the
//!   HTNA rule, fast recovery until the cumulative TSN passes the highest
//!   TSN outstanding when it began, each chunk fast-retransmitted once (RFC
//!   9260's clarification), the first packet sent regardless of `cwnd`;
//! - 8.1: the association fails after `Association.Max.Retrans` (10)
//!   consecutive errors: T3 expiries without new data acknowledged, and
//!   HEARTBEATs unanswered;
//! - 8.3: each end sends a HEARTBEAT at the end of a heartbeat period (the
//!   RTO plus `HB.interval` of 30 s, give or take half an RTO) in which it sent
//!   nothing that times a round trip; an answer gives an RTT sample and
//!   clears the error counter, and a HEARTBEAT unanswered within an RTO
//!   counts an error and doubles the RTO. The data receiver sends no such
//!   chunk, so it sends a HEARTBEAT every period; if it gives the
//!   association up, it answers nothing more (no ABORT is modelled).
//!
//! [`FaultRule::Ns2`] replaces 8.1's and 8.3's handling of errors with
//! ns-2.35's: the only address turns inactive after `Path.Max.Retrans`
//! errors and stops the association's count, so it never fails, and an
//! unanswered HEARTBEAT goes again at once.
//!
//! - 6.10: bundling ([`SctpConfig::bundling`]): a packet carries as many
//!   DATA chunks as fit in the MTU, each let out by the rules of 6.1 as a
//!   packet of its own would be (`cwnd`, the peer's window), while
//!   `Max.Burst` counts packets; a fast retransmission carries the
//!   earliest marked chunks that fit (7.2.4, step 3).
//!
//! [`SendRule::Ns2`] replaces 6.1's timing of sends with ns-2.35's
//! `Agent/SCTP`'s, for side-by-side runs: new data only while a SACK is
//! handled, `cwnd` checked per packet, marked chunks kept in the flight
//! size and retransmitted bundled.
//!
//! - 6.5, 6.6: streams ([`SctpConfig::streams`]): the sender asks for
//!   that many outbound streams in its INIT, the receiver grants them in
//!   its INIT ACK, and messages go to the streams in turn (round robin, as
//!   ns-2.35's `Agent/SCTP` feeds its streams), each with its own stream
//!   sequence numbers; the receiver hands a message to the application as
//!   soon as every earlier message of its stream has been handed over, so a
//!   lost chunk holds back only its own stream. Unordered messages
//!   ([`SctpConfig::unordered`], the U bit) are handed over on arrival.
//!
//! [`MissRule::Ns2`] counts miss indications as ns-2.35's `Agent/SCTP`
//! does: the highest TSN newly acknowledged kept from SACK to SACK, and
//! chunks marked after a T3 expiry counted too; [`WindowRule::Ns2`] keeps
//! its receive window as ns-2.35's does.
//!
//! [`HandshakeRule::Ns2`] opens the association as ns-2.35's `Agent/SCTP`
//! does: its chunk sizes (no state cookie), and one HEARTBEAT after the
//! COOKIE ACK whose HEARTBEAT ACK confirms the path (§5.4), gives the first
//! RTT sample and lets data leave.
//!
//! - 6.9: fragmentation: a message larger than one chunk within the MTU
//!   leaves in fragments, each its own chunk and TSN on the message's
//!   stream and SSN, B on the first and E on the last; the receiver holds
//!   them (in its window) until the message is whole, then hands it over
//!   as any message.
//!
//! - 9.2: shutdown, for a finite transfer
//!   ([`SctpSender::with_transfer_bytes`]): once every chunk is
//!   acknowledged the sender sends SHUTDOWN and starts T2-shutdown, the
//!   receiver answers SHUTDOWN ACK and starts its own, the sender answers
//!   SHUTDOWN COMPLETE and both ends are closed; a T2 expiry sends its chunk
//!   again at the doubled RTO, and `Association.Max.Retrans` of them give
//!   the association up. A closed sender answers a SHUTDOWN ACK again
//!   (8.4, item 5).
//!
//! Simplifications, each stated where it matters: no SACK bundled with DATA;
//! one destination address (no multihoming, so no path
//! failover, and no `Path.Max.Retrans` apart from the association's
//! counter); no shutdown without a transfer size (the sender stops at the
//! flow's end, and both ends' HEARTBEATs with it); the receiving end sends
//! no DATA, so its SHUTDOWN-PENDING and the SHUTDOWN's Cumulative TSN Ack
//! have nothing to wait for; no ABORT; TSNs count from 0.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::engine::{Rng, SimTime, NS_PER_MS, NS_PER_S};

#[cfg(test)]
mod tests;

/// The common header of every SCTP packet (§3.1).
pub const COMMON_HEADER_BYTES: u32 = 12;
/// A DATA chunk's header (§3.3.1).
pub const DATA_CHUNK_HEADER_BYTES: u32 = 16;
/// A SACK chunk without gap-ack blocks or duplicate TSNs (§3.3.4).
pub const SACK_CHUNK_BYTES: u32 = 16;
/// INIT and INIT ACK chunks with their fixed parameters only (§3.3.2).
pub const INIT_CHUNK_BYTES: u32 = 20;
/// The state cookie manetsim's INIT ACK carries and COOKIE ECHO returns.
pub const COOKIE_BYTES: u32 = 32;
/// A HEARTBEAT or HEARTBEAT ACK chunk: its header and a Heartbeat Info
/// parameter of 20 bytes (§3.3.5), ns-2.35's fixed size.
pub const HEARTBEAT_CHUNK_BYTES: u32 = 24;

/// When `Max.Burst` limits a sending opportunity (`[flows.sctp]
/// max_burst_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxBurstRule {
    /// RFC 4960 §6.1 D, its second way: every sending opportunity (a SACK,
    /// a T3 expiry, the application's write) sends at most `max_burst`
    /// packets.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP` (`useMaxBurst_`, a change proposed to RFC
    /// 2960's §7.2.4): the limit applies only once a SACK has cumulatively
    /// acknowledged a chunk that was sent again (fast-retransmitted, or
    /// marked by a T3 expiry), and stays pending until a sending opportunity
    /// is cut short by it; otherwise the sender fills `cwnd` at once.
    Ns2,
}

/// Parameters of one association.
#[derive(Debug, Clone, PartialEq)]
pub struct SctpConfig {
    /// User data per DATA chunk: the application's packet size.
    pub chunk_bytes: u32,
    /// The path MTU, IP datagram bytes (1500).
    pub mtu_bytes: u32,
    /// The receiver's window (`a_rwnd` with nothing held), and the initial
    /// `ssthresh` (§7.2.1: "e.g., the size of the receiver's window").
    pub rwnd_bytes: u32,
    pub rto_initial: SimTime,
    pub rto_min: SimTime,
    pub rto_max: SimTime,
    /// Packets sent at most per event (`Max.Burst`).
    pub max_burst: u32,
    /// When `max_burst` applies.
    pub max_burst_rule: MaxBurstRule,
    /// Miss indications that trigger a fast retransmit (3).
    pub fast_rtx_trigger: u32,
    /// Delayed SACK: at most this long, and every second packet.
    pub sack_delay: SimTime,
    pub delayed_sack: bool,
    /// `Association.Max.Retrans` (10).
    pub assoc_max_retrans: u32,
    /// `Max.Init.Retransmits` (8).
    pub max_init_retrans: u32,
    /// §6.10: bundle DATA chunks that wait into one packet, up to the MTU.
    pub bundling: bool,
    /// What a DATA chunk counts in the flight size ([`ByteRule`]).
    pub byte_rule: ByteRule,
    /// When chunks leave ([`SendRule`]).
    pub send_rule: SendRule,
    /// How `cwnd` decays while nothing is sent ([`IdleRule`]).
    pub idle_rule: IdleRule,
    /// Outbound streams the sender asks for (§5.1.2's OS; at least 1);
    /// messages go to them in turn.
    pub streams: u16,
    /// Send every message unordered (§6.6, the U bit): the receiver hands
    /// it to the application on arrival, whatever its stream holds back.
    pub unordered: bool,
    /// How the association opens ([`HandshakeRule`]).
    pub handshake_rule: HandshakeRule,
    /// §8.3's `HB.interval` (30 s): each end sends a HEARTBEAT when its
    /// path was idle for about an RTO and this long; zero sends none.
    pub heartbeat_interval: SimTime,
    /// How errors count and an unanswered HEARTBEAT is followed
    /// ([`FaultRule`]).
    pub fault_rule: FaultRule,
    /// `Path.Max.Retrans` (5), under [`FaultRule::Ns2`].
    pub path_max_retrans: u32,
    /// How the receiver treats a chunk its window has no room for, and
    /// which SACKs the sender trusts for gap acks ([`WindowRule`]).
    pub window_rule: WindowRule,
    /// Which SACKs count miss indications ([`MissRule`]).
    pub miss_rule: MissRule,
}

/// Which chunks a SACK counts a miss indication for (§7.2.4, `[flows.sctp]
/// miss_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissRule {
    /// RFC 4960 §7.2.4 with the HTNA rule: a SACK with gap-ack blocks
    /// counts one for each chunk it reports missing below the highest TSN
    /// it newly acknowledges (in fast recovery, when it advances the
    /// cumulative ack, below the highest TSN it reports), so a SACK that
    /// newly acknowledges nothing counts none; a chunk already marked for
    /// retransmission counts none.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP` (its `ProcessGapAckBlocks`):
    /// - the highest TSN newly acknowledged is kept from SACK to SACK
    ///   (`uiHighestTsnNewlyAcked`): a cumulative ack sets it to the last
    ///   chunk it newly acknowledges, each newly gap-acknowledged chunk
    ///   raises it, and a SACK with gap-ack blocks counts a miss for each
    ///   chunk it reports missing below it, also when it newly acknowledges
    ///   nothing (a SACK answering a duplicate, or one overtaken on the way);
    /// - a SACK that advances the cumulative ack counts below the highest
    ///   TSN it reports too while that kept TSN is at or below the last fast
    ///   retransmit's recovery point (`uiRecover`, kept as well);
    /// - a chunk marked for retransmission after a T3 expiry counts misses
    ///   too, and three make it a fast retransmit (once).
    Ns2,
}

/// How the receive window is kept full or open (`[flows.sctp]
/// window_rule`): what the receiver does with a DATA chunk its window has
/// no room for, and which SACKs the sender takes gap acks back from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowRule {
    /// RFC 4960:
    /// - §6.2: a new chunk that does not fit the window left is dropped if
    ///   no TSN held for reordering is above its own; otherwise the highest
    ///   such TSN is dropped (reneged) to make room, as often as needed,
    ///   and the new chunk is taken; either way a SACK leaves at once;
    /// - §6.2.1 D iv: every SACK's gap-ack blocks are the receiver's whole
    ///   report, so a chunk an earlier SACK gap-acknowledged and this one
    ///   does not is outstanding again.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP`, as its `sctp.cc` does it:
    /// - `ProcessDataChunk` drops any chunk, new or duplicate, that does
    ///   not fit the window left, the one that would fill the gap in front
    ///   of the held chunks included; so once the chunks held above a gap
    ///   fill the window, the gap is never filled and the association
    ///   delivers nothing more (a SACK still answers each drop while a gap
    ///   is open);
    /// - `ProcessSackChunk` runs its gap-ack processing (which takes gap
    ///   acks back) only for a SACK that has gap-ack blocks: a late SACK
    ///   without any, of the current cumulative ack, leaves the earlier gap
    ///   acks standing, and its older, larger `a_rwnd` opens the window
    ///   over the chunks the receiver still holds.
    Ns2,
}

/// What a DATA chunk counts in the flight size, the peer's window and
/// `cwnd` growth (`[flows.sctp] byte_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ByteRule {
    /// RFC 4960 §6.1: its user data; `cwnd` grows by at most one MTU.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP`: its user data and its 16-byte header, at
    /// the sender and in the receiver's window alike; `cwnd` grows by at
    /// most the MTU less the IP and common headers (1,468 bytes), as its
    /// `cwnd_` trace shows.
    Ns2,
}

/// When the sender lets chunks out (`[flows.sctp] send_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SendRule {
    /// RFC 4960 §6.1: whenever `cwnd` and the peer's window allow, the
    /// application's message included; one chunk may overrun `cwnd`; a chunk
    /// marked for retransmission leaves the flight size until it is sent
    /// again.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP`, as its `sctp.cc` does it:
    /// - new data leaves only while a SACK (or the COOKIE ACK, the
    ///   HEARTBEAT ACK under [`HandshakeRule::Ns2`]) is being handled, never when the application hands a message over, and only
    ///   once no chunk waits for retransmission; a message handed over with
    ///   nothing outstanding waits for a SACK that never comes (the sender
    ///   stalls: an application slower than the round trip sends one
    ///   message);
    /// - `cwnd` is checked once per packet: a packet starts while the
    ///   outstanding bytes are under `cwnd`, and fills up to the MTU;
    /// - a chunk marked for retransmission stays counted as outstanding;
    /// - a T3 expiry or a fast retransmit sends one packet of marked chunks
    ///   (bundled), and each later SACK sends more while the outstanding
    ///   bytes other than marked ones are under `cwnd`;
    /// - the receiver acknowledges the first DATA chunk at once.
    Ns2,
}

/// How the association opens (`[flows.sctp] handshake_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandshakeRule {
    /// RFC 4960 §5.1: INIT, INIT ACK with a 32-byte state cookie, COOKIE
    /// ECHO returning it, COOKIE ACK; data leaves with the COOKIE ACK.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP`, as its `sctp.cc` does it:
    /// - INIT and INIT ACK of 24 bytes (the fixed fields and a 4-byte
    ///   parameter: ns-2.35's unreliable streams, Forward-TSN-Supported in
    ///   a pcap), COOKIE ECHO and COOKIE ACK of 4, without a cookie;
    /// - on the COOKIE ACK the sender sends a HEARTBEAT to confirm the path
    ///   (§5.4), and no data until its HEARTBEAT ACK; the ACK's echoed
    ///   send time gives the first RTT sample (RTO = max(`RTO.Min`, 3 RTT)),
    ///   then data leaves as at a SACK;
    /// - an unanswered HEARTBEAT is sent again after the RTO (which the
    ///   T1 expiries doubled), doubling it each time, without limit.
    Ns2,
}

/// How an endpoint counts its errors (T3 expiries, unanswered
/// HEARTBEATs) and what follows an unanswered HEARTBEAT (`[flows.sctp]
/// fault_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultRule {
    /// RFC 4960 §8.1 and §8.3: every error counts toward
    /// `Association.Max.Retrans`, and the association fails at the
    /// count's excess; after an unanswered HEARTBEAT the next waits for
    /// the end of the heartbeat period, which the doubled RTO lengthens.
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP`, as its `sctp.cc` does it:
    /// - errors also count on the peer's (only) address; once they exceed
    ///   `Path.Max.Retrans` (5) the address is inactive, and while it is,
    ///   errors no longer count toward the association, which therefore
    ///   never fails;
    /// - a T3 expiry that makes the address inactive sends a HEARTBEAT at
    ///   once (with HEARTBEATs on);
    /// - an unanswered HEARTBEAT is sent again at once, at the doubled RTO;
    /// - a HEARTBEAT ACK makes the address active and clears both counts;
    ///   a SACK that newly acknowledges a chunk clears the association's,
    ///   and, unless every such chunk waits for its retransmission after a
    ///   T3 expiry, the address's too.
    Ns2,
}

/// How `cwnd` decays while the sender sends nothing (`[flows.sctp]
/// idle_rule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdleRule {
    /// RFC 4960 §7.2.1: for each RTO in which no DATA packet leaves,
    /// `cwnd` becomes `max(cwnd/2, 4 MTU)`; a `cwnd` of 4 MTU or less is
    /// left as it is (read literally, the formula would raise it to 4 MTU
    /// while idle; a decay never raises `cwnd` here, as RFC 5681's restart
    /// window never raises TCP's).
    #[default]
    Rfc,
    /// ns-2.35's `Agent/SCTP` (its `CwndDegradeTimer`): the same halving
    /// to a floor of 4 x 1,468 bytes, applied to any `cwnd` over
    /// `initialCwnd_` (2) x 1,468 bytes, so one between 2 and 4 x 1,468
    /// bytes rises to the floor.
    Ns2,
    /// No decay: `cwnd` keeps its value through idle time.
    Off,
}

/// How many packets of marked chunks may leave now ([`SendRule::Ns2`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RtxLimit {
    None,
    OnePacket,
    Cwnd,
}

impl Default for SctpConfig {
    fn default() -> Self {
        Self {
            chunk_bytes: 1000,
            mtu_bytes: 1500,
            rwnd_bytes: 65_536,
            rto_initial: 3 * NS_PER_S,
            rto_min: NS_PER_S,
            rto_max: 60 * NS_PER_S,
            max_burst: 4,
            max_burst_rule: MaxBurstRule::Rfc,
            fast_rtx_trigger: 3,
            sack_delay: 200 * NS_PER_MS,
            delayed_sack: true,
            assoc_max_retrans: 10,
            max_init_retrans: 8,
            bundling: true,
            byte_rule: ByteRule::Rfc,
            send_rule: SendRule::Rfc,
            idle_rule: IdleRule::Rfc,
            streams: 1,
            unordered: false,
            handshake_rule: HandshakeRule::Rfc,
            heartbeat_interval: 30 * NS_PER_S,
            fault_rule: FaultRule::Rfc,
            path_max_retrans: 5,
            window_rule: WindowRule::Rfc,
            miss_rule: MissRule::Rfc,
        }
    }
}

impl SctpConfig {
    /// The largest message one DATA chunk carries within the MTU: 1452
    /// bytes for an MTU of 1500 (IP 20, common header 12, chunk header 16).
    pub fn max_chunk_bytes(mtu_bytes: u32) -> u32 {
        mtu_bytes.saturating_sub(20 + COMMON_HEADER_BYTES + DATA_CHUNK_HEADER_BYTES) & !3
    }

    /// What a DATA chunk of `bytes` user data counts ([`ByteRule`]).
    pub fn weight(&self, bytes: u32) -> u32 {
        match self.byte_rule {
            ByteRule::Rfc => bytes,
            ByteRule::Ns2 => bytes + DATA_CHUNK_HEADER_BYTES,
        }
    }

    /// The MTU of `cwnd`'s rules (growth, the floor of `ssthresh`, `cwnd`
    /// after a T3 expiry): the path MTU, or under [`ByteRule::Ns2`] the MTU
    /// less the IP and common headers (1,468 bytes), as ns-2.35 has it.
    pub fn cwnd_mtu_bytes(&self) -> u32 {
        match self.byte_rule {
            ByteRule::Rfc => self.mtu_bytes,
            ByteRule::Ns2 => self.mtu_bytes - 20 - COMMON_HEADER_BYTES,
        }
    }

    /// §7.2.1: `min(4 MTU, max(2 MTU, 4380))`.
    pub fn initial_cwnd_bytes(&self) -> u32 {
        (4 * self.mtu_bytes).min((2 * self.mtu_bytes).max(4380))
    }
}

/// One DATA chunk (§3.3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SctpData {
    /// Transmission sequence number, from 0.
    pub tsn: u64,
    /// User data bytes.
    pub bytes: u32,
    /// Stream identifier.
    pub stream: u16,
    /// Stream sequence number within `stream`, from 0 (0 on an unordered
    /// chunk, which has none; 16 bits on the wire).
    pub ssn: u64,
    /// The U bit: hand the message over on arrival.
    pub unordered: bool,
    /// The B bit: the message's first fragment (§6.9).
    pub begin: bool,
    /// The E bit: the message's last fragment. A message that fits one
    /// chunk has both.
    pub end: bool,
    /// When the chunk's message was first sent, carried for the
    /// receiver's delivery delay (simulation bookkeeping, not a wire
    /// field).
    pub first_sent_at: SimTime,
}

impl SctpData {
    /// A chunk of stream 0 whose stream sequence number is its TSN, as
    /// with one ordered stream, first sent at time 0.
    pub fn new(tsn: u64, bytes: u32) -> Self {
        Self {
            tsn,
            bytes,
            stream: 0,
            ssn: tsn,
            unordered: false,
            begin: true,
            end: true,
            first_sent_at: 0,
        }
    }
}

/// A SACK chunk (§3.3.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SctpSack {
    /// The lowest TSN not yet received: the cumulative TSN ack plus one.
    pub cum_next: u64,
    /// The receiver's window (`a_rwnd`).
    pub a_rwnd: u32,
    /// Blocks of TSNs received above the cumulative ack, inclusive, in order.
    pub gaps: Vec<(u64, u64)>,
    /// TSNs received more than once since the last SACK.
    pub dups: Vec<u64>,
}

/// What an SCTP packet carries: one control chunk, or DATA chunks (one, or
/// several bundled, in TSN order). A handshake chunk's layout (its size,
/// the cookie) follows `rule`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SctpChunk {
    /// INIT, asking for `streams` outbound streams.
    Init {
        streams: u16,
        rule: HandshakeRule,
    },
    /// INIT ACK, granting `streams` inbound streams.
    InitAck {
        streams: u16,
        rule: HandshakeRule,
    },
    CookieEcho {
        rule: HandshakeRule,
    },
    CookieAck,
    /// HEARTBEAT (§8.3), its Heartbeat Info carrying the send time;
    /// either end sends them.
    Heartbeat {
        sent_at: SimTime,
        to_receiver: bool,
    },
    /// HEARTBEAT ACK, echoing the HEARTBEAT's send time.
    HeartbeatAck {
        sent_at: SimTime,
        to_receiver: bool,
    },
    Data(Vec<SctpData>),
    Sack(SctpSack),
    /// SHUTDOWN (§9.2), from the sending end once a finite transfer is
    /// acknowledged; its Cumulative TSN Ack covers no data (the receiving
    /// end sends none).
    Shutdown,
    /// SHUTDOWN ACK, from the receiving end.
    ShutdownAck,
    /// SHUTDOWN COMPLETE, from the sending end: the association is closed.
    ShutdownComplete,
}

/// Bytes a DATA chunk takes in a packet: its header and its user data
/// padded to 4 bytes.
pub fn data_chunk_len(bytes: u32) -> u32 {
    DATA_CHUNK_HEADER_BYTES + bytes.next_multiple_of(4)
}

impl SctpChunk {
    /// A packet with one DATA chunk.
    pub fn data(tsn: u64, bytes: u32) -> Self {
        Self::Data(vec![SctpData::new(tsn, bytes)])
    }

    /// Bytes of the SCTP packet carrying this chunk (common header, chunk,
    /// user data padded to 4 bytes), without IP's.
    pub fn wire_len(&self) -> u32 {
        COMMON_HEADER_BYTES
            + match self {
                Self::Init { rule, .. } => match rule {
                    HandshakeRule::Rfc => INIT_CHUNK_BYTES,
                    HandshakeRule::Ns2 => INIT_CHUNK_BYTES + 4,
                },
                // ns-2.35's carries no cookie: a 4-byte parameter, as its
                // INIT's.
                Self::InitAck { rule, .. } => match rule {
                    HandshakeRule::Rfc => INIT_CHUNK_BYTES + 4 + COOKIE_BYTES,
                    HandshakeRule::Ns2 => INIT_CHUNK_BYTES + 4,
                },
                Self::CookieEcho { rule } => match rule {
                    HandshakeRule::Rfc => 4 + COOKIE_BYTES,
                    HandshakeRule::Ns2 => 4,
                },
                Self::CookieAck | Self::ShutdownAck | Self::ShutdownComplete => 4,
                Self::Shutdown => 8,
                Self::Heartbeat { .. } | Self::HeartbeatAck { .. } => HEARTBEAT_CHUNK_BYTES,
                Self::Data(chunks) => chunks.iter().map(|d| data_chunk_len(d.bytes)).sum(),
                Self::Sack(s) => SACK_CHUNK_BYTES + 4 * (s.gaps.len() + s.dups.len()) as u32,
            }
    }

    /// Whether the chunk travels from the sending end to the receiving end.
    pub fn to_receiver(&self) -> bool {
        match self {
            Self::Heartbeat { to_receiver, .. } | Self::HeartbeatAck { to_receiver, .. } => {
                *to_receiver
            }
            Self::Init { .. }
            | Self::CookieEcho { .. }
            | Self::Data(_)
            | Self::Shutdown
            | Self::ShutdownComplete => true,
            Self::InitAck { .. } | Self::CookieAck | Self::Sack(_) | Self::ShutdownAck => false,
        }
    }
}

/// The association as the sending end sees it (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SctpState {
    Closed,
    CookieWait,
    CookieEchoed,
    Established,
    /// A finite transfer was acknowledged: SHUTDOWN sent, its ACK awaited
    /// (§9.2, T2-shutdown running).
    ShutdownSent,
    /// SHUTDOWN ACK came and SHUTDOWN COMPLETE went: closed gracefully.
    ShutDown,
    /// Too many retransmissions (§8.1, or of INIT / COOKIE ECHO).
    Failed,
}

/// A chunk sent and not yet acknowledged cumulatively.
#[derive(Debug, Clone)]
struct Outstanding {
    bytes: u32,
    stream: u16,
    ssn: u64,
    /// The fragment's B and E bits (§6.9).
    begin: bool,
    end: bool,
    first_sent_at: SimTime,
    /// What it counts in the flight size, the peer's window and `cwnd`
    /// growth ([`ByteRule`]).
    weight: u32,
    sent_at: SimTime,
    transmissions: u32,
    /// Acknowledged by a gap-ack block.
    gap_acked: bool,
    /// Counted in the flight size.
    in_flight: bool,
    /// Marked for retransmission.
    marked: bool,
    /// Marked by a T3 expiry and not sent again since.
    t3_marked: bool,
    misses: u32,
    fast_retransmitted: bool,
}

/// The sender's message under fragmentation (§6.9).
#[derive(Debug, Clone, Copy, Default)]
struct Fragmenting {
    /// User bytes of the message not yet in a chunk; 0: no message begun.
    left: u32,
    stream: u16,
    ssn: u64,
    first_sent_at: SimTime,
}

/// One endpoint's view of the path's round trip (§6.3.1).
#[derive(Debug, Clone)]
struct PathRtt {
    srtt: Option<SimTime>,
    rttvar: SimTime,
    rto: SimTime,
}

impl PathRtt {
    fn new(cfg: &SctpConfig) -> Self {
        Self {
            srtt: None,
            rttvar: 0,
            rto: cfg.rto_initial,
        }
    }

    /// C1–C3: RTT sample `r` updates SRTT, RTTVAR and the RTO.
    fn sample(&mut self, r: SimTime, cfg: &SctpConfig) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                self.rttvar = (3 * self.rttvar + srtt.abs_diff(r)) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.rto = (srtt + 4 * self.rttvar).clamp(cfg.rto_min, cfg.rto_max);
    }

    /// E2 (and §8.3's back-off of an unanswered HEARTBEAT): the RTO
    /// doubles, up to `RTO.Max`.
    fn back_off(&mut self, cfg: &SctpConfig) {
        self.rto = (2 * self.rto).min(cfg.rto_max);
    }
}

/// §8.1: one endpoint's consecutive errors, and under [`FaultRule::Ns2`]
/// its peer's address's.
#[derive(Debug, Clone, Default)]
struct Errors {
    /// The association's count (`Association.Max.Retrans`).
    assoc: u32,
    /// [`FaultRule::Ns2`]: the address's count (`Path.Max.Retrans`).
    path: u32,
    /// [`FaultRule::Ns2`]: the address is inactive.
    inactive: bool,
    /// Times the address turned inactive.
    inactivations: u64,
}

/// What one more error did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ErrorVerdict {
    Counted,
    /// The address turned inactive ([`FaultRule::Ns2`]).
    PathInactive,
    /// The association fails.
    Failed,
}

impl Errors {
    /// A T3 expiry or an unanswered HEARTBEAT.
    fn count(&mut self, cfg: &SctpConfig) -> ErrorVerdict {
        match cfg.fault_rule {
            FaultRule::Rfc => {
                self.assoc += 1;
                if self.assoc > cfg.assoc_max_retrans {
                    ErrorVerdict::Failed
                } else {
                    ErrorVerdict::Counted
                }
            }
            FaultRule::Ns2 => {
                self.path += 1;
                if self.inactive {
                    return ErrorVerdict::Counted;
                }
                self.assoc += 1;
                let mut verdict = ErrorVerdict::Counted;
                if self.path > cfg.path_max_retrans {
                    self.inactive = true;
                    self.inactivations += 1;
                    verdict = ErrorVerdict::PathInactive;
                }
                if self.assoc > cfg.assoc_max_retrans {
                    verdict = ErrorVerdict::Failed;
                }
                verdict
            }
        }
    }

    /// A HEARTBEAT ACK: the address is active and both counts clear.
    fn clear(&mut self) {
        self.assoc = 0;
        self.path = 0;
        self.inactive = false;
    }

    /// A SACK newly acknowledged chunks; `clean`: one of them was not
    /// waiting for its retransmission after a T3 expiry.
    fn on_new_ack(&mut self, clean: bool) {
        self.assoc = 0;
        if clean {
            self.path = 0;
            self.inactive = false;
        }
    }
}

/// §8.3: one endpoint's HEARTBEATs to its peer's address while it is idle.
///
/// A heartbeat period lasts RTO + `HB.interval`, give or take half an RTO
/// (uniformly). A period in which no chunk left that can time a round
/// trip (a DATA chunk's first transmission, a HEARTBEAT) ends with a
/// HEARTBEAT. A HEARTBEAT not answered within one RTO counts as an error
/// of the association (§8.1) and doubles the RTO.
#[derive(Debug, Clone)]
struct IdleHeartbeat {
    /// `HB.interval`; zero turns the HEARTBEATs off.
    interval: SimTime,
    /// Draws each period's jitter.
    rng: Rng,
    /// When the current period started.
    period_start: SimTime,
    /// When the current period ends; `None` before the association is
    /// established, once it failed, or with the HEARTBEATs off.
    period_end: Option<SimTime>,
    /// A chunk that can time a round trip left in the current period.
    busy: bool,
    /// The last HEARTBEAT's answer is due by then.
    ack_due: Option<SimTime>,
    sent: u64,
    unanswered: u64,
}

/// What the heartbeat timers' expiry asks of their endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeartbeatExpiry {
    Quiet,
    /// Send a HEARTBEAT now.
    Send,
    /// An unanswered HEARTBEAT was the error too many: the association
    /// fails (the HEARTBEATs have stopped).
    Failed,
}

/// One heartbeat timer's expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeartbeatDue {
    Nothing,
    /// The last HEARTBEAT went unanswered for an RTO.
    Unanswered,
    /// The period ended idle: send a HEARTBEAT.
    Send,
}

impl IdleHeartbeat {
    fn new(cfg: &SctpConfig, rng: Rng) -> Self {
        Self {
            interval: cfg.heartbeat_interval,
            rng,
            period_start: 0,
            period_end: None,
            busy: false,
            ack_due: None,
            sent: 0,
            unanswered: 0,
        }
    }

    /// The association is established: the first period starts.
    fn start(&mut self, now: SimTime, rto: SimTime) {
        if self.interval > 0 && self.period_end.is_none() {
            self.busy = false;
            self.period_start = now;
            self.period_end = Some(now + self.period(rto));
        }
    }

    fn stop(&mut self) {
        self.period_end = None;
        self.ack_due = None;
    }

    /// RTO + `HB.interval` + a jitter uniform in [-RTO/2, RTO/2).
    fn period(&mut self, rto: SimTime) -> SimTime {
        let jitter = (self.rng.uniform() * rto as f64) as SimTime;
        self.interval + rto / 2 + jitter
    }

    /// A chunk that can time a round trip leaves.
    fn on_rtt_chunk(&mut self) {
        self.busy = true;
    }

    /// A HEARTBEAT leaves, at a period's start; its answer is due within
    /// `rto`.
    fn on_sent(&mut self, now: SimTime, rto: SimTime) {
        self.sent += 1;
        self.ack_due = Some(now + rto);
    }

    fn on_ack(&mut self) {
        self.ack_due = None;
    }

    /// A HEARTBEAT leaves within the current period, which is then not
    /// idle.
    fn send_now(&mut self, now: SimTime, rto: SimTime) {
        self.on_sent(now, rto);
        self.busy = true;
    }

    /// The last HEARTBEAT went unanswered and the RTO backed off to `rto`:
    /// the current period lasts as the backed-off RTO says.
    fn back_off(&mut self, rto: SimTime) {
        if self.period_end.is_some() {
            self.period_end = Some(self.period_start + self.period(rto));
        }
    }

    fn deadline(&self) -> Option<SimTime> {
        [self.period_end, self.ack_due].into_iter().flatten().min()
    }

    /// Runs the timers whose deadline passed at `now`: an unanswered
    /// HEARTBEAT is an error (§8.1, in `errors`) and backs the RTO off,
    /// and then the current period (§8.3) or, under [`FaultRule::Ns2`],
    /// sends the next HEARTBEAT at once; an idle period's end asks for a
    /// HEARTBEAT, whose answer is due an RTO later.
    fn expire(
        &mut self,
        now: SimTime,
        rtt: &mut PathRtt,
        errors: &mut Errors,
        cfg: &SctpConfig,
    ) -> HeartbeatExpiry {
        let mut out = HeartbeatExpiry::Quiet;
        loop {
            match self.on_timeout(now, rtt.rto) {
                HeartbeatDue::Nothing => return out,
                HeartbeatDue::Unanswered => {
                    if errors.count(cfg) == ErrorVerdict::Failed {
                        self.stop();
                        return HeartbeatExpiry::Failed;
                    }
                    rtt.back_off(cfg);
                    match cfg.fault_rule {
                        FaultRule::Rfc => self.back_off(rtt.rto),
                        FaultRule::Ns2 => {
                            self.send_now(now, rtt.rto);
                            out = HeartbeatExpiry::Send;
                        }
                    }
                }
                HeartbeatDue::Send => {
                    self.on_sent(now, rtt.rto);
                    out = HeartbeatExpiry::Send;
                }
            }
        }
    }

    /// The timers whose deadline passed: an unanswered HEARTBEAT first
    /// ([`Self::expire`] backs the RTO off, then calls [`Self::back_off`]), then
    /// the period's end; call again while it returns something.
    fn on_timeout(&mut self, now: SimTime, rto: SimTime) -> HeartbeatDue {
        if self.ack_due.is_some_and(|t| t <= now) {
            self.ack_due = None;
            self.unanswered += 1;
            return HeartbeatDue::Unanswered;
        }
        if self.period_end.is_none_or(|t| t > now) {
            return HeartbeatDue::Nothing;
        }
        let idle = !self.busy;
        self.busy = false;
        self.period_start = now;
        self.period_end = Some(now + self.period(rto));
        if idle {
            HeartbeatDue::Send
        } else {
            HeartbeatDue::Nothing
        }
    }
}

/// The sender's state, for time series and results.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SctpMetrics {
    pub cwnd_bytes: u32,
    pub ssthresh_bytes: u32,
    pub flight_bytes: u32,
    pub srtt: Option<SimTime>,
    pub rto: SimTime,
    /// DATA chunks sent again (by T3 expiry or fast retransmit).
    pub retransmissions: u64,
    /// DATA packets whose last chunk was sent before: how ns-2.35's trace
    /// shows retransmissions, a bundle being named by its last chunk (the
    /// same as `retransmissions` without bundling).
    pub retransmitted_packets: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// [`HandshakeRule::Ns2`]: HEARTBEATs that went unanswered while the
    /// path waited for confirmation (each sent again).
    pub heartbeat_timeouts: u64,
    /// §8.3: HEARTBEATs sent on the idle path, and those unanswered
    /// within an RTO.
    pub heartbeats_sent: u64,
    pub heartbeats_unanswered: u64,
    /// [`FaultRule::Ns2`]: times the peer's address turned inactive.
    pub path_inactivations: u64,
    /// §9.2: T2-shutdown expiries (each but the one that gives the
    /// association up sends SHUTDOWN again).
    pub shutdown_retransmissions: u32,
    pub state: SctpState,
}

/// The sending end of an association.
#[derive(Debug, Clone)]
pub struct SctpSender {
    cfg: SctpConfig,
    state: SctpState,
    /// FTP: always a message to send.
    bulk: bool,
    /// FTP with a transfer size: the user bytes not yet begun in a
    /// message (`None`: no end).
    bulk_left: Option<u64>,
    /// §9.2: T2-shutdown, and its expiries so far.
    t2: Option<SimTime>,
    shutdown_retrans: u32,
    /// Outbound streams, as the INIT ACK granted them.
    out_streams: u16,
    /// Each outbound stream's next stream sequence number.
    next_ssn: Vec<u64>,
    /// Messages the application handed over, not yet sent.
    waiting: u64,
    /// Messages begun so far (each message's stream is the next in turn).
    messages_begun: u64,
    /// §6.9: the message being fragmented: its user bytes not yet in a
    /// chunk, stream, stream sequence number and first send time (`left`
    /// 0: none).
    fragmenting: Fragmenting,
    next_tsn: u64,
    /// The lowest TSN not acknowledged cumulatively; `out[0]`'s TSN.
    cum_next: u64,
    out: VecDeque<Outstanding>,
    cwnd: u32,
    ssthresh: u32,
    partial_bytes_acked: u32,
    flight: u32,
    peer_rwnd: u32,
    rtt: PathRtt,
    /// The chunk timed for an RTT measurement: TSN and send time.
    probe: Option<(u64, SimTime)>,
    t3: Option<SimTime>,
    /// §7.2.1: when `cwnd` next decays, one RTO after the last DATA packet
    /// (or the last decay) ([`IdleRule`]).
    idle_decay: Option<SimTime>,
    /// T1-init or T1-cookie, with its current value and expiries so far.
    t1: Option<SimTime>,
    t1_value: SimTime,
    init_retrans: u32,
    /// A handshake chunk to send.
    control: Option<SctpChunk>,
    /// [`HandshakeRule::Ns2`]: when the HEARTBEAT that confirms the path
    /// is sent again, while unanswered.
    hb_timeout: Option<SimTime>,
    /// Data may leave: the COOKIE ACK came ([`HandshakeRule::Rfc`]), or
    /// the HEARTBEAT ACK ([`HandshakeRule::Ns2`]).
    path_confirmed: bool,
    /// §8.3: HEARTBEATs while the path is idle.
    heartbeat: IdleHeartbeat,
    /// The HEARTBEAT ACK owed to the receiving end's HEARTBEAT: the send
    /// time it echoes.
    heartbeat_reply: Option<SimTime>,
    /// §8.1: consecutive T3 expiries and unanswered HEARTBEATs.
    errors: Errors,
    /// In fast recovery until the cumulative TSN passes this one.
    recovery_exit: Option<u64>,
    /// [`MissRule::Ns2`]: the highest TSN newly acknowledged, kept from
    /// SACK to SACK, and the last recovery point.
    kept_htna: Option<u64>,
    kept_recover: Option<u64>,
    /// One fast retransmission may leave regardless of `cwnd`.
    fast_rtx_due: bool,
    burst_left: u32,
    /// [`MaxBurstRule::Ns2`]: a SACK acknowledged a chunk sent again, so
    /// the limit applies until a sending opportunity reaches it.
    apply_max_burst: bool,
    /// [`SendRule::Ns2`]: a SACK (or what confirmed the path) is being
    /// handled, so new data may leave; closed when nothing more leaves.
    new_data_window: bool,
    /// [`SendRule::Ns2`]: the weight of marked chunks, which stay in
    /// `flight`.
    marked_bytes: u32,
    /// [`SendRule::Ns2`]: packets of marked chunks that may leave now.
    rtx_limit: RtxLimit,
    retransmissions: u64,
    retransmitted_packets: u64,
    timeouts: u64,
    fast_retransmits: u64,
    heartbeat_timeouts: u64,
}

impl SctpSender {
    /// A sender; `bulk` always has data (FTP), otherwise it sends what
    /// [`Self::write`] hands it.
    pub fn new(cfg: SctpConfig, bulk: bool) -> Self {
        let cwnd = cfg.initial_cwnd_bytes();
        Self {
            state: SctpState::Closed,
            bulk,
            bulk_left: None,
            t2: None,
            shutdown_retrans: 0,
            out_streams: cfg.streams.max(1),
            next_ssn: vec![0; usize::from(cfg.streams.max(1))],
            waiting: 0,
            messages_begun: 0,
            fragmenting: Fragmenting::default(),
            next_tsn: 0,
            cum_next: 0,
            out: VecDeque::new(),
            cwnd,
            ssthresh: cfg.rwnd_bytes,
            partial_bytes_acked: 0,
            flight: 0,
            peer_rwnd: cfg.rwnd_bytes,
            rtt: PathRtt::new(&cfg),
            probe: None,
            t3: None,
            idle_decay: None,
            t1: None,
            t1_value: cfg.rto_initial,
            init_retrans: 0,
            control: None,
            hb_timeout: None,
            path_confirmed: false,
            heartbeat: IdleHeartbeat::new(&cfg, Rng::from_seed(0)),
            heartbeat_reply: None,
            errors: Errors::default(),
            recovery_exit: None,
            kept_htna: None,
            kept_recover: None,
            fast_rtx_due: false,
            burst_left: cfg.max_burst,
            apply_max_burst: false,
            new_data_window: false,
            marked_bytes: 0,
            rtx_limit: RtxLimit::None,
            retransmissions: 0,
            retransmitted_packets: 0,
            timeouts: 0,
            fast_retransmits: 0,
            heartbeat_timeouts: 0,
            cfg,
        }
    }

    /// The generator of the jitter of §8.3's heartbeat periods (a fixed
    /// seed otherwise).
    pub fn with_heartbeat_rng(mut self, rng: Rng) -> Self {
        self.heartbeat.rng = rng;
        self
    }

    /// FTP of `bytes` user bytes in all: messages of `chunk_bytes`, the
    /// last one the rest; then nothing more to send.
    pub fn with_transfer_bytes(mut self, bytes: u64) -> Self {
        self.bulk_left = Some(bytes);
        self
    }

    /// Whether a finite transfer has begun its last message, and every
    /// chunk sent is acknowledged cumulatively.
    pub fn transfer_done(&self) -> bool {
        self.bulk_left == Some(0) && self.fragmenting.left == 0 && self.out.is_empty()
    }

    /// Opens the association: INIT leaves at the next poll.
    pub fn start(&mut self, now: SimTime) {
        if self.state != SctpState::Closed {
            return;
        }
        self.state = SctpState::CookieWait;
        self.control = Some(self.init());
        self.t1 = Some(now + self.t1_value);
    }

    /// The application hands over `messages` messages: a sending
    /// opportunity under [`SendRule::Rfc`]; under [`SendRule::Ns2`] they
    /// wait for the next SACK.
    pub fn write(&mut self, messages: u64) {
        self.waiting += messages;
        if !self.ns2_sends() {
            self.refill_burst();
        }
    }

    /// The INIT this sender sends.
    fn init(&self) -> SctpChunk {
        SctpChunk::Init {
            streams: self.cfg.streams,
            rule: self.cfg.handshake_rule,
        }
    }

    /// The COOKIE ECHO this sender sends.
    fn cookie_echo(&self) -> SctpChunk {
        SctpChunk::CookieEcho {
            rule: self.cfg.handshake_rule,
        }
    }

    /// [`HandshakeRule::Ns2`]: a HEARTBEAT to confirm the path, sent again
    /// after the RTO while unanswered.
    fn send_heartbeat(&mut self, now: SimTime) {
        self.control = Some(SctpChunk::Heartbeat {
            sent_at: now,
            to_receiver: true,
        });
        self.hb_timeout = Some(now + self.rtt.rto);
    }

    /// The path is confirmed: data may leave, as at a SACK, and the first
    /// heartbeat period starts (ns-2.35 starts it once its HEARTBEAT is
    /// answered).
    fn confirm_path(&mut self, now: SimTime) {
        self.path_confirmed = true;
        self.heartbeat.start(now, self.rtt.rto);
        self.refill_burst();
        self.new_data_window = true;
    }

    fn ns2_sends(&self) -> bool {
        self.cfg.send_rule == SendRule::Ns2
    }

    pub fn state(&self) -> SctpState {
        self.state
    }

    /// The peer's window as the sender sees it (§6.2.1): the last
    /// `a_rwnd` less what it sent since.
    pub fn peer_rwnd(&self) -> u32 {
        self.peer_rwnd
    }

    /// [`FaultRule::Ns2`]: the receiver's address is inactive.
    pub fn path_inactive(&self) -> bool {
        self.errors.inactive
    }

    /// Messages waiting to be sent for the first time.
    pub fn waiting(&self) -> u64 {
        self.waiting
    }

    pub fn metrics(&self) -> SctpMetrics {
        SctpMetrics {
            cwnd_bytes: self.cwnd,
            ssthresh_bytes: self.ssthresh,
            flight_bytes: self.flight,
            srtt: self.rtt.srtt,
            rto: self.rtt.rto,
            retransmissions: self.retransmissions,
            retransmitted_packets: self.retransmitted_packets,
            timeouts: self.timeouts,
            fast_retransmits: self.fast_retransmits,
            heartbeat_timeouts: self.heartbeat_timeouts,
            heartbeats_sent: self.heartbeat.sent,
            heartbeats_unanswered: self.heartbeat.unanswered,
            path_inactivations: self.errors.inactivations,
            shutdown_retransmissions: self.shutdown_retrans,
            state: self.state,
        }
    }

    /// A chunk from the receiving end arrived.
    pub fn on_chunk(&mut self, now: SimTime, chunk: &SctpChunk) {
        match chunk {
            SctpChunk::InitAck { streams, .. } if self.state == SctpState::CookieWait => {
                // §5.1.1: no more outbound streams than the peer accepts.
                self.out_streams = self.cfg.streams.min(*streams).max(1);
                self.state = SctpState::CookieEchoed;
                self.control = Some(self.cookie_echo());
                self.t1 = Some(now + self.t1_value);
            }
            SctpChunk::CookieAck if self.state == SctpState::CookieEchoed => {
                self.state = SctpState::Established;
                self.t1 = None;
                match self.cfg.handshake_rule {
                    HandshakeRule::Rfc => self.confirm_path(now),
                    HandshakeRule::Ns2 => {
                        // ns-2.35's T1 expiries doubled the path's RTO,
                        // which the HEARTBEAT's timer runs at.
                        self.rtt.rto = self.t1_value;
                        self.send_heartbeat(now);
                    }
                }
            }
            // §8.3: the receiving end's HEARTBEAT is answered from the
            // COOKIE-ECHOED state on.
            SctpChunk::Heartbeat {
                sent_at,
                to_receiver: false,
            } if matches!(self.state, SctpState::CookieEchoed | SctpState::Established) => {
                self.heartbeat_reply = Some(*sent_at);
            }
            SctpChunk::HeartbeatAck {
                sent_at,
                to_receiver: false,
            } if self.state == SctpState::Established => {
                // §8.3: an RTT sample from the echoed send time (a late
                // answer to an earlier HEARTBEAT carries that one's), and
                // the error counters cleared.
                self.rtt_sample(now.saturating_sub(*sent_at));
                self.hb_timeout = None;
                self.heartbeat.on_ack();
                self.errors.clear();
                if !self.path_confirmed {
                    self.confirm_path(now);
                }
            }
            SctpChunk::Sack(s) if self.state == SctpState::Established => {
                // ns-2.35 opens the window for new data with any SACK, a
                // stale one too.
                if self.ns2_sends() {
                    self.new_data_window = true;
                }
                self.on_sack(now, s);
                if self.transfer_done() {
                    self.begin_shutdown(now);
                }
            }
            // §9.2; and §8.4 5): a SHUTDOWN ACK after the association closed
            // (the SHUTDOWN COMPLETE was lost) is answered again.
            SctpChunk::ShutdownAck
                if matches!(self.state, SctpState::ShutdownSent | SctpState::ShutDown) =>
            {
                self.state = SctpState::ShutDown;
                self.t2 = None;
                self.control = Some(SctpChunk::ShutdownComplete);
            }
            _ => {}
        }
    }

    /// §9.2: every chunk of a finite transfer is acknowledged, so the
    /// association shuts down: SHUTDOWN leaves, T2-shutdown starts at the
    /// RTO, and the idle path's HEARTBEATs stop.
    fn begin_shutdown(&mut self, now: SimTime) {
        self.state = SctpState::ShutdownSent;
        self.control = Some(SctpChunk::Shutdown);
        self.t2 = Some(now + self.rtt.rto);
        self.t3 = None;
        self.idle_decay = None;
        self.heartbeat.stop();
    }

    /// T2-shutdown expired: SHUTDOWN goes again at the doubled RTO; after
    /// `Association.Max.Retrans` of them the association is given up.
    fn on_t2(&mut self, now: SimTime) {
        self.shutdown_retrans += 1;
        if self.shutdown_retrans > self.cfg.assoc_max_retrans {
            self.fail();
            return;
        }
        self.rtt.back_off(&self.cfg);
        self.control = Some(SctpChunk::Shutdown);
        self.t2 = Some(now + self.rtt.rto);
    }

    fn on_sack(&mut self, now: SimTime, sack: &SctpSack) {
        // §6.2.1 D i): a SACK older than the cumulative ack point is stale.
        if sack.cum_next < self.cum_next {
            return;
        }
        let cum_next = sack.cum_next.min(self.next_tsn);
        let flight_before = self.flight;
        let advanced = cum_next > self.cum_next;
        let mut newly_acked: u32 = 0;
        // A newly acknowledged chunk that was not waiting for its
        // retransmission after a T3 expiry ([`FaultRule::Ns2`]).
        let mut clean = false;
        let mut htna: Option<u64> = None;
        while self.cum_next < cum_next {
            let c = self.out.pop_front().expect("an outstanding chunk per TSN");
            let tsn = self.cum_next;
            self.cum_next += 1;
            if !c.gap_acked {
                newly_acked += c.weight;
                clean |= !c.t3_marked;
                htna = Some(tsn);
                self.kept_htna = Some(tsn);
                self.measure(now, tsn, &c);
            }
            if c.in_flight {
                self.flight -= c.weight;
                if c.marked {
                    self.marked_bytes -= c.weight;
                }
            }
            // ns-2.35 applies Max.Burst once a SACK acknowledges a chunk
            // that was fast-retransmitted (its `eIneligibleForFastRtx`;
            // a T3 expiry does not set it).
            if c.fast_retransmitted {
                self.apply_max_burst = true;
            }
        }
        self.refill_burst();
        let mut highest_gap = None;
        for &(lo, hi) in &sack.gaps {
            let (lo, hi) = (
                lo.max(self.cum_next),
                hi.min(self.next_tsn.saturating_sub(1)),
            );
            if lo > hi {
                continue;
            }
            highest_gap = Some(hi);
            for tsn in lo..=hi {
                let i = (tsn - self.cum_next) as usize;
                let c = &mut self.out[i];
                if c.gap_acked {
                    continue;
                }
                c.gap_acked = true;
                if c.in_flight {
                    c.in_flight = false;
                    self.flight -= c.weight;
                    if c.marked {
                        self.marked_bytes -= c.weight;
                    }
                }
                clean |= !c.t3_marked;
                c.marked = false;
                c.t3_marked = false;
                newly_acked += c.weight;
                htna = Some(tsn);
                self.kept_htna = self.kept_htna.max(Some(tsn));
                let c = c.clone();
                self.measure(now, tsn, &c);
            }
        }
        // ns-2.35 takes gap acks back only from a SACK with blocks.
        if self.cfg.window_rule == WindowRule::Rfc || !sack.gaps.is_empty() {
            self.take_back_gap_acks(now, &sack.gaps);
        }
        // ns-2.35 clears the association's count whenever the cumulative
        // ack advances, also over chunks gap-acknowledged before.
        if newly_acked > 0 || (advanced && self.cfg.fault_rule == FaultRule::Ns2) {
            self.errors.on_new_ack(clean);
        }
        let fast_marked = self.count_misses(advanced, htna, highest_gap);
        // §7.2.4: leave fast recovery once the cumulative ack passes its
        // exit point; no cwnd growth on that SACK or within recovery.
        let in_recovery = self.recovery_exit.is_some();
        if let Some(exit) = self.recovery_exit {
            if self.cum_next > exit {
                self.recovery_exit = None;
            }
        }
        if advanced && !in_recovery {
            let fully_used = flight_before >= self.cwnd;
            let mtu = self.cfg.cwnd_mtu_bytes();
            if self.cwnd <= self.ssthresh {
                if fully_used {
                    self.cwnd += newly_acked.min(mtu);
                }
            } else {
                self.partial_bytes_acked += newly_acked;
                if self.partial_bytes_acked >= self.cwnd && fully_used {
                    self.partial_bytes_acked -= self.cwnd;
                    self.cwnd += mtu;
                }
            }
        }
        if self.flight == 0 {
            self.partial_bytes_acked = 0;
        }
        self.peer_rwnd = sack.a_rwnd.saturating_sub(self.flight);
        // §6.3.2 R2, R3.
        if self.flight == 0 {
            self.t3 = None;
        } else if advanced {
            self.t3 = Some(now + self.rtt.rto);
        }
        if self.ns2_sends() {
            // ns-2.35: a fast retransmit sends one packet of marked chunks;
            // otherwise marked chunks leave as `cwnd` allows; new data
            // follows once none is marked.
            self.rtx_limit = if fast_marked {
                RtxLimit::OnePacket
            } else if self.out.iter().any(|c| c.marked) {
                RtxLimit::Cwnd
            } else {
                RtxLimit::None
            };
        }
    }

    /// Marks chunk `i` for retransmission: it leaves the flight size
    /// ([`SendRule::Rfc`]) or stays counted there ([`SendRule::Ns2`]).
    fn mark(&mut self, i: usize) {
        let ns2 = self.ns2_sends();
        let c = &mut self.out[i];
        if c.marked {
            return;
        }
        c.marked = true;
        if c.in_flight {
            if ns2 {
                self.marked_bytes += c.weight;
            } else {
                // §6.2.1 C: its size goes back to the peer's window, which
                // its retransmission takes again (B).
                c.in_flight = false;
                self.flight -= c.weight;
                self.peer_rwnd += c.weight;
            }
        }
    }

    /// §6.2.1 D iii-iv: a chunk a gap-ack block acknowledged before and
    /// this SACK's `gaps` do not cover may be missing again: the receiver
    /// reneged, or this SACK is older than the last (a path can reorder
    /// them). It counts as outstanding again, in the flight size and so
    /// against the peer's window, which this SACK's `a_rwnd`, as old as
    /// the SACK, still counts it in; T3 runs for it. Its miss indications
    /// come from the HTNA rule, as any outstanding chunk's. (ns-2.35 does
    /// the same: its "out of order SACK?" case.)
    fn take_back_gap_acks(&mut self, now: SimTime, gaps: &[(u64, u64)]) {
        let mut blocks = gaps.iter().peekable();
        let mut taken_back = false;
        for i in 0..self.out.len() {
            if !self.out[i].gap_acked {
                continue;
            }
            let tsn = self.cum_next + i as u64;
            while blocks.peek().is_some_and(|&&(_, hi)| hi < tsn) {
                blocks.next();
            }
            if blocks.peek().is_some_and(|&&(lo, _)| lo <= tsn) {
                continue;
            }
            let c = &mut self.out[i];
            c.gap_acked = false;
            c.in_flight = true;
            self.flight += c.weight;
            taken_back = true;
        }
        if taken_back && self.t3.is_none() {
            self.t3 = Some(now + self.rtt.rto);
        }
    }

    /// §7.2.4: miss indications by the HTNA rule; a chunk with
    /// `fast_rtx_trigger` of them is marked for fast retransmission.
    /// Whether any was.
    fn count_misses(
        &mut self,
        advanced: bool,
        htna: Option<u64>,
        highest_gap: Option<u64>,
    ) -> bool {
        let Some(highest) = highest_gap else {
            return false;
        };
        let kept = self.cfg.miss_rule == MissRule::Ns2;
        // In fast recovery, a SACK that advances the cumulative ack counts
        // every TSN it reports missing; otherwise those below the highest
        // TSN it newly acknowledges. ns-2.35 keeps both the highest TSN
        // newly acknowledged and the recovery point from SACK to SACK.
        let limit = if kept {
            let Some(h) = self.kept_htna else {
                return false;
            };
            if advanced && self.kept_recover.is_some_and(|r| h <= r) {
                h.max(highest)
            } else {
                h
            }
        } else if self.recovery_exit.is_some() && advanced {
            highest
        } else {
            match htna {
                Some(h) => h,
                None => return false,
            }
        };
        let ns2 = self.ns2_sends();
        let mut marked_any = false;
        for i in 0..self.out.len() {
            let tsn = self.cum_next + i as u64;
            if tsn >= limit {
                break;
            }
            let c = &mut self.out[i];
            if c.gap_acked || (c.marked && !kept) || c.fast_retransmitted {
                continue;
            }
            c.misses += 1;
            if c.misses >= self.cfg.fast_rtx_trigger {
                // ns-2.35 makes the chunk ineligible for another fast
                // retransmit as it marks it.
                if ns2 || kept {
                    c.fast_retransmitted = true;
                    c.misses = 0;
                }
                self.mark(i);
                marked_any = true;
            }
        }
        if !marked_any {
            return false;
        }
        self.fast_retransmits += 1;
        if self.recovery_exit.is_none() {
            let mtu = self.cfg.cwnd_mtu_bytes();
            self.ssthresh = (self.cwnd / 2).max(4 * mtu);
            self.cwnd = self.ssthresh;
            self.partial_bytes_acked = 0;
            self.recovery_exit = Some(self.next_tsn - 1);
            self.kept_recover = self.recovery_exit;
        }
        if !ns2 {
            self.fast_rtx_due = true;
        }
        true
    }

    /// §6.3.1: an RTT sample from the chunk `tsn` if it is the one timed
    /// and was sent once.
    fn measure(&mut self, now: SimTime, tsn: u64, c: &Outstanding) {
        let Some((probe, sent_at)) = self.probe else {
            return;
        };
        if probe != tsn {
            return;
        }
        self.probe = None;
        if c.transmissions != 1 {
            return;
        }
        self.rtt_sample(now.saturating_sub(sent_at));
    }

    /// §6.3.1 C1–C3: RTT sample `r` updates SRTT, RTTVAR and the RTO.
    fn rtt_sample(&mut self, r: SimTime) {
        self.rtt.sample(r, &self.cfg);
    }

    /// A new sending opportunity: `max_burst` packets, or without a limit
    /// under ns-2.35's rule until a retransmitted chunk is acknowledged.
    fn refill_burst(&mut self) {
        self.burst_left = match self.cfg.max_burst_rule {
            MaxBurstRule::Ns2 if !self.apply_max_burst => u32::MAX,
            _ => self.cfg.max_burst,
        };
    }

    /// Whether `Max.Burst` stops a packet that could otherwise leave now.
    fn burst_spent(&mut self) -> bool {
        if self.burst_left > 0 {
            return false;
        }
        // ns-2.35 clears its flag when the limit cuts a burst short.
        self.apply_max_burst = false;
        true
    }

    /// The next chunk to send, if any may leave now.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<SctpChunk> {
        if let Some(c) = self.control.take() {
            return Some(c);
        }
        if let Some(sent_at) = self.heartbeat_reply.take() {
            return Some(SctpChunk::HeartbeatAck {
                sent_at,
                to_receiver: true,
            });
        }
        if self.state != SctpState::Established || !self.path_confirmed {
            return None;
        }
        if self.ns2_sends() {
            return self.poll_ns2(now);
        }
        let (first, fast) = self.next_chunk(now, None)?;
        // The packet counts once against Max.Burst, however many chunks
        // it carries.
        self.burst_left -= 1;
        let mut chunks = vec![first];
        let mut room = self
            .cfg
            .mtu_bytes
            .saturating_sub(20 + COMMON_HEADER_BYTES + data_chunk_len(first.bytes));
        if self.cfg.bundling && fast {
            // §7.2.4 3): the fast retransmission carries the earliest
            // marked chunks that fit in one packet, regardless of cwnd.
            let from = (first.tsn - self.cum_next) as usize + 1;
            self.resend_marked(now, from, room, true, &mut chunks);
        } else if self.cfg.bundling {
            while let Some((d, _)) = self.next_chunk(now, Some(room)) {
                room -= data_chunk_len(d.bytes);
                chunks.push(d);
            }
        }
        let last = chunks.last().map_or(0, |d| d.tsn);
        if self.out[(last - self.cum_next) as usize].transmissions > 1 {
            self.retransmitted_packets += 1;
        }
        Some(SctpChunk::Data(chunks))
    }

    /// Sends again, into `chunks`, the chunks marked for retransmission
    /// from index `from` on, in TSN order, while they fit in `room` bytes
    /// (the first always, into an empty packet); `fast` counts them as
    /// fast-retransmitted. Resending the earliest outstanding chunk restarts
    /// T3 (§6.3.2 R4-like).
    fn resend_marked(
        &mut self,
        now: SimTime,
        from: usize,
        mut room: u32,
        fast: bool,
        chunks: &mut Vec<SctpData>,
    ) {
        for i in from..self.out.len() {
            if !self.out[i].marked {
                continue;
            }
            let len = data_chunk_len(self.out[i].bytes);
            if len > room && !chunks.is_empty() {
                break;
            }
            room = room.saturating_sub(len);
            if fast {
                self.out[i].fast_retransmitted = true;
                self.out[i].misses = 0;
            }
            if i == 0 {
                self.t3 = Some(now + self.rtt.rto);
            }
            let tsn = self.cum_next + i as u64;
            chunks.push(self.transmit(now, i, tsn));
        }
    }

    /// [`SendRule::Ns2`]'s next packet: marked chunks first, as many as
    /// fit in the MTU, while `rtx_limit` allows; then, while a SACK is
    /// being handled and none is marked, new chunks, as many as fit, in a
    /// packet that starts with the outstanding bytes under `cwnd`.
    fn poll_ns2(&mut self, now: SimTime) -> Option<SctpChunk> {
        let payload = self.cfg.mtu_bytes - 20 - COMMON_HEADER_BYTES;
        let any_marked = self.out.iter().any(|c| c.marked);
        if self.rtx_limit != RtxLimit::None && any_marked {
            let may = match self.rtx_limit {
                RtxLimit::OnePacket => true,
                _ => self.flight - self.marked_bytes < self.cwnd,
            };
            if may {
                let mut chunks = Vec::new();
                self.resend_marked(now, 0, payload, false, &mut chunks);
                self.retransmitted_packets += 1;
                // ns-2.35 checks Max.Burst after each packet of
                // retransmissions.
                if self.rtx_limit == RtxLimit::OnePacket {
                    self.rtx_limit = RtxLimit::None;
                } else if self.burst_left == 0 {
                    self.apply_max_burst = false;
                    self.rtx_limit = RtxLimit::None;
                } else {
                    self.burst_left -= 1;
                }
                return Some(SctpChunk::Data(chunks));
            }
        }
        self.rtx_limit = RtxLimit::None;
        let has_data = self.has_new_data();
        if !self.new_data_window
            || any_marked
            || !has_data
            || self.flight >= self.cwnd
            || self.burst_spent()
        {
            self.new_data_window = false;
            return None;
        }
        let mut room = payload;
        let mut chunks = Vec::new();
        while self.has_new_data() && data_chunk_len(self.next_new_bytes()) <= room {
            let bytes = self.next_new_bytes();
            let weight = self.cfg.weight(bytes);
            // §6.1 A: nothing into a closed window, except one chunk when
            // nothing is outstanding.
            if self.peer_rwnd < weight && !(self.flight == 0 && chunks.is_empty()) {
                break;
            }
            room -= data_chunk_len(bytes);
            chunks.push(self.send_new(now));
            if !self.cfg.bundling {
                break;
            }
        }
        if chunks.is_empty() {
            self.new_data_window = false;
            return None;
        }
        self.burst_left -= 1;
        Some(SctpChunk::Data(chunks))
    }

    /// The next DATA chunk to send, and whether it is a fast
    /// retransmission: the packet's first (`room` None, within
    /// `Max.Burst`), or one more for a packet with `room` bytes left.
    fn next_chunk(&mut self, now: SimTime, room: Option<u32>) -> Option<(SctpData, bool)> {
        let fits = |bytes: u32| room.is_none_or(|r| data_chunk_len(bytes) <= r);
        let first_marked = self.out.iter().position(|c| c.marked);
        if room.is_none() {
            if self.fast_rtx_due && first_marked.is_some() && self.burst_spent() {
                return None;
            }
            if self.fast_rtx_due {
                self.fast_rtx_due = false;
                if let Some(i) = first_marked {
                    self.out[i].fast_retransmitted = true;
                    self.out[i].misses = 0;
                    let tsn = self.cum_next + i as u64;
                    // §6.3.2 R4-like: retransmitting the earliest
                    // outstanding chunk restarts T3.
                    if i == 0 {
                        self.t3 = Some(now + self.rtt.rto);
                    }
                    return Some((self.transmit(now, i, tsn), true));
                }
            }
        }
        if self.flight >= self.cwnd {
            return None;
        }
        if let Some(i) = first_marked {
            if (room.is_none() && self.burst_spent()) || !fits(self.out[i].bytes) {
                return None;
            }
            let tsn = self.cum_next + i as u64;
            return Some((self.transmit(now, i, tsn), false));
        }
        let has_data = self.has_new_data();
        let bytes = self.next_new_bytes();
        let weight = self.cfg.weight(bytes);
        // §6.1 A: nothing new into a closed window, except one chunk when
        // nothing is in flight.
        if !has_data
            || (self.peer_rwnd < weight && self.flight > 0)
            || (room.is_none() && self.burst_spent())
            || !fits(bytes)
        {
            return None;
        }
        Some((self.send_new(now), false))
    }

    /// Whether new data waits: a message being fragmented, or one to
    /// begin.
    fn has_new_data(&self) -> bool {
        self.fragmenting.left > 0 || (self.bulk && self.bulk_left != Some(0)) || self.waiting > 0
    }

    /// The user bytes of the next message: `chunk_bytes`, or what is
    /// left of a finite transfer when that is less.
    fn next_message_bytes(&self) -> u32 {
        match self.bulk_left {
            Some(left) if self.bulk => left.min(u64::from(self.cfg.chunk_bytes)) as u32,
            _ => self.cfg.chunk_bytes,
        }
    }

    /// The user bytes of the next new chunk: the rest of the message being
    /// fragmented, or the next message, as much of either as one chunk
    /// carries within the MTU (§6.9).
    fn next_new_bytes(&self) -> u32 {
        let max = SctpConfig::max_chunk_bytes(self.cfg.mtu_bytes).max(1);
        let left = if self.fragmenting.left > 0 {
            self.fragmenting.left
        } else {
            self.next_message_bytes()
        };
        left.min(max)
    }

    /// The next new chunk leaves: the next message's first fragment (the
    /// whole message when it fits one chunk), or the next fragment of the
    /// message begun; it takes the next TSN and joins the outstanding
    /// chunks.
    fn send_new(&mut self, now: SimTime) -> SctpData {
        self.heartbeat.on_rtt_chunk();
        let bytes = self.next_new_bytes();
        let begin = self.fragmenting.left == 0;
        if begin {
            let message_bytes = self.next_message_bytes();
            if !self.bulk {
                self.waiting -= 1;
            } else if let Some(left) = &mut self.bulk_left {
                *left -= u64::from(message_bytes);
            }
            // Messages go to the streams in turn.
            let stream = (self.messages_begun % u64::from(self.out_streams)) as u16;
            self.messages_begun += 1;
            let ssn = if self.cfg.unordered {
                0
            } else {
                let next = &mut self.next_ssn[stream as usize];
                *next += 1;
                *next - 1
            };
            self.fragmenting = Fragmenting {
                left: message_bytes,
                stream,
                ssn,
                first_sent_at: now,
            };
        }
        let f = &mut self.fragmenting;
        f.left -= bytes;
        let end = f.left == 0;
        let (stream, ssn, first_sent_at) = (f.stream, f.ssn, f.first_sent_at);
        let tsn = self.next_tsn;
        self.next_tsn += 1;
        self.out.push_back(Outstanding {
            bytes,
            stream,
            ssn,
            begin,
            end,
            first_sent_at,
            weight: self.cfg.weight(bytes),
            sent_at: now,
            transmissions: 0,
            gap_acked: false,
            in_flight: false,
            marked: false,
            t3_marked: false,
            misses: 0,
            fast_retransmitted: false,
        });
        let i = (tsn - self.cum_next) as usize;
        self.transmit(now, i, tsn)
    }

    fn transmit(&mut self, now: SimTime, i: usize, tsn: u64) -> SctpData {
        let c = &mut self.out[i];
        // Under [`SendRule::Ns2`] a marked chunk is still in flight.
        let was_in_flight = c.in_flight;
        if c.marked && was_in_flight {
            self.marked_bytes -= c.weight;
        }
        c.marked = false;
        c.t3_marked = false;
        c.in_flight = true;
        c.sent_at = now;
        c.transmissions += 1;
        let (bytes, weight, again) = (c.bytes, c.weight, c.transmissions > 1);
        let data = SctpData {
            tsn,
            bytes,
            stream: c.stream,
            ssn: c.ssn,
            unordered: self.cfg.unordered,
            begin: c.begin,
            end: c.end,
            first_sent_at: c.first_sent_at,
        };
        if !was_in_flight {
            self.flight += weight;
            self.peer_rwnd = self.peer_rwnd.saturating_sub(weight);
        }
        if again {
            self.retransmissions += 1;
            if self.probe.is_some_and(|(t, _)| t == tsn) {
                self.probe = None;
            }
        } else if self.probe.is_none() {
            self.probe = Some((tsn, now));
        }
        // §6.3.2 R1.
        if self.t3.is_none() {
            self.t3 = Some(now + self.rtt.rto);
        }
        if self.cfg.idle_rule != IdleRule::Off {
            self.idle_decay = Some(now + self.rtt.rto);
        }
        data
    }

    /// The earliest timer deadline (T1, T3-rtx, `cwnd`'s decay or the
    /// HEARTBEATs').
    pub fn poll_timeout(&self) -> Option<SimTime> {
        [
            self.t1,
            self.t2,
            self.t3,
            self.idle_decay,
            self.hb_timeout,
            self.heartbeat.deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Timers whose deadline passed expire.
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.t1.is_some_and(|t| t <= now) {
            self.on_t1(now);
        }
        if self.t2.is_some_and(|t| t <= now) {
            self.on_t2(now);
        }
        if self.t3.is_some_and(|t| t <= now) {
            self.on_t3(now);
        }
        if self.idle_decay.is_some_and(|t| t <= now) {
            self.on_idle_decay(now);
        }
        if self.hb_timeout.is_some_and(|t| t <= now) {
            // ns-2.35: the RTO doubles and the HEARTBEAT goes again, for
            // as long as the path is unconfirmed.
            self.heartbeat_timeouts += 1;
            self.rtt.back_off(&self.cfg);
            self.send_heartbeat(now);
        }
        match self
            .heartbeat
            .expire(now, &mut self.rtt, &mut self.errors, &self.cfg)
        {
            HeartbeatExpiry::Quiet => {}
            HeartbeatExpiry::Send => {
                self.control = Some(SctpChunk::Heartbeat {
                    sent_at: now,
                    to_receiver: true,
                });
            }
            HeartbeatExpiry::Failed => self.fail(),
        }
    }

    /// §7.2.1: an RTO passed without a DATA packet: `cwnd` halves, to at
    /// least 4 MTU, and the timer runs again while that changes anything.
    fn on_idle_decay(&mut self, now: SimTime) {
        self.idle_decay = None;
        let (above, mtu) = match self.cfg.idle_rule {
            IdleRule::Off => return,
            IdleRule::Rfc => (4 * self.cfg.cwnd_mtu_bytes(), self.cfg.cwnd_mtu_bytes()),
            // ns-2.35: over `initialCwnd_` (2) times its largest data
            // size, the MTU less the IP and common headers.
            IdleRule::Ns2 => {
                let mds = self.cfg.mtu_bytes - 20 - COMMON_HEADER_BYTES;
                (2 * mds, mds)
            }
        };
        if self.cwnd <= above {
            return;
        }
        self.cwnd = (self.cwnd / 2).max(4 * mtu);
        // ns-2.35 restarts its timer for ever; past the floor a restart
        // changes nothing until a packet leaves, which restarts it anyway.
        if self.cwnd > 4 * mtu {
            self.idle_decay = Some(now + self.rtt.rto);
        }
    }

    fn on_t1(&mut self, now: SimTime) {
        self.init_retrans += 1;
        if self.init_retrans > self.cfg.max_init_retrans {
            self.fail();
            return;
        }
        self.t1_value = (2 * self.t1_value).min(self.cfg.rto_max);
        self.control = Some(match self.state {
            SctpState::CookieEchoed => self.cookie_echo(),
            _ => self.init(),
        });
        self.t1 = Some(now + self.t1_value);
    }

    /// §6.3.3 E1–E3 and §8.1.
    fn on_t3(&mut self, now: SimTime) {
        self.t3 = None;
        // ns-2.35 stops the decay at a T3 expiry; the retransmission
        // starts it again.
        self.idle_decay = None;
        self.timeouts += 1;
        let verdict = self.errors.count(&self.cfg);
        if verdict == ErrorVerdict::Failed {
            self.fail();
            return;
        }
        let mtu = self.cfg.cwnd_mtu_bytes();
        self.ssthresh = (self.cwnd / 2).max(4 * mtu);
        self.cwnd = mtu;
        self.partial_bytes_acked = 0;
        self.rtt.back_off(&self.cfg);
        for i in 0..self.out.len() {
            if !self.out[i].gap_acked {
                if self.ns2_sends() {
                    self.out[i].misses = 0;
                }
                self.mark(i);
                self.out[i].t3_marked = true;
            }
        }
        self.recovery_exit = None;
        self.fast_rtx_due = false;
        self.probe = None;
        self.refill_burst();
        // ns-2.35 sends one packet of marked chunks at the expiry.
        if self.ns2_sends() {
            self.rtx_limit = RtxLimit::OnePacket;
        }
        // [`FaultRule::Ns2`]: the address just turned inactive, so a
        // HEARTBEAT goes at once, at the doubled RTO.
        if verdict == ErrorVerdict::PathInactive && self.heartbeat.period_end.is_some() {
            self.heartbeat.send_now(now, self.rtt.rto);
            self.control = Some(SctpChunk::Heartbeat {
                sent_at: now,
                to_receiver: true,
            });
        }
    }

    fn fail(&mut self) {
        self.state = SctpState::Failed;
        self.t1 = None;
        self.t2 = None;
        self.t3 = None;
        self.idle_decay = None;
        self.hb_timeout = None;
        self.heartbeat.stop();
        self.heartbeat_reply = None;
        self.control = None;
        self.fast_rtx_due = false;
    }
}

/// The receiving end of an association.
#[derive(Debug, Clone)]
pub struct SctpReceiver {
    cfg: SctpConfig,
    /// Handshake and HEARTBEAT answers to send.
    control: VecDeque<SctpChunk>,
    /// The lowest TSN not yet received.
    cum_next: u64,
    /// TSNs received above `cum_next`, for the SACK's gap-ack blocks.
    held: BTreeSet<u64>,
    /// Each inbound stream's next stream sequence number to hand over, and
    /// the ordered messages received beyond it.
    in_streams: Vec<InStream>,
    /// §6.9: fragments of messages not yet whole, by TSN.
    fragments: BTreeMap<u64, SctpData>,
    /// What the chunks received and not yet handed to the application
    /// weigh ([`ByteRule`]): what the receive window holds (§6.2).
    undelivered: u32,
    /// Messages handed to the application, and the sum of their delays
    /// from first sending, nanoseconds.
    delivered_messages: u64,
    delivery_delay_sum: u128,
    dups: Vec<u64>,
    /// Packets with DATA since the last SACK.
    unacked: u32,
    sack_now: bool,
    sack_due: Option<SimTime>,
    /// User bytes delivered in order and not yet taken.
    delivered: u64,
    /// The COOKIE ECHO came: the association is established.
    established: bool,
    /// Its view of the round trip, from its HEARTBEATs' answers.
    rtt: PathRtt,
    /// §8.3: the data receiver sends no chunk that times a round trip,
    /// so its path is idle whenever the HEARTBEATs are on.
    heartbeat: IdleHeartbeat,
    /// §8.1: consecutive unanswered HEARTBEATs.
    errors: Errors,
    /// Too many unanswered HEARTBEATs: the receiver dropped the
    /// association, and answers nothing more.
    failed: bool,
    /// Its HEARTBEATs stopped (the flow ended).
    quiet: bool,
    /// Chunks its full window turned away ([`WindowRule`]).
    full: WindowDrops,
    /// §9.2: SHUTDOWN came and SHUTDOWN ACK went (SHUTDOWN-ACK-SENT):
    /// T2-shutdown, and the SHUTDOWN ACKs sent again so far.
    t2: Option<SimTime>,
    shutdown_retrans: u32,
    /// SHUTDOWN COMPLETE came (or T2 gave up): the association is closed.
    closed: bool,
}

/// What a full receive window turned away ([`WindowRule`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowDrops {
    /// Arriving DATA chunks dropped for want of room.
    pub dropped: u64,
    /// Of those, chunks that would have filled the gap in front of the
    /// chunks held ([`WindowRule::Ns2`]).
    pub gap_fillers: u64,
    /// Chunks held for reordering dropped to make room for a lower TSN
    /// ([`WindowRule::Rfc`]).
    pub reneged: u64,
    /// When the window first turned a chunk away.
    pub first_at: Option<SimTime>,
}

/// One inbound stream at the receiver.
#[derive(Debug, Clone, Default)]
struct InStream {
    next_ssn: u64,
    /// Messages held behind an earlier one, by SSN.
    waiting: BTreeMap<u64, Whole>,
}

/// A message whole at the receiver: one chunk, or its fragments
/// reassembled (§6.9).
#[derive(Debug, Clone, Copy)]
struct Whole {
    stream: u16,
    ssn: u64,
    unordered: bool,
    bytes: u32,
    first_sent_at: SimTime,
    /// Its chunks' TSNs, first to last.
    tsns: (u64, u64),
    /// What its chunks weigh in the window ([`ByteRule`]).
    weight: u32,
}

impl Whole {
    fn of_chunk(d: &SctpData, cfg: &SctpConfig) -> Self {
        Self {
            stream: d.stream,
            ssn: d.ssn,
            unordered: d.unordered,
            bytes: d.bytes,
            first_sent_at: d.first_sent_at,
            tsns: (d.tsn, d.tsn),
            weight: cfg.weight(d.bytes),
        }
    }
}

impl SctpReceiver {
    pub fn new(cfg: SctpConfig) -> Self {
        Self {
            control: VecDeque::new(),
            cum_next: 0,
            held: BTreeSet::new(),
            in_streams: Vec::new(),
            fragments: BTreeMap::new(),
            undelivered: 0,
            delivered_messages: 0,
            delivery_delay_sum: 0,
            dups: Vec::new(),
            unacked: 0,
            sack_now: false,
            sack_due: None,
            delivered: 0,
            established: false,
            rtt: PathRtt::new(&cfg),
            heartbeat: IdleHeartbeat::new(&cfg, Rng::from_seed(1)),
            errors: Errors::default(),
            failed: false,
            quiet: false,
            full: WindowDrops::default(),
            t2: None,
            shutdown_retrans: 0,
            closed: false,
            cfg,
        }
    }

    /// The association was shut down (§9.2): SHUTDOWN COMPLETE came.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// The generator of the jitter of §8.3's heartbeat periods (a fixed
    /// seed otherwise).
    pub fn with_heartbeat_rng(mut self, rng: Rng) -> Self {
        self.heartbeat.rng = rng;
        self
    }

    /// Its HEARTBEATs stop, as they would after a SHUTDOWN (§8.3): the
    /// flow ended.
    pub fn stop_heartbeats(&mut self) {
        self.quiet = true;
        self.heartbeat.stop();
    }

    /// It gave the association up after `Association.Max.Retrans`
    /// unanswered HEARTBEATs in a row (§8.1).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// [`FaultRule::Ns2`]: the sender's address is inactive (to this end).
    pub fn path_inactive(&self) -> bool {
        self.errors.inactive
    }

    /// §8.3: HEARTBEATs it sent, and those unanswered within an RTO.
    pub fn heartbeats(&self) -> (u64, u64) {
        (self.heartbeat.sent, self.heartbeat.unanswered)
    }

    /// Its RTO.
    pub fn rto(&self) -> SimTime {
        self.rtt.rto
    }

    /// A chunk from the sending end arrived.
    pub fn on_chunk(&mut self, now: SimTime, chunk: &SctpChunk) {
        if self.failed || self.closed {
            return;
        }
        match chunk {
            // §9.2: every chunk the sender sent is acknowledged (it sends
            // SHUTDOWN only then, and this end sends no DATA), so SHUTDOWN
            // ACK goes at once, T2-shutdown starts, and the HEARTBEATs
            // and any SACK due stop. A SHUTDOWN again is answered again.
            SctpChunk::Shutdown if self.established => {
                self.stop_heartbeats();
                self.sack_now = false;
                self.sack_due = None;
                self.control.push_back(SctpChunk::ShutdownAck);
                self.t2 = Some(now + self.rtt.rto);
            }
            SctpChunk::ShutdownComplete if self.t2.is_some() => {
                self.t2 = None;
                self.closed = true;
            }
            // Every stream the sender asks for is granted, in the INIT's
            // layout.
            SctpChunk::Init { streams, rule } => self.control.push_back(SctpChunk::InitAck {
                streams: *streams,
                rule: *rule,
            }),
            SctpChunk::CookieEcho { .. } => {
                self.control.push_back(SctpChunk::CookieAck);
                if !self.established {
                    self.established = true;
                    if !self.quiet {
                        self.heartbeat.start(now, self.rtt.rto);
                    }
                }
            }
            // §8.3: the Heartbeat Info goes back unchanged.
            SctpChunk::Heartbeat {
                sent_at,
                to_receiver: true,
            } => self.control.push_back(SctpChunk::HeartbeatAck {
                sent_at: *sent_at,
                to_receiver: false,
            }),
            // An answer to its own HEARTBEAT: an RTT sample, and the
            // error counter cleared.
            SctpChunk::HeartbeatAck {
                sent_at,
                to_receiver: true,
            } if self.established => {
                self.rtt.sample(now.saturating_sub(*sent_at), &self.cfg);
                self.heartbeat.on_ack();
                self.errors.clear();
            }
            SctpChunk::Data(chunks) => self.on_data(now, chunks),
            _ => {}
        }
    }

    /// A packet of DATA chunks arrived.
    fn on_data(&mut self, now: SimTime, chunks: &[SctpData]) {
        let had_gaps = !self.held.is_empty();
        // ns-2.35's receiver acknowledges the association's first TSN at
        // once.
        let first = self.cfg.send_rule == SendRule::Ns2 && self.cum_next == 0;
        let mut new = false;
        for d in chunks {
            let dup = d.tsn < self.cum_next || self.held.contains(&d.tsn);
            if !self.has_room(now, d, dup) {
                // ns-2.35 answers while a gap is open; §6.2 at once.
                self.sack_now |= self.cfg.window_rule == WindowRule::Rfc || !self.held.is_empty();
                continue;
            }
            if dup {
                // §6.2: a duplicate is acknowledged at once.
                self.dups.push(d.tsn);
                self.sack_now = true;
                continue;
            }
            new = true;
            self.held.insert(d.tsn);
            while self.held.remove(&self.cum_next) {
                self.cum_next += 1;
            }
            if d.begin && d.end {
                self.hand_over(now, Whole::of_chunk(d, &self.cfg));
            } else {
                self.reassemble(now, d);
            }
        }
        if !new {
            return;
        }
        // §6.2: a SACK for every second packet, whatever it carries.
        self.unacked += 1;
        if first || had_gaps || !self.held.is_empty() || !self.cfg.delayed_sack || self.unacked >= 2
        {
            self.sack_now = true;
        } else if self.sack_due.is_none() {
            self.sack_due = Some(now + self.cfg.sack_delay);
        }
    }

    /// Whether chunk `d` may be taken: it fits the window left, or
    /// ([`WindowRule::Rfc`]) chunks held for reordering with higher TSNs
    /// were dropped to make room (§6.2), or it is a duplicate, which takes
    /// no room ([`WindowRule::Rfc`]). A chunk turned away is counted.
    fn has_room(&mut self, now: SimTime, d: &SctpData, dup: bool) -> bool {
        let weight = self.cfg.weight(d.bytes);
        let fits = |r: &Self| weight <= r.cfg.rwnd_bytes.saturating_sub(r.undelivered);
        if fits(self) {
            return true;
        }
        match self.cfg.window_rule {
            WindowRule::Rfc if dup => return true,
            WindowRule::Rfc => {
                while self.renege_above(d.tsn) {
                    self.full.reneged += 1;
                    self.full.first_at.get_or_insert(now);
                    if fits(self) {
                        return true;
                    }
                }
            }
            WindowRule::Ns2 => {
                if d.tsn == self.cum_next {
                    self.full.gap_fillers += 1;
                }
            }
        }
        self.full.dropped += 1;
        self.full.first_at.get_or_insert(now);
        false
    }

    /// §6.2: drops the highest TSN held for reordering, if it is above
    /// `tsn`: a fragment of a message not yet whole, or the message it
    /// ends, which leaves its stream and the window with all its chunks.
    /// Whether one was.
    fn renege_above(&mut self, tsn: u64) -> bool {
        // Within a stream, SSNs and TSNs rise together: each stream's last
        // message holds its highest TSN.
        let highest = self
            .in_streams
            .iter()
            .enumerate()
            .filter_map(|(i, st)| {
                st.waiting
                    .last_key_value()
                    .map(|(&ssn, w)| (w.tsns.1, i, ssn))
            })
            .max();
        let fragment = self.fragments.last_key_value().map(|(&t, _)| t);
        if let Some(t) = fragment.filter(|&t| t > tsn && highest.is_none_or(|(h, _, _)| t > h)) {
            let d = self.fragments.remove(&t).expect("the last fragment");
            self.undelivered -= self.cfg.weight(d.bytes);
            self.held.remove(&t);
            return true;
        }
        let Some((_, i, ssn)) = highest.filter(|&(t, _, _)| t > tsn) else {
            return false;
        };
        if let Some(w) = self.in_streams[i].waiting.remove(&ssn) {
            self.undelivered -= w.weight;
            for t in w.tsns.0..=w.tsns.1 {
                self.held.remove(&t);
            }
        }
        true
    }

    /// What its full window turned away so far ([`WindowRule`]).
    pub fn window_drops(&self) -> WindowDrops {
        self.full
    }

    /// Its [`WindowRule`].
    pub fn window_rule(&self) -> WindowRule {
        self.cfg.window_rule
    }

    /// §6.9: fragment `d` waits for the rest of its message; once every
    /// fragment from the one with the B bit to the one with the E bit is
    /// in, the message is whole and handed over.
    fn reassemble(&mut self, now: SimTime, d: &SctpData) {
        self.undelivered += self.cfg.weight(d.bytes);
        self.fragments.insert(d.tsn, *d);
        let mut first = d.tsn;
        while !self.fragments[&first].begin {
            match first.checked_sub(1) {
                Some(t) if self.fragments.contains_key(&t) => first = t,
                _ => return,
            }
        }
        let mut last = d.tsn;
        while !self.fragments[&last].end {
            if !self.fragments.contains_key(&(last + 1)) {
                return;
            }
            last += 1;
        }
        let head = self.fragments[&first];
        let mut whole = Whole {
            tsns: (first, last),
            bytes: 0,
            weight: 0,
            ..Whole::of_chunk(&head, &self.cfg)
        };
        for t in first..=last {
            let f = self.fragments.remove(&t).expect("checked above");
            whole.bytes += f.bytes;
            whole.weight += self.cfg.weight(f.bytes);
        }
        self.undelivered -= whole.weight;
        self.hand_over(now, whole);
    }

    /// §6.6: a message goes to the application at once if it is unordered
    /// or the next of its stream, and with it every message its stream
    /// held back behind it; otherwise it waits in its stream.
    fn hand_over(&mut self, now: SimTime, m: Whole) {
        if m.unordered {
            self.deliver(now, m.bytes, m.first_sent_at);
            return;
        }
        let i = usize::from(m.stream);
        if self.in_streams.len() <= i {
            self.in_streams.resize_with(i + 1, InStream::default);
        }
        if m.ssn != self.in_streams[i].next_ssn {
            self.in_streams[i].waiting.insert(m.ssn, m);
            self.undelivered += m.weight;
            return;
        }
        self.deliver(now, m.bytes, m.first_sent_at);
        loop {
            let st = &mut self.in_streams[i];
            st.next_ssn += 1;
            let Some(w) = st.waiting.remove(&st.next_ssn) else {
                break;
            };
            self.undelivered -= w.weight;
            self.deliver(now, w.bytes, w.first_sent_at);
        }
    }

    fn deliver(&mut self, now: SimTime, bytes: u32, first_sent_at: SimTime) {
        self.delivered += u64::from(bytes);
        self.delivered_messages += 1;
        self.delivery_delay_sum += u128::from(now.saturating_sub(first_sent_at));
    }

    /// User bytes handed to the application since the last call.
    pub fn take_delivered(&mut self) -> u64 {
        std::mem::take(&mut self.delivered)
    }

    /// Messages handed to the application so far.
    pub fn delivered_messages(&self) -> u64 {
        self.delivered_messages
    }

    /// The mean time from a message's first sending to its delivery to the
    /// application, in nanoseconds; `None` before the first.
    pub fn mean_delivery_delay(&self) -> Option<f64> {
        (self.delivered_messages > 0)
            .then(|| self.delivery_delay_sum as f64 / self.delivered_messages as f64)
    }

    /// The next chunk to send.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<SctpChunk> {
        if let Some(c) = self.control.pop_front() {
            return Some(c);
        }
        if !(self.sack_now || self.sack_due.is_some_and(|t| t <= now)) {
            return None;
        }
        self.sack_now = false;
        self.sack_due = None;
        self.unacked = 0;
        let sack = self.sack();
        self.dups.clear();
        Some(SctpChunk::Sack(sack))
    }

    /// The SACK that would leave now.
    pub fn sack(&self) -> SctpSack {
        let mut gaps: Vec<(u64, u64)> = Vec::new();
        for &tsn in &self.held {
            match gaps.last_mut() {
                Some((_, hi)) if *hi + 1 == tsn => *hi = tsn,
                _ => gaps.push((tsn, tsn)),
            }
        }
        SctpSack {
            cum_next: self.cum_next,
            a_rwnd: self.cfg.rwnd_bytes.saturating_sub(self.undelivered),
            gaps,
            dups: self.dups.clone(),
        }
    }

    /// The delayed-SACK deadline, the HEARTBEATs' or T2-shutdown's.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        [self.sack_due, self.heartbeat.deadline(), self.t2]
            .into_iter()
            .flatten()
            .min()
    }

    pub fn on_timeout(&mut self, now: SimTime) {
        if self.failed || self.closed {
            return;
        }
        if self.sack_due.is_some_and(|t| t <= now) {
            self.sack_now = true;
        }
        if self.t2.is_some_and(|t| t <= now) {
            // §9.2: SHUTDOWN ACK again at the doubled RTO; after
            // `Association.Max.Retrans` of them the association is closed.
            self.shutdown_retrans += 1;
            if self.shutdown_retrans > self.cfg.assoc_max_retrans {
                self.t2 = None;
                self.closed = true;
                return;
            }
            self.rtt.back_off(&self.cfg);
            self.control.push_back(SctpChunk::ShutdownAck);
            self.t2 = Some(now + self.rtt.rto);
        }
        match self
            .heartbeat
            .expire(now, &mut self.rtt, &mut self.errors, &self.cfg)
        {
            HeartbeatExpiry::Quiet => {}
            HeartbeatExpiry::Send => self.control.push_back(SctpChunk::Heartbeat {
                sent_at: now,
                to_receiver: false,
            }),
            // §8.1: the association is given up (no ABORT is modelled: the
            // sender finds out by its own timeouts).
            HeartbeatExpiry::Failed => {
                self.failed = true;
                self.control.clear();
                self.sack_now = false;
                self.sack_due = None;
            }
        }
    }
}
