//! pcap capture files, one per node (`[output] pcap = true`).
//!
//! Each node's file holds what a capture on its wireless interface would
//! show: every frame the node puts on the air, at the instant its first bit
//! leaves, and every frame addressed to the node (or broadcast) that its MAC
//! decodes, at the instant its last bit arrives. That includes the RTS, CTS
//! and ACK frames, frames the MAC refuses (an RTS it is too busy to answer,
//! a CTS or ACK it was not waiting for) and duplicates; it leaves out frames
//! lost to collisions or too weak to decode, and frames for other nodes
//! that the node overhears. Files are named as ns-3 names its own:
//! `PREFIX-N.pcap` for node `N`, counted from 0.
//!
//! The files are classic pcap (`tcpdump`'s format) with nanosecond
//! timestamps, so every record carries manetsim's time exactly, and link
//! type 105 (`LINKTYPE_IEEE802_11`): each record is an 802.11 frame as sent,
//! without its FCS. Data frames carry an LLC/SNAP header, then an IPv4
//! datagram or an ARP message. The bytes are real:
//!
//! - **Addresses.** Node `N`'s IPv4 address is `N` as a 32-bit number
//!   (node 5 is `0.0.0.5`), as in every routing message manetsim encodes;
//!   its MAC address is `02:00` followed by the same four bytes (a locally
//!   administered address). Broadcast is `255.255.255.255` and
//!   `ff:ff:ff:ff:ff:ff`. All nodes share one IBSS, whose BSSID is
//!   [`BSSID`].
//! - **Transport.** A flow's TCP segments and UDP datagrams use port
//!   [`FLOW_PORT_BASE`] (49152) plus the flow's index at both ends, so
//!   that Wireshark follows each flow as one conversation. TCP segments
//!   carry their real options (timestamps, SACK) and the receiver's window
//!   (at most 65,535 bytes: there is no window scaling); a sender's
//!   segments advertise 65,535, as its one-way TCP (ns-2's) keeps no
//!   receive window. SCTP packets (IP protocol 132) carry their one chunk:
//!   DATA, SACK with its gap-ack blocks and duplicate TSNs, or a handshake
//!   chunk; TSNs start at 0, the receiving end's verification tag is
//!   `0x5C000000` plus the flow's index and the sending end's the flow's
//!   index plus 1, and the state cookie is 32 zero bytes. Payloads are
//!   zeros. The IPv4 header, TCP and UDP checksums and SCTP's CRC32c
//!   (RFC 4960, appendix B) are computed.
//! - **Routing.** AODV and AOMDV messages go in UDP to port 654, OLSR
//!   messages to port 698 (their RFCs' ports; Wireshark dissects AODV and
//!   OLSR, and shows AOMDV's extended messages as AODV's). DSR's options
//!   header is IP protocol 48, as RFC 4728 has it, before a data packet's
//!   transport header. DSDV has no assigned number: its advertisements are
//!   IP protocol [`DSDV_IP_PROTOCOL`] (253, for experiments, RFC 3692).
//! - **Gateway.** With `[gateway]` ([`GatewayView`]), a flow's datagrams
//!   carry the addresses of the flow's ends (a host's where the gateway
//!   routes the host's packet into the MANET as its own), and one for a host
//!   travels in IP in IP ([`IP_PROTOCOL_IPIP`], RFC 2003) from its source to
//!   the gateway. Each host gets a capture after the nodes', `PREFIX-H.pcap`
//!   of link type [`LINKTYPE_RAW`] (bare IPv4): what the host sends, as its
//!   first bit enters the link, and what it receives, as its last bit
//!   arrives.
//!
//! Lengths are those of the bytes written. They can differ from the sizes
//! the simulation charged for airtime: those leave out the 8 bytes of
//! LLC/SNAP, as ns-2 does, unless `[mac] frames = "llc_snap"`, and where a
//! protocol charges ns-2.35's sizes (DSR) the bytes written are still the
//! real encoding.
//!
//! Each file is written under a temporary name beside its destination and
//! renamed into place when the run ends, so a failed run leaves no
//! half-written capture. Each node's records wait in a buffer of its own
//! until it holds [`FLUSH_BYTES`], so a run with many nodes keeps no file
//! open between flushes.

use crate::engine::SimTime;
use crate::mac::{Frame, FrameKind, MacStandard};
use crate::net::{NodeId, Packet, PacketKind, BROADCAST};
use crate::scenario::RoutingProtocol;
use crate::transport::sctp::{
    HandshakeRule, SctpChunk, SctpConfig, COOKIE_BYTES, DATA_CHUNK_HEADER_BYTES,
    HEARTBEAT_CHUNK_BYTES, SACK_CHUNK_BYTES,
};
use crate::transport::tcp::TcpSegment;
use crate::wire::dsr;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// pcap's link type for 802.11 frames without a radio header.
pub const LINKTYPE_IEEE802_11: u32 = 105;
/// pcap's link type for bare IP datagrams (a host's wired link).
pub const LINKTYPE_RAW: u32 = 101;
/// An 802.11 frame after a radiotap header (`[output] pcap_radiotap`).
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;

