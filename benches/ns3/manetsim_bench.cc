// manetsim_bench.cc: one ns-3 (3.37 or 3.44) program for `manetsim bench NAME --against ns3`.
//
// bench.py (python/manetsim/bench.py) compiles this file on demand and runs it
// on the same scenario as manetsim, in the same benchmark run. Everything that
// describes the scenario comes from manetsim's resolved TOML through the
// command line, so the program itself holds no scenario:
//
//   --scenario=NAME        label printed back (chain6, rwp50, ...)
//   --nodes=N              node count
//   --duration=S           simulated seconds
//   --mobility=FILE        ns-2 movement file (setdest format) written by manetsim
//                          (`movements_ns2`): the same positions and legs, loaded
//                          with ns3::Ns2MobilityHelper
//   --flows=FILE           one flow a line: `tcp|udp|tcpcbr SRC DST START STOP SIZE
//                          RATE_BPS` (tcp: bulk transfer, RATE_BPS ignored; udp:
//                          CBR; tcpcbr: CBR into a TCP connection), or
//                          `onoff|tcponoff SRC DST START STOP SIZE RATE_BPS ON_S
//                          OFF_S exponential|pareto SHAPE` (bursts at RATE_BPS
//                          over UDP or into a TCP connection, ns-3's
//                          OnOffApplication, times of those means)
//   radio, MAC and TCP parameters as manetsim resolves them (see --PrintHelp)
//
// The radio mirrors ns-2's threshold model as far as ns-3's YANS PHY allows
// (802.11b, or 802.11a with --standard=80211a): two-ray ground loss (or
// Friis free space with --propagation=freeSpace, or ns-2's log-normal
// shadowing with --propagation=shadowing), signals below the carrier-sense threshold are not seen
// (RxSensitivity), signals above it make the medium busy (CCA), frames are
// received from the receive threshold on (preamble detection minimum RSSI) and
// the thermal noise floor is lowered so that the receive threshold, not the
// noise, sets the range. With --bitErrors (manetsim's `error_model = "awgn"`)
// the noise figure is the scenario's and ns-3's YansErrorRateModel decides
// each frame. No tracing, no pcap, no animation.
//
// At the end it prints one line (`ns3-result ...`) with the totals per flow
// kind, and one `ns3-flow ...` line per flow, to check that it did real work.

#include "ns3/aodv-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

// ns-3's minor version (44 for ns-3.44), which `manetsim bench` defines as
// it compiles the program; 0 when unknown.
#ifndef MANETSIM_NS3_MINOR
#define MANETSIM_NS3_MINOR 0
#endif

namespace
{

struct FlowSpec
{
    std::string kind; // "tcp", "udp", "onoff", "tcpcbr" or "tcponoff"
    uint32_t src = 0;
    uint32_t dst = 0;
    double start = 0.0;
    double stop = 0.0;
    uint32_t size = 512;
    double rateBps = 0.0;
    // On-off: the mean burst and idle times, their distribution and the
    // Pareto shape.
    double onS = 0.0;
    double offS = 0.0;
    std::string distribution = "exponential";
    double shape = 1.5;

    // Whether the flow runs over TCP (bulk, CBR or on-off).
    bool Tcp() const
    {
        return kind == "tcp" || kind == "tcpcbr" || kind == "tcponoff";
    }

    // Whether the flow's source is ns-3's OnOffApplication.
    bool OnOff() const
    {
        return kind == "onoff" || kind == "tcponoff" || kind == "tcpcbr";
    }
};

// The packets each on-off source sent (its application's Tx trace).
std::vector<uint64_t> g_onoffSent;

void
CountOnOffSent(size_t flow, Ptr<const Packet> packet)
{
    ++g_onoffSent[flow];
}

// A random variable of mean `mean` for an on-off source's burst or idle
// times: exponential, or Pareto of the given shape (ns-3's scale being the
// least value, mean · (shape − 1) / shape).
Ptr<RandomVariableStream>
OnOffTime(const FlowSpec& f, double mean)
{
    if (f.distribution == "pareto")
    {
        Ptr<ParetoRandomVariable> v = CreateObject<ParetoRandomVariable>();
        v->SetAttribute("Scale", DoubleValue(mean * (f.shape - 1.0) / f.shape));
        v->SetAttribute("Shape", DoubleValue(f.shape));
        return v;
    }
    Ptr<ExponentialRandomVariable> v = CreateObject<ExponentialRandomVariable>();
    v->SetAttribute("Mean", DoubleValue(mean));
    return v;
}

// Frames each node's PHY began to send and received whole (--frameCounts).
struct FrameCount
{
    uint64_t sent = 0;
    uint64_t received = 0;
    // RTSs that got no CTS (the station manager's MacTxRtsFailed):
    // manetsim's mac.rts_failures.
    uint64_t rtsFailed = 0;
    // Data packets (of at least kDataBytes) the node's IP layer sent as
    // their source, retransmitted TCP segments included, and delivered
    // to its own transport, duplicates included.
    uint64_t ipDataSent = 0;
    uint64_t ipDataDelivered = 0;
    // The ACKs the node sent, by their rate (b/s).
    std::map<uint64_t, uint64_t> acksByRate;
    // Data packets (IP packets of at least kDataBytes, so no AODV message)
    // the node dropped: its MAC by ns-3's reason (the retry limit, a
    // frame's lifetime; "queue_full" also counts what the traffic-control
    // layer turned away while the MAC's full queue stopped the device's),
    // its IP layer by ns-3's reason (AODV's
    // request queue hands the packets it gives up to IP as route errors)
    // and its ARP (a failed resolution, or a full queue waiting for one).
    std::map<std::string, uint64_t> macDrops;
    std::map<std::string, uint64_t> ipDrops;
    uint64_t arpDrops = 0;
};

// The least IP packet taken for data: AODV's messages are far smaller, a
// flow's packets (a 20-byte IP header, 8-byte UDP header and the payload)
// larger.
constexpr uint32_t kDataBytes = 200;

std::vector<FrameCount> g_frames;

// A TCP sender's data segments and loss episodes (--frameCounts).
struct TcpCount
{
    // Data segments sent, retransmissions included, and those that ended
    // at or below the highest sequence number sent before them.
    uint64_t segments = 0;
    uint64_t retransmitted = 0;
    // Entries into CA_LOSS (a retransmission timeout) and into
    // CA_RECOVERY (a fast retransmit).
    uint64_t lossEpisodes = 0;
    uint64_t recoveryEpisodes = 0;
    // The RTT samples (ns-3's RTT trace: the last sample) and the
    // retransmission timeout (its RTO trace) when each timeout struck.
    uint64_t rttSamples = 0;
    double rttSumS = 0.0;
    double rttMaxS = 0.0;
    double rtoS = 0.0;
    double rtoAtTimeoutSumS = 0.0;
    // Timeouts that struck in a fast recovery, and the time since the
    // ACK number last rose when each timeout struck.
    uint64_t lossFromRecovery = 0;
    double ackGapAtTimeoutSumS = 0.0;
    SequenceNumber32 highestAck{0};
    Time lastNewAck{0};
    SequenceNumber32 highest{0};
    bool any = false;
};

std::vector<TcpCount> g_tcp;

void
CountTcpTx(uint32_t flow, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (packet->GetSize() == 0)
    {
        return;
    }
    TcpCount& c = g_tcp[flow];
    ++c.segments;
    SequenceNumber32 end = header.GetSequenceNumber() + packet->GetSize();
    if (c.any && end <= c.highest)
    {
        ++c.retransmitted;
    }
    else
    {
        c.highest = end;
        c.any = true;
    }
}

void
CountTcpState(uint32_t flow, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
    {
        TcpCount& c = g_tcp[flow];
        ++c.lossEpisodes;
        c.rtoAtTimeoutSumS += c.rtoS;
        c.lossFromRecovery += from == TcpSocketState::CA_RECOVERY;
        c.ackGapAtTimeoutSumS += (Simulator::Now() - c.lastNewAck).GetSeconds();
    }
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY)
    {
        ++g_tcp[flow].recoveryEpisodes;
    }
}

