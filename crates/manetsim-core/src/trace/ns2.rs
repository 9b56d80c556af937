//! ns-2's old wireless trace format (`[output] ns2_trace = true`).
//!
//! One line per event, as ns-2.35's CMU trace objects print them:
//!
//! ```text
//! s 1.000000000 _0_ AGT  --- 3 tcp 552 [0 0 0 0] ------- [0:0 5:0 32 0] [0 0] 0 0
//! ```
//!
//! `op time _node_ layer reason uid type size [mac] ------- [ip] tail`:
//!
//! - `op`: `s` sent, `r` received, `f` forwarded (a router sending a packet
//!   another node originated), `D` dropped;
//! - `time`: seconds with nine decimals (exactly manetsim's nanoseconds);
//! - `uid`: the packet's, counted from 0; a routing message passed on keeps
//!   the uid of the packet it came in where ns-2.35 forwards the packet
//!   itself (a DSR request, reply or route error; an AODV or AOMDV RREQ or
//!   RREP), so one uid follows it from hop to hop;
//! - `layer`: `AGT` (the flow's endpoints), `RTR` (the routing agent),
//!   `MAC`, `IFQ` (the interface queue, and ARP);
//! - `reason`: `---`, or on a drop ns-2's code: `IFQ` (DSR's queue full,
//!   also AODV's full buffer of packets waiting for a route, where DSR's
//!   full send buffer is `TOUT` as its timeouts; another protocol's full queue is
//!   `---`, as ns-2.35's `PriQueue` writes it), `ARP`, `END` (left in a
//!   queue when the run ends), `RET` (the MAC gave up on the
//!   frame after its retries), `CBK` (the routing agent dropped a packet
//!   its MAC gave up on), `NRTE` (no route), `HELO` (queued for a
//!   neighbour AOMDV lost to missed HELLOs, ns-2.35's AOMDV's code), `TTL`, `TOUT` (waited too
//!   long for a route), `ERR` (an injected loss model), and `EGY` (a
//!   node's battery ran out; ns-2 has no code for it);
//! - `type`: `tcp`, `ack` (a TCP segment without payload), `cbr` (UDP),
//!   `tcpFriend` and `tcpFriendCtl` (TFRC's data and feedback, ns-2's
//!   names), `sctp` (every SCTP packet, as in ns-2, with ns-2.35's tail
//!   `[chunks type TSN stream SSN]`: `[1 D 5 0 4]` for the DATA chunk of
//!   manetsim's TSN 4, as ns-2 numbers TSNs from 1, and `[6 D 12 0 11]` for
//!   a bundle of six whose last is TSN 11; `[1 S 5 65535 65535]` a
//!   SACK acknowledging it; `[1 I -1 65535 65535]` a handshake chunk), the routing protocol's (`AODV`, `AOMDV`, `DSR`, `message` for DSDV as
//!   in ns-2, `OLSR`), `ARP`, or at the MAC `RTS`, `CTS`, `ACK`;
//! - `size`: at a sending `AGT` what ns-2's agents count (a UDP packet's
//!   payload, a TCP or TFRC packet with its headers, never a routing
//!   header); at `RTR` and `IFQ`, and for `MAC` receptions, the IP datagram
//!   (with DSR's header); for a frame on the air its bytes with the PLCP's
//!   24, as ns-2.35 counts them. Under `[mac] frames = "ns2"`, below the
//!   agents the sizes ns-2.35 gives (a TCP packet with the second IP
//!   header, a UDP one without the UDP header; see
//!   [`MacParams::data_frame_bytes`]), and at a receiving agent the packet
//!   as ns-2.35's agents get it (the IP header still on, but over DSR);
//! - `[mac]`: duration (µs), receiver, transmitter and EtherType, in hex
//!   (`ffffffff` is broadcast): the frame's for a MAC send, the last hop's
//!   (receiver and transmitter) for a reception and for the `f` line of
//!   its forwarding, a relayed request's `s` line and a routing agent's
//!   drop (the packet keeps the header it arrived with, as in ns-2), the
//!   failed frame's on a `CBK` drop, zeros otherwise; a CTS or ACK has no
//!   transmitter (0), as in ns-2.35;
//! - `[ip]`: `[src:port dst:port ttl next_hop]`, `-1` for a broadcast
//!   destination, whose next hop is 0 (unset in ns-2); a flow's endpoints
//!   use the flow's index as their port, routing agents port 255 (ns-2's
//!   `RT_PORT`); a DSR request's and a DSDV update's TTL is ns-2.35's 32;
//! - `tail`: `[seq ack] hops 0` for TCP (sequence numbers in segments, as
//!   ns-2's; an ACK's `seq` is the last segment it acknowledges), `[seq]
//!   hops 0` for UDP; for routing, AODV's message in ns-2's shape
//!   (`[0x2 hops id [dst seqno] [origin seqno]] (REQUEST)`, see
//!   [`aodv_fields`]), AOMDV's likewise, its replies, HELLOs and errors
//!   followed by `[rreq_id first_hop]` (see [`aomdv_fields`]), a gateway's
//!   advertisement as a reply labelled `(GWADV)`, DSR's
//!   request, reply and error flags in ns-2's shape (`n [q id] [p …] [e
//!   …]`, with the fields manetsim does not track as 0), OLSR's message
//!   type; for ARP `[REQUEST src/src 0/target]` or `REPLY`.
//!
//! What is traced: every packet an agent sends or receives (`AGT`), every
//! packet a routing agent receives (from the MAC, or from its node's own
//! transport agent, as ns-2 writes it), sends or forwards (`RTR`), every frame
//! put on the air, every data frame a MAC hands up, and every RTS, CTS and
//! ACK a MAC accepts (`r`: the RTS it answers, the CTS to its RTS, the ACK
//! of its DATA, as ns-2.35's `mac_log` writes them) (`MAC`), every drop,
//! at the layer that dropped it, and every frame a MAC gives up on after
//! its retries, as ns-2.35's MAC discards it: `D … MAC RET` for the RTS
//! whose retries ran out, then for the data frame, whether or not the
//! routing agent saves the packet (a DSR salvage, an AODV local repair);
//! a packet the agent then drops is traced again, as `RTR CBK`. The MAC's
//! other discards are written where ns-2.35's `Mac802_11::discard` writes
//! them: `D … MAC COL`, a frame lost to a collision, at its addressee (an
//! RTS also at its sender) or, for data, broadcast (at the newcomer's start
//! for the frame of the two that ends first, at its end for the other);
//! `BSY`, an RTS the MAC is too busy to answer or DATA without its CTS;
//! `STA`, a CTS or ACK it did not wait for; `DUP`, a duplicate data frame.
//! A frame too weak to decode, or heard while sending, has no line, as in
//! ns-2.35. Receptions a MAC only overhears are not traced (ns-2 does not
//! trace them either).
//! When the run ends, what each wireless node's interface queue and ARP
//! still hold gets a `D … IFQ END` line, as ns-2.35's scripts reset every
//! mobile node at the stop time; the results count these packets in
//! flight, not dropped. Other packets in flight (in a MAC, a routing
//! agent's buffer, a wire) get no line, as in ns-2.35.

use crate::engine::SimTime;
use crate::mac::{
    Frame, FrameKind, FrameSizes, GaveUp, MacParams, Refusal, NS2_DATA_HEADER_BYTES, RTS_BYTES,
};
use crate::metrics::DropReason;
use crate::net::{NodeId, Packet, PacketKind, BROADCAST};
use crate::scenario::RoutingProtocol;
use crate::trace::pcap::GatewayView;
use crate::transport::sctp::{SctpChunk, SctpData};
use crate::transport::tfrc::TfrcHeader;
use crate::wire::{aodv, aomdv, dsr, olsr};
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The layer a trace line is written at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    Agent,
    Router,
    Mac,
    Ifq,
}

impl Layer {
    /// The layer as the trace names it.
    pub fn code(self) -> &'static str {
        match self {
            Layer::Agent => "AGT",
            Layer::Router => "RTR",
            Layer::Mac => "MAC",
            Layer::Ifq => "IFQ",
        }
    }
}

/// The layer that drops a packet for `reason`, and ns-2's code for it.
pub fn drop_code(reason: DropReason) -> (Layer, &'static str) {
    match reason {
        DropReason::QueueFull => (Layer::Ifq, "IFQ"),
        DropReason::Arp => (Layer::Ifq, "ARP"),
        // The routing agent's drop of a packet its MAC gave up on (ns-2's
        // `DROP_RTR_MAC_CALLBACK`); the MAC's own line is `MAC RET`
        // ([`Ns2Trace::mac_gave_up`]).
        DropReason::RetryLimit => (Layer::Router, "CBK"),
        DropReason::NoRoute => (Layer::Router, "NRTE"),
        DropReason::Ttl => (Layer::Router, "TTL"),
        DropReason::RouteBufferFull => (Layer::Router, "IFQ"),
        DropReason::RouteBufferTimeout => (Layer::Router, "TOUT"),
        DropReason::LossModel => (Layer::Mac, "ERR"),
        DropReason::EnergyDepleted => (Layer::Mac, "EGY"),
    }
}

/// [`drop_code`] under routing `protocol`: ns-2.35's DSR traces a packet
/// its full send buffer evicts as `TOUT` (see [`Ns2Trace::drop_code`]).
pub fn drop_code_under(protocol: RoutingProtocol, reason: DropReason) -> (Layer, &'static str) {
    match reason {
        DropReason::RouteBufferFull if protocol == RoutingProtocol::Dsr => (Layer::Router, "TOUT"),
        _ => drop_code(reason),
    }
}

/// The MAC header fields a packet line shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MacFields {
    pub duration_us: u64,
    pub ra: NodeId,
    pub ta: NodeId,
    pub ether_type: u16,
}

impl MacFields {
    /// A packet received from neighbour `ta` in a frame addressed to `ra`
    /// (the receiver, or broadcast) with duration field `duration_ns`:
    /// ns-2 shows the frame's MAC header on the `r` lines of the MAC and
    /// of routing.
    pub fn received(ra: NodeId, ta: NodeId, arp: bool, duration_ns: SimTime) -> Self {
        Self {
            duration_us: duration_ns / 1_000,
            ra,
            ta,
            ether_type: if arp { 0x806 } else { 0x800 },
        }
    }
}

/// Which event a packet line records: its first fields.
#[derive(Clone, Copy)]
struct LineAt<'a> {
    op: char,
    now: SimTime,
    node: NodeId,
    layer: Layer,
    reason: &'a str,
}

