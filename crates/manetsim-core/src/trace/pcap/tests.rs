use super::*;
use crate::transport::tcp::TcpFlags;
use crate::wire::aodv::{Message, RreqRepr};
use crate::wire::tcp::TcpRepr;
use std::rc::Rc;

/// A UDP data packet of flow `flow` from `src` to `dst`.
fn udp_packet(flow: u32, src: NodeId, dst: NodeId, payload_bytes: u32) -> Packet {
    Packet {
        uid: 0x1_2345,
        kind: PacketKind::Data { flow, seq: 7 },
        src,
        dst,
        ttl: 31,
        size_bytes: 28 + payload_bytes,
        payload_bytes,
        created_at: 0,
        hops: 0,
        stale_header_bytes: 0,
        path: 0,
        body: None,
        transport: None,
    }
}

fn header(ta: NodeId, ra: NodeId) -> DataHeader {
    DataHeader {
        ta,
        ra,
        duration_ns: 314_000,
        seq: 0x0abc,
        retry: true,
    }
}

/// Whether the Internet checksum over `bytes` (plus `pseudo`) verifies.
fn verifies(pseudo: u32, bytes: &[u8]) -> bool {
    checksum(pseudo, bytes) == 0
}

/// The IPv4 datagram of an encoded data frame: after 24 bytes of 802.11
/// header and 8 of LLC/SNAP.
fn datagram(frame: &[u8]) -> &[u8] {
    assert_eq!(&frame[24..30], &[0xaa, 0xaa, 0x03, 0, 0, 0]);
    assert_eq!(&frame[30..32], &[0x08, 0x00], "IPv4");
    &frame[32..]
}

#[test]
fn the_internet_checksum_matches_rfc_1071s_example() {
    // RFC 1071 section 3: the sum of these bytes is ddf2.
    let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    assert_eq!(checksum(0, &bytes), !0xddf2);
    // An odd length pads with a zero byte.
    assert_eq!(checksum(0, &[0x01]), !0x0100);
    // Carries fold back in.
    assert_eq!(checksum(0xffff + 0x0002, &[]), !0x0002);
}

#[test]
fn addresses_are_node_ids() {
    assert_eq!(ip_address(5), [0, 0, 0, 5]);
    assert_eq!(ip_address(BROADCAST), [255; 4]);
    assert_eq!(mac_address(0x0102_0304), [0x02, 0, 1, 2, 3, 4]);
    assert_eq!(mac_address(BROADCAST), [0xff; 6]);
}