void
CountTcpRtt(uint32_t flow, Time, Time sample)
{
    TcpCount& c = g_tcp[flow];
    ++c.rttSamples;
    c.rttSumS += sample.GetSeconds();
    c.rttMaxS = std::max(c.rttMaxS, sample.GetSeconds());
}

void
CountTcpRx(uint32_t flow, Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    TcpCount& c = g_tcp[flow];
    if ((header.GetFlags() & TcpHeader::ACK) && header.GetAckNumber() > c.highestAck)
    {
        c.highestAck = header.GetAckNumber();
        c.lastNewAck = Simulator::Now();
    }
}

void
KeepTcpRto(uint32_t flow, Time, Time rto)
{
    g_tcp[flow].rtoS = rto.GetSeconds();
}

// Connects the counters above to a TCP flow's socket, which its
// application opens as it starts.
void
WatchTcp(uint32_t flow, Ptr<Application> app)
{
    Ptr<Socket> socket;
    if (Ptr<BulkSendApplication> bulk = DynamicCast<BulkSendApplication>(app))
    {
        socket = bulk->GetSocket();
    }
    else if (Ptr<OnOffApplication> onoff = DynamicCast<OnOffApplication>(app))
    {
        socket = onoff->GetSocket();
    }
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(socket);
    NS_ABORT_MSG_UNLESS(tcp, "flow " << flow << ": no TCP socket to count");
    tcp->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountTcpTx, flow));
    tcp->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CountTcpState, flow));
    tcp->TraceConnectWithoutContext("RTT", MakeBoundCallback(&CountTcpRtt, flow));
    tcp->TraceConnectWithoutContext("RTO", MakeBoundCallback(&KeepTcpRto, flow));
    tcp->TraceConnectWithoutContext("Rx", MakeBoundCallback(&CountTcpRx, flow));
}

void
CountSent(uint32_t node, Ptr<const Packet> packet, double txPowerW)
{
    ++g_frames[node].sent;
}

void
CountAcks(uint32_t node, WifiConstPsduMap psdus, WifiTxVector txVector, double txPowerW)
{
    for (const auto& psdu : psdus)
    {
        if (psdu.second->GetHeader(0).IsAck())
        {
            ++g_frames[node].acksByRate[txVector.GetMode().GetDataRate(txVector)];
        }
    }
}

void
CountRtsFailed(uint32_t node, Mac48Address to)
{
    ++g_frames[node].rtsFailed;
}

void
CountIpDataSent(uint32_t node, const Ipv4Header& header, Ptr<const Packet> packet, uint32_t interface)
{
    if (packet->GetSize() + header.GetSerializedSize() >= kDataBytes)
    {
        ++g_frames[node].ipDataSent;
    }
}

void
CountIpDataDelivered(uint32_t node,
                     const Ipv4Header& header,
                     Ptr<const Packet> packet,
                     uint32_t interface)
{
    if (packet->GetSize() + header.GetSerializedSize() >= kDataBytes)
    {
        ++g_frames[node].ipDataDelivered;
    }
}

// A PSDU the PHY decoded: its state helper's RxOk (PhyRxEnd also fires for
// one whose payload the error-rate model then fails).
void
CountReceived(uint32_t node, Ptr<const Packet> packet, double snr, WifiMode mode, WifiPreamble preamble)
{
    ++g_frames[node].received;
}

// An MPDU the MAC dropped; its packet holds the LLC/SNAP header and the IP
// packet.
void
CountMacDrop(uint32_t node, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    if (!mpdu->GetHeader().IsData() || mpdu->GetPacket()->GetSize() < kDataBytes)
    {
        return;
    }
    static const std::map<WifiMacDropReason, std::string> names = {
        {WIFI_MAC_DROP_FAILED_ENQUEUE, "queue_full"},
        {WIFI_MAC_DROP_EXPIRED_LIFETIME, "expired"},
        {WIFI_MAC_DROP_REACHED_RETRY_LIMIT, "given_up"},
        {WIFI_MAC_DROP_QOS_OLD_PACKET, "old"},
    };
    auto name = names.find(reason);
    ++g_frames[node].macDrops[name == names.end() ? "other" : name->second];
}