/// An ns-2 trace being written.
pub struct Ns2Trace {
    out: Option<BufWriter<File>>,
    tmp: PathBuf,
    dest: PathBuf,
    error: Option<io::Error>,
    protocol: RoutingProtocol,
    /// Each flow's TCP segment size (0 for a UDP flow).
    mss: Vec<u64>,
    /// ns-2's name of each flow's UDP data packets: its application's
    /// (`cbr`, or `exp` and `pareto` for on-off sources); `cbr` when unset.
    udp_names: Vec<&'static str>,
    line: String,
    /// Per node, the MAC fields of the packets it holds or last received
    /// (uid, fields; at most [`RECEIVED_MAC_KEPT`]): a packet forwarded
    /// keeps the MAC header it arrived with in ns-2, whose `f` line shows
    /// it, and the one its link layer or its last frame gave it, which its
    /// drop lines show.
    received_mac: HashMap<NodeId, VecDeque<(u64, MacFields)>>,
    /// The MAC's parameters, for the sizes ns-2 shows below its agents.
    mac: Option<MacParams>,
    /// An Internet gateway whose packets for hosts travel untunnelled
    /// (`gateway.forwarding = "base_station"`): their lines show the
    /// host's address, as ns-2's wired-cum-wireless traces do.
    base_station: Option<GatewayView>,
}

/// Packets' MAC fields kept per node: a relay's jittered broadcast leaves
/// within 10 ms, while a few dozen other packets may arrive; a packet
/// that left for good is forgotten ([`Ns2Trace::packet_left`]), and a
/// broadcast's fields go first when the node's share is full, so that
/// packets waiting in the queue or for ARP keep theirs.
const RECEIVED_MAC_KEPT: usize = 64;