#[test]
fn the_file_header_and_records_are_little_endian_pcap_in_nanoseconds() {
    let h = file_header(LINKTYPE_IEEE802_11);
    assert_eq!(&h[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
    assert_eq!(&h[4..8], &[2, 0, 4, 0], "version 2.4");
    assert_eq!(&h[8..16], &[0; 8], "zone and accuracy");
    assert_eq!(&h[16..20], &SNAPLEN.to_le_bytes());
    assert_eq!(&h[20..24], &[105, 0, 0, 0]);
    let mut out = Vec::new();
    record(3_000_000_123, &[9, 8, 7], &mut out);
    assert_eq!(
        out,
        [
            vec![3, 0, 0, 0],
            123u32.to_le_bytes().to_vec(),
            vec![3, 0, 0, 0, 3, 0, 0, 0, 9, 8, 7]
        ]
        .concat()
    );
}

#[test]
fn control_frames_have_their_802_11_layout_without_fcs() {
    let e = Encoder::new(RoutingProtocol::Aodv);
    let mut out = Vec::new();
    let mut rts = Frame::control(FrameKind::Rts, 1, 2, 1_500_500);
    rts.retry = true;
    e.frame(&rts, &mut out);
    // Frame control (type 1, subtype 11; the retry bit), the duration in
    // microseconds rounded up, RA, TA.
    assert_eq!(
        out,
        [
            vec![0xb4, 0x08],
            1_501u16.to_le_bytes().to_vec(),
            mac_address(2).to_vec(),
            mac_address(1).to_vec()
        ]
        .concat()
    );
    assert_eq!(out.len() as u32, crate::mac::RTS_BYTES - 4);
    for (kind, fc) in [(FrameKind::Cts, 0xc4), (FrameKind::Ack, 0xd4)] {
        out.clear();
        e.frame(&Frame::control(kind, 1, 2, 0), &mut out);
        assert_eq!(out, [vec![fc, 0, 0, 0], mac_address(2).to_vec()].concat());
        assert_eq!(out.len() as u32, crate::mac::ACK_BYTES - 4);
    }
}

#[test]
fn a_udp_data_frame_carries_llc_snap_ipv4_and_udp_with_valid_checksums() {
    let e = Encoder::new(RoutingProtocol::Aodv);
    let p = udp_packet(3, 4, 9, 512);
    let mut out = Vec::new();
    e.data(&header(6, 7), &p, &mut out);
    assert_eq!(&out[0..2], &[0x08, 0x08], "data, retry");
    assert_eq!(&out[2..4], &314u16.to_le_bytes());
    assert_eq!(&out[4..10], &mac_address(7), "RA");
    assert_eq!(&out[10..16], &mac_address(6), "TA");
    assert_eq!(&out[16..22], &BSSID);
    assert_eq!(&out[22..24], &(0x0abcu16 << 4).to_le_bytes());
    let ip = datagram(&out);
    assert_eq!(ip.len(), 20 + 8 + 512);
    assert_eq!(ip[0], 0x45);
    assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 540);
    assert_eq!(&ip[4..6], &[0x23, 0x45], "the uid's low 16 bits");
    assert_eq!((ip[8], ip[9]), (31, 17));
    assert_eq!(&ip[12..16], &[0, 0, 0, 4]);
    assert_eq!(&ip[16..20], &[0, 0, 0, 9]);
    assert!(verifies(0, &ip[..20]));
    let udp = &ip[20..];
    assert_eq!(&udp[0..2], &49155u16.to_be_bytes());
    assert_eq!(&udp[2..4], &49155u16.to_be_bytes());
    assert_eq!(&udp[4..6], &520u16.to_be_bytes());
    assert_ne!(&udp[6..8], &[0, 0], "the checksum is computed");
    let pseudo = pseudo_header([0, 0, 0, 4], [0, 0, 0, 9], 17, 520);
    assert!(verifies(pseudo, udp));
    assert!(udp[8..].iter().all(|&b| b == 0));
}

#[test]
fn a_tcp_segment_keeps_its_options_and_sequence_numbers() {
    let e = Encoder::new(RoutingProtocol::Aodv);
    let seg = TcpSegment {
        seq: 1_000,
        len: 100,
        ack: 1,
        flags: TcpFlags {
            ack: true,
            ..Default::default()
        },
        sack: vec![(3_000, 4_000)],
        ts_val: 2_000_000,
        ts_ecr: 1_000_000,
        window: 20_000,
        ts_option: true,
        ..Default::default()
    };
    let mut p = udp_packet(0, 1, 2, 100);
    p.transport = crate::net::TransportHeader::tcp(seg.clone());
    let mut out = Vec::new();
    e.data(&header(1, 2), &p, &mut out);
    let ip = datagram(&out);
    assert_eq!(ip[9], 6, "TCP");
    let tcp = &ip[20..];
    let parsed = TcpRepr::parse(tcp).unwrap();
    let mut expected = seg.repr();
    expected.src_port = FLOW_PORT_BASE;
    expected.dst_port = FLOW_PORT_BASE;
    assert_eq!(parsed, expected);
    assert_eq!(parsed.window, 20_000);
    assert_eq!(tcp.len(), seg.wire_len() as usize + 100);
    let pseudo = pseudo_header([0, 0, 0, 1], [0, 0, 0, 2], 6, tcp.len() as u16);
    assert!(verifies(pseudo, tcp));
    assert!(verifies(0, &ip[..20]));
}

#[test]
fn crc32c_matches_the_check_value_and_rfc_3720s_vectors() {
    // The CRC-32C check value of "123456789".
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    // RFC 3720 B.4: 32 bytes of zeros, and of ones.
    assert_eq!(crc32c(&[0; 32]), 0x8A91_36AA);
    assert_eq!(crc32c(&[0xff; 32]), 0x62A8_AB43);
}

/// The SCTP packet of an encoded frame of flow 0 carrying `chunk`, with its
/// CRC32c verified.
fn sctp_packet(chunk: SctpChunk, payload: u32) -> Vec<u8> {
    let mut p = udp_packet(0, 1, 2, payload);
    let wire = chunk.wire_len();
    p.transport = crate::net::TransportHeader::sctp(chunk);
    let mut out = Vec::new();
    Encoder::new(RoutingProtocol::Aodv).data(&header(1, 2), &p, &mut out);
    let ip = datagram(&out);
    assert_eq!(ip[9], 132, "SCTP");
    assert!(verifies(0, &ip[..20]));
    let sctp = ip[20..].to_vec();
    assert_eq!(
        sctp.len(),
        wire as usize,
        "the bytes the simulation charges"
    );
    assert_eq!(
        &sctp[..4],
        &[0xc0, 0x00, 0xc0, 0x00],
        "port 49152 both ends"
    );
    let mut zeroed = sctp.clone();
    zeroed[8..12].fill(0);
    assert_eq!(&sctp[8..12], &crc32c(&zeroed).to_le_bytes());
    sctp
}

#[test]
fn sctp_chunks_have_rfc_4960s_layouts() {
    use crate::transport::sctp::SctpSack;
    let init = sctp_packet(
        SctpChunk::Init {
            streams: 1,
            rule: HandshakeRule::Rfc,
        },
        0,
    );
    assert_eq!(&init[4..8], &[0; 4], "INIT carries verification tag 0");
    assert_eq!(&init[12..16], &[1, 0, 0, 20]);
    assert_eq!(&init[16..20], &1u32.to_be_bytes(), "the sender's tag");
    // Outbound and inbound streams: the sender asks for its streams and
    // takes one back; the receiver grants them.
    let init3 = sctp_packet(
        SctpChunk::Init {
            streams: 3,
            rule: HandshakeRule::Rfc,
        },
        0,
    );
    assert_eq!(&init3[24..28], &[0, 3, 0, 1]);
    let init_ack3 = sctp_packet(
        SctpChunk::InitAck {
            streams: 3,
            rule: HandshakeRule::Rfc,
        },
        0,
    );
    assert_eq!(&init_ack3[24..28], &[0, 1, 0, 3]);
    let init_ack = sctp_packet(
        SctpChunk::InitAck {
            streams: 1,
            rule: HandshakeRule::Rfc,
        },
        0,
    );
    assert_eq!(&init_ack[4..8], &1u32.to_be_bytes());
    assert_eq!(&init_ack[12..16], &[2, 0, 0, 56]);
    assert_eq!(&init_ack[32..36], &[0, 7, 0, 36], "a state cookie");
    let echo = sctp_packet(
        SctpChunk::CookieEcho {
            rule: HandshakeRule::Rfc,
        },
        0,
    );
    assert_eq!(&echo[4..8], &0x5C00_0000u32.to_be_bytes());
    assert_eq!(&echo[12..16], &[10, 0, 0, 36]);
    assert_eq!(
        &sctp_packet(SctpChunk::CookieAck, 0)[12..16],
        &[11, 0, 0, 4]
    );
    let data = sctp_packet(SctpChunk::data(7, 101), 101);
    assert_eq!(&data[12..16], &[0, 3, 0, 117], "B and E, length unpadded");
    assert_eq!(&data[16..20], &7u32.to_be_bytes());
    assert_eq!(&data[20..22], &[0, 0], "stream 0");
    assert_eq!(&data[22..24], &7u16.to_be_bytes(), "stream sequence number");
    // Another stream, and the U bit.
    let on_stream = |unordered| {
        SctpChunk::Data(vec![crate::transport::sctp::SctpData {
            stream: 2,
            ssn: 5,
            unordered,
            ..crate::transport::sctp::SctpData::new(11, 100)
        }])
    };
    let ordered = sctp_packet(on_stream(false), 100);
    assert_eq!(&ordered[12..14], &[0, 3]);
    assert_eq!(&ordered[20..24], &[0, 2, 0, 5], "stream 2, SSN 5");
    let unordered = sctp_packet(on_stream(true), 100);
    assert_eq!(&unordered[12..14], &[0, 7], "U, B and E");
    // A bundle: its chunks one after the other, each padded to 4 bytes.
    let two = SctpChunk::Data(vec![
        crate::transport::sctp::SctpData::new(8, 101),
        crate::transport::sctp::SctpData::new(9, 200),
    ]);
    let bundle = sctp_packet(two, 301);
    assert_eq!(bundle.len(), 12 + (16 + 104) + (16 + 200));
    assert_eq!(&bundle[12..16], &[0, 3, 0, 117]);
    assert_eq!(&bundle[16..20], &8u32.to_be_bytes());
    assert_eq!(&bundle[132..136], &[0, 3, 0, 216], "the second chunk");
    assert_eq!(&bundle[136..140], &9u32.to_be_bytes());
    let sack = sctp_packet(
        SctpChunk::Sack(SctpSack {
            cum_next: 3,
            a_rwnd: 60_000,
            gaps: vec![(5, 6)],
            dups: vec![1],
        }),
        0,
    );
    assert_eq!(&sack[12..16], &[3, 0, 0, 24]);
    assert_eq!(&sack[16..20], &2u32.to_be_bytes(), "cumulative TSN ack");
    assert_eq!(&sack[20..24], &60_000u32.to_be_bytes());
    assert_eq!(&sack[24..28], &[0, 1, 0, 1]);
    assert_eq!(&sack[28..32], &[0, 3, 0, 4], "gap offsets from the ack");
    assert_eq!(&sack[32..36], &1u32.to_be_bytes());
    // Nothing received yet: the ack is the initial TSN minus one.
    let none = sctp_packet(
        SctpChunk::Sack(SctpSack {
            cum_next: 0,
            a_rwnd: 1,
            gaps: vec![],
            dups: vec![],
        }),
        0,
    );
    assert_eq!(&none[16..20], &u32::MAX.to_be_bytes());
}

#[test]
fn ns2s_handshake_and_heartbeat_have_its_sizes_in_valid_layouts() {
    let ns2 = HandshakeRule::Ns2;
    // INIT: the fixed fields and Forward-TSN-Supported, 24 bytes.
    let init = sctp_packet(
        SctpChunk::Init {
            streams: 1,
            rule: ns2,
        },
        0,
    );
    assert_eq!(init.len(), 36);
    assert_eq!(&init[12..16], &[1, 0, 0, 24]);
    assert_eq!(&init[32..36], &[0xc0, 0, 0, 4]);
    // INIT ACK: an empty state cookie.
    let init_ack = sctp_packet(
        SctpChunk::InitAck {
            streams: 1,
            rule: ns2,
        },
        0,
    );
    assert_eq!(&init_ack[12..16], &[2, 0, 0, 24]);
    assert_eq!(&init_ack[32..36], &[0, 7, 0, 4]);
    let echo = sctp_packet(SctpChunk::CookieEcho { rule: ns2 }, 0);
    assert_eq!(&echo[12..], &[10, 0, 0, 4]);
    // HEARTBEAT: Heartbeat Info with the send time, to the receiver's tag;
    // its ACK echoes it, to the sender's.
    let sent_at = 1_057_893_271;
    let hb = sctp_packet(
        SctpChunk::Heartbeat {
            sent_at,
            to_receiver: true,
        },
        0,
    );
    assert_eq!(hb.len(), 36);
    assert_eq!(&hb[4..8], &0x5C00_0000u32.to_be_bytes());
    assert_eq!(&hb[12..20], &[4, 0, 0, 24, 0, 1, 0, 20]);
    assert_eq!(&hb[20..28], &sent_at.to_be_bytes());
    let ack = sctp_packet(
        SctpChunk::HeartbeatAck {
            sent_at,
            to_receiver: false,
        },
        0,
    );
    assert_eq!(&ack[4..8], &1u32.to_be_bytes());
    assert_eq!(&ack[12..16], &[5, 0, 0, 24]);
    assert_eq!(&ack[16..], &hb[16..]);
}

#[test]
fn routing_messages_go_to_their_protocols_ports_and_numbers() {
    let rreq = Message::Rreq(RreqRepr {
        join: false,
        repair: false,
        gratuitous: false,
        dest_only: false,
        unknown_seqno: true,
        hop_count: 2,
        rreq_id: 77,
        dst: 9,
        dst_seqno: 0,
        orig: 1,
        orig_seqno: 5,
    })
    .to_bytes();
    let p = Packet::control(1, BROADCAST, 30, 8, rreq.clone());
    let mut out = Vec::new();
    let broadcast = DataHeader {
        ra: BROADCAST,
        retry: false,
        ..header(1, 0)
    };
    for (protocol, number, port) in [
        (RoutingProtocol::Aodv, 17, Some(AODV_PORT)),
        (RoutingProtocol::Aomdv, 17, Some(AODV_PORT)),
        (RoutingProtocol::Olsr, 17, Some(OLSR_PORT)),
        (RoutingProtocol::Dsr, 48, None),
        (RoutingProtocol::Dsdv, DSDV_IP_PROTOCOL, None),
    ] {
        out.clear();
        Encoder::new(protocol).data(&broadcast, &p, &mut out);
        assert_eq!(&out[4..10], &[0xff; 6], "{protocol:?}");
        let ip = datagram(&out);
        assert_eq!(ip[9], number, "{protocol:?}");
        assert_eq!(&ip[16..20], &[255; 4]);
        assert!(verifies(0, &ip[..20]));
        match port {
            Some(port) => {
                assert_eq!(&ip[20..22], &port.to_be_bytes());
                assert_eq!(&ip[22..24], &port.to_be_bytes());
                assert_eq!(&ip[28..], &rreq[..], "{protocol:?}");
                let pseudo = pseudo_header([0, 0, 0, 1], [255; 4], 17, ip.len() as u16 - 20);
                assert!(verifies(pseudo, &ip[20..]));
            }
            None => assert_eq!(&ip[20..], &rreq[..], "{protocol:?}"),
        }
    }
}

#[test]
fn a_dsr_data_packet_carries_its_options_header_before_the_transport() {
    let dsr_header = dsr::DsrRepr {
        next_header: dsr::NEXT_HEADER_UDP,
        options: vec![],
    }
    .to_bytes();
    let mut p = udp_packet(1, 1, 3, 64);
    p.body = Some(Rc::from(dsr_header.clone()));
    let mut out = Vec::new();
    Encoder::new(RoutingProtocol::Dsr).data(&header(1, 2), &p, &mut out);
    let ip = datagram(&out);
    assert_eq!(ip[9], 48);
    let after = 20 + dsr_header.len();
    assert_eq!(&ip[20..after], &dsr_header[..]);
    assert_eq!(&ip[after..after + 2], &49153u16.to_be_bytes());
    assert_eq!(ip.len(), after + 8 + 64);
    let pseudo = pseudo_header([0, 0, 0, 1], [0, 0, 0, 3], 17, 72);
    assert!(verifies(pseudo, &ip[after..]));
}

#[test]
fn arp_requests_and_replies_follow_rfc_826() {
    let e = Encoder::new(RoutingProtocol::Aodv);
    let mut out = Vec::new();
    let request = crate::net::arp::request(4, 6);
    e.data(&header(4, BROADCAST), &request, &mut out);
    assert_eq!(&out[30..32], &[0x08, 0x06], "ARP");
    let arp = &out[32..];
    assert_eq!(arp.len(), 28);
    assert_eq!(&arp[..8], &[0, 1, 8, 0, 6, 4, 0, 1]);
    assert_eq!(&arp[8..14], &mac_address(4));
    assert_eq!(&arp[14..18], &[0, 0, 0, 4]);
    assert_eq!(&arp[18..24], &[0; 6], "not known yet");
    assert_eq!(&arp[24..28], &[0, 0, 0, 6]);
    out.clear();
    let reply = crate::net::arp::reply(6, 4);
    e.data(&header(6, 4), &reply, &mut out);
    let arp = &out[32..];
    assert_eq!(arp[7], 2);
    assert_eq!(&arp[8..14], &mac_address(6));
    assert_eq!(&arp[18..24], &mac_address(4));
    assert_eq!(&arp[24..28], &[0, 0, 0, 4]);
}

#[test]
fn durations_round_up_to_microseconds_and_stop_at_32767() {
    assert_eq!(duration_field(0), 0);
    assert_eq!(duration_field(1), 1);
    assert_eq!(duration_field(1_000), 1);
    assert_eq!(duration_field(1_001), 2);
    assert_eq!(duration_field(1_000_000_000), 0x7fff);
}

/// A scratch folder of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("manetsim-pcap-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn captures_appear_whole_under_their_names_only_when_finished() {
    let dir = scratch("finish");
    let mut t =
        PcapTrace::create(&dir.join("run"), 2, 0, Encoder::new(RoutingProtocol::Aodv)).unwrap();
    let ack = Frame::control(FrameKind::Ack, 0, 1, 0);
    // Enough records for node 1 to flush its buffer along the way.
    let many = FLUSH_BYTES / (16 + 10) + 10;
    for i in 0..many as u64 {
        t.sent(i, 1, &ack, 1_000_000);
    }
    t.received(5, 0, &ack, 1_000_000, None);
    assert!(names(&dir).iter().all(|n| n.ends_with(".partial")));
    assert_eq!(t.first(), Some(dir.join("run-0.pcap").as_path()));
    assert_eq!(t.finish().unwrap(), 2);
    assert_eq!(names(&dir), ["run-0.pcap", "run-1.pcap"]);
    let zero = std::fs::read(dir.join("run-0.pcap")).unwrap();
    assert_eq!(zero.len(), 24 + 16 + 10);
    assert_eq!(&zero[24..28], &[0; 4]);
    assert_eq!(&zero[28..32], &5u32.to_le_bytes());
    let one = std::fs::read(dir.join("run-1.pcap")).unwrap();
    assert_eq!(one.len(), 24 + many * 26);
    assert_eq!(&one[..24], &file_header(LINKTYPE_IEEE802_11));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn radiotap_headers_carry_the_rate_and_the_channel() {
    let header = |freq_hz: f64, standard: MacStandard, rate_bps: u64| {
        let mut out = Vec::new();
        Radiotap::new(freq_hz, standard).write(rate_bps, None, &mut out);
        out
    };
    // Version 0, length 14, Rate and Channel present; 54 Mb/s is 108
    // units of 500 kb/s; 5,180 MHz, OFDM (0x0040) in 5 GHz (0x0100).
    let a = header(5.18e9, MacStandard::A, 54_000_000);
    assert_eq!(
        a,
        [0, 0, 14, 0, 0x0c, 0, 0, 0, 108, 0, 0x3c, 0x14, 0x40, 0x01]
    );
    // 802.11b at 5.5 Mb/s on 2,412 MHz: CCK (0x0020) in 2.4 GHz (0x0080).
    let b = header(2.412e9, MacStandard::B, 5_500_000);
    assert_eq!(&b[8..], &[11, 0, 0x6c, 0x09, 0xa0, 0x00]);
    // 802.11g: each frame's own modulation.
    assert_eq!(
        &header(2.412e9, MacStandard::G, 11_000_000)[12..],
        &[0xa0, 0]
    );
    assert_eq!(
        &header(2.412e9, MacStandard::G, 6_000_000)[12..],
        &[0xc0, 0]
    );
    // ns-2's 914 MHz DSSS at 2 Mb/s.
    assert_eq!(
        &header(914e6, MacStandard::Dsss, 2_000_000)[8..],
        &[4, 0, 0x92, 0x03, 0xa0, 0]
    );
    // A frame received adds its power in dBm (bit 5): 1e-10 W is -70 dBm,
    // and the header grows to 15 bytes.
    let mut received = Vec::new();
    Radiotap::new(5.18e9, MacStandard::A).write(54_000_000, Some(1e-10), &mut received);
    assert_eq!(&received[..8], &[0, 0, 15, 0, 0x2c, 0, 0, 0]);
    assert_eq!(received[14] as i8, -70);
    assert_eq!(&received[8..14], &a[8..]);
    // Under bit errors it gives the noise too (bit 6): kTB over 20 MHz for
    // OFDM, -101.0 dBm, plus a 7 dB noise figure; over 22 MHz for DSSS,
    // -100.6 dBm, plus 10 dB. A frame sent has neither.
    let noisy = Radiotap::new(5.18e9, MacStandard::A).with_noise(7.0);
    let mut both = Vec::new();
    noisy.write(54_000_000, Some(1e-10), &mut both);
    assert_eq!(&both[..8], &[0, 0, 16, 0, 0x6c, 0, 0, 0]);
    assert_eq!((both[14] as i8, both[15] as i8), (-70, -94));
    let mut dsss = Vec::new();
    Radiotap::new(2.412e9, MacStandard::B)
        .with_noise(10.0)
        .write(11_000_000, Some(1e-9), &mut dsss);
    assert_eq!((dsss[14] as i8, dsss[15] as i8), (-60, -91));
    let mut sent = Vec::new();
    noisy.write(54_000_000, None, &mut sent);
    assert_eq!(sent, a);
    // A capture with them has link type 127, and its records open with
    // the header; a host's capture stays bare IPv4.
    let dir = scratch("radiotap");
    let encoder =
        Encoder::new(RoutingProtocol::Aodv).with_radiotap(Radiotap::new(5.18e9, MacStandard::A));
    let mut t = PcapTrace::create(&dir.join("run"), 1, 0, encoder).unwrap();
    t.sent(7, 0, &Frame::control(FrameKind::Ack, 0, 1, 0), 24_000_000);
    t.finish().unwrap();
    let bytes = std::fs::read(dir.join("run-0.pcap")).unwrap();
    assert_eq!(&bytes[..24], &file_header(LINKTYPE_IEEE802_11_RADIOTAP));
    assert_eq!(bytes.len(), 24 + 16 + 14 + 10);
    assert_eq!(bytes[24 + 16 + 8], 48);
    // The ACK's frame control after the header.
    assert_eq!(bytes[24 + 16 + 14], 0xd4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_capture_that_cannot_be_made_leaves_nothing_behind() {
    let dir = scratch("folder");
    std::fs::create_dir(dir.join("run-2.pcap")).unwrap();
    let err = PcapTrace::create(&dir.join("run"), 3, 0, Encoder::new(RoutingProtocol::Aodv))
        .err()
        .expect("a folder in the way");
    assert!(err.to_string().contains("run-2.pcap is a folder"), "{err}");
    assert_eq!(names(&dir), ["run-2.pcap"]);
    // Abandoned captures leave nothing either.
    let t = PcapTrace::create(
        &dir.join("other"),
        2,
        0,
        Encoder::new(RoutingProtocol::Aodv),
    )
    .unwrap();
    t.abandon();
    assert_eq!(names(&dir), ["run-2.pcap"]);
    let missing = dir.join("no-such-folder").join("run");
    assert!(PcapTrace::create(&missing, 1, 0, Encoder::new(RoutingProtocol::Aodv)).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An IPv4 datagram's header: protocol, addresses (node ids), a total
/// length that is the datagram's, and a checksum that verifies.
fn assert_ip_header(ip: &[u8], protocol: u8, src: NodeId, dst: NodeId) {
    assert_eq!(ip[9], protocol);
    assert_eq!(&ip[12..16], &ip_address(src));
    assert_eq!(&ip[16..20], &ip_address(dst));
    assert_eq!(usize::from(u16::from_be_bytes([ip[2], ip[3]])), ip.len());
    assert!(verifies(0, &ip[..20]));
}

#[test]
fn with_a_gateway_a_packet_for_a_host_travels_in_ip_in_ip_with_the_flows_addresses() {
    // Gateway 3, host 4; flow 0 from node 1 to the host, flow 1 from the
    // host to node 2.
    let e = Encoder::new(RoutingProtocol::Aodv).with_gateway(GatewayView {
        nodes: vec![3],
        first_host: 4,
        flow_ends: vec![(1, 4), (4, 2)],
        tunnel: true,
    });
    let seg = TcpSegment {
        seq: 1,
        len: 100,
        ack: 1,
        flags: TcpFlags {
            ack: true,
            ..Default::default()
        },
        ..Default::default()
    };
    // In the MANET the tunnelled segment is addressed to the gateway.
    let mut p = udp_packet(0, 1, 3, 100);
    p.transport = crate::net::TransportHeader::tcp(seg.clone());
    let mut out = Vec::new();
    e.data(&header(1, 2), &p, &mut out);
    let outer = datagram(&out);
    assert_ip_header(outer, IP_PROTOCOL_IPIP, 1, 3);
    let inner = &outer[20..];
    assert_ip_header(inner, 6, 1, 4);
    let tcp = &inner[20..];
    assert!(verifies(
        pseudo_header([0, 0, 0, 1], [0, 0, 0, 4], 6, tcp.len() as u16),
        tcp
    ));
    // On the host's link: the inner datagram alone.
    let mut p_wire = p.clone();
    p_wire.dst = 4;
    let mut wired = Vec::new();
    e.wired(&p_wire, &mut wired);
    assert_eq!(wired, inner);

    // Its ACK from the host, routed into the MANET by the gateway (its
    // source there): the host's address, no tunnel.
    let mut ack = udp_packet(0, 3, 1, 0);
    ack.kind = PacketKind::TcpAck { flow: 0 };
    ack.transport = crate::net::TransportHeader::tcp(seg);
    let mut out = Vec::new();
    e.data(&header(3, 2), &ack, &mut out);
    let ip = datagram(&out);
    assert_eq!(ip[9], 6);
    assert_eq!(
        (&ip[12..16], &ip[16..20]),
        (&[0, 0, 0, 4][..], &[0, 0, 0, 1][..])
    );
    // Flow 1's data from the host, routed in by the gateway: the host's
    // address, no tunnel.
    let mut out = Vec::new();
    e.data(&header(3, 2), &udp_packet(1, 3, 2, 10), &mut out);
    let ip = datagram(&out);
    assert_eq!((ip[9], ip[15], ip[19]), (17, 4, 2));
    // A flow the view does not know keeps the packet's own addresses.
    let mut out = Vec::new();
    e.data(&header(1, 2), &udp_packet(5, 1, 3, 10), &mut out);
    let ip = datagram(&out);
    assert_eq!((ip[9], ip[15], ip[19]), (17, 1, 3));
}