// An IP packet the traffic-control layer turned away because the MAC's
// queue was full. Without a queue disc (see Uninstall below) the MAC's
// queue is the interface queue: when it fills, it stops the device's
// transmission queue (flow control), and the layer drops what IP hands it
// then; the MAC itself never sees the packet, so its DroppedMpdu does not
// fire. It is ns-2's drop at a full interface queue.
void
CountInterfaceQueueDrop(uint32_t node, Ptr<const Packet> packet)
{
    if (packet->GetSize() >= kDataBytes)
    {
        ++g_frames[node].macDrops["queue_full"];
    }
}

// A packet ARP dropped: its resolution failed, or its queue of packets
// waiting for one was full. The packet is the IP packet.
void
CountArpDrop(uint32_t node, Ptr<const Packet> packet)
{
    if (packet->GetSize() >= kDataBytes)
    {
        ++g_frames[node].arpDrops;
    }
}

// A packet IP dropped; the packet is the IP payload.
void
CountIpDrop(uint32_t node,
            const Ipv4Header& header,
            Ptr<const Packet> packet,
            Ipv4L3Protocol::DropReason reason,
            Ptr<Ipv4> ipv4,
            uint32_t interface)
{
    if (packet->GetSize() + header.GetSerializedSize() < kDataBytes)
    {
        return;
    }
    static const std::map<Ipv4L3Protocol::DropReason, std::string> names = {
        {Ipv4L3Protocol::DROP_TTL_EXPIRED, "ttl"},
        {Ipv4L3Protocol::DROP_NO_ROUTE, "no_route"},
        {Ipv4L3Protocol::DROP_BAD_CHECKSUM, "bad_checksum"},
        {Ipv4L3Protocol::DROP_INTERFACE_DOWN, "interface_down"},
        {Ipv4L3Protocol::DROP_ROUTE_ERROR, "route_error"},
        {Ipv4L3Protocol::DROP_FRAGMENT_TIMEOUT, "fragment_timeout"},
        {Ipv4L3Protocol::DROP_DUPLICATE, "duplicate"},
    };
    auto name = names.find(reason);
    ++g_frames[node].ipDrops[name == names.end() ? "other" : name->second];
}

double
WattsToDbm(double watts)
{
    return 10.0 * std::log10(watts * 1000.0);
}