impl Ns2Trace {
    /// Starts a trace that [`Self::finish`] renames to `dest`.
    pub fn create(dest: &Path, protocol: RoutingProtocol, mss: Vec<u64>) -> io::Result<Self> {
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "trace".into());
        if dest.is_dir() {
            return Err(io::Error::other(format!("{} is a folder", dest.display())));
        }
        let tmp = dest.with_file_name(format!(".{name}.{}.partial", std::process::id()));
        let file = File::create(&tmp)?;
        Ok(Self {
            out: Some(BufWriter::with_capacity(1 << 16, file)),
            tmp,
            dest: dest.to_path_buf(),
            error: None,
            protocol,
            mss,
            udp_names: Vec::new(),
            line: String::with_capacity(160),
            received_mac: HashMap::new(),
            mac: None,
            base_station: None,
        })
    }

    /// ns-2's names of the flows' UDP data packets, by flow.
    pub fn set_udp_names(&mut self, names: impl IntoIterator<Item = &'static str>) {
        self.udp_names = names.into_iter().collect();
    }

    /// The MAC's parameters: under `[mac] frames = "ns2"` a packet below
    /// its agents is traced at the size ns-2.35 gives it (a TCP packet
    /// with the routing agent's second IP header, a UDP one without its
    /// UDP header). Without them, at its IP datagram's size.
    pub fn set_mac(&mut self, mac: MacParams) {
        self.mac = Some(mac);
    }

    /// With a gateway: under base-station forwarding (not tunnelled), a
    /// packet for or from a host shows the host's address, as ns-2's
    /// wired-cum-wireless traces do; tunnelled packets show the tunnel's
    /// (the gateway).
    pub fn set_gateway(&mut self, gateway: GatewayView) {
        self.base_station = (!gateway.tunnel).then_some(gateway);
    }

    /// Where the trace goes once finished.
    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// A packet line.
    #[allow(clippy::too_many_arguments)]
    pub fn packet(
        &mut self,
        op: char,
        now: SimTime,
        node: NodeId,
        layer: Layer,
        reason: &str,
        p: &Packet,
        mac: MacFields,
        next_hop: NodeId,
    ) {
        let size = match layer {
            Layer::Agent => agent_size(p),
            _ => self.datagram_size(p),
        };
        let at = LineAt {
            op,
            now,
            node,
            layer,
            reason,
        };
        self.packet_line(at, p, mac, next_hop, size, p.hops);
    }

    /// A packet reaches its transport agent at `node`: its `r … AGT`
    /// line. Under `[mac] frames = "ns2"` it shows the size ns-2.35's
    /// agent receives: the routing agent's IP header stays on over AODV,
    /// AOMDV and DSDV (a 512-byte CBR packet is 532 bytes, a TCP segment
    /// over AOMDV and DSDV 572), while ns-2's DSR takes its headers off.
    pub fn agent_received(&mut self, now: SimTime, node: NodeId, p: &Packet, mac: MacFields) {
        let size = match &self.mac {
            Some(m) if m.frames == FrameSizes::Ns2 && self.protocol != RoutingProtocol::Dsr => {
                self.datagram_size(p)
            }
            _ => agent_size(p),
        };
        let at = LineAt {
            op: 'r',
            now,
            node,
            layer: Layer::Agent,
            reason: "---",
        };
        self.packet_line(at, p, mac, node, size, p.hops);
    }

    /// A packet node `node`'s MAC hands up (`r`) or discards once decoded
    /// (`D`): ns-2.35's `recvDATA` has counted the hop by then, so the
    /// line shows one hop more than the packet has yet.
    #[allow(clippy::too_many_arguments)]
    pub fn mac_received(
        &mut self,
        op: char,
        now: SimTime,
        node: NodeId,
        reason: &str,
        p: &Packet,
        mac: MacFields,
    ) {
        let size = self.datagram_size(p);
        let hops = p.hops.saturating_add(1);
        let at = LineAt {
            op,
            now,
            node,
            layer: Layer::Mac,
            reason,
        };
        self.packet_line(at, p, mac, node, size, hops);
    }

    /// Writes packet `p`'s line: `at` says which event, `size` and `hops`
    /// what the line shows of it there.
    fn packet_line(
        &mut self,
        at: LineAt,
        p: &Packet,
        mac: MacFields,
        next_hop: NodeId,
        size: u32,
        hops: u16,
    ) {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let uid = if p.is_arp() { 0 } else { p.uid };
        let (op, layer) = (at.op, at.layer.code());
        head(
            &mut line,
            op,
            at.now,
            at.node,
            layer,
            at.reason,
            uid,
            self.kind(p),
            size,
        );
        mac_part(&mut line, mac);
        self.packet_part(&mut line, p, next_hop, hops);
        self.write(&line);
        self.line = line;
    }

    /// The size ns-2.35 gives packet `p` below its agents: with `[mac]
    /// frames = "ns2"`, the body of its frame (a TCP packet with the
    /// second IP header ns-2's routing agents but AODV's add, a UDP packet
    /// without the UDP header ns-2 never sends); else its IP datagram.
    fn datagram_size(&self, p: &Packet) -> u32 {
        match &self.mac {
            Some(m) if m.frames == FrameSizes::Ns2 => m.data_frame_bytes(p) - NS2_DATA_HEADER_BYTES,
            _ => p.size_bytes,
        }
    }

    /// A transport agent at node `node` sends `p`: its `s … AGT` line,
    /// then the `r … RTR` line ns-2 writes as the node's routing agent
    /// takes the packet from it, with the same fields (before routing adds
    /// its headers).
    pub fn agent_sent(&mut self, now: SimTime, node: NodeId, p: &Packet) {
        self.packet(
            's',
            now,
            node,
            Layer::Agent,
            "---",
            p,
            MacFields::default(),
            0,
        );
        let mut line = std::mem::take(&mut self.line);
        let at = line.find(" AGT ").expect("an agent line");
        line.replace_range(at..at + 5, " RTR ");
        line.replace_range(0..1, "r");
        self.write(&line);
        self.line = line;
    }

    /// A packet arrived at `node` from its link layer: its `r … RTR` line,
    /// unless it is data for the node itself and only DSR's agent sits at
    /// the node's entry (ns-2.35's AODV, AOMDV and DSDV nodes hand such a
    /// packet from their address classifier straight to the transport
    /// agent: its `r … AGT` line is the only one).
    pub fn routing_received(&mut self, now: SimTime, node: NodeId, p: &Packet, mac: MacFields) {
        // Data for the node itself goes no further.
        if p.is_control() || p.dst != node {
            self.keep_mac(node, p.uid, mac);
        }
        let for_me = !p.is_control() && (p.dst == node || p.dst == BROADCAST);
        if !for_me || self.protocol == RoutingProtocol::Dsr {
            self.packet('r', now, node, Layer::Router, "---", p, mac, node);
        }
    }

    /// Packet `p`, for `next_hop`, dropped at `node`'s interface queue
    /// (`reason`: [`DropReason::QueueFull`], [`DropReason::Arp`]) or left
    /// there or held by ARP when the run ends (`None`): its `D … IFQ`
    /// line. ns-2.35's link layer has given the packet its MAC header
    /// before the queue or ARP sees it: the node as transmitter and, once
    /// ARP has `resolved` it, the next hop as receiver; the rest is what the
    /// packet's header held: the duration (see [`Self::received_mac`]: a
    /// forwarded packet's arrival, 0 on one the node made) and, before ARP
    /// resolved it, the receiver (the node itself for a forwarded packet,
    /// which arrived addressed to it; 0 on one the node made). The reason
    /// is ns-2.35's: `---` for a full
    /// `Queue/DropTail/PriQueue` (every routing protocol's but DSR's), `IFQ` for a
    /// full `CMUPriQueue` (DSR), `ARP`, and `END` for a packet its node's
    /// `reset` finds queued or held at the end (`DROP_END_OF_SIMULATION`).
    /// ns-2's layer and code for a drop for `reason` under this trace's
    /// routing protocol ([`drop_code`]), but for a full send buffer under
    /// DSR: ns-2.35's `dropSendBuff` traces the packet it evicts as `TOUT`,
    /// as it does one that waited too long (AODV's full queue of packets
    /// waiting for a route is `IFQ`, `DROP_RTR_QFULL`).
    pub fn drop_code(&self, reason: DropReason) -> (Layer, &'static str) {
        drop_code_under(self.protocol, reason)
    }

    pub fn queue_dropped(
        &mut self,
        now: SimTime,
        node: NodeId,
        reason: Option<DropReason>,
        p: &Packet,
        next_hop: NodeId,
        resolved: bool,
    ) {
        let code = match reason {
            None => "END",
            Some(DropReason::QueueFull) if self.protocol != RoutingProtocol::Dsr => "---",
            Some(r) => self.drop_code(r).1,
        };
        let forwarded = p.src != node;
        let mac = MacFields {
            duration_us: self.received_mac(node, p.uid).duration_us,
            ra: match (resolved, forwarded) {
                (true, _) => next_hop,
                (false, true) => node,
                (false, false) => 0,
            },
            ta: node,
            ether_type: if p.is_arp() { 0x806 } else { 0x800 },
        };
        self.packet('D', now, node, Layer::Ifq, code, p, mac, next_hop);
    }

    /// The MAC fields and next hop of a `D … RTR` line for packet `uid`
    /// at `node`: the header it arrived with (next hop: this node), or
    /// that of the frame it last left in (its receiver); zeros for a
    /// packet the node made and never sent.
    pub fn router_mac(&mut self, node: NodeId, uid: u64) -> (MacFields, NodeId) {
        let mac = self.received_mac(node, uid);
        let next_hop = if mac == MacFields::default() {
            0
        } else if mac.ta == node {
            mac.ra
        } else {
            node
        };
        (mac, next_hop)
    }

    /// Packet `p`, which `node`'s routing agent holds for a route, dropped
    /// at the end of the run (`D … RTR END`, ns-2.35's DSR's `Terminate`).
    pub fn router_dropped_at_end(&mut self, now: SimTime, node: NodeId, p: &Packet) {
        let (mac, next_hop) = self.router_mac(node, p.uid);
        self.packet('D', now, node, Layer::Router, "END", p, mac, next_hop);
    }

    /// The MAC fields packet `uid` arrived at `node` with, for the `f` line
    /// of its forwarding (none kept: zeros, as a packet the node made), or
    /// those of the frame it last left `node` in (see [`Self::frame`]).
    pub fn received_mac(&mut self, node: NodeId, uid: u64) -> MacFields {
        let Some(kept) = self.received_mac.get_mut(&node) else {
            return MacFields::default();
        };
        match kept.iter().rposition(|&(u, _)| u == uid) {
            Some(i) => kept.remove(i).map_or(MacFields::default(), |(_, m)| m),
            None => MacFields::default(),
        }
    }

    /// Node `node`'s MAC gave up on `p` for `next_hop` after its retries,
    /// as ns-2.35's `Mac802_11` discards the frames: the RTS when its
    /// retries ran out (`D … MAC RET 0 RTS`), then the data frame, whatever
    /// the routing agent does with the packet next.
    pub fn mac_gave_up(
        &mut self,
        now: SimTime,
        node: NodeId,
        p: &Packet,
        next_hop: NodeId,
        g: GaveUp,
    ) {
        if let Some(rts_ns) = g.rts_duration_ns {
            let mut line = std::mem::take(&mut self.line);
            line.clear();
            let size = RTS_BYTES + NS2_PLCP_BYTES;
            head(&mut line, 'D', now, node, "MAC", "RET", 0, "RTS", size);
            mac_part(
                &mut line,
                MacFields {
                    duration_us: rts_ns / 1_000,
                    ra: next_hop,
                    ta: node,
                    ether_type: 0,
                },
            );
            line.push_str(" \n");
            self.write(&line);
            self.line = line;
        }
        let mac = MacFields {
            duration_us: g.duration_ns / 1_000,
            ra: next_hop,
            ta: node,
            ether_type: if p.is_arp() { 0x806 } else { 0x800 },
        };
        self.packet('D', now, node, Layer::Mac, "RET", p, mac, next_hop);
        if !p.is_arp() {
            // The header stays on the packet, sent again or dropped later
            // (see `frame`), even when only its RTS went on the air.
            self.keep_mac(node, p.uid, mac);
        }
    }

    /// A frame node `node` puts on the air.
    pub fn frame(&mut self, now: SimTime, node: NodeId, f: &Frame) {
        self.frame_line('s', now, node, f);
        // ns-2.35's packet keeps the header of the frame it last left in:
        // should the frame fail and the node's routing send the packet
        // again (a DSR salvage, an AODV repair) or drop it later, its
        // line shows that header.
        if let (FrameKind::Data, Some(p)) = (&f.kind, &f.packet) {
            if !p.is_arp() && f.ra != BROADCAST {
                let mac = MacFields {
                    duration_us: f.duration_ns / 1_000,
                    ra: f.ra,
                    ta: f.ta,
                    ether_type: 0x800,
                };
                self.keep_mac(node, p.uid, mac);
            }
        }
    }

    /// Node `node`'s routing handed `p`, which had header `mac` (see
    /// [`Self::received_mac`]), down for `next_hop`: ns-2.35's link layer
    /// addresses it, from the node to the next hop, and leaves the
    /// duration as it was. Should the packet come back to routing before
    /// it leaves (taken from the queue after a link break) and be sent
    /// again or dropped, its line shows that header.
    pub fn handed_down(&mut self, node: NodeId, p: &Packet, mac: MacFields, next_hop: NodeId) {
        if next_hop != BROADCAST && !p.is_arp() {
            let mac = MacFields {
                ra: next_hop,
                ta: node,
                ether_type: 0x800,
                ..mac
            };
            self.keep_mac(node, p.uid, mac);
        }
    }

    /// The MAC fields [`Self::received_mac`] would give for packet `uid` at
    /// `node`, left kept.
    pub fn peek_mac(&self, node: NodeId, uid: u64) -> MacFields {
        self.received_mac
            .get(&node)
            .and_then(|kept| kept.iter().rev().find(|&&(u, _)| u == uid))
            .map_or(MacFields::default(), |&(_, m)| m)
    }

    /// Packet `uid`, made at `node` from another packet, shows that
    /// packet's header `mac` on its lines there (none if `mac` is empty).
    pub fn keep_header(&mut self, node: NodeId, uid: u64, mac: MacFields) {
        if mac != MacFields::default() {
            self.keep_mac(node, uid, mac);
        }
    }

    /// Keeps `mac` as the header packet `uid` has at `node` (see
    /// [`Self::received_mac`]), in place of any kept before; when the
    /// node's share is full, the oldest broadcast's goes, or else the
    /// oldest.
    fn keep_mac(&mut self, node: NodeId, uid: u64, mac: MacFields) {
        let kept = self.received_mac.entry(node).or_default();
        if let Some(i) = kept.iter().rposition(|&(u, _)| u == uid) {
            kept.remove(i);
        }
        if kept.len() == RECEIVED_MAC_KEPT {
            match kept.iter().position(|(_, m)| m.ra == BROADCAST) {
                Some(i) => {
                    kept.remove(i);
                }
                None => {
                    kept.pop_front();
                }
            }
        }
        kept.push_back((uid, mac));
    }

    /// Packet `uid` left `node` for good (its frame acknowledged, or its
    /// broadcast sent): nothing of it is kept there any more.
    pub fn packet_left(&mut self, node: NodeId, uid: u64) {
        if let Some(kept) = self.received_mac.get_mut(&node) {
            if let Some(i) = kept.iter().rposition(|&(u, _)| u == uid) {
                kept.remove(i);
            }
        }
    }

    /// An RTS, CTS or ACK for node `node` that its MAC accepted: an RTS it
    /// answers, the CTS to its RTS, the ACK of its DATA (ns-2.35's MAC
    /// logs these with `mac_log`), with the frame's own header fields.
    pub fn frame_received(&mut self, now: SimTime, node: NodeId, f: &Frame) {
        debug_assert!(f.packet.is_none(), "data frames go up as packets");
        self.frame_line('r', now, node, f);
    }

    /// A frame node `node`'s MAC lost to a collision, written as ns-2.35's
    /// `Mac802_11::discard` writes it (`D … MAC COL`, the frame's bytes as
    /// sent): only a frame addressed to the node (an RTS also when the node
    /// sent it), or a data frame it sent or that is broadcast. ns-2.35 frees
    /// the others without a line, as it does every frame too weak to decode
    /// or heard while sending (the MAC reports none of those).
    pub fn frame_collided(&mut self, now: SimTime, node: NodeId, f: &Frame) {
        let written = match f.kind {
            FrameKind::Rts => f.ta == node || f.ra == node,
            FrameKind::Cts | FrameKind::Ack => f.ra == node,
            FrameKind::Data => f.ra == node || f.ta == node || f.ra == BROADCAST,
        };
        if written {
            self.frame_line_as('D', "COL", now, node, f);
        }
    }

    /// A frame for node `node` that its MAC decoded and refused, as
    /// ns-2.35's `discard` writes it: `D … MAC BSY` (busy) or `STA` (a CTS
    /// or ACK it did not wait for); a data frame as its MAC hands packets
    /// up, its header already taken off.
    pub fn frame_refused(&mut self, now: SimTime, node: NodeId, f: &Frame, why: Refusal) {
        let reason = match why {
            Refusal::Busy => "BSY",
            Refusal::InvalidState => "STA",
        };
        self.frame_discarded(now, node, f, reason);
    }

    /// A duplicate data frame node `node`'s MAC did not hand up again
    /// (`D … MAC DUP`, as its `r` line would have shown it).
    pub fn frame_duplicate(&mut self, now: SimTime, node: NodeId, f: &Frame) {
        self.frame_discarded(now, node, f, "DUP");
    }

    /// A decoded frame for `node` that its MAC discards: a data frame as
    /// the MAC hands packets up (ns-2.35 has taken its header off by
    /// then), a control frame as sent.
    fn frame_discarded(&mut self, now: SimTime, node: NodeId, f: &Frame, reason: &str) {
        match &f.packet {
            Some(p) => {
                let mac = MacFields::received(f.ra, f.ta, p.is_arp(), f.duration_ns);
                self.mac_received('D', now, node, reason, p, mac);
            }
            None => self.frame_line_as('D', reason, now, node, f),
        }
    }

    fn frame_line(&mut self, op: char, now: SimTime, node: NodeId, f: &Frame) {
        self.frame_line_as(op, "---", now, node, f);
    }

    fn frame_line_as(&mut self, op: char, reason: &str, now: SimTime, node: NodeId, f: &Frame) {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let mac = MacFields {
            duration_us: f.duration_ns / 1_000,
            ra: f.ra,
            // ns-2.35's CTS and ACK frames have no transmitter address.
            ta: match f.kind {
                FrameKind::Cts | FrameKind::Ack => 0,
                _ => f.ta,
            },
            ether_type: match &f.packet {
                Some(p) if p.is_arp() => 0x806,
                Some(_) => 0x800,
                None => 0,
            },
        };
        let (uid, kind) = match (&f.kind, &f.packet) {
            (FrameKind::Data, Some(p)) if p.is_arp() => (0, "ARP"),
            (FrameKind::Data, Some(p)) => (p.uid, self.kind(p)),
            (FrameKind::Rts, _) => (0, "RTS"),
            (FrameKind::Cts, _) => (0, "CTS"),
            (FrameKind::Ack, _) => (0, "ACK"),
            (FrameKind::Data, None) => (0, "MAC"),
        };
        let size = f.bytes + NS2_PLCP_BYTES;
        head(&mut line, op, now, node, "MAC", reason, uid, kind, size);
        mac_part(&mut line, mac);
        match &f.packet {
            Some(p) => self.packet_part(&mut line, p, f.ra, p.hops),
            // A frame without a packet (RTS, CTS, ACK) ends here, after
            // the space ns-2 writes behind its MAC field.
            None => line.push_str(" \n"),
        }
        self.write(&line);
        self.line = line;
    }

    /// A routing agent's line of its own, written as it is
    /// ([`crate::net::RoutingAction::Note`]).
    pub fn note(&mut self, line: &str) {
        self.write(line);
        self.write("\n");
    }

    /// Flushes the trace and moves it to its destination.
    pub fn finish(mut self) -> io::Result<PathBuf> {
        let done = self.complete();
        if done.is_err() {
            // No partial trace is left behind.
            let _ = std::fs::remove_file(&self.tmp);
        }
        done
    }

    /// Gives the trace up: its temporary file is removed.
    pub fn abandon(mut self) {
        self.out = None;
        let _ = std::fs::remove_file(&self.tmp);
    }

    fn complete(&mut self) -> io::Result<PathBuf> {
        let out = self.out.take().expect("finished once");
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&self.tmp, &self.dest)?;
        Ok(self.dest.clone())
    }

    fn write(&mut self, line: &str) {
        if self.error.is_some() {
            return;
        }
        if let Some(out) = &mut self.out {
            if let Err(e) = out.write_all(line.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    fn kind(&self, p: &Packet) -> &'static str {
        match p.kind {
            PacketKind::Data { .. } if p.tcp().is_some() => "tcp",
            // ns-2's names of TFRC's data and feedback (`PT_TFRC`,
            // `PT_TFRC_ACK`).
            PacketKind::Data { .. } if p.tfrc().is_some() => "tcpFriend",
            PacketKind::TcpAck { .. } if p.tfrc().is_some() => "tcpFriendCtl",
            // ns-2 names every SCTP packet `sctp` (`PT_SCTP`).
            _ if p.sctp().is_some() => "sctp",
            PacketKind::Data { flow, .. } => {
                self.udp_names.get(flow as usize).copied().unwrap_or("cbr")
            }
            PacketKind::TcpAck { .. } => "ack",
            PacketKind::Arp { .. } => "ARP",
            PacketKind::Control => match self.protocol {
                RoutingProtocol::Aodv | RoutingProtocol::Static => "AODV",
                RoutingProtocol::Aomdv => "AOMDV",
                RoutingProtocol::Dsr => "DSR",
                RoutingProtocol::Dsdv => "message",
                RoutingProtocol::Olsr => "OLSR",
            },
        }
    }

    /// The IP destination ns-2 traces: a DSR route request's target (ns-2's
    /// DSR addresses a request to it, the MAC broadcasts it), else the
    /// packet's.
    fn ip_dst(&self, p: &Packet) -> NodeId {
        if self.protocol != RoutingProtocol::Dsr || !p.is_control() || p.dst != BROADCAST {
            return p.dst;
        }
        let Some(body) = p.body.as_deref() else {
            return p.dst;
        };
        dsr::DsrRepr::parse(body)
            .ok()
            .and_then(|r| {
                r.options.iter().find_map(|o| match o {
                    dsr::DsrOption::RouteRequest { target, .. } => Some(*target),
                    _ => None,
                })
            })
            .unwrap_or(p.dst)
    }

    /// ` ------- [ip] tail` and the line's end.
    fn packet_part(&self, line: &mut String, p: &Packet, next_hop: NodeId, hops: u16) {
        if let PacketKind::Arp { target, reply } = p.kind {
            // ns-2's `[op sha/spa tha/tpa]`: a request does not know the
            // target's hardware address yet, a reply names the requester.
            let (what, tha) = if reply {
                ("REPLY", target)
            } else {
                ("REQUEST", 0)
            };
            let _ = writeln!(line, " ------- [{what} {0}/{0} {tha}/{target}]", p.src);
            return;
        }
        let port = match p.kind {
            PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow } => flow,
            _ => 255,
        };
        // A broadcast leaves its next hop unset in ns-2 (0). ns-2.35's DSR
        // carries a request's reach in its own header and its DSDV never
        // sets the TTL of an update, so both keep the default IP TTL, 32;
        // manetsim's are 1 (one hop) or the ring's radius.
        let broadcast = p.dst == BROADCAST || next_hop == BROADCAST;
        let next_hop = if broadcast { 0 } else { addr(next_hop) };
        let (src, dst) = match self.base_station.as_ref().map(|g| g.addresses(p)) {
            Some((src, dst, _)) if (src, dst) != (p.src, p.dst) => (src, dst),
            _ => (p.src, self.ip_dst(p)),
        };
        let ttl = match self.protocol {
            RoutingProtocol::Dsr if p.is_control() && p.dst == BROADCAST => NS2_IP_TTL,
            RoutingProtocol::Dsdv if p.is_control() => NS2_IP_TTL,
            _ => p.ttl,
        };
        let _ = write!(
            line,
            " ------- [{}:{port} {}:{port} {ttl} {next_hop}]",
            src,
            addr(dst),
        );
        if let Some(chunk) = p.sctp() {
            // ns-2.35's shape: chunks, type, TSN (from 1), stream, SSN.
            let _ = match chunk {
                // ns-2.35 names a bundle by its chunk count and its last
                // chunk.
                SctpChunk::Data(chunks) => {
                    let last = chunks.last().copied().unwrap_or(SctpData::new(0, 0));
                    write!(
                        line,
                        " [{} D {} {} {}]",
                        chunks.len(),
                        last.tsn + 1,
                        last.stream,
                        last.ssn
                    )
                }
                SctpChunk::Sack(s) => write!(line, " [1 S {} 65535 65535]", s.cum_next),
                SctpChunk::Heartbeat { .. } => write!(line, " [1 H -1 65535 65535]"),
                SctpChunk::HeartbeatAck { .. } => write!(line, " [1 B -1 65535 65535]"),
                // ns-2.35's Agent/SCTP has no shutdown: a letter of our own.
                SctpChunk::Shutdown | SctpChunk::ShutdownAck | SctpChunk::ShutdownComplete => {
                    write!(line, " [1 X -1 65535 65535]")
                }
                _ => write!(line, " [1 I -1 65535 65535]"),
            };
            let _ = writeln!(line, " {hops} 0");
            return;
        }
        match p.kind {
            PacketKind::Data { seq, .. } if p.tcp().is_some() => {
                let _ = write!(line, " [{seq} 0] {hops} 0");
            }
            PacketKind::Data { seq, .. } => {
                let _ = write!(line, " [{seq}] {hops} 0");
            }
            PacketKind::TcpAck { flow } => {
                let mss = self.mss.get(flow as usize).copied().unwrap_or(0).max(1);
                // As the data's numbers (`seq.div_ceil(mss)`): after a SYN,
                // which takes number 0, data is numbered from 1.
                let acked = p.tcp().map_or(0, |s| s.ack.div_ceil(mss)) as i64 - 1;
                let _ = write!(line, " [{acked} 0] {hops} 0");
            }
            PacketKind::Control => self.control_tail(line, p),
            PacketKind::Arp { .. } => unreachable!("handled above"),
        }
        line.push('\n');
    }

    /// What a control packet carries, read from its bytes.
    fn control_tail(&self, line: &mut String, p: &Packet) {
        let body = p.body();
        match self.protocol {
            RoutingProtocol::Aodv | RoutingProtocol::Static => match aodv::Message::parse(body) {
                Ok(aodv::Message::Rrep(r)) if aodv::is_gateway_adv(body) => {
                    gwadv_fields(line, &r);
                }
                Ok(message) => aodv_fields(line, &message, p.dst == BROADCAST),
                Err(_) => {}
            },
            RoutingProtocol::Aomdv => {
                if let Ok(message) = aomdv::Message::parse(body) {
                    aomdv_fields(line, &message, p.dst == BROADCAST);
                } else if body.first() == Some(&aodv::TYPE_RREP_ACK) {
                    let _ = write!(line, " [0x10] (RREP-ACK)");
                }
            }
            RoutingProtocol::Dsr => {
                if let Ok(repr) = dsr::DsrRepr::parse(body) {
                    dsr_fields(line, p, &repr);
                } else {
                    let _ = write!(line, " 0 [0 0] [0 0 0 0->0] [0 0 0 0->0]");
                }
            }
            RoutingProtocol::Olsr => {
                // The first message's type, after the 4-byte packet header.
                let label = match body.get(4) {
                    Some(&olsr::TYPE_HELLO) => "(HELLO)",
                    Some(&olsr::TYPE_TC) => "(TC)",
                    Some(&olsr::TYPE_MID) => "(MID)",
                    Some(&olsr::TYPE_HNA) => "(HNA)",
                    _ => return,
                };
                let _ = write!(line, " {label}");
            }
            // ns-2 writes no fields for DSDV's updates, only the space
            // that ends the IP field.
            RoutingProtocol::Dsdv => line.push(' '),
        }
    }
}