/// The radiotap header each record of a node's capture opens with, with
/// `[output] pcap_radiotap = true`: the frame's rate and the channel (its
/// frequency, band and modulation), so that Wireshark shows at which rate
/// each frame went, and for a frame received its power. Fields as
/// radiotap.org defines them: Rate (bit 2, in 500 kb/s), then Channel (bit
/// 3: the frequency in MHz and flags), aligned to two bytes, then for a
/// received frame dBm Antenna Signal (bit 5, a signed byte) and, when the
/// run models noise (`[radio] error_model = "awgn"`), dBm Antenna Noise
/// (bit 6, a signed byte).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Radiotap {
    freq_mhz: u16,
    standard: MacStandard,
    /// The receiver's noise figure, when the run models noise.
    noise_figure_db: Option<f64>,
}

/// The header's length: 8 bytes, the rate, a byte of padding, the channel
/// (and a byte of signal).
const RADIOTAP_LEN: u16 = 14;
const RADIOTAP_PRESENT: u32 = (1 << 2) | (1 << 3);
const RADIOTAP_SIGNAL: u32 = 1 << 5;
const RADIOTAP_NOISE: u32 = 1 << 6;
const CHANNEL_CCK: u16 = 0x0020;
const CHANNEL_OFDM: u16 = 0x0040;
const CHANNEL_2GHZ: u16 = 0x0080;
const CHANNEL_5GHZ: u16 = 0x0100;

impl Radiotap {
    /// The header for a radio at `frequency_hz` under `standard`.
    pub fn new(frequency_hz: f64, standard: MacStandard) -> Self {
        Self {
            freq_mhz: (frequency_hz / 1e6).round().clamp(0.0, f64::from(u16::MAX)) as u16,
            standard,
            noise_figure_db: None,
        }
    }

    /// A received frame's header gives the noise too: thermal noise over
    /// the frame's channel width (22 MHz for DSSS and HR/DSSS, 20 for
    /// OFDM) times `noise_figure_db`, the noise the bit error model uses.
    pub fn with_noise(mut self, noise_figure_db: f64) -> Self {
        self.noise_figure_db = Some(noise_figure_db);
        self
    }

    /// Appends the header of a frame sent at `rate_bps`, received with
    /// `signal_w` (in watts) if given.
    pub fn write(&self, rate_bps: u64, signal_w: Option<f64>, out: &mut Vec<u8>) {
        let band = if self.freq_mhz >= 4_000 {
            CHANNEL_5GHZ
        } else {
            CHANNEL_2GHZ
        };
        let ofdm = match self.standard {
            MacStandard::Dsss | MacStandard::B => false,
            MacStandard::A => true,
            MacStandard::G => !crate::mac::DSSS_RATES_BPS.contains(&rate_bps),
        };
        let modulation = if ofdm { CHANNEL_OFDM } else { CHANNEL_CCK };
        let noise_w = self
            .noise_figure_db
            .filter(|_| signal_w.is_some())
            .map(|nf| {
                let width_hz = if ofdm {
                    crate::phy::OFDM_BANDWIDTH_HZ
                } else {
                    crate::phy::DSSS_BANDWIDTH_HZ
                };
                crate::phy::BOLTZMANN_J_PER_K
                    * crate::phy::NOISE_TEMPERATURE_K
                    * width_hz
                    * 10f64.powf(nf / 10.0)
            });
        let (mut len, mut present) = match signal_w {
            Some(_) => (RADIOTAP_LEN + 1, RADIOTAP_PRESENT | RADIOTAP_SIGNAL),
            None => (RADIOTAP_LEN, RADIOTAP_PRESENT),
        };
        if noise_w.is_some() {
            len += 1;
            present |= RADIOTAP_NOISE;
        }
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&present.to_le_bytes());
        out.push((rate_bps / 500_000).min(255) as u8);
        out.push(0);
        out.extend_from_slice(&self.freq_mhz.to_le_bytes());
        out.extend_from_slice(&(band | modulation).to_le_bytes());
        // dBm, rounded, within a signed byte.
        for w in [signal_w, noise_w].into_iter().flatten() {
            let dbm = (10.0 * (w * 1e3).log10()).round().clamp(-128.0, 127.0);
            out.push(dbm as i8 as u8);
        }
    }
}
/// The magic number of a pcap file with nanosecond timestamps.
pub const MAGIC_NANOSECONDS: u32 = 0xa1b2_3c4d;
/// The longest record a reader is told to expect.
pub const SNAPLEN: u32 = 65_535;
/// The first flow's port; flow `i` uses `FLOW_PORT_BASE + i`. The first
/// of the dynamic ports (RFC 6335), so that no dissector claims them.
pub const FLOW_PORT_BASE: u16 = 49_152;
/// AODV's (and AOMDV's) UDP port (RFC 3561).
pub const AODV_PORT: u16 = 654;
/// OLSR's UDP port (RFC 3626).
pub const OLSR_PORT: u16 = 698;
/// The IP protocol number DSDV's advertisements are written with.
pub const DSDV_IP_PROTOCOL: u8 = 253;
/// The IBSS every node belongs to.
pub const BSSID: [u8; 6] = [0x02, 0xff, 0x00, 0x00, 0x00, 0x00];
/// A node's records are written to its file once its buffer holds this much.
pub const FLUSH_BYTES: usize = 32 * 1024;