std::vector<FlowSpec>
ReadFlows(const std::string& path, uint32_t nodes)
{
    std::vector<FlowSpec> flows;
    std::ifstream in(path);
    if (!in)
    {
        NS_FATAL_ERROR("cannot read the flows file " << path);
    }
    std::string line;
    uint32_t lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream fields(line);
        FlowSpec f;
        if (!(fields >> f.kind >> f.src >> f.dst >> f.start >> f.stop >> f.size >> f.rateBps))
        {
            NS_FATAL_ERROR(path << ":" << lineNo
                                << ": expected `tcp|udp|tcpcbr|onoff|tcponoff SRC DST START STOP SIZE RATE`");
        }
        bool bursts = f.kind == "onoff" || f.kind == "tcponoff";
        if (bursts && !(fields >> f.onS >> f.offS >> f.distribution >> f.shape))
        {
            NS_FATAL_ERROR(path << ":" << lineNo << ": expected `" << f.kind
                                << " ... ON_S OFF_S DISTRIBUTION SHAPE`");
        }
        if ((f.kind != "tcp" && f.kind != "udp" && f.kind != "onoff" && f.kind != "tcpcbr" &&
             f.kind != "tcponoff") ||
            f.src >= nodes ||
            f.dst >= nodes || f.src == f.dst || f.stop <= f.start || f.size == 0 ||
            (f.kind != "tcp" && f.rateBps <= 0.0) ||
            (bursts &&
             (f.onS <= 0.0 || f.offS < 0.0 || f.shape <= 1.0 ||
              (f.distribution != "exponential" && f.distribution != "pareto"))))
        {
            NS_FATAL_ERROR(path << ":" << lineNo << ": bad flow `" << line << "`");
        }
        flows.push_back(f);
    }
    return flows;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string scenario = "unnamed";
    uint32_t nodes = 0;
    double duration = 0.0;
    std::string mobilityFile;
    std::string flowsFile;
    uint32_t seed = 1;
    uint32_t run = 1;
    // Radio (ns-2's defaults as manetsim resolves them).
    double txPowerW = 0.28183815;
    double rxThresholdW = 3.652e-10;
    double csThresholdW = 1.559e-11;
    double frequencyHz = 914e6;
    double antennaHeightM = 1.5;
    double systemLoss = 1.0;
    double noiseFigureDb = -30.0;
    // The PHY: ns-3's 802.11b (DSSS) or 802.11a (OFDM), over two-ray ground
    // or free space (Friis).
    std::string standard = "80211b";
    bool shortSlot = false;
    std::string propagation = "twoRayGround";
    // Bit errors (manetsim's `error_model = "awgn"`): ns-3's error-rate
    // model at the real noise figure decides each frame, the receive
    // threshold alone gates the preamble, and signals down to
    // interferenceThresholdW (0: the carrier-sense threshold) interfere.
    bool bitErrors = false;
    std::string errorRateModel = "ns3::YansErrorRateModel";
    double interferenceThresholdW = 0.0;
    // Fading after the propagation model: none, or Nakagami-m by distance.
    // Shadowing (ns-2's): log-distance from Friis's power at the
    // reference distance, then a normal draw in dB for each packet at each
    // receiver.
    double pathLossExponent = 2.0;
    double referenceDistanceM = 1.0;
    double shadowingStdDb = 4.0;
    // Time-correlated Rayleigh fading (manetsim's `fading_doppler_hz`):
    // ns-3's JakesPropagationLossModel at this Doppler frequency, 20
    // oscillators; 0, none.
    double jakesDopplerHz = 0.0;
    bool nakagami = false;
    double nakagamiM0 = 1.5;
    double nakagamiM1 = 0.75;
    double nakagamiM2 = 0.75;
    double nakagamiDistance1M = 80.0;
    double nakagamiDistance2M = 200.0;
    // MAC.
    uint32_t dataRateBps = 2000000;
    uint32_t basicRateBps = 1000000;
    uint32_t rtsThresholdBytes = 0;
    // constant (at dataRateBps), or arf, aarf or minstrel (ns-3's managers:
    // up to the standard's top rate).
    std::string rateControl = "constant";
    // What CTS and ACK frames go at: standard (ns-3 as it comes: the highest
    // of the standard's mandatory rates not above the frame answered) or
    // basic (basicRateBps, as ns-2.35 and manetsim's default).
    std::string responseRate = "standard";
    uint32_t shortRetryLimit = 7;
    uint32_t longRetryLimit = 4;
    uint32_t queuePackets = 50;
    // TCP.
    uint32_t tcpInitialWindow = 2;
    uint32_t tcpWindowBytes = 0;
    double tcpMinRtoS = 0.2;
    bool tcpDelayedAck = false;
    // RFC 3042's limited transmit (ns-3's default; manetsim's
    // `limited_transmit`, off unless asked for).
    bool tcpLimitedTransmit = true;
    std::string tcpVariant = "newreno";
    bool hystart = false;
    // AODV.
    bool aodvHello = false;
    // Output.
    bool frameCounts = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("scenario", "Scenario name (a label)", scenario);
    cmd.AddValue("nodes", "Number of nodes", nodes);
    cmd.AddValue("duration", "Simulated time (s)", duration);
    cmd.AddValue("mobility", "ns-2 movement file (setdest format)", mobilityFile);
    cmd.AddValue("flows", "Flows file: `tcp|udp SRC DST START STOP SIZE RATE_BPS` a line", flowsFile);
    cmd.AddValue("seed", "RNG seed", seed);
    cmd.AddValue("run", "RNG run number", run);
    cmd.AddValue("txPowerW", "Transmit power (W)", txPowerW);
    cmd.AddValue("rxThresholdW", "Receive threshold (W)", rxThresholdW);
    cmd.AddValue("csThresholdW", "Carrier-sense threshold (W)", csThresholdW);
    cmd.AddValue("frequencyHz", "Carrier frequency (Hz)", frequencyHz);
    cmd.AddValue("standard", "80211b (DSSS), 80211a (OFDM) or 80211g (ERP)", standard);
    cmd.AddValue("shortSlot", "80211g: the 9 us slot of a network of ERP stations alone", shortSlot);
    cmd.AddValue("propagation", "twoRayGround, freeSpace or shadowing", propagation);
    cmd.AddValue("pathLossExponent", "Shadowing: the path-loss exponent", pathLossExponent);
    cmd.AddValue("referenceDistanceM", "Shadowing: the reference distance (m)", referenceDistanceM);
    cmd.AddValue("shadowingStdDb", "Shadowing: the deviation of the draw (dB)", shadowingStdDb);
    cmd.AddValue("antennaHeightM", "Antenna height above the node (m)", antennaHeightM);
    cmd.AddValue("systemLoss", "System loss (ratio, >= 1)", systemLoss);
    cmd.AddValue("noiseFigureDb", "Receiver noise figure (dB); low so the thresholds rule", noiseFigureDb);
    cmd.AddValue("bitErrors", "Bit errors from the SINR (YansErrorRateModel)", bitErrors);
    cmd.AddValue("errorRateModel", "With bitErrors: ns-3's error-rate model (TypeId)", errorRateModel);
    cmd.AddValue("interferenceThresholdW",
                 "With bitErrors: weakest signal that interferes (W; 0 = csThresholdW)",
                 interferenceThresholdW);
    cmd.AddValue("jakesDopplerHz",
                 "Time-correlated Rayleigh fading (Jakes) at this Doppler frequency (Hz); 0: none",
                 jakesDopplerHz);
    cmd.AddValue("nakagami", "Nakagami-m fading after the propagation model", nakagami);
    cmd.AddValue("nakagamiM0", "Nakagami m below nakagamiDistance1M", nakagamiM0);
    cmd.AddValue("nakagamiM1", "Nakagami m below nakagamiDistance2M", nakagamiM1);
    cmd.AddValue("nakagamiM2", "Nakagami m beyond nakagamiDistance2M", nakagamiM2);
    cmd.AddValue("nakagamiDistance1M", "Where Nakagami's m1 takes over (m)", nakagamiDistance1M);
    cmd.AddValue("nakagamiDistance2M", "Where Nakagami's m2 takes over (m)", nakagamiDistance2M);
    cmd.AddValue("dataRateBps", "802.11b data rate (1000000, 2000000, 5500000, 11000000)", dataRateBps);
    cmd.AddValue("basicRateBps", "802.11b basic (control) rate", basicRateBps);
    cmd.AddValue("rtsThresholdBytes", "RTS/CTS for frames above this size", rtsThresholdBytes);
    cmd.AddValue("rateControl", "constant, arf, aarf or minstrel", rateControl);
    cmd.AddValue("responseRate", "CTS and ACK rates: standard or basic (basicRateBps)", responseRate);
    cmd.AddValue("shortRetryLimit", "Short retry limit", shortRetryLimit);
    cmd.AddValue("longRetryLimit", "Long retry limit", longRetryLimit);
    cmd.AddValue("queuePackets", "Interface queue length (packets)", queuePackets);
    cmd.AddValue("tcpInitialWindow", "TCP initial congestion window (segments)", tcpInitialWindow);
    cmd.AddValue("tcpWindowBytes",
                 "The receiver's largest advertised window (bytes, at most 65535; 0: ns-3's "
                 "default, its 128 KiB receive buffer with window scaling)",
                 tcpWindowBytes);
    cmd.AddValue("tcpMinRtoS", "TCP minimum RTO (s)", tcpMinRtoS);
    cmd.AddValue("tcpDelayedAck", "TCP delayed ACKs", tcpDelayedAck);
    cmd.AddValue("tcpLimitedTransmit", "TCP limited transmit (RFC 3042)", tcpLimitedTransmit);
    cmd.AddValue("tcpVariant", "newreno or cubic (every TCP flow)", tcpVariant);
    cmd.AddValue("hystart", "cubic: TcpCubic's hybrid slow start, its delay bound 16 ms", hystart);
    cmd.AddValue("aodvHello", "AODV HELLO messages (1 s)", aodvHello);
    cmd.AddValue("frameCounts",
                 "Print the frames each node sent and received, its ACKs by rate and the "
                 "data packets it dropped",
                 frameCounts);
    cmd.Parse(argc, argv);

    if (nodes == 0 || duration <= 0.0 || mobilityFile.empty() || flowsFile.empty())
    {
        NS_FATAL_ERROR("--nodes, --duration, --mobility and --flows are required");
    }
    std::vector<FlowSpec> flows = ReadFlows(flowsFile, nodes);

    RngSeedManager::SetSeed(seed == 0 ? 1 : seed);
    RngSeedManager::SetRun(run);

    // TCP like ns-2's one-way NewReno agents as far as ns-3's full TCP goes:
    // classic fast recovery, no SACK, no timestamps, and it never gives up on
    // a connection (ns-2's agents have none to give up). ns-2's window_ is
    // the receiver's advertised window (--tcpWindowBytes) from ns-3.44 on;
    // on older ns-3 the window stays ns-3's default (its 128 KiB receive
    // buffer): capping it there (MaxWindowSize or RcvBufSize) crashes ns-3.37
    // in TcpRateLinux::SkbSent on the chain.
    // CUBIC as manetsim's: standard slow start unless --hystart; with it,
    // TcpCubic's HyStart with the delay threshold's upper bound at Linux's
    // 16 ms (ns-3's default is 1 s), as manetsim's slow_start = "hystart".
    NS_ABORT_MSG_IF(hystart && tcpVariant != "cubic", "--hystart: only with --tcpVariant=cubic");
    if (tcpVariant == "cubic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
        Config::SetDefault("ns3::TcpCubic::HyStartDelayMax", TimeValue(MilliSeconds(16)));
    }
    else if (tcpVariant == "newreno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    }
    else
    {
        NS_FATAL_ERROR("--tcpVariant: expected newreno or cubic, got " << tcpVariant);
    }
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    uint32_t segmentSize = 512; // one for all TCP flows (bench.py refuses mixed sizes)
    for (const FlowSpec& f : flows)
    {
        if (f.Tcp())
        {
            segmentSize = f.size;
            break;
        }
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(tcpInitialWindow));
    if (tcpWindowBytes > 0)
    {
        // ns-2's window_: the receiver advertises at most this much, without
        // window scaling, so the sender never has more outstanding.
        NS_ABORT_MSG_IF(tcpWindowBytes > 65535, "--tcpWindowBytes: at most 65535");
        if (MANETSIM_NS3_MINOR >= 44)
        {
            Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
            Config::SetDefault("ns3::TcpSocketBase::MaxWindowSize", UintegerValue(tcpWindowBytes));
        }
        else
        {
            tcpWindowBytes = 0;
        }
    }
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(tcpDelayedAck ? 2 : 1));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(tcpMinRtoS)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(tcpLimitedTransmit));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));

    // The interface queue: ns-2's drop-tail of `queuePackets`. ns-3's 500 ms
    // MAC queue lifetime (MaxDelay) is kept although ns-2 has none: with RTS
    // on every frame, ns-3.37 never gives up on an RTS that gets no CTS (no
    // MacTxFinalRtsFailed; 494 transmissions for 36 packets to a node that
    // moved out of range), so the lifetime is what drops such a frame and
    // tells AODV of the broken link. Without it rwp50 delivers 18 % of its
    // CBR packets in the first 60 s instead of 84 %.
    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(std::to_string(queuePackets) + "p")));

    NodeContainer all;
    all.Create(nodes);

    // Movements: manetsim's own trajectories, as ns-2 reads them.
    Ns2MobilityHelper movements(mobilityFile);
    movements.Install(all.Begin(), all.End());

    // PHY and channel.
    double rxDbm = WattsToDbm(rxThresholdW);
    double csDbm = WattsToDbm(csThresholdW);
    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    if (propagation == "freeSpace")
    {
        channel.AddPropagationLoss("ns3::FriisPropagationLossModel",
                                   "Frequency", DoubleValue(frequencyHz),
                                   "SystemLoss", DoubleValue(systemLoss));
    }
    else if (propagation == "twoRayGround")
    {
        channel.AddPropagationLoss("ns3::TwoRayGroundPropagationLossModel",
                                   "Frequency", DoubleValue(frequencyHz),
                                   "SystemLoss", DoubleValue(systemLoss),
                                   "HeightAboveZ", DoubleValue(antennaHeightM));
    }
    else if (propagation == "shadowing")
    {
        // Friis's loss at the reference distance, then 10 β log10(d / d0)
        // beyond it, and X ~ N(0, σ²) dB drawn per packet and receiver.
        double wavelengthM = 299792458.0 / frequencyHz;
        double referenceLossDb =
            10.0 * std::log10(std::pow(4.0 * M_PI * referenceDistanceM / wavelengthM, 2.0) *
                              systemLoss);
        channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel",
                                   "Exponent", DoubleValue(pathLossExponent),
                                   "ReferenceDistance", DoubleValue(referenceDistanceM),
                                   "ReferenceLoss", DoubleValue(referenceLossDb));
        if (shadowingStdDb > 0.0)
        {
            std::ostringstream draw;
            draw << "ns3::NormalRandomVariable[Mean=0.0|Variance="
                 << shadowingStdDb * shadowingStdDb << "]";
            channel.AddPropagationLoss("ns3::RandomPropagationLossModel",
                                       "Variable", StringValue(draw.str()));
        }
    }
    else
    {
        NS_FATAL_ERROR("--propagation: twoRayGround, freeSpace or shadowing, not " << propagation);
    }
    if (jakesDopplerHz > 0.0)
    {
        if (nakagami)
        {
            NS_FATAL_ERROR("--jakesDopplerHz and --nakagami: one fading model at a time");
        }
        Config::SetDefault("ns3::JakesProcess::DopplerFrequencyHz", DoubleValue(jakesDopplerHz));
        Config::SetDefault("ns3::JakesProcess::NumberOfOscillators", UintegerValue(20));
        channel.AddPropagationLoss("ns3::JakesPropagationLossModel");
    }
    if (nakagami)
    {
        // Each packet's power at each receiver, drawn after the mean.
        channel.AddPropagationLoss("ns3::NakagamiPropagationLossModel",
                                   "m0", DoubleValue(nakagamiM0),
                                   "m1", DoubleValue(nakagamiM1),
                                   "m2", DoubleValue(nakagamiM2),
                                   "Distance1", DoubleValue(nakagamiDistance1M),
                                   "Distance2", DoubleValue(nakagamiDistance2M));
    }
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("TxPowerStart", DoubleValue(WattsToDbm(txPowerW)));
    phy.Set("TxPowerEnd", DoubleValue(WattsToDbm(txPowerW)));
    phy.Set("TxPowerLevels", UintegerValue(1));
    phy.Set("TxGain", DoubleValue(0.0));
    phy.Set("RxGain", DoubleValue(0.0));
    // The YANS channel drops a signal below RxSensitivity; every stronger
    // one adds to the interference of what the PHY receives.
    double floorDbm = csDbm;
    if (bitErrors && interferenceThresholdW > 0.0)
    {
        floorDbm = WattsToDbm(interferenceThresholdW);
    }
    phy.Set("RxSensitivity", DoubleValue(floorDbm));
    phy.Set("CcaSensitivity", DoubleValue(csDbm));
    phy.Set("CcaEdThreshold", DoubleValue(csDbm));
    phy.Set("RxNoiseFigure", DoubleValue(noiseFigureDb));
    // Without bit errors the noise is far below the thresholds and the SNR
    // test never binds; with them, the receive threshold alone gates the
    // preamble, as manetsim's does, and the error-rate model the rest.
    phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel",
                                  "MinimumRssi", DoubleValue(rxDbm),
                                  "Threshold", DoubleValue(bitErrors ? -100.0 : 4.0));
    if (bitErrors)
    {
        phy.SetErrorRateModel(errorRateModel);
    }

    bool ofdm = standard == "80211a";
    bool erp = standard == "80211g";
    if (!ofdm && !erp && standard != "80211b")
    {
        NS_FATAL_ERROR("--standard: 80211b, 80211a or 80211g, not " << standard);
    }
    // The name of ns-3's mode for a rate of the standard: 802.11g has
    // 802.11b's DSSS and HR/DSSS rates and its ERP-OFDM ones.
    auto mode = [ofdm, erp](uint32_t bps) -> std::string {
        if (ofdm || (erp && bps % 1000000 == 0 && bps >= 6000000 && bps != 11000000))
        {
            switch (bps)
            {
            case 6000000:
            case 9000000:
            case 12000000:
            case 18000000:
            case 24000000:
            case 36000000:
            case 48000000:
            case 54000000:
                return (erp ? "ErpOfdmRate" : "OfdmRate") + std::to_string(bps / 1000000) + "Mbps";
            }
            NS_FATAL_ERROR("no 802.11a or 802.11g OFDM rate of " << bps << " b/s");
        }
        switch (bps)
        {
        case 1000000:
            return "DsssRate1Mbps";
        case 2000000:
            return "DsssRate2Mbps";
        case 5500000:
            return "DsssRate5_5Mbps";
        case 11000000:
            return "DsssRate11Mbps";
        }
        NS_FATAL_ERROR("no 802.11b or 802.11g DSSS rate of " << bps << " b/s (1, 2, 5.5 or 11 Mb/s)");
        return "";
    };
    WifiHelper wifi;
    wifi.SetStandard(ofdm  ? WIFI_STANDARD_80211a
                     : erp ? WIFI_STANDARD_80211g
                           : WIFI_STANDARD_80211b);
    // Retry limits: ns-3.37 has a short and a long one on the station
    // manager (MaxSsrc, MaxSlrc), as ns-2; from ns-3.44 on those are
    // obsolete (setting them is fatal) and one WifiMac::FrameRetryLimit
    // counts every transmission of a frame, which gets the short limit
    // (ns-2's and manetsim's limit on RTS attempts, the one a break needs).
    TypeId::AttributeInformation retryInfo;
    bool oneRetryLimit =
        TypeId::LookupByName("ns3::WifiMac").LookupAttributeByName("FrameRetryLimit", &retryInfo);
    if (rateControl != "constant")
    {
        std::string manager;
        if (rateControl == "arf")
        {
            manager = "ns3::ArfWifiManager";
        }
        else if (rateControl == "aarf")
        {
            manager = "ns3::AarfWifiManager";
        }
        else if (rateControl == "minstrel")
        {
            manager = "ns3::MinstrelWifiManager";
        }
        else
        {
            NS_FATAL_ERROR("--rateControl: constant, arf, aarf or minstrel, not " << rateControl);
        }
        if (oneRetryLimit)
        {
            Config::SetDefault("ns3::WifiMac::FrameRetryLimit", UintegerValue(shortRetryLimit));
            wifi.SetRemoteStationManager(manager,
                                         "NonUnicastMode", StringValue(mode(basicRateBps)),
                                         "RtsCtsThreshold", UintegerValue(rtsThresholdBytes));
        }
        else
        {
            wifi.SetRemoteStationManager(manager,
                                         "NonUnicastMode", StringValue(mode(basicRateBps)),
                                         "RtsCtsThreshold", UintegerValue(rtsThresholdBytes),
                                         "MaxSsrc", UintegerValue(shortRetryLimit),
                                         "MaxSlrc", UintegerValue(longRetryLimit));
        }
    }
    else if (oneRetryLimit)
    {
        Config::SetDefault("ns3::WifiMac::FrameRetryLimit", UintegerValue(shortRetryLimit));
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                     "DataMode", StringValue(mode(dataRateBps)),
                                     "ControlMode", StringValue(mode(basicRateBps)),
                                     "NonUnicastMode", StringValue(mode(basicRateBps)),
                                     "RtsCtsThreshold", UintegerValue(rtsThresholdBytes));
    }
    else
    {
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                     "DataMode", StringValue(mode(dataRateBps)),
                                     "ControlMode", StringValue(mode(basicRateBps)),
                                     "NonUnicastMode", StringValue(mode(basicRateBps)),
                                     "RtsCtsThreshold", UintegerValue(rtsThresholdBytes),
                                     "MaxSsrc", UintegerValue(shortRetryLimit),
                                     "MaxSlrc", UintegerValue(longRetryLimit));
    }
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, all);
    if (shortSlot)
    {
        // ns-3's ad hoc 802.11g stations keep the long slot (only an access
        // point turns the short one on), so the PHY is given it here.
        NS_ABORT_MSG_UNLESS(erp, "--shortSlot: only with --standard=80211g");
        for (uint32_t i = 0; i < devices.GetN(); ++i)
        {
            DynamicCast<WifiNetDevice>(devices.Get(i))->GetPhy()->SetSlot(MicroSeconds(9));
        }
    }
    if (responseRate == "basic")
    {
        // ns-3 answers a frame at the highest rate of its station manager's
        // basic rate set not above the frame's (IEEE 802.11's rule), and
        // AdhocWifiMac, on first hearing from or sending to a station, adds
        // the standard's mandatory rates to that set. So every station is
        // made known here, supporting every rate, and the set holds the
        // basic rate alone (check_expressible keeps every unicast rate at or
        // above it, where the rule then picks it).
        for (uint32_t i = 0; i < nodes; ++i)
        {
            Ptr<WifiNetDevice> device = DynamicCast<WifiNetDevice>(devices.Get(i));
            Ptr<WifiRemoteStationManager> manager = device->GetRemoteStationManager();
            manager->Reset();
            for (uint32_t j = 0; j < nodes; ++j)
            {
                if (j == i)
                {
                    continue;
                }
                Mac48Address peer = Mac48Address::ConvertFrom(devices.Get(j)->GetAddress());
                for (const WifiMode& mode : device->GetPhy()->GetModeList())
                {
                    manager->AddSupportedMode(peer, mode);
                }
                manager->RecordDisassociated(peer);
            }
            manager->AddBasicMode(WifiMode(mode(basicRateBps)));
        }
    }
    else if (responseRate != "standard")
    {
        NS_FATAL_ERROR("--responseRate: standard or basic, not " << responseRate);
    }
    if (frameCounts)
    {
        // Every frame a PHY begins to send, and every one it receives
        // whole and decodes, whoever it is for: manetsim's per-node
        // frames_sent and frames_received.
        g_frames.assign(nodes, FrameCount());
        for (uint32_t i = 0; i < nodes; ++i)
        {
            Ptr<WifiPhy> wifiPhy = DynamicCast<WifiNetDevice>(devices.Get(i))->GetPhy();
            wifiPhy->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&CountSent, i));
            wifiPhy->TraceConnectWithoutContext("PhyTxPsduBegin", MakeBoundCallback(&CountAcks, i));
            wifiPhy->GetState()->TraceConnectWithoutContext("RxOk",
                                                            MakeBoundCallback(&CountReceived, i));
            DynamicCast<WifiNetDevice>(devices.Get(i))
                ->GetRemoteStationManager()
                ->TraceConnectWithoutContext("MacTxRtsFailed",
                                             MakeBoundCallback(&CountRtsFailed, i));
        }
    }

    // ns-3's AODV, no HELLOs unless --aodvHello. It hears of the MAC's
    // dropped frames, but takes a link down only to a neighbour in its
    // neighbour list, which without HELLOs holds only the next and previous
    // hops of packets the node forwarded, or the previous hop of one it
    // received: a source that forwards nothing through its first hop never
    // takes its route down, and keeps sending into a broken link
    // (docs/fidelity.md, "Fading correlated in time"), where ns-2's and
    // manetsim's AODV rediscover.
    AodvHelper aodv;
    aodv.Set("EnableHello", BooleanValue(aodvHello));
    InternetStackHelper internet;
    internet.SetRoutingHelper(aodv);
    internet.Install(all);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
    // Assign gave each device ns-3's default queue disc (FqCoDel, up to
    // 10,240 packets, with CoDel's dropping) in front of the MAC's queue,
    // which then only holds back what the disc releases: without this the
    // interface queue is not the drop-tail of `queuePackets` above. With
    // the disc, NewReno over three hops (window 256) carried 202.0 kbit/s
    // against 178.7 without it, and manetsim's 167.6.
    TrafficControlHelper().Uninstall(devices);

    if (frameCounts)
    {
        for (uint32_t i = 0; i < nodes; ++i)
        {
            Ptr<WifiMac> mac = DynamicCast<WifiNetDevice>(devices.Get(i))->GetMac();
            mac->TraceConnectWithoutContext("DroppedMpdu", MakeBoundCallback(&CountMacDrop, i));
            all.Get(i)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
                "Drop",
                MakeBoundCallback(&CountIpDrop, i));
            all.Get(i)->GetObject<ArpL3Protocol>()->TraceConnectWithoutContext(
                "Drop",
                MakeBoundCallback(&CountArpDrop, i));
            Ptr<Ipv4L3Protocol> ip = all.Get(i)->GetObject<Ipv4L3Protocol>();
            ip->TraceConnectWithoutContext("SendOutgoing", MakeBoundCallback(&CountIpDataSent, i));
            ip->TraceConnectWithoutContext("LocalDeliver",
                                           MakeBoundCallback(&CountIpDataDelivered, i));
            bool connected = all.Get(i)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                "TcDrop",
                MakeBoundCallback(&CountInterfaceQueueDrop, i));
            NS_ABORT_MSG_UNLESS(connected, "no TcDrop trace source on the traffic-control layer");
        }
    }

    std::vector<Ptr<Application>> senders;
    std::vector<Ptr<Application>> sinks;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FlowSpec& f = flows[i];
        uint16_t port = static_cast<uint16_t>(9000 + i);
        Ptr<Application> sender;
        Ptr<Application> sink;
        if (f.kind == "tcp")
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory",
                                InetSocketAddress(interfaces.GetAddress(f.dst), port));
            bulk.SetAttribute("SendSize", UintegerValue(f.size));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            sender = bulk.Install(all.Get(f.src)).Get(0);
            PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                        InetSocketAddress(Ipv4Address::GetAny(), port));
            sink = sinkHelper.Install(all.Get(f.dst)).Get(0);
        }
        else if (f.OnOff())
        {
            // ns-3's on-off source starts idle, as ns-2's and manetsim's; a
            // CBR source into TCP is one always on.
            std::string factory = f.Tcp() ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
            OnOffHelper onoff(factory, InetSocketAddress(interfaces.GetAddress(f.dst), port));
            onoff.SetAttribute("DataRate", DataRateValue(DataRate(static_cast<uint64_t>(f.rateBps))));
            onoff.SetAttribute("PacketSize", UintegerValue(f.size));
            if (f.kind == "tcpcbr")
            {
                onoff.SetConstantRate(DataRate(static_cast<uint64_t>(f.rateBps)), f.size);
            }
            else
            {
                onoff.SetAttribute("OnTime", PointerValue(OnOffTime(f, f.onS)));
                onoff.SetAttribute("OffTime", PointerValue(OnOffTime(f, f.offS)));
            }
            sender = onoff.Install(all.Get(f.src)).Get(0);
            g_onoffSent.resize(flows.size(), 0);
            sender->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountOnOffSent, i));
            PacketSinkHelper sinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
            sink = sinkHelper.Install(all.Get(f.dst)).Get(0);
        }
        else
        {
            UdpClientHelper cbr(interfaces.GetAddress(f.dst), port);
            cbr.SetAttribute("MaxPackets", UintegerValue(4294967295U));
            cbr.SetAttribute("Interval", TimeValue(Seconds(f.size * 8.0 / f.rateBps)));
            cbr.SetAttribute("PacketSize", UintegerValue(f.size));
            sender = cbr.Install(all.Get(f.src)).Get(0);
            UdpServerHelper server(port);
            sink = server.Install(all.Get(f.dst)).Get(0);
        }
        sender->SetStartTime(Seconds(f.start));
        sender->SetStopTime(Seconds(f.stop));
        if (frameCounts && f.Tcp())
        {
            g_tcp.resize(flows.size());
            Simulator::Schedule(Seconds(f.start + 1e-6), &WatchTcp, static_cast<uint32_t>(i), sender);
        }
        sink->SetStartTime(Seconds(0.0));
        sink->SetStopTime(Seconds(duration));
        senders.push_back(sender);
        sinks.push_back(sink);
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    uint64_t tcpRxBytes = 0;
    uint64_t udpTxPackets = 0;
    uint64_t udpRxPackets = 0;
    uint32_t tcpFlows = 0;
    uint32_t udpFlows = 0;
    std::cout << std::fixed << std::setprecision(3);
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const FlowSpec& f = flows[i];
        if (f.Tcp())
        {
            uint64_t rx = DynamicCast<PacketSink>(sinks[i])->GetTotalRx();
            tcpRxBytes += rx;
            ++tcpFlows;
            std::cout << "ns3-flow " << i << " " << f.kind << " " << f.src << " " << f.dst
                      << " rx_bytes=" << rx
                      << " goodput_kbps=" << rx * 8.0 / (f.stop - f.start) / 1000.0;
            if (frameCounts)
            {
                const TcpCount& c = g_tcp[i];
                std::cout << " segments_sent=" << c.segments << " retransmitted=" << c.retransmitted
                          << " loss_episodes=" << c.lossEpisodes
                          << " recovery_episodes=" << c.recoveryEpisodes
                          << " rtt_mean_ms=" << (c.rttSamples ? 1e3 * c.rttSumS / c.rttSamples : 0.0)
                          << " rtt_max_ms=" << 1e3 * c.rttMaxS << " rto_at_timeout_mean_ms="
                          << (c.lossEpisodes ? 1e3 * c.rtoAtTimeoutSumS / c.lossEpisodes : 0.0)
                          << " loss_from_recovery=" << c.lossFromRecovery
                          << " ack_gap_at_timeout_mean_ms="
                          << (c.lossEpisodes ? 1e3 * c.ackGapAtTimeoutSumS / c.lossEpisodes : 0.0);
            }
            if (f.OnOff())
            {
                std::cout << " tx_packets=" << g_onoffSent[i];
            }
            std::cout << "\n";
        }
        else
        {
            bool onoff = f.kind == "onoff";
            uint64_t tx = onoff ? g_onoffSent[i]
                                : DynamicCast<UdpClient>(senders[i])->GetTotalTx() / f.size;
            uint64_t rx = onoff ? DynamicCast<PacketSink>(sinks[i])->GetTotalRx() / f.size
                                : DynamicCast<UdpServer>(sinks[i])->GetReceived();
            udpTxPackets += tx;
            udpRxPackets += rx;
            ++udpFlows;
            std::cout << "ns3-flow " << i << " " << f.kind << " " << f.src << " " << f.dst
                      << " tx_packets=" << tx << " rx_packets=" << rx << "\n";
        }
    }
    for (uint32_t i = 0; i < g_frames.size(); ++i)
    {
        std::cout << "ns3-node " << i << " frames_sent=" << g_frames[i].sent
                  << " frames_received=" << g_frames[i].received
                  << " rts_failed=" << g_frames[i].rtsFailed
                  << " ip_data_sent=" << g_frames[i].ipDataSent
                  << " ip_data_delivered=" << g_frames[i].ipDataDelivered;
        for (const auto& [rateBps, count] : g_frames[i].acksByRate)
        {
            std::cout << " acks_at_" << rateBps << "_bps=" << count;
        }
        for (const auto& [reason, count] : g_frames[i].macDrops)
        {
            std::cout << " data_mac_" << reason << "=" << count;
        }
        std::cout << " data_arp=" << g_frames[i].arpDrops;
        for (const auto& [reason, count] : g_frames[i].ipDrops)
        {
            std::cout << " data_ip_" << reason << "=" << count;
        }
        std::cout << "\n";
    }
    double delivery = udpTxPackets ? 100.0 * udpRxPackets / udpTxPackets : 0.0;
    std::cout << "ns3-result scenario=" << scenario << " nodes=" << nodes
              << " events=" << Simulator::GetEventCount() << " tcp_flows=" << tcpFlows
              << " tcp_rx_bytes=" << tcpRxBytes << " tcp_window_bytes=" << tcpWindowBytes
              << " udp_flows=" << udpFlows
              << " udp_tx_packets=" << udpTxPackets << " udp_rx_packets=" << udpRxPackets
              << " udp_delivery_pct=" << delivery << std::endl;
    Simulator::Destroy();
    return 0;
}