/// ns-2's DSR fields (cmu-trace's `format_dsr`): the source route's
/// length `h` (source and destination included; a request's route record
/// with its initiator), `[q s]` a request and its id, `[p s l a->b]` a
/// reply with its route (initiator first, target last, `l` addresses),
/// `[w m t f->u]` route errors: how many, and the last one's node to tell
/// and broken link. As in ns-2, only NODE_UNREACHABLE errors count there;
/// flow-state errors are other flags of its header. manetsim's replies do
/// not carry the request's id, traced as 0.
fn dsr_fields(line: &mut String, p: &Packet, repr: &dsr::DsrRepr) {
    let (mut h, mut q, mut seq) = (0usize, 0, 0u16);
    let mut reply: Option<(usize, NodeId, NodeId)> = None;
    let (mut errors, mut last_error) = (0, (0, 0, 0));
    for o in &repr.options {
        match o {
            dsr::DsrOption::SourceRoute { addresses, .. } => h = addresses.len() + 2,
            dsr::DsrOption::RouteRequest { id, addresses, .. } => {
                (q, seq) = (1, *id);
                h = addresses.len() + 1;
            }
            dsr::DsrOption::RouteReply { addresses, .. } => {
                let last = addresses.last().copied().unwrap_or(p.dst);
                reply = Some((addresses.len() + 1, p.dst, last));
            }
            dsr::DsrOption::RouteError {
                error_type: dsr::ERROR_NODE_UNREACHABLE,
                source,
                destination,
                type_specific,
                ..
            } => {
                errors += 1;
                let to = type_specific
                    .get(..4)
                    .and_then(|b| b.try_into().ok())
                    .map_or(0, u32::from_be_bytes);
                last_error = (*destination, *source, to);
            }
            _ => {}
        }
    }
    let (r, l, a, b) = reply.map_or((0, 0, 0, 0), |(l, a, b)| (1, l, a, b));
    let w = u8::from(errors > 0);
    let (t, f, u) = last_error;
    let _ = write!(
        line,
        " {h} [{q} {seq}] [{r} {seq} {l} {a}->{b}] [{w} {errors} {t} {f}->{u}]"
    );
}