const IP_PROTOCOL_TCP: u8 = 6;
/// IP in IP (RFC 2003): a packet tunnelled to the gateway.
pub const IP_PROTOCOL_IPIP: u8 = 4;
/// SCTP's IP protocol number (RFC 4960).
pub const IP_PROTOCOL_SCTP: u8 = 132;
const IP_PROTOCOL_UDP: u8 = 17;
const ETHERTYPE_IPV4: u16 = 0x0800;
const ETHERTYPE_ARP: u16 = 0x0806;
const IPV4_HEADER_LEN: usize = 20;
const UDP_HEADER_LEN: usize = 8;
const ARP_LEN: usize = 28;

/// Node `n`'s IPv4 address.
pub fn ip_address(n: NodeId) -> [u8; 4] {
    n.to_be_bytes()
}

/// Node `n`'s MAC address (`BROADCAST`'s is all ones).
pub fn mac_address(n: NodeId) -> [u8; 6] {
    if n == BROADCAST {
        return [0xff; 6];
    }
    let [a, b, c, d] = n.to_be_bytes();
    [0x02, 0x00, a, b, c, d]
}

/// A data frame's header fields, apart from the packet it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataHeader {
    pub ta: NodeId,
    pub ra: NodeId,
    pub duration_ns: SimTime,
    pub seq: u16,
    pub retry: bool,
}

/// What the captures know of an Internet gateway (`[gateway]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayView {
    /// The gateways' node ids.
    pub nodes: Vec<NodeId>,
    /// The first host's node id (`nodes.count`).
    pub first_host: NodeId,
    /// Each flow's `src` and `dst`, hosts included.
    pub flow_ends: Vec<(NodeId, NodeId)>,
    /// Whether packets for a host travel in IP in IP to the gateway
    /// (`gateway.forwarding = "tunnel"`), or bare, addressed to the host
    /// (`"base_station"`).
    pub tunnel: bool,
}

impl GatewayView {
    /// The addresses of `p`'s datagram (a host's where the simulation
    /// hands the packet to or from a gateway on a host's behalf), and
    /// whether it travels to a gateway for a host (in IP in IP from
    /// `p.src` to the gateway when [`Self::tunnel`]).
    pub fn addresses(&self, p: &Packet) -> (NodeId, NodeId, bool) {
        let (PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow }) = p.kind else {
            return (p.src, p.dst, false);
        };
        let Some(&(a, b)) = self.flow_ends.get(flow as usize) else {
            return (p.src, p.dst, false);
        };
        let host = |n: NodeId| n >= self.first_host && n != BROADCAST;
        // The end the packet left from: its source, or, where the gateway
        // routes a host's packet into the MANET as its own, the host.
        let (from, to) = if p.src == a {
            (a, b)
        } else if p.src == b {
            (b, a)
        } else if self.nodes.contains(&p.src) && host(a) {
            (a, b)
        } else if self.nodes.contains(&p.src) && host(b) {
            (b, a)
        } else {
            return (p.src, p.dst, false);
        };
        (from, to, host(to) && self.nodes.contains(&p.dst))
    }
}

/// Encodes frames as bytes for one routing protocol's messages.
#[derive(Debug, Clone)]
pub struct Encoder {
    protocol: RoutingProtocol,
    gateway: Option<GatewayView>,
    radiotap: Option<Radiotap>,
}

impl Encoder {
    pub fn new(protocol: RoutingProtocol) -> Self {
        Self {
            protocol,
            gateway: None,
            radiotap: None,
        }
    }

    /// Each node's records open with `radiotap`'s header, and its capture
    /// has link type [`LINKTYPE_IEEE802_11_RADIOTAP`].
    pub fn with_radiotap(mut self, radiotap: Radiotap) -> Self {
        self.radiotap = Some(radiotap);
        self
    }

    /// With a gateway: a flow's packets carry its ends' addresses (a
    /// host's, where the simulation hands the packet to the gateway), and
    /// those for a host travel in IP in IP to the gateway.
    pub fn with_gateway(mut self, gateway: GatewayView) -> Self {
        self.gateway = Some(gateway);
        self
    }

    /// The addresses of `p`'s datagram, and whether it travels tunnelled
    /// (the outer header from `p.src` to the gateway).
    fn addresses(&self, p: &Packet) -> (NodeId, NodeId, bool) {
        match &self.gateway {
            Some(g) => {
                let (src, dst, for_host) = g.addresses(p);
                (src, dst, for_host && g.tunnel)
            }
            None => (p.src, p.dst, false),
        }
    }

    /// Appends `p` as the IP datagram a host's link carries (no tunnel).
    pub fn wired(&self, p: &Packet, out: &mut Vec<u8>) {
        let (src, dst, _) = self.addresses(p);
        self.ipv4_from(p, src, dst, out);
    }

    /// Appends frame `f` to `out`, as sent and without its FCS.
    pub fn frame(&self, f: &Frame, out: &mut Vec<u8>) {
        let subtype = match f.kind {
            FrameKind::Rts => 0xb4,
            FrameKind::Cts => 0xc4,
            FrameKind::Ack => 0xd4,
            FrameKind::Data => {
                let h = DataHeader {
                    ta: f.ta,
                    ra: f.ra,
                    duration_ns: f.duration_ns,
                    seq: f.seq,
                    retry: f.retry,
                };
                match &f.packet {
                    Some(p) => self.data(&h, p, out),
                    None => mac_data_header(&h, out),
                }
                return;
            }
        };
        out.push(subtype);
        out.push(if f.retry { 0x08 } else { 0 });
        out.extend_from_slice(&duration_field(f.duration_ns).to_le_bytes());
        out.extend_from_slice(&mac_address(f.ra));
        if f.kind == FrameKind::Rts {
            out.extend_from_slice(&mac_address(f.ta));
        }
    }

    /// Appends a data frame with header `h` carrying `p` to `out`.
    pub fn data(&self, h: &DataHeader, p: &Packet, out: &mut Vec<u8>) {
        mac_data_header(h, out);
        match p.kind {
            PacketKind::Arp { target, reply } => {
                snap(ETHERTYPE_ARP, out);
                arp(p.src, target, reply, out);
            }
            _ => {
                snap(ETHERTYPE_IPV4, out);
                self.ipv4(p, out);
            }
        }
    }

    /// Appends `p` as an IPv4 datagram, in IP in IP when it travels
    /// tunnelled to the gateway.
    fn ipv4(&self, p: &Packet, out: &mut Vec<u8>) {
        let (src, dst, tunnelled) = self.addresses(p);
        if !tunnelled {
            return self.ipv4_from(p, src, dst, out);
        }
        let start = out.len();
        out.resize(start + IPV4_HEADER_LEN, 0);
        self.ipv4_from(p, src, dst, out);
        // The outer header: from the packet's source to the gateway.
        ipv4_header(p, p.src, p.dst, IP_PROTOCOL_IPIP, start, out);
    }

    /// Appends `p` as an IPv4 datagram from `src` to `dst`.
    fn ipv4_from(&self, p: &Packet, src: NodeId, dst: NodeId, out: &mut Vec<u8>) {
        let start = out.len();
        out.resize(start + IPV4_HEADER_LEN, 0);
        let (src_ip, dst_ip) = (ip_address(src), ip_address(dst));
        let protocol = match p.kind {
            PacketKind::Control => self.control(p, src_ip, dst_ip, out),
            PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow } => {
                let port = FLOW_PORT_BASE.wrapping_add(flow as u16);
                let transport = if p.tcp().is_some() {
                    IP_PROTOCOL_TCP
                } else if p.sctp().is_some() {
                    IP_PROTOCOL_SCTP
                } else {
                    IP_PROTOCOL_UDP
                };
                let body = p.body();
                if body.is_empty() {
                    flow_transport(p, port, src_ip, dst_ip, out);
                    transport
                } else {
                    // A routing header before the transport's (DSR's).
                    out.extend_from_slice(body);
                    flow_transport(p, port, src_ip, dst_ip, out);
                    dsr::IP_PROTOCOL
                }
            }
            PacketKind::Arp { .. } => unreachable!("ARP is not an IP datagram"),
        };
        ipv4_header(p, src, dst, protocol, start, out);
    }

    /// Appends a routing-control message; returns its IP protocol.
    fn control(&self, p: &Packet, src: [u8; 4], dst: [u8; 4], out: &mut Vec<u8>) -> u8 {
        let body = p.body();
        match self.protocol {
            RoutingProtocol::Aodv | RoutingProtocol::Aomdv => {
                udp(AODV_PORT, src, dst, body, 0, out);
                IP_PROTOCOL_UDP
            }
            RoutingProtocol::Olsr => {
                udp(OLSR_PORT, src, dst, body, 0, out);
                IP_PROTOCOL_UDP
            }
            RoutingProtocol::Dsr => {
                out.extend_from_slice(body);
                dsr::IP_PROTOCOL
            }
            RoutingProtocol::Dsdv | RoutingProtocol::Static => {
                out.extend_from_slice(body);
                DSDV_IP_PROTOCOL
            }
        }
    }
}