impl Drop for Ns2Trace {
    fn drop(&mut self) {
        // Not finished (a failed run): no partial trace is left behind.
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The IP TTL ns-2's packets start with (`IP_DEF_TTL`).
const NS2_IP_TTL: u8 = 32;

/// The PLCP preamble and header ns-2.35's MAC counts in a frame's size
/// (144 + 48 bits, `PLCP_HDR_LEN`): its `MAC` lines show a frame as sent
/// with them.
const NS2_PLCP_BYTES: u32 = 24;

/// What ns-2.35's TFRC agent counts of a packet beyond what manetsim does:
/// its trace shows a data packet of 1000 bytes of payload as
/// `tcpFriend 1032` at the sending agent (manetsim's datagram: 1040) and
/// its feedback as `tcpFriendCtl 40` (manetsim's: 44).
const NS2_TFRC_DATA_FEWER_BYTES: u32 = 8;
const NS2_TFRC_FEEDBACK_FEWER_BYTES: u32 = 4;

/// What an agent's line shows of packet `p`, as ns-2.35's agents count it:
/// a UDP packet's payload, a TCP or SCTP packet with its transport and IP
/// headers, a TFRC packet with ns-2's, never a routing header (DSR's),
/// which agents do not see.
fn agent_size(p: &Packet) -> u32 {
    let size = match p.kind {
        // With the old routing header ns-2.35's DSR may still count
        // (`Packet::stale_header_bytes`), which its agents see too.
        PacketKind::Data { .. } if p.transport.is_none() => {
            return p.payload_bytes + u32::from(p.stale_header_bytes);
        }
        _ => p.size_bytes - p.body().len() as u32,
    };
    match p.tfrc() {
        Some(TfrcHeader::Data(_)) => size.saturating_sub(NS2_TFRC_DATA_FEWER_BYTES),
        Some(TfrcHeader::Feedback(_)) => size.saturating_sub(NS2_TFRC_FEEDBACK_FEWER_BYTES),
        None => size,
    }
}

/// An address as ns-2 prints it in the IP field (`-1` for broadcast).
fn addr(a: NodeId) -> i64 {
    if a == BROADCAST {
        -1
    } else {
        a as i64
    }
}

/// `now` in seconds with `decimals` digits (at most 9), rounded as C's
/// `printf("%.*f")` rounds a time of whole nanoseconds.
pub fn seconds(now: SimTime, decimals: u32) -> String {
    let decimals = decimals.min(9);
    let unit = 10u64.pow(9 - decimals);
    let scaled = (now + unit / 2) / unit;
    let per_s = 10u64.pow(decimals);
    if decimals == 0 {
        return scaled.to_string();
    }
    let (s, frac) = (scaled / per_s, scaled % per_s);
    format!("{s}.{frac:0width$}", width = decimals as usize)
}

/// `op time _node_ layer reason uid type size`.
#[allow(clippy::too_many_arguments)]
fn head(
    line: &mut String,
    op: char,
    now: SimTime,
    node: NodeId,
    layer: &str,
    reason: &str,
    uid: u64,
    kind: &str,
    size: u32,
) {
    let (s, ns) = (now / 1_000_000_000, now % 1_000_000_000);
    let _ = write!(
        line,
        "{op} {s}.{ns:09} _{node}_ {layer} {reason:>4} {uid} {kind} {size}"
    );
}

fn mac_part(line: &mut String, m: MacFields) {
    let _ = write!(
        line,
        " [{:x} {:x} {:x} {:x}]",
        m.duration_us, m.ra, m.ta, m.ether_type
    );
}

/// An AODV message as ns-2.35's `CMUTrace::format_aodv` writes it: ns-2's
/// type codes (HELLO 0x1, RREQ 0x2, RREP 0x4, RERR 0x8, RREP-ACK 0x10), hop
/// counts as ns-2's agent keeps them (1 where the message starts, where
/// RFC 3561 has 0), a reply's lifetime in seconds, and an error's count of
/// unreachable destinations with the first of them. With these fields the
/// two traces can be compared flood by flood (originator and RREQ ID).
fn aodv_fields(line: &mut String, message: &aodv::Message, broadcast: bool) {
    match message {
        aodv::Message::Rreq(r) => rreq_fields(line, r, 1),
        aodv::Message::Rrep(r) => rrep_fields(line, r, 1, broadcast),
        aodv::Message::Rerr(r) => rerr_fields(line, r),
        aodv::Message::RrepAck => line.push_str(" [0x10] (RREP-ACK)"),
    }
}

/// An AOMDV message in the shape ns-2.35's trace gives it: AODV's, with
/// AOMDV's hop counts (0 where the message starts, as ns-2.35's AOMDV keeps
/// them), and after a reply's, HELLO's or error's type the RREQ ID it
/// answers and its first hop (`[0 0]` for an error).
fn aomdv_fields(line: &mut String, message: &aomdv::Message, broadcast: bool) {
    match message {
        aomdv::Message::Rreq(r) => rreq_fields(line, &r.base, 0),
        aomdv::Message::Rrep(r) => {
            rrep_fields(line, &r.base, 0, broadcast);
            let _ = write!(line, " [{} {}]", r.rreq_id, r.first_hop);
        }
        aomdv::Message::Rerr(r) => {
            rerr_fields(line, r);
            line.push_str(" [0 0]");
        }
    }
}

/// `[0x2 hops id [dst seqno] [origin seqno]] (REQUEST)`, the hop count
/// `extra_hops` above RFC 3561's.
fn rreq_fields(line: &mut String, r: &aodv::RreqRepr, extra_hops: u32) {
    let _ = write!(
        line,
        " [0x2 {} {} [{} {}] [{} {}]] (REQUEST)",
        u32::from(r.hop_count) + extra_hops,
        r.rreq_id,
        r.dst,
        r.dst_seqno,
        r.orig,
        r.orig_seqno
    );
}

/// `[0x4 hops [dst seqno] lifetime_s] (REPLY)`, or `0x1 … (HELLO)` when
/// broadcast, the hop count `extra_hops` above RFC 3561's.
fn rrep_fields(line: &mut String, r: &aodv::RrepRepr, extra_hops: u32, broadcast: bool) {
    let (code, label) = if broadcast {
        (0x1, "HELLO")
    } else {
        (0x4, "REPLY")
    };
    let _ = write!(
        line,
        " [0x{code:x} {} [{} {}] {:.6}] ({label})",
        u32::from(r.hop_count) + extra_hops,
        r.dst,
        r.dst_seqno,
        f64::from(r.lifetime_ms) / 1000.0
    );
}

/// A gateway advertisement ([`aodv::is_gateway_adv`]), which ns-2.35 has
/// not: a reply's fields, labelled `(GWADV)`.
fn gwadv_fields(line: &mut String, r: &aodv::RrepRepr) {
    rrep_fields(line, r, 1, false);
    line.truncate(line.len() - "(REPLY)".len());
    line.push_str("(GWADV)");
}

/// `[0x8 count [first_dst seqno] 0.000000] (ERROR)`.
fn rerr_fields(line: &mut String, r: &aodv::RerrRepr) {
    let (dst, seqno) = r.unreachable.first().copied().unwrap_or((0, 0));
    let _ = write!(
        line,
        " [0x8 {} [{dst} {seqno}] 0.000000] (ERROR)",
        r.unreachable.len()
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::TransportHeader;
    use crate::transport::tcp::TcpSegment;

    /// A folder of the test's own under the system's temporary folder,
    /// removed with what it holds when the test ends, passed or failed.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new() -> Self {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let d = std::env::temp_dir().join(format!("manetsim-trace-{}-{n}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            Self(d)
        }

        fn join(&self, name: impl AsRef<std::path::Path>) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_forwarded_packet_keeps_the_mac_fields_it_arrived_with() {
        let scratch = Scratch::new();
        let path = scratch.join("keeps.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Aodv, vec![]).unwrap();
        let mut p = Packet::control(0, 5, 30, 8, Vec::new());
        p.uid = 7;
        let mac = MacFields::received(2, 1, false, 314_000);
        t.routing_received(1_000, 2, &p, mac);
        // Another node's packets and other uids do not mix in.
        assert_eq!(t.received_mac(3, 7), MacFields::default());
        assert_eq!(t.received_mac(2, 8), MacFields::default());
        assert_eq!(t.received_mac(2, 7), mac);
        // Taken once: a later forwarding of the same packet has none kept.
        assert_eq!(t.received_mac(2, 7), MacFields::default());
        // At most RECEIVED_MAC_KEPT per node: the oldest goes first.
        for uid in 0..=RECEIVED_MAC_KEPT as u64 {
            p.uid = 100 + uid;
            t.routing_received(2_000, 4, &p, mac);
        }
        assert_eq!(t.received_mac(4, 100), MacFields::default());
        assert_eq!(t.received_mac(4, 101), mac);
        // A broadcast's fields go before an older unicast's.
        let flood = MacFields::received(BROADCAST, 1, false, 0);
        p.uid = 500;
        t.routing_received(3_000, 4, &p, flood);
        p.uid = 501;
        t.routing_received(3_000, 4, &p, mac);
        assert_eq!(t.received_mac(4, 500), MacFields::default());
        assert_eq!(t.received_mac(4, 102), mac);
        // Gone for good: forgotten.
        t.packet_left(4, 501);
        assert_eq!(t.received_mac(4, 501), MacFields::default());
        // Data for the node itself is not kept.
        let mut mine = data(600, 0, 4, false);
        mine.dst = 4;
        t.routing_received(4_000, 4, &mine, mac);
        assert_eq!(t.received_mac(4, 600), MacFields::default());
        t.abandon();
    }

    #[test]
    fn a_packet_sent_again_keeps_the_header_of_the_frame_it_last_left_in() {
        // ns-2.35's `f … RTR` line of a packet its node's DSR salvaged,
        // after the MAC gave up on it towards node 5: `f 10.331459898 _11_
        // RTR  --- 2176 cbr 580 [13a 5 b 800] …`.
        let scratch = Scratch::new();
        let path = scratch.join("left-in.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Dsr, vec![]).unwrap();
        let p = data(2176, 0, 8, false);
        let arrived = MacFields::received(11, 48, false, 300_000);
        t.routing_received(1_000, 11, &p, arrived);
        assert_eq!(
            t.received_mac(11, 2176),
            arrived,
            "the `f` line of its arrival"
        );
        // Handed down, the link layer addresses it and keeps the duration:
        // taken back from the queue, its line shows that.
        t.handed_down(11, &p, arrived, 5);
        let addressed = MacFields {
            duration_us: 300,
            ra: 5,
            ta: 11,
            ether_type: 0x800,
        };
        assert_eq!(t.received_mac(11, 2176), addressed);
        let mut frame = Frame::control(FrameKind::Data, 11, 5, 314_000);
        frame.packet = Some(p.clone());
        // Retries of the same frame keep one entry.
        t.frame(2_000, 11, &frame);
        t.frame(3_000, 11, &frame);
        let left_in = MacFields {
            duration_us: 314,
            ..addressed
        };
        assert_eq!(t.received_mac(11, 2176), left_in);
        assert_eq!(t.received_mac(11, 2176), MacFields::default());
        // A broadcast leaves nothing to keep.
        let mut flood = Frame::control(FrameKind::Data, 11, BROADCAST, 0);
        flood.packet = Some(p);
        t.frame(4_000, 11, &flood);
        assert_eq!(t.received_mac(11, 2176), MacFields::default());
        t.abandon();
    }

    fn data(uid: u64, flow: u32, seq: u64, tcp: bool) -> Packet {
        let mut p = Packet::control(0, 5, 32, 0, Vec::new());
        p.uid = uid;
        p.kind = PacketKind::Data { flow, seq };
        p.body = None;
        if tcp {
            p.size_bytes = 552;
            p.payload_bytes = 512;
            p.transport = TransportHeader::tcp(TcpSegment {
                seq: seq * 512,
                len: 512,
                ..TcpSegment::default()
            });
        } else {
            p.size_bytes = 540;
            p.payload_bytes = 512;
        }
        p
    }

    fn lines(t: Ns2Trace) -> Vec<String> {
        let path = t.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn seconds_are_written_as_printf_writes_them() {
        assert_eq!(seconds(34_593_870_506, 9), "34.593870506");
        assert_eq!(seconds(34_593_870_506, 5), "34.59387");
        assert_eq!(seconds(34_593_875_000, 5), "34.59388", "half rounds up");
        assert_eq!(seconds(999_996_000, 5), "1.00000");
        assert_eq!(seconds(1_500_000_000, 0), "2");
    }

    #[test]
    fn an_agents_note_is_written_as_it_is() {
        let scratch = Scratch::new();
        let path = scratch.join("note.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Dsr, vec![]).unwrap();
        t.note("SFErr 1.00000 _2_ 0 -> 5 : 3");
        assert_eq!(lines(t), ["SFErr 1.00000 _2_ 0 -> 5 : 3"]);
    }

    #[test]
    fn writes_ns2_lines_for_each_layer() {
        let scratch = Scratch::new();
        let path = scratch.join("layers.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Aodv, vec![512, 0]).unwrap();
        let tcp = data(7, 0, 3, true);
        t.packet(
            's',
            1_000_000_000,
            0,
            Layer::Agent,
            "---",
            &tcp,
            MacFields::default(),
            0,
        );
        let request = aodv::RreqRepr {
            join: false,
            repair: false,
            gratuitous: false,
            dest_only: false,
            unknown_seqno: true,
            hop_count: 1,
            rreq_id: 6,
            dst: 5,
            dst_seqno: 0,
            orig: 2,
            orig_seqno: 4,
        };
        let mut rreq = Packet::control(2, BROADCAST, 30, 8, request.to_bytes());
        rreq.uid = 9;
        t.packet(
            'f',
            2_500_000_001,
            3,
            Layer::Router,
            "---",
            &rreq,
            MacFields::default(),
            BROADCAST,
        );
        let cbr = data(11, 1, 4, false);
        t.packet(
            'r',
            3_000_000_000,
            5,
            Layer::Agent,
            "---",
            &cbr,
            MacFields::received(5, 4, false, 0),
            5,
        );
        let mut ack = data(12, 0, 0, true);
        ack.kind = PacketKind::TcpAck { flow: 0 };
        ack.src = 5;
        ack.dst = 0;
        ack.payload_bytes = 0;
        ack.size_bytes = 40;
        ack.transport = TransportHeader::tcp(TcpSegment {
            ack: 4 * 512,
            ..TcpSegment::default()
        });
        t.packet(
            'D',
            4_000_000_000,
            2,
            Layer::Ifq,
            "IFQ",
            &ack,
            MacFields::default(),
            1,
        );
        let rts = Frame::control(FrameKind::Rts, 1, 2, 7_000);
        t.frame(5_000_000_000, 1, &rts);
        let got = lines(t);
        assert_eq!(
            got,
            [
                "s 1.000000000 _0_ AGT  --- 7 tcp 552 [0 0 0 0] ------- [0:0 5:0 32 0] [3 0] 0 0",
                "f 2.500000001 _3_ RTR  --- 9 AODV 52 [0 0 0 0] ------- [2:255 -1:255 30 0] [0x2 2 6 [5 0] [2 4]] (REQUEST)",
                "r 3.000000000 _5_ AGT  --- 11 cbr 512 [0 5 4 800] ------- [0:1 5:1 32 5] [4] 0 0",
                "D 4.000000000 _2_ IFQ  IFQ 12 ack 40 [0 0 0 0] ------- [5:0 0:0 32 1] [3 0] 0 0",
                // With the PLCP's 24 bytes, and the space ns-2 leaves.
                "s 5.000000000 _1_ MAC  --- 0 RTS 44 [7 2 1 0] ",
            ]
        );
    }

    #[test]
    fn an_agent_sees_the_old_route_ns2s_dsr_left_counted_on_a_salvaged_packet() {
        // A CBR and a TCP packet a relay salvaged through its send buffer
        // still count 24 bytes of their old source route, as ns-2.35's
        // agents see them.
        let scratch = Scratch::new();
        let path = scratch.join("stale-header.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Dsr, vec![0, 0]).unwrap();
        for (uid, tcp) in [(3, false), (4, true)] {
            let mut p = data(uid, 0, 2, tcp);
            p.size_bytes += 24;
            p.stale_header_bytes = 24;
            t.agent_received(2_000_000_000, 5, &p, MacFields::received(5, 4, false, 0));
        }
        let got = lines(t);
        let size = |l: &String| {
            let mut it = l.split(' ').skip_while(|w| *w != "cbr" && *w != "tcp");
            it.nth(1).unwrap().to_string()
        };
        assert_eq!(got.iter().map(size).collect::<Vec<_>>(), ["536", "576"]);
    }

    #[test]
    fn dsr_traces_a_full_send_buffer_s_eviction_as_a_timeout() {
        // ns-2.35's `dropSendBuff` (DSR) drops with `DROP_RTR_QTIMEOUT`
        // whether the buffer was full or the packet waited 30 s; AODV's
        // queue of packets waiting for a route drops with `IFQ` when full.
        for (protocol, full) in [
            (RoutingProtocol::Dsr, "TOUT"),
            (RoutingProtocol::Aodv, "IFQ"),
        ] {
            let scratch = Scratch::new();
            let path = scratch.join(format!("send-buffer-{protocol:?}.tr"));
            let t = Ns2Trace::create(&path, protocol, vec![512]).unwrap();
            assert_eq!(
                t.drop_code(DropReason::RouteBufferFull),
                (Layer::Router, full)
            );
            assert_eq!(
                t.drop_code(DropReason::RouteBufferTimeout),
                (Layer::Router, "TOUT")
            );
            assert_eq!(t.drop_code(DropReason::NoRoute), (Layer::Router, "NRTE"));
        }
    }

    #[test]
    fn a_frame_the_mac_gives_up_on_is_traced_as_ns2s_mac_discards_it() {
        let scratch = Scratch::new();
        let path = scratch.join("gave-up.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Aodv, vec![0, 0]).unwrap();
        let cbr = data(21, 1, 9, false);
        // The RTS's retries ran out: its line, then the data frame's.
        let by_rts = GaveUp {
            duration_ns: 314_000,
            rts_duration_ns: Some(1_222_000),
        };
        t.mac_gave_up(6_000_000_000, 3, &cbr, 4, by_rts);
        // The data frame's retries ran out (its ACKs never came): one line.
        let by_data = GaveUp {
            duration_ns: 314_000,
            rts_duration_ns: None,
        };
        t.mac_gave_up(7_000_000_000, 3, &cbr, 4, by_data);
        // The routing agent then drops the packet: ns-2's `RTR CBK`.
        let (layer, code) = drop_code(DropReason::RetryLimit);
        t.packet(
            'D',
            7_000_000_000,
            3,
            layer,
            code,
            &cbr,
            MacFields::default(),
            0,
        );
        assert_eq!(
            lines(t),
            [
                "D 6.000000000 _3_ MAC  RET 0 RTS 44 [4c6 4 3 0] ",
                "D 6.000000000 _3_ MAC  RET 21 cbr 540 [13a 4 3 800] ------- [0:1 5:1 32 4] [9] 0 0",
                "D 7.000000000 _3_ MAC  RET 21 cbr 540 [13a 4 3 800] ------- [0:1 5:1 32 4] [9] 0 0",
                "D 7.000000000 _3_ RTR  CBK 21 cbr 540 [0 0 0 0] ------- [0:1 5:1 32 0] [9] 0 0",
            ]
        );
    }

    /// With `[mac] frames = "ns2"`, sizes below the agents are ns-2.35's.
    /// The expected lines are ns-2.35's own (chain6 over DSR and AODV,
    /// The interface queue's lines as ns-2.35 writes them (its lines for
    /// the same drops: `D 1.130025000 _0_ IFQ  --- 65 cbr 532 [0 1 0 800]
    /// ------- [0:0 2:0 30 1] [65] 0 0` for a full queue over AODV, `D
    /// 9.331272139 _5_ IFQ  ARP 0 AODV 44 [0 0 5 800] ------- [5:255
    /// 21:255 30 11] …` at ARP, and `END` at the stop time for what a
    /// node's `reset` finds queued or held).
    #[test]
    fn queue_drops_and_what_is_left_at_the_end_are_traced_as_ns2_writes_them() {
        for (protocol, full) in [
            (RoutingProtocol::Aodv, "---"),
            (RoutingProtocol::Dsr, "IFQ"),
        ] {
            let scratch = Scratch::new();
            let path = scratch.join(format!("ifq-{protocol:?}.tr"));
            let mut t = Ns2Trace::create(&path, protocol, vec![512]).unwrap();
            let cbr = data(7, 0, 3, false);
            t.queue_dropped(1_130_025_000, 0, Some(DropReason::QueueFull), &cbr, 1, true);
            t.queue_dropped(1_200_000_000, 0, Some(DropReason::Arp), &cbr, 1, false);
            t.queue_dropped(5_000_000_000, 0, None, &cbr, 1, true);
            t.queue_dropped(5_000_000_000, 0, None, &cbr, 1, false);
            let request = crate::net::arp::request(0, 1);
            t.queue_dropped(5_000_000_000, 0, None, &request, BROADCAST, true);
            let tail = "------- [0:0 5:0 32 1] [3] 0 0";
            assert_eq!(
                lines(t),
                vec![
                    format!("D 1.130025000 _0_ IFQ  {full} 7 cbr 540 [0 1 0 800] {tail}"),
                    format!("D 1.200000000 _0_ IFQ  ARP 7 cbr 540 [0 0 0 800] {tail}"),
                    format!("D 5.000000000 _0_ IFQ  END 7 cbr 540 [0 1 0 800] {tail}"),
                    format!("D 5.000000000 _0_ IFQ  END 7 cbr 540 [0 0 0 800] {tail}"),
                    "D 5.000000000 _0_ IFQ  END 0 ARP 28 [0 ffffffff 0 806] ------- \
                     [REQUEST 0/0 0/1]"
                        .to_string(),
                ],
                "{protocol:?}"
            );
        }
    }

    /// seed 1, `manetsim crosscheck --keep-traces`), times and uids aside.
    #[test]
    fn ns2_frame_sizes_are_traced_as_ns2_shows_them() {
        // The segment below the agents, on the air, and at the receiving
        // agent: ns-2's DSR takes its headers off, the others leave the IP
        // header on (AODV adds none to TCP packets).
        for (protocol, routed, on_air, received) in [
            (RoutingProtocol::Dsr, 572, 630, 552),
            (RoutingProtocol::Aodv, 552, 610, 552),
            (RoutingProtocol::Aomdv, 572, 630, 572),
        ] {
            let scratch = Scratch::new();
            let path = scratch.join(format!("sizes-{protocol:?}.tr"));
            let mut t = Ns2Trace::create(&path, protocol, vec![512]).unwrap();
            let mut mac = MacParams::from_scenario(&crate::scenario::Mac {
                frames: FrameSizes::Ns2,
                ..Default::default()
            });
            if protocol == RoutingProtocol::Aodv {
                mac.ns2_tcp_extra_bytes = 0;
            }
            t.set_mac(mac);
            let mut p = data(14, 0, 6, true);
            t.agent_sent(1_000_000_000, 0, &p);
            t.packet(
                's',
                1_000_000_000,
                0,
                Layer::Router,
                "---",
                &p,
                MacFields::default(),
                1,
            );
            p.ttl = 32;
            let mut frame = Frame::control(FrameKind::Data, 0, 1, 314_000);
            frame.bytes = mac.data_frame_bytes(&p);
            frame.packet = Some(p.clone());
            t.frame(1_100_000_000, 0, &frame);
            let arrived = MacFields::received(1, 0, false, 314_000);
            t.mac_received('r', 1_200_000_000, 1, "---", &p, arrived);
            p.hops = 5;
            t.agent_received(1_250_000_000, 5, &p, MacFields::received(5, 4, false, 0));
            let mut arp = crate::net::arp::reply(4, 5);
            arp.uid = 99;
            let mut frame = Frame::control(FrameKind::Data, 4, 5, 314_000);
            frame.bytes = mac.data_frame_bytes(&arp);
            frame.packet = Some(arp);
            t.frame(1_300_000_000, 4, &frame);
            let got = lines(t);
            let fields = |l: &str| l.split(' ').skip(2).collect::<Vec<_>>().join(" ");
            let got: Vec<String> = got.iter().map(|l| fields(l)).collect();
            assert_eq!(
                got,
                [
                    "_0_ AGT  --- 14 tcp 552 [0 0 0 0] ------- [0:0 5:0 32 0] [6 0] 0 0".to_string(),
                    "_0_ RTR  --- 14 tcp 552 [0 0 0 0] ------- [0:0 5:0 32 0] [6 0] 0 0".to_string(),
                    format!("_0_ RTR  --- 14 tcp {routed} [0 0 0 0] ------- [0:0 5:0 32 1] [6 0] 0 0"),
                    format!("_0_ MAC  --- 14 tcp {on_air} [13a 1 0 800] ------- [0:0 5:0 32 1] [6 0] 0 0"),
                    // ns-2's `recvDATA` took the header off and counted the hop.
                    format!("_1_ MAC  --- 14 tcp {routed} [13a 1 0 800] ------- [0:0 5:0 32 1] [6 0] 1 0"),
                    format!("_5_ AGT  --- 14 tcp {received} [0 5 4 800] ------- [0:0 5:0 32 5] [6 0] 5 0"),
                    // ARP: ns-2's uid 0, a reply naming the requester.
                    "_4_ MAC  --- 0 ARP 86 [13a 5 4 806] ------- [REPLY 4/4 5/5]".to_string(),
                ],
                "{protocol:?}"
            );
        }
    }

    /// TFRC's packets as ns-2.35's agent counts them (nordakkak2014's
    /// `rwp50_tfrc.toml`, seed 1, `--like-ns2`: `s … AGT … tcpFriend 1032`
    /// and `r … AGT … tcpFriend 1052` for 1000 bytes of payload,
    /// `tcpFriendCtl 40` and `60`).
    #[test]
    fn tfrc_packets_are_traced_as_ns2s_agent_counts_them() {
        use crate::transport::tfrc::{TfrcData, TfrcFeedback};
        let scratch = Scratch::new();
        let path = scratch.join("tfrc.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Aodv, vec![0]).unwrap();
        t.set_mac(MacParams::from_scenario(&crate::scenario::Mac {
            frames: FrameSizes::Ns2,
            ..Default::default()
        }));
        let mut d = data(3, 0, 1, false);
        d.size_bytes = 1040;
        d.payload_bytes = 1000;
        d.transport = TransportHeader::tfrc(TfrcHeader::Data(TfrcData {
            seq: 1,
            sent_at: 0,
            rtt: 0,
            bytes: 1000,
            round: 0,
            urgent: false,
            t_rto: 0,
        }));
        let mut fb = data(4, 0, 0, false);
        (fb.src, fb.dst, fb.kind, fb.size_bytes) = (5, 0, PacketKind::TcpAck { flow: 0 }, 44);
        fb.payload_bytes = 0;
        fb.transport = TransportHeader::tfrc(TfrcHeader::Feedback(TfrcFeedback {
            echo: 0,
            delay: 0,
            x_recv_bps: 0.0,
            p: 0.0,
        }));
        let none = MacFields::default();
        for p in [&d, &fb] {
            t.packet('s', 0, p.src, Layer::Agent, "---", p, none, 0);
            t.agent_received(0, p.dst, p, none);
        }
        let sizes: Vec<String> = lines(t)
            .iter()
            .map(|l| {
                l.split_whitespace()
                    .skip(6)
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            sizes,
            [
                "tcpFriend 1032",
                "tcpFriend 1052",
                "tcpFriendCtl 40",
                "tcpFriendCtl 60"
            ]
        );
    }

    /// A transport agent's packet gets ns-2's two lines: the agent's `s`,
    /// then the routing agent's `r` as it takes the packet, fields alike.
    #[test]
    fn a_packet_an_agent_sends_is_received_by_its_routing_agent() {
        let scratch = Scratch::new();
        let path = scratch.join("agent.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Aodv, vec![512, 0]).unwrap();
        t.agent_sent(1_000_000_000, 0, &data(0, 0, 0, true));
        t.agent_sent(1_500_000_000, 2, &data(4, 1, 0, false));
        assert_eq!(
            lines(t),
            [
                "s 1.000000000 _0_ AGT  --- 0 tcp 552 [0 0 0 0] ------- [0:0 5:0 32 0] [0 0] 0 0",
                "r 1.000000000 _0_ RTR  --- 0 tcp 552 [0 0 0 0] ------- [0:0 5:0 32 0] [0 0] 0 0",
                "s 1.500000000 _2_ AGT  --- 4 cbr 512 [0 0 0 0] ------- [0:1 5:1 32 0] [0] 0 0",
                "r 1.500000000 _2_ RTR  --- 4 cbr 512 [0 0 0 0] ------- [0:1 5:1 32 0] [0] 0 0",
            ]
        );
    }

    /// ns-2.35's `discard` writes a collided frame only for its addressee
    /// (an RTS also for its sender), or a data frame broadcast or its own:
    /// with the frame's bytes as sent and `COL`.
    #[test]
    fn collided_and_refused_frames_are_traced_where_ns2s_mac_writes_them() {
        let scratch = Scratch::new();
        let path = scratch.join("collided.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Aodv, vec![0, 0]).unwrap();
        let rts = Frame::control(FrameKind::Rts, 1, 2, 7_000);
        let cts = Frame::control(FrameKind::Cts, 2, 1, 5_000);
        let mut cbr = Frame::control(FrameKind::Data, 3, 4, 314_000);
        cbr.packet = Some(data(21, 1, 9, false));
        cbr.bytes = 598;
        let mut flood = Frame::control(FrameKind::Data, 3, BROADCAST, 0);
        flood.packet = Some(data(22, 1, 10, false));
        flood.bytes = 598;
        for node in [1, 2, 9] {
            t.frame_collided(1_000_000_000, node, &rts);
            t.frame_collided(2_000_000_000, node, &cts);
        }
        for node in [3, 4, 9] {
            t.frame_collided(3_000_000_000, node, &cbr);
        }
        t.frame_collided(4_000_000_000, 9, &flood);
        // Refused: an RTS while busy, a CTS not waited for, DATA without
        // the CTS (written as the MAC hands a packet up, as its `r` line).
        t.frame_refused(5_000_000_000, 2, &rts, Refusal::Busy);
        t.frame_refused(5_000_000_000, 1, &cts, Refusal::InvalidState);
        t.frame_refused(6_000_000_000, 4, &cbr, Refusal::Busy);
        assert_eq!(
            lines(t),
            [
                "D 1.000000000 _1_ MAC  COL 0 RTS 44 [7 2 1 0] ",
                // ns-2's CTS and ACK name no transmitter.
                "D 2.000000000 _1_ MAC  COL 0 CTS 38 [5 1 0 0] ",
                "D 1.000000000 _2_ MAC  COL 0 RTS 44 [7 2 1 0] ",
                "D 3.000000000 _3_ MAC  COL 21 cbr 622 [13a 4 3 800] ------- [0:1 5:1 32 4] [9] 0 0",
                "D 3.000000000 _4_ MAC  COL 21 cbr 622 [13a 4 3 800] ------- [0:1 5:1 32 4] [9] 0 0",
                "D 4.000000000 _9_ MAC  COL 22 cbr 622 [0 ffffffff 3 800] ------- [0:1 5:1 32 0] [10] 0 0",
                "D 5.000000000 _2_ MAC  BSY 0 RTS 44 [7 2 1 0] ",
                "D 5.000000000 _1_ MAC  STA 0 CTS 38 [5 1 0 0] ",
                // Refused in ns-2's `recvDATA`, which has counted the hop.
                "D 6.000000000 _4_ MAC  BSY 21 cbr 540 [13a 4 3 800] ------- [0:1 5:1 32 4] [9] 1 0",
            ]
        );
    }

    /// The lines of routing agents sending control packets `(src, dst,
    /// body)` at 0 s.
    fn router_sends(
        mut t: Ns2Trace,
        packets: impl IntoIterator<Item = (NodeId, NodeId, Vec<u8>)>,
    ) -> Vec<String> {
        for (src, dst, bytes) in packets {
            let p = Packet::control(src, dst, 1, 0, bytes);
            let mac = MacFields::default();
            t.packet('s', 0, src, Layer::Router, "---", &p, mac, dst);
        }
        lines(t)
    }

    #[test]
    fn aodv_replies_errors_and_hellos_carry_ns2s_fields() {
        let scratch = Scratch::new();
        let path = scratch.join("aodv.tr");
        let t = Ns2Trace::create(&path, RoutingProtocol::Aodv, vec![]).unwrap();
        let reply = aodv::RrepRepr {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count: 0,
            dst: 5,
            dst_seqno: 4,
            orig: 0,
            lifetime_ms: 10_000,
        };
        let hello = aodv::RrepRepr {
            dst: 3,
            dst_seqno: 7,
            lifetime_ms: 2_000,
            ..reply
        };
        let error = aodv::RerrRepr {
            no_delete: false,
            unreachable: vec![(9, 547), (8, 12)],
        };
        let messages = [
            (5, 0, aodv::Message::Rrep(reply)),
            (3, BROADCAST, aodv::Message::Rrep(hello)),
            (4, BROADCAST, aodv::Message::Rerr(error)),
        ];
        let mut packets: Vec<(NodeId, NodeId, Vec<u8>)> = messages
            .map(|(src, dst, message)| {
                let mut bytes = vec![0; message.buffer_len()];
                message.emit(&mut bytes);
                (src, dst, bytes)
            })
            .into();
        // A gateway's advertisement, passed on two hops from it.
        let advert = aodv::RrepRepr {
            hop_count: 2,
            dst: 9,
            dst_seqno: 3,
            orig: 9,
            ..reply
        };
        packets.push((
            6,
            BROADCAST,
            aodv::with_gateway_adv(advert.to_bytes(), 5_000),
        ));
        let got = router_sends(t, packets);
        let tails: Vec<&str> = got.iter().map(|l| l.split("] [").last().unwrap()).collect();
        assert_eq!(
            tails,
            [
                "0x4 1 [5 4] 10.000000] (REPLY)",
                "0x1 1 [3 7] 2.000000] (HELLO)",
                "0x8 2 [9 547] 0.000000] (ERROR)",
                "0x4 3 [9 3] 10.000000] (GWADV)",
            ]
        );
    }

    #[test]
    fn aomdv_messages_carry_ns2s_fields_and_their_pair() {
        // As ns-2.35's trace of AOMDV reads them (chain6, seed 1): hop
        // counts from 0, a reply's RREQ ID and first hop after its type.
        let scratch = Scratch::new();
        let path = scratch.join("aomdv.tr");
        let t = Ns2Trace::create(&path, RoutingProtocol::Aomdv, vec![]).unwrap();
        let base = aodv::RreqRepr {
            join: false,
            repair: false,
            gratuitous: false,
            dest_only: false,
            unknown_seqno: false,
            hop_count: 1,
            rreq_id: 1,
            dst: 5,
            dst_seqno: 0,
            orig: 0,
            orig_seqno: 4,
        };
        let request = aomdv::AomdvRreq { base, first_hop: 1 };
        let rrep = aodv::RrepRepr {
            repair: false,
            ack_required: false,
            prefix_size: 0,
            hop_count: 1,
            dst: 5,
            dst_seqno: 2,
            orig: 0,
            lifetime_ms: 10_000,
        };
        let reply = aomdv::AomdvRrep {
            base: rrep,
            rreq_id: 1,
            first_hop: 4,
        };
        let error = aodv::RerrRepr {
            no_delete: false,
            unreachable: vec![(0, 0)],
        };
        let packets = [
            (1, BROADCAST, request.to_bytes()),
            (5, 0, reply.to_bytes()),
            (1, BROADCAST, aomdv::Message::Rerr(error).to_bytes()),
        ];
        let got = router_sends(t, packets);
        let tails: Vec<&str> = got.iter().map(|l| l.split_once("] [").unwrap().1).collect();
        assert_eq!(
            tails,
            [
                "0x2 1 1 [5 0] [0 4]] (REQUEST)",
                "0x4 1 [5 2] 10.000000] (REPLY) [1 4]",
                "0x8 1 [0 0] 0.000000] (ERROR) [0 0]",
            ]
        );
    }

    #[test]
    fn dsr_lines_have_the_shape_ns2s_parsers_read() {
        let scratch = Scratch::new();
        let path = scratch.join("dsr.tr");
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Dsr, vec![]).unwrap();
        let reply = dsr::DsrOption::RouteReply {
            last_hop_external: false,
            addresses: vec![4, 3, 0],
        };
        let mut rrep = Packet::control(4, 0, 32, 0, dsr::DsrRepr::control(vec![reply]).to_bytes());
        rrep.uid = 3;
        t.packet(
            's',
            0,
            4,
            Layer::Router,
            "---",
            &rrep,
            MacFields::default(),
            3,
        );
        let got = lines(t);
        let tokens: Vec<&str> = got[0].split_whitespace().collect();
        let ip = tokens.iter().position(|t| t.starts_with("[4:")).unwrap();
        assert_eq!(tokens[6], "DSR");
        assert_eq!(
            (tokens[ip + 5], tokens[ip + 7], tokens[ip + 11]),
            ("[0", "[1", "[0")
        );
        let tail = |l: &str| l.split("] ").skip(2).collect::<Vec<_>>().join("] ");
        // No source route; the reply's route, initiator 0 first, has 4
        // addresses and ends at 0.
        assert_eq!(tail(&got[0]), "0 [0 0] [1 0 4 0->0] [0 0 0 0->0]");
        // A reply 4 sends initiator 0 about 0-4-3 along 4-3-0, a request
        // 2 floods with the record 5, 6, a route error 4 sends 0 about
        // 4 -> 5: as ns-2.35 traces them.
        let mut t = Ns2Trace::create(&path, RoutingProtocol::Dsr, vec![]).unwrap();
        let sr = dsr::DsrOption::SourceRoute {
            first_hop_external: false,
            last_hop_external: false,
            salvage: 0,
            segments_left: 1,
            addresses: vec![3],
        };
        let rrep = Packet::control(
            4,
            0,
            32,
            0,
            dsr::DsrRepr::control(vec![
                dsr::DsrOption::RouteReply {
                    last_hop_external: false,
                    addresses: vec![4, 3],
                },
                sr.clone(),
            ])
            .to_bytes(),
        );
        let rreq = Packet::control(
            2,
            BROADCAST,
            32,
            0,
            dsr::DsrRepr::control(vec![dsr::DsrOption::RouteRequest {
                id: 7,
                target: 9,
                addresses: vec![5, 6],
            }])
            .to_bytes(),
        );
        let rerr = Packet::control(
            4,
            0,
            32,
            0,
            dsr::DsrRepr::control(vec![
                dsr::DsrOption::RouteError {
                    error_type: dsr::ERROR_NODE_UNREACHABLE,
                    salvage: 0,
                    source: 4,
                    destination: 0,
                    type_specific: 5u32.to_be_bytes().to_vec(),
                },
                sr,
            ])
            .to_bytes(),
        );
        for p in [&rrep, &rreq, &rerr] {
            t.packet(
                's',
                0,
                p.src,
                Layer::Router,
                "---",
                p,
                MacFields::default(),
                3,
            );
        }
        let got = lines(t);
        assert_eq!(tail(&got[0]), "3 [0 0] [1 0 3 0->3] [0 0 0 0->0]");
        assert_eq!(tail(&got[1]), "3 [1 7] [0 7 0 0->0] [0 0 0 0->0]");
        // The request is traced to its target, as ns-2's DSR addresses it.
        // It is broadcast: ns-2 leaves its next hop unset.
        assert!(got[1].contains("[2:255 9:255 32 0]"), "{}", got[1]);
        assert_eq!(tail(&got[2]), "3 [0 0] [0 0 0 0->0] [1 1 0 4->5]");
    }

    #[test]
    fn an_unfinished_trace_leaves_no_file() {
        let scratch = Scratch::new();
        let path = scratch.join("unfinished.tr");
        let t = Ns2Trace::create(&path, RoutingProtocol::Dsdv, vec![]).unwrap();
        let tmp = t.tmp.clone();
        assert!(tmp.exists());
        drop(t);
        assert!(!tmp.exists() && !path.exists());
    }

    #[test]
    fn a_trace_that_cannot_take_its_name_leaves_no_file() {
        let scratch = Scratch::new();
        let path = scratch.join("blocked.tr");
        let t = Ns2Trace::create(&path, RoutingProtocol::Dsdv, vec![]).unwrap();
        let tmp = t.tmp.clone();
        // Something else takes the name while the run goes on.
        std::fs::create_dir_all(&path).unwrap();
        assert!(t.finish().is_err());
        assert!(!tmp.exists(), "the partial trace is removed");
        std::fs::remove_dir(&path).unwrap();
    }

    #[test]
    fn drop_codes_are_ns2s() {
        assert_eq!(drop_code(DropReason::QueueFull), (Layer::Ifq, "IFQ"));
        assert_eq!(drop_code(DropReason::RetryLimit), (Layer::Router, "CBK"));
        assert_eq!(drop_code(DropReason::NoRoute), (Layer::Router, "NRTE"));
        assert_eq!(
            drop_code(DropReason::RouteBufferTimeout),
            (Layer::Router, "TOUT")
        );
    }
}