/// Fills in the IPv4 header at `out[start..]` of a datagram that runs to
/// the end of `out`.
fn ipv4_header(p: &Packet, src: NodeId, dst: NodeId, protocol: u8, start: usize, out: &mut [u8]) {
    let total = (out.len() - start).min(u16::MAX as usize) as u16;
    let h = &mut out[start..start + IPV4_HEADER_LEN];
    h[0] = 0x45;
    h[2..4].copy_from_slice(&total.to_be_bytes());
    h[4..6].copy_from_slice(&(p.uid as u16).to_be_bytes());
    h[8] = p.ttl;
    h[9] = protocol;
    h[12..16].copy_from_slice(&ip_address(src));
    h[16..20].copy_from_slice(&ip_address(dst));
    let sum = checksum(0, h);
    h[10..12].copy_from_slice(&sum.to_be_bytes());
}

/// A duration field: microseconds, rounded up, at most 32,767 (the
/// largest value that means a duration).
fn duration_field(ns: SimTime) -> u16 {
    ns.div_ceil(1_000).min(0x7fff) as u16
}

fn mac_data_header(h: &DataHeader, out: &mut Vec<u8>) {
    out.push(0x08);
    out.push(if h.retry { 0x08 } else { 0 });
    out.extend_from_slice(&duration_field(h.duration_ns).to_le_bytes());
    out.extend_from_slice(&mac_address(h.ra));
    out.extend_from_slice(&mac_address(h.ta));
    out.extend_from_slice(&BSSID);
    out.extend_from_slice(&((h.seq & 0x0fff) << 4).to_le_bytes());
}

/// The LLC/SNAP header for `ethertype` (RFC 1042).
fn snap(ethertype: u16, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0]);
    out.extend_from_slice(&ethertype.to_be_bytes());
}

/// An ARP message (RFC 826): a request from `me` for `other`'s address, or
/// `me`'s reply to `other`.
fn arp(me: NodeId, other: NodeId, reply: bool, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0, 1, 0x08, 0x00, 6, 4, 0, if reply { 2 } else { 1 }]);
    out.extend_from_slice(&mac_address(me));
    out.extend_from_slice(&ip_address(me));
    // A request does not know the target's hardware address yet.
    out.extend_from_slice(&if reply { mac_address(other) } else { [0; 6] });
    out.extend_from_slice(&ip_address(other));
    debug_assert_eq!(ARP_LEN, 28);
}

/// Appends a flow's transport header and payload (zeros).
fn flow_transport(p: &Packet, port: u16, src: [u8; 4], dst: [u8; 4], out: &mut Vec<u8>) {
    if let Some(seg) = p.tcp() {
        return tcp(seg, port, src, dst, out);
    }
    if let (Some(chunk), PacketKind::Data { flow, .. } | PacketKind::TcpAck { flow }) =
        (p.sctp(), p.kind)
    {
        return sctp(chunk, flow, port, out);
    }
    udp(port, src, dst, &[], p.payload_bytes as usize, out)
}

/// An SCTP packet of flow `flow` from and to `port` carrying `chunk`, its
/// user data zeros.
fn sctp(chunk: &SctpChunk, flow: u32, port: u16, out: &mut Vec<u8>) {
    let start = out.len();
    let receiver_tag = 0x5C00_0000u32.wrapping_add(flow);
    let sender_tag = flow.wrapping_add(1);
    let tag = match chunk {
        SctpChunk::Init { .. } => 0,
        c if c.to_receiver() => receiver_tag,
        _ => sender_tag,
    };
    out.extend_from_slice(&port.to_be_bytes());
    out.extend_from_slice(&port.to_be_bytes());
    out.extend_from_slice(&tag.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    // The sending end asks for `streams` outbound streams and takes one
    // inbound; the receiving end grants them and sends on one.
    let init = |kind: u8, own_tag: u32, extra: u16, (os, mis): (u16, u16), out: &mut Vec<u8>| {
        out.extend_from_slice(&[kind, 0]);
        out.extend_from_slice(&(20 + extra).to_be_bytes());
        out.extend_from_slice(&own_tag.to_be_bytes());
        out.extend_from_slice(&SctpConfig::default().rwnd_bytes.to_be_bytes());
        out.extend_from_slice(&os.to_be_bytes()); // outbound streams
        out.extend_from_slice(&mis.to_be_bytes()); // inbound streams
        out.extend_from_slice(&0u32.to_be_bytes()); // initial TSN
    };
    let cookie = [0u8; COOKIE_BYTES as usize];
    // The state cookie manetsim's handshake carries; ns-2.35's carries none
    // (an empty State Cookie parameter in the INIT ACK, the same 4 bytes as
    // its INIT's unreliable-streams parameter, here Forward-TSN-Supported).
    let cookie_of = |rule: &HandshakeRule| match rule {
        HandshakeRule::Rfc => &cookie[..],
        HandshakeRule::Ns2 => &[][..],
    };
    match chunk {
        SctpChunk::Init { streams, rule } => match rule {
            HandshakeRule::Rfc => init(1, sender_tag, 0, (*streams, 1), out),
            HandshakeRule::Ns2 => {
                init(1, sender_tag, 4, (*streams, 1), out);
                out.extend_from_slice(&0xC000u16.to_be_bytes()); // Forward-TSN-Supported
                out.extend_from_slice(&4u16.to_be_bytes());
            }
        },
        SctpChunk::InitAck { streams, rule } => {
            let cookie = cookie_of(rule);
            let param = 4 + cookie.len() as u16;
            init(2, receiver_tag, param, (1, *streams), out);
            out.extend_from_slice(&7u16.to_be_bytes()); // State Cookie
            out.extend_from_slice(&param.to_be_bytes());
            out.extend_from_slice(cookie);
        }
        SctpChunk::CookieEcho { rule } => {
            let cookie = cookie_of(rule);
            out.extend_from_slice(&[10, 0]);
            out.extend_from_slice(&(4 + cookie.len() as u16).to_be_bytes());
            out.extend_from_slice(cookie);
        }
        SctpChunk::Heartbeat { sent_at, .. } | SctpChunk::HeartbeatAck { sent_at, .. } => {
            let kind = if matches!(chunk, SctpChunk::Heartbeat { .. }) {
                4
            } else {
                5
            };
            out.extend_from_slice(&[kind, 0]);
            out.extend_from_slice(&(HEARTBEAT_CHUNK_BYTES as u16).to_be_bytes());
            // Heartbeat Info: the send time in ns, then 8 bytes of zeros.
            out.extend_from_slice(&1u16.to_be_bytes());
            out.extend_from_slice(&(HEARTBEAT_CHUNK_BYTES as u16 - 4).to_be_bytes());
            out.extend_from_slice(&sent_at.to_be_bytes());
            out.extend_from_slice(&[0; 8]);
        }
        SctpChunk::CookieAck => out.extend_from_slice(&[11, 0, 0, 4]),
        // The receiving end sent no DATA (its initial TSN 0): the SHUTDOWN
        // acknowledges up to TSN 0 - 1.
        SctpChunk::Shutdown => {
            out.extend_from_slice(&[7, 0, 0, 8]);
            out.extend_from_slice(&u32::MAX.to_be_bytes());
        }
        SctpChunk::ShutdownAck => out.extend_from_slice(&[8, 0, 0, 4]),
        SctpChunk::ShutdownComplete => out.extend_from_slice(&[14, 0, 0, 4]),
        SctpChunk::Data(chunks) => {
            for d in chunks {
                // U when unordered, B on a message's first fragment, E
                // on its last (both on a message in one chunk).
                let flags = u8::from(d.unordered) << 2 | u8::from(d.begin) << 1 | u8::from(d.end);
                out.extend_from_slice(&[0, flags]);
                let len = (DATA_CHUNK_HEADER_BYTES + d.bytes).min(u16::MAX as u32) as u16;
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(&(d.tsn as u32).to_be_bytes());
                out.extend_from_slice(&d.stream.to_be_bytes());
                out.extend_from_slice(&(d.ssn as u16).to_be_bytes());
                out.extend_from_slice(&0u32.to_be_bytes()); // payload protocol
                let padded = d.bytes.next_multiple_of(4) as usize;
                out.resize(out.len() + padded, 0);
            }
        }
        SctpChunk::Sack(s) => {
            out.extend_from_slice(&[3, 0]);
            let n = (s.gaps.len() + s.dups.len()) as u32;
            out.extend_from_slice(&((SACK_CHUNK_BYTES + 4 * n) as u16).to_be_bytes());
            let cum = s.cum_next.wrapping_sub(1);
            out.extend_from_slice(&(cum as u32).to_be_bytes());
            out.extend_from_slice(&s.a_rwnd.to_be_bytes());
            out.extend_from_slice(&(s.gaps.len() as u16).to_be_bytes());
            out.extend_from_slice(&(s.dups.len() as u16).to_be_bytes());
            for &(lo, hi) in &s.gaps {
                out.extend_from_slice(&(lo.wrapping_sub(cum) as u16).to_be_bytes());
                out.extend_from_slice(&(hi.wrapping_sub(cum) as u16).to_be_bytes());
            }
            for &d in &s.dups {
                out.extend_from_slice(&(d as u32).to_be_bytes());
            }
        }
    }
    let sum = crc32c(&out[start..]);
    out[start + 8..start + 12].copy_from_slice(&sum.to_le_bytes());
}

/// CRC32c (Castagnoli, reflected, as SCTP computes it), bit by bit: the
/// captures are not the fast path.
fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A UDP datagram from and to `port` carrying `data` then `zeros` zero bytes.
fn udp(port: u16, src: [u8; 4], dst: [u8; 4], data: &[u8], zeros: usize, out: &mut Vec<u8>) {
    let start = out.len();
    let len = (UDP_HEADER_LEN + data.len() + zeros).min(u16::MAX as usize) as u16;
    out.extend_from_slice(&port.to_be_bytes());
    out.extend_from_slice(&port.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(data);
    out.resize(out.len() + zeros, 0);
    let sum = match checksum(pseudo_header(src, dst, IP_PROTOCOL_UDP, len), &out[start..]) {
        // UDP sends a computed zero as all ones (RFC 768).
        0 => 0xffff,
        s => s,
    };
    out[start + 6..start + 8].copy_from_slice(&sum.to_be_bytes());
}

/// A TCP segment from and to `port`, its payload zeros.
fn tcp(seg: &TcpSegment, port: u16, src: [u8; 4], dst: [u8; 4], out: &mut Vec<u8>) {
    let start = out.len();
    let mut repr = seg.repr();
    repr.src_port = port;
    repr.dst_port = port;
    if repr.window == 0 {
        // A sender's segments: its one-way TCP (ns-2's) receives no data
        // and keeps no window to advertise.
        repr.window = u16::MAX;
    }
    out.extend_from_slice(&repr.to_bytes());
    out.resize(out.len() + seg.len as usize, 0);
    let len = (out.len() - start).min(u16::MAX as usize) as u16;
    let sum = checksum(pseudo_header(src, dst, IP_PROTOCOL_TCP, len), &out[start..]);
    out[start + 16..start + 18].copy_from_slice(&sum.to_be_bytes());
}

/// The one's-complement sum of the pseudo-header TCP and UDP checksums
/// cover (RFC 9293 section 3.1), unfolded.
fn pseudo_header(src: [u8; 4], dst: [u8; 4], protocol: u8, len: u16) -> u32 {
    let words = [
        u16::from_be_bytes([src[0], src[1]]),
        u16::from_be_bytes([src[2], src[3]]),
        u16::from_be_bytes([dst[0], dst[1]]),
        u16::from_be_bytes([dst[2], dst[3]]),
        protocol as u16,
        len,
    ];
    words.iter().map(|&w| w as u32).sum()
}

/// The Internet checksum (RFC 1071) of `bytes`, with `initial` (an
/// unfolded sum) added.
fn checksum(initial: u32, bytes: &[u8]) -> u16 {
    let mut sum = initial as u64;
    let mut words = bytes.chunks_exact(2);
    for w in &mut words {
        sum += u16::from_be_bytes([w[0], w[1]]) as u64;
    }
    if let [last] = words.remainder() {
        sum += (*last as u64) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The 24 bytes that open a pcap file of link type `linktype`.
pub fn file_header(linktype: u32) -> [u8; 24] {
    let mut h = [0u8; 24];
    h[0..4].copy_from_slice(&MAGIC_NANOSECONDS.to_le_bytes());
    h[4..6].copy_from_slice(&2u16.to_le_bytes());
    h[6..8].copy_from_slice(&4u16.to_le_bytes());
    h[16..20].copy_from_slice(&SNAPLEN.to_le_bytes());
    h[20..24].copy_from_slice(&linktype.to_le_bytes());
    h
}

/// Appends a record holding `frame`, captured at `now`, to `out`.
pub fn record(now: SimTime, frame: &[u8], out: &mut Vec<u8>) {
    let len = frame.len() as u32;
    out.extend_from_slice(&((now / 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&((now % 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(frame);
}

/// One node's capture: where it goes, and what waits to be written.
struct Capture {
    tmp: PathBuf,
    dest: PathBuf,
    pending: Vec<u8>,
}

/// The captures of every node of a run.
pub struct PcapTrace {
    encoder: Encoder,
    captures: Vec<Capture>,
    /// Scratch: the frame being encoded.
    frame: Vec<u8>,
    /// The first write that failed, reported by [`Self::finish`].
    error: Option<io::Error>,
}

impl PcapTrace {
    /// Starts one capture per node, `PREFIX-N.pcap` for node `N` (`prefix`
    /// may name a folder: `out/run` gives `out/run-0.pcap`, …), then one
    /// per host behind a gateway (numbered on from `nodes`, link type
    /// [`LINKTYPE_RAW`]), each under a temporary name until
    /// [`Self::finish`]. Fails, leaving nothing behind, when a capture
    /// cannot be created.
    pub fn create(prefix: &Path, nodes: u32, hosts: u32, encoder: Encoder) -> io::Result<Self> {
        let mut trace = Self {
            encoder,
            captures: Vec::with_capacity((nodes + hosts) as usize),
            frame: Vec::with_capacity(2_048),
            error: None,
        };
        for n in 0..nodes + hosts {
            let linktype = if n < nodes && trace.encoder.radiotap.is_some() {
                LINKTYPE_IEEE802_11_RADIOTAP
            } else if n < nodes {
                LINKTYPE_IEEE802_11
            } else {
                LINKTYPE_RAW
            };
            let dest = capture_path(prefix, n);
            let name = dest
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let tmp = dest.with_file_name(format!(".{name}.{}.partial", std::process::id()));
            let made = if dest.is_dir() {
                Err(io::Error::other(format!("{} is a folder", dest.display())))
            } else {
                File::create(&tmp).and_then(|mut f| f.write_all(&file_header(linktype)))
            };
            if let Err(e) = made {
                trace.remove_partial();
                return Err(io::Error::new(e.kind(), format!("{}: {e}", dest.display())));
            }
            trace.captures.push(Capture {
                tmp,
                dest,
                pending: Vec::new(),
            });
        }
        Ok(trace)
    }

    /// A frame node `node` puts on the air at `now`, at `rate_bps`.
    pub fn sent(&mut self, now: SimTime, node: NodeId, f: &Frame, rate_bps: u64) {
        self.capture(now, node, Some((rate_bps, None)), |e, out| e.frame(f, out));
    }

    /// Encodes a record with `encode` into the scratch buffer, after the
    /// radiotap header of a frame at `rate_bps` when the encoder asks for
    /// one, and adds it to `node`'s capture.
    fn capture(
        &mut self,
        now: SimTime,
        node: NodeId,
        rate_bps: Option<(u64, Option<f64>)>,
        encode: impl FnOnce(&Encoder, &mut Vec<u8>),
    ) {
        let mut frame = std::mem::take(&mut self.frame);
        frame.clear();
        if let (Some(r), Some((rate, signal_w))) = (self.encoder.radiotap, rate_bps) {
            r.write(rate, signal_w, &mut frame);
        }
        encode(&self.encoder, &mut frame);
        self.push(now, node, &frame);
        self.frame = frame;
    }

    /// A frame for node `node` (or broadcast) that its MAC decoded at
    /// `now`, sent at `rate_bps` and received with `signal_w` (if known).
    pub fn received(
        &mut self,
        now: SimTime,
        node: NodeId,
        f: &Frame,
        rate_bps: u64,
        signal_w: Option<f64>,
    ) {
        self.capture(now, node, Some((rate_bps, signal_w)), |e, out| {
            e.frame(f, out)
        });
    }

    /// A data frame with header `h` carrying `p`, sent at `rate_bps` and
    /// decoded by node `node`'s MAC at `now`.
    pub fn received_data(
        &mut self,
        now: SimTime,
        node: NodeId,
        h: &DataHeader,
        p: &Packet,
        rate_bps: u64,
        signal_w: Option<f64>,
    ) {
        self.capture(now, node, Some((rate_bps, signal_w)), |e, out| {
            e.data(h, p, out)
        });
    }

    /// A packet on host `host`'s link, at `now`: as the host starts
    /// sending it, or as its last bit reaches the host.
    pub fn wired(&mut self, now: SimTime, host: NodeId, p: &Packet) {
        self.capture(now, host, None, |e, out| e.wired(p, out));
    }

    fn push(&mut self, now: SimTime, node: NodeId, frame: &[u8]) {
        let c = &mut self.captures[node as usize];
        record(now, frame, &mut c.pending);
        if c.pending.len() >= FLUSH_BYTES {
            Self::flush(c, &mut self.error);
        }
    }

    fn flush(c: &mut Capture, error: &mut Option<io::Error>) {
        if c.pending.is_empty() || error.is_some() {
            c.pending.clear();
            return;
        }
        let written = OpenOptions::new()
            .append(true)
            .open(&c.tmp)
            .and_then(|mut f| f.write_all(&c.pending));
        if let Err(e) = written {
            *error = Some(io::Error::new(
                e.kind(),
                format!("{}: {e}", c.dest.display()),
            ));
        }
        c.pending.clear();
    }

    /// The capture of node 0 (the others follow its name).
    pub fn first(&self) -> Option<&Path> {
        self.captures.first().map(|c| c.dest.as_path())
    }

    /// Writes what waits and moves every capture to its name; on any
    /// failure, removes them all.
    pub fn finish(mut self) -> io::Result<usize> {
        let done = self.complete();
        if done.is_err() {
            self.remove_partial();
        }
        done
    }

    /// Gives the captures up: their temporary files are removed.
    pub fn abandon(self) {
        self.remove_partial();
    }

    fn complete(&mut self) -> io::Result<usize> {
        for c in &mut self.captures {
            Self::flush(c, &mut self.error);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for c in &self.captures {
            File::open(&c.tmp)?.sync_all()?;
        }
        for c in &self.captures {
            std::fs::rename(&c.tmp, &c.dest)?;
        }
        Ok(self.captures.len())
    }

    fn remove_partial(&self) {
        for c in &self.captures {
            let _ = std::fs::remove_file(&c.tmp);
        }
    }
}

/// Where node `n`'s capture goes: `PREFIX-N.pcap`.
pub fn capture_path(prefix: &Path, n: NodeId) -> PathBuf {
    let name = prefix
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    prefix.with_file_name(format!("{name}-{n}.pcap"))
}

#[cfg(test)]
mod tests;
