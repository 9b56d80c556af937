//! IEEE 802.11 DCF, following the structure of ns-2.35's `Mac/802_11`.
//!
//! The MAC is a sans-IO state machine. The world calls it with `now` and an
//! output buffer; it answers with [`MacAction`]s (put a frame on the air, arm
//! a timer, deliver a packet up, report a transmit outcome). It never reads a
//! clock and never touches the event queue, so tests drive it by hand.
//!
//! State, as in ns-2:
//! - `tx_state` (Idle, RTS, CTS, SEND, ACK) is what the transmitter is doing or
//!   waiting for; `tx_until` is when the frame we send (or sent last) ends,
//!   so the radio transmits while `now < tx_until` (an end of reception at
//!   that very instant still finds it transmitting, as ends come first).
//! - `rx_state` (Idle, RECV, COLL) is what the receiver hears. A second frame
//!   arriving during a reception is captured (dropped, the first survives)
//!   when the first is at least `capture_ratio` stronger; otherwise both are
//!   lost and the receiver stays busy until the later one ends. As in ns-2,
//!   capture is checked during a collision too, against the frame that
//!   lasts longest: a much weaker newcomer then neither counts as a
//!   collision nor keeps the receiver busy past that frame's end (it only
//!   reserves the medium, EIFS past its own end).
//! - The medium is idle when rx and tx states are Idle and the NAV has expired.
//!   A reception that fails (collision or below the receive threshold) sets
//!   the NAV to EIFS.
//! - Timers: defer (the SIFS before a CTS, an ACK or the DATA after a CTS;
//!   not frozen), backoff (frozen while the medium is busy and resumed after
//!   a DIFS of idle medium), NAV, the response timeout ("send" timer) and
//!   the end of our own transmission. A frame that finds no backoff running
//!   starts one that first waits DIFS, as ns-2.35 does with its default
//!   `bugFix_timer_` (true); without it ns-2 waited DIFS and the slots on
//!   the defer timer, which the medium could not pause.
//!
//! Choices where ns-2 and the standard differ, and what we do:
//! - Backoff draws are uniform in [0, CW] slots (the standard, and Bianchi's
//!   W = CW + 1); ns-2 draws in [0, CW − 1] (`[mac] backoff_draw = "ns2"`:
//!   [`crate::mac::BackoffDraw`]).
//! - Data frames carry the datagram in the standard's 28-byte header and
//!   FCS; `[mac] frames = "ns2"` sizes them as ns-2.35 does
//!   ([`crate::mac::FrameSizes`]).
//! - The MAC hands packets up, and takes them from the queue, at once;
//!   ns-2.35's link layer holds each 25 µs on the way, which the world
//!   models with `[mac] ll_delay_s` (a relay's packet then reaches a MAC
//!   busy with the ACK for it, and its backoff starts paused).
//! - A DATA frame's retry counter is the long one when it went with RTS/CTS
//!   and the short one otherwise (ns-2 compares the size with the threshold).
//! - The DATA due SIFS after a CTS goes only if the medium is idle then (the
//!   standard sends it regardless); otherwise, as in ns-2.35's
//!   `check_pktTx`, a new RTS follows a backoff with a doubled window, its
//!   count started afresh by the CTS.
//! - A CTS the medium keeps from going (ns-2.35's `check_pktCTRL`) leaves a
//!   backoff of the node's own as it was. A frame of its own waiting with
//!   no backoff running (a state ns-2.35's timers do not reach, in which
//!   its `deferHandler` would leave the frame with no timer at all) backs
//!   off.
//! - ARP sits above the MAC (`crate::net::arp`, with `[mac] arp`); a
//!   neighbour's MAC address is its node id.

use super::frame::Control;
use super::{Frame, FrameKind, MacParams};
use crate::engine::{Phase, Rng, SimTime, TimerSlot, PHASE_NEUTRAL};
use crate::net::{NodeId, Packet, BROADCAST};
use std::rc::Rc;

/// The MAC's timers. The world schedules `MacTimer` events carrying one of
/// these and the generation returned when arming it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum MacTimer {
    Defer = 0,
    /// The backoff's end; while the NAV alone holds a paused backoff, its
    /// end as if the backoff resumed when the NAV expires (see
    /// `Backoff::resumes`): the NAV's expiry itself needs no event.
    Backoff = 1,
    /// Response timeout (CTS or ACK), or the end of a CTS/ACK/broadcast.
    Send = 2,
}

const N_TIMERS: usize = 3;

impl MacTimer {
    pub fn from_u8(v: u8) -> Option<Self> {
        Some(match v {
            0 => Self::Defer,
            1 => Self::Backoff,
            2 => Self::Send,
            _ => return None,
        })
    }
}

/// How a packet handed to the MAC ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOutcome {
    /// Unicast acknowledged.
    Acked,
    /// Broadcast transmitted.
    Broadcast,
    /// Retry limit reached; routing must hear of the broken link.
    Failed(GaveUp),
}

/// The frames a MAC gave up on when a packet failed, as ns-2.35's trace
/// shows them (`D … MAC RET`): the data frame's duration field, and the
/// RTS's when the RTS's retries ran out (ns-2.35 discards both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GaveUp {
    pub duration_ns: SimTime,
    pub rts_duration_ns: Option<SimTime>,
}

/// What the MAC asks the world to do.
#[derive(Debug, Clone, PartialEq)]
pub enum MacAction {
    /// Arm `timer` to fire at `at` with generation `gen`, at `phase`
    /// within its nanosecond (see [`Dcf::set_phase`]).
    SetTimer {
        timer: MacTimer,
        at: SimTime,
        gen: u32,
        phase: Phase,
    },
    /// Start transmitting `frame` now; it lasts `airtime_ns` (its rate:
    /// [`Dcf::rate_of`]).
    Transmit { frame: Frame, airtime_ns: SimTime },
    /// A data frame for this node arrived intact (not a duplicate); `ra`
    /// (this node, or broadcast), `duration_ns` and `retry` are its
    /// header's, for the trace and the capture.
    DeliverUp {
        packet: Packet,
        from: NodeId,
        seq: u16,
        ra: NodeId,
        duration_ns: SimTime,
        retry: bool,
    },
    /// An RTS, CTS or ACK for this node that the MAC accepted (only with
    /// [`Dcf::report_to_trace`]).
    Accepted { frame: Frame },
    /// Transmission `tx_id`, decodable on its own, was lost to a collision
    /// at this receiver (only with [`Dcf::report_to_trace`]): reported when
    /// ns-2.35's MAC discards it, at the newcomer's start for the frame of
    /// the two that ends first, at its end for the one that lasts longest.
    /// The world knows the frame; whether ns-2.35 writes a line for it
    /// (its `discard`: a frame addressed to the node, or broadcast data)
    /// is the trace's to judge.
    Collided { tx_id: u32 },
    /// A frame for this node that the MAC decoded but could not take
    /// (only with [`Dcf::report_to_trace`]): an RTS while it is busy
    /// sending or has a CTS or ACK waiting, DATA sent with RTS/CTS that
    /// came without its CTS, DATA without RTS/CTS while an ACK already
    /// waits, a CTS or ACK it was not waiting for.
    Refused { frame: Frame, why: Refusal },
    /// A data frame for this node repeated one it has already handed up
    /// (the same transmitter and sequence number: its ACK was lost), not
    /// handed up again (only with [`Dcf::report_to_trace`]).
    Duplicate { frame: Frame },
    /// Promiscuous mode only: a unicast data frame for another node was
    /// decoded intact (see [`Frame::tappable`]); `from` transmitted it.
    Overheard { packet: Packet, from: NodeId },
    /// The MAC is done with a packet it was given.
    Done {
        packet: Packet,
        next_hop: NodeId,
        outcome: TxOutcome,
    },
}

/// Why a MAC refused a frame for it ([`MacAction::Refused`]), in ns-2.35's
/// terms: its `discard` with `DROP_MAC_BUSY` or `DROP_MAC_INVALID_STATE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Busy with a frame of its own (an RTS or DATA it cannot answer).
    Busy,
    /// A CTS or ACK it was not waiting for.
    InvalidState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxState {
    Idle,
    Rts,
    Cts,
    Send,
    Ack,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RxState {
    Idle,
    Recv,
    Coll,
}

/// The frame being received.
#[derive(Debug, Clone, Copy)]
struct Reception {
    tx_id: u32,
    power_w: f64,
    end: SimTime,
    error: bool,
}

/// What `check_pkt_ctrl` did with the CTS or ACK waiting to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctrl {
    /// None waits (or one is on the air already).
    None,
    Sent,
    /// A CTS dropped: the medium was not idle.
    Dropped,
}

/// How a reception ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RxEnd {
    /// Collided, too weak, corrupted, or lost to our own transmission.
    Failed,
    /// Decoded, addressed to another node.
    ForOther,
    /// Decoded, addressed to this node (or broadcast).
    ForMe,
}

#[derive(Debug, Clone, Default)]
struct Backoff {
    busy: bool,
    paused: bool,
    /// Paused, with only the NAV holding it (receiver and transmitter
    /// idle): it resumes at `stime`, where the NAV expires, unless the
    /// medium turns busy first. Its timer is armed already, to the end it
    /// will have if it does (ns-2 arms a NAV timer that resumes it; the
    /// state between is the same, the NAV's expiry is one event fewer).
    /// The MAC's next call at or after `stime` first makes it resume
    /// ([`Dcf::catch_up`]).
    resumes: bool,
    /// Remaining backoff time.
    rtime: SimTime,
    /// When counting (re)started, or (`resumes`) will restart.
    stime: SimTime,
    /// DIFS to wait before counting resumes.
    difs_wait: SimTime,
}

/// MAC counters of one node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MacStats {
    // First, what receptions count (in `Dcf`'s second cache line).
    pub frames_received: u64,
    pub collisions: u64,
    pub captures: u64,
    pub retries: u64,
    pub rts_failures: u64,
    pub ack_failures: u64,
    pub frames_sent: u64,
    pub duplicates: u64,
    pub link_failures: u64,
}

/// [`Dcf::least_nav_after`] with the run's EIFS and receive threshold
/// ([`Dcf::nav_rule`]): the least time the NAV runs past the end of an
/// overheard frame of `power_w` with `duration_ns` in its duration field.
#[inline]
pub fn least_nav_after(
    eifs_ns: SimTime,
    rx_threshold_w: f64,
    power_w: f64,
    duration_ns: SimTime,
) -> SimTime {
    if power_w < rx_threshold_w {
        eifs_ns
    } else {
        duration_ns.min(eifs_ns)
    }
}

/// The 802.11 DCF of one node.
///
/// Laid out by hand (`repr(C)`, in declaration order, from a cache line's
/// start): most frames a node hears touch only its first two lines, what a
/// reception reads and writes (see `Self::on_rx_start` and
/// `Self::overhear_whole`), so a frame heard by fifty nodes costs fifty or
/// a hundred lines, not three hundred.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Dcf {
    // First line: the receiver.
    /// When our transmission ends (or ended): no timer marks it.
    tx_until: SimTime,
    nav_until: SimTime,
    rx_threshold_w: f64,
    /// A newcomer is captured when the frame being received is at least
    /// this many times stronger. 0 is `[radio] capture_rule = "sinr"`:
    /// every newcomer is captured, and one the MAC can decode takes the
    /// receiver from a frame it cannot ([`Self::on_rx_start`]).
    capture_ratio: f64,
    rx: Option<Reception>,
    id: NodeId,
    tx_state: TxState,
    rx_state: RxState,
    /// The radio is off for good (battery empty): the MAC ignores everything.
    off: bool,
    /// True when the MAC can take the next packet from the queue (asked
    /// after every event of the node).
    ready: bool,
    // Second line: the backoff, the parameters and the reception counters.
    backoff: Backoff,
    /// Shared by every node of a run.
    p: Rc<MacParams>,
    pub stats: MacStats,
    // The rest: the sender, its timers in one line.
    cw: u32,
    ssrc: u32,
    slrc: u32,
    next_seq: u16,
    timers: [TimerSlot; N_TIMERS],
    /// The data frame being sent, its next hop, and whether it uses RTS/CTS.
    pkt_tx: Option<Frame>,
    tx_uses_rts: bool,
    pkt_rts: Option<Control>,
    /// A CTS or ACK waiting to go out.
    pkt_ctrl: Option<Control>,
    /// Last sequence number seen per transmitter (small: only neighbours).
    dup_cache: Vec<(NodeId, u16)>,
    rng: Rng,
    /// Which decoded frames for other nodes go up (`MacAction::Overheard`).
    tap: Tap,
    /// Whether what only the trace shows is reported: an RTS, CTS or ACK
    /// this MAC accepts, a frame lost to a collision, a frame it refuses, a
    /// duplicate (`MacAction::Accepted`, `Collided`, `Refused`,
    /// `Duplicate`).
    report_to_trace: bool,
    /// Where within its nanosecond the call being handled falls, and the
    /// NAV's expiry (see [`Self::set_phase`]).
    phase: Phase,
    nav_phase: Phase,
    /// The frames captured during the current reception, and those captured
    /// before it that were still on the air when it began, as `(start,
    /// end, power_w)`, kept only for a bit error model
    /// ([`Self::track_interference`]). Boxed so that a MAC without one spends 8 bytes on it, not 24.
    #[allow(clippy::box_collection)]
    interference: Option<Box<Vec<(SimTime, SimTime, f64)>>>,
    /// The rate control, with `[mac] rate_control` other than `"constant"`.
    rate_control: Option<Box<super::RateControl>>,
    /// The rates of responses, with `[mac] response_rate = "standard"`.
    responses: Option<Box<Responses>>,
    /// With `[mac] cts_rule = "standard"`, when the NAV set by other
    /// frames' Duration fields alone expires (`nav_until` also holds EIFS
    /// and the frames sensed but not decoded); in the struct's tail
    /// padding.
    duration_nav_until: SimTime,
}

/// What IEEE 802.11's response rates ([`super::ResponseRate::Standard`])
/// keep in a MAC.
#[derive(Debug, Clone, Default)]
struct Responses {
    /// The rate of the data frame being received, as the world tells it
    /// ([`Dcf::receiving_at`]).
    rx_rate_bps: u64,
    /// The rate of the ACK waiting in `pkt_ctrl`.
    ack_rate_bps: u64,
    /// The rate of the last CTS or ACK sent, for [`Dcf::rate_of`].
    sent_rate_bps: u64,
}

/// What a MAC hands up of the unicast frames it decodes for other nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tap {
    Off,
    /// Data packets (promiscuous mode).
    Data,
    /// Data packets and routing-control messages.
    DataAndControl,
}

/// The receiver's state fills [`Dcf`]'s first cache line exactly.
const _: () = assert!(std::mem::offset_of!(Dcf, backoff) == 64);
const _: () = assert!(std::mem::offset_of!(Dcf, stats) + 24 <= 128);
const _: () = assert!(std::mem::size_of::<Dcf>() == 512);
const _: () = assert!(std::mem::offset_of!(Dcf, timers) % 64 == 0);

impl Dcf {
    /// Starts loading the receiver's state and the backoff (the first two
    /// cache lines: all that an overheard frame touches), as a hint (see
    /// [`crate::engine::prefetch`]).
    #[inline]
    pub fn prefetch_receiver(&self) {
        crate::engine::prefetch(self);
        crate::engine::prefetch(&self.backoff);
    }

    /// Starts loading what [`Self::is_passive`] reads beyond the first two
    /// lines, as a hint: the timers and the frames the MAC holds. Whether
    /// a frame is held is read from a tag the compiler places somewhere
    /// inside its `Option`, so the first and last bytes of each are asked
    /// for (in today's layout, three lines in all with the timers').
    #[inline]
    pub fn prefetch_holds(&self) {
        fn both_ends<T>(x: &T) {
            let first = std::ptr::from_ref(x).cast::<u8>();
            crate::engine::prefetch_raw(first);
            crate::engine::prefetch_raw(first.wrapping_add(std::mem::size_of::<T>() - 1));
        }
        crate::engine::prefetch(&self.timers);
        both_ends(&self.pkt_tx);
        both_ends(&self.pkt_rts);
        both_ends(&self.pkt_ctrl);
    }

    pub fn new(
        id: NodeId,
        p: Rc<MacParams>,
        capture_ratio: f64,
        rx_threshold_w: f64,
        rng: Rng,
    ) -> Self {
        let cw = p.cw_min;
        let responses = (p.response_rate == super::ResponseRate::Standard).then(Box::default);
        Self {
            id,
            p,
            capture_ratio,
            rx_threshold_w,
            tx_state: TxState::Idle,
            rx_state: RxState::Idle,
            tx_until: 0,
            rx: None,
            pkt_tx: None,
            tx_uses_rts: false,
            pkt_rts: None,
            pkt_ctrl: None,
            nav_until: 0,
            cw,
            ssrc: 0,
            slrc: 0,
            next_seq: 0,
            dup_cache: Vec::new(),
            timers: [TimerSlot::default(); N_TIMERS],
            backoff: Backoff::default(),
            rng,
            ready: true,
            off: false,
            tap: Tap::Off,
            report_to_trace: false,
            stats: MacStats::default(),
            phase: PHASE_NEUTRAL,
            nav_phase: PHASE_NEUTRAL,
            interference: None,
            rate_control: None,
            responses,
            duration_nav_until: 0,
        }
    }

    /// Whether the MAC answers at IEEE 802.11's response rates and so
    /// must be told the rate of each data frame it receives
    /// ([`Self::receiving_at`]).
    pub fn answers_at_the_rate_received(&self) -> bool {
        self.responses.is_some()
    }

    /// The same, from the shared parameters: the MAC's own `responses`
    /// lies in a cache line its sending path does not otherwise touch.
    #[inline]
    fn answers_at_response_rates(&self) -> bool {
        self.p.response_rate == super::ResponseRate::Standard
    }

    /// The rate of the data frame whose end comes next (the world tells
    /// it before [`Self::on_rx_end`]): its ACK goes at the response rate
    /// of it.
    pub fn receiving_at(&mut self, rate_bps: u64) {
        if let Some(r) = self.responses.as_mut() {
            r.rx_rate_bps = rate_bps;
        }
    }

    /// Sends unicast data at the rate `arf` picks for each neighbour.
    pub fn use_arf(&mut self, arf: super::Arf) {
        self.use_rate_control(super::RateControl::Arf(arf));
    }

    /// Sends unicast data at the rate `rc` picks for each try.
    pub fn use_rate_control(&mut self, rc: super::RateControl) {
        self.rate_control = Some(Box::new(rc));
    }

    /// Keeps the frames captured during each reception, the interference a
    /// bit error model counts ([`Self::interference`]).
    pub fn track_interference(&mut self) {
        self.interference = Some(Box::default());
    }

    /// The captured frames that overlap the current reception, `(start,
    /// end, power_w)`: those captured during it, and the end of those
    /// captured before it still on the air as it began (empty unless
    /// [`Self::track_interference`]).
    pub fn interference(&self) -> &[(SimTime, SimTime, f64)] {
        self.interference.as_deref().map_or(&[], |v| v.as_slice())
    }

    /// Where within its nanosecond (see [`Phase`]) the next calls fall, for
    /// the timers they arm: those counted from the present get `phase`,
    /// a backoff that resumes as the NAV expires the phase of the call that
    /// last extended the NAV. Neutral unless the world keeps phases
    /// (`[mac] tie_rule = "ns2"`).
    #[inline]
    pub fn set_phase(&mut self, phase: Phase) {
        self.phase = phase;
    }

    /// Reports what ns-2.35's MAC writes in its trace beyond the frames it
    /// sends and hands up: each RTS, CTS and ACK it accepts as
    /// [`MacAction::Accepted`] (an RTS it answers, the CTS to its RTS, the
    /// ACK of its DATA: its `mac_log`), each frame lost to a collision as
    /// [`MacAction::Collided`], each frame it refuses as
    /// [`MacAction::Refused`] and each duplicate data frame as
    /// [`MacAction::Duplicate`] (its `discard` with `DROP_MAC_COLLISION`,
    /// `DROP_MAC_BUSY`, `DROP_MAC_INVALID_STATE` and `DROP_MAC_DUPLICATE`).
    pub fn report_to_trace(&mut self, on: bool) {
        self.report_to_trace = on;
    }

    /// Promiscuous mode: decoded unicast data frames addressed to other
    /// nodes are handed up as [`MacAction::Overheard`] (ns-2's `tap`).
    pub fn set_promiscuous(&mut self, on: bool) {
        self.tap = if on { Tap::Data } else { Tap::Off };
    }

    /// Promiscuous mode that also hands up unicast routing-control
    /// messages for other nodes (ns-2's DSR taps route errors and replies).
    pub fn set_promiscuous_with_control(&mut self) {
        self.tap = Tap::DataAndControl;
    }

    pub fn is_promiscuous(&self) -> bool {
        self.tap != Tap::Off
    }

    /// True when the MAC holds no packet and can take one from the queue.
    pub fn ready_for_packet(&self) -> bool {
        self.ready
    }

    /// Turns the radio off for good (the battery ran out): every timer is
    /// cancelled, nothing more is sent or received, and the packet the MAC
    /// held is returned so the caller can account for it.
    pub fn power_off(&mut self) -> Option<Packet> {
        self.off = true;
        self.ready = false;
        for t in &mut self.timers {
            t.cancel();
        }
        self.backoff = Backoff::default();
        self.rx = None;
        self.tx_until = 0;
        self.pkt_rts = None;
        self.pkt_ctrl = None;
        self.pkt_tx.take().and_then(|f| f.packet)
    }

    /// The packet the MAC is currently trying to send.
    pub fn pending_packet(&self) -> Option<&Packet> {
        self.pkt_tx.as_ref().and_then(|f| f.packet.as_ref())
    }

    /// The sequence number and receiver of the data frame in progress.
    pub fn pending_seq(&self) -> Option<(u16, NodeId)> {
        self.pkt_tx.as_ref().map(|f| (f.seq, f.ra))
    }

    /// Whether the radio is transmitting now.
    pub fn is_transmitting(&self, now: SimTime) -> bool {
        now < self.tx_until
    }

    // ---------------------------------------------------------------------
    // Helpers
    // ---------------------------------------------------------------------

    fn is_idle(&self, now: SimTime) -> bool {
        self.rx_state == RxState::Idle && self.tx_state == TxState::Idle && self.nav_until <= now
    }

    fn arm(&mut self, timer: MacTimer, at: SimTime, out: &mut Vec<MacAction>) {
        self.arm_at_phase(timer, at, self.phase, out);
    }

    fn arm_at_phase(
        &mut self,
        timer: MacTimer,
        at: SimTime,
        phase: Phase,
        out: &mut Vec<MacAction>,
    ) {
        let gen = self.timers[timer as usize].arm(at);
        out.push(MacAction::SetTimer {
            timer,
            at,
            gen,
            phase,
        });
    }

    fn cancel(&mut self, timer: MacTimer) {
        self.timers[timer as usize].cancel();
    }

    fn armed(&self, timer: MacTimer) -> bool {
        self.timers[timer as usize].is_armed()
    }

    fn draw_slots(&mut self) -> SimTime {
        self.rng.below(self.p.backoff_choices(self.cw)) * self.p.slot_ns
    }

    fn inc_cw(&mut self) {
        self.cw = ((self.cw << 1) + 1).min(self.p.cw_max);
    }

    fn rst_cw(&mut self) {
        self.cw = self.p.cw_min;
    }

    /// Extends the NAV. Its expiry only matters to a paused backoff when
    /// nothing else keeps the medium busy (see [`Self::resume_at_nav_expiry`]):
    /// a node with nothing to send overhears frames without scheduling
    /// anything, and one receiving a frame waits for its end.
    fn set_nav(&mut self, now: SimTime, dur: SimTime, out: &mut Vec<MacAction>) {
        let until = now + dur;
        if until > self.nav_until {
            self.nav_until = until;
            self.nav_phase = self.phase;
            self.resume_at_nav_expiry(now, out);
        }
    }

    /// If the NAV alone keeps a paused backoff from resuming (the receiver
    /// and transmitter are idle), the backoff resumes when it expires: its
    /// timer is armed to the end it will then have ([`Backoff::resumes`]).
    /// If a frame is arriving or going out instead, that frame's end checks
    /// again, and a resumption planned before is called off.
    fn resume_at_nav_expiry(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        if !self.backoff.paused {
            return;
        }
        if self.rx_state == RxState::Idle && self.tx_state == TxState::Idle && self.nav_until > now
        {
            if !(self.backoff.resumes && self.backoff.stime == self.nav_until) {
                self.backoff.resumes = true;
                self.backoff.stime = self.nav_until;
                self.backoff.difs_wait = self.p.difs_ns;
                let at = self.nav_until + self.p.difs_ns + self.backoff.rtime;
                self.arm_at_phase(MacTimer::Backoff, at, self.nav_phase, out);
            }
        } else if self.backoff.resumes {
            self.backoff.resumes = false;
            self.backoff.difs_wait = 0;
            self.cancel(MacTimer::Backoff);
        }
    }

    /// Brings a backoff planned to resume at the NAV's expiry
    /// ([`Backoff::resumes`]) up to `now`, before the MAC handles anything
    /// at `now`: past the expiry, it has resumed (its timer is armed
    /// already). At the very instant of the expiry, the expiry comes after
    /// reception ends and before anything else, as an event of its own
    /// would (`after_ends`: the call is not a reception's end).
    #[inline]
    fn catch_up(&mut self, now: SimTime, after_ends: bool) {
        let b = &mut self.backoff;
        if b.resumes && (now > b.stime || (after_ends && now == b.stime)) {
            b.resumes = false;
            b.paused = false;
        }
    }

    /// True when the MAC has nothing to do of its own: no frame to send or
    /// answer, no backoff, no timer, not transmitting (a transmission always
    /// has its `Send` timer armed, to its end at least). Overheard frames then
    /// change only its receive state, NAV and counters, and emit no action,
    /// so the world may hand them over later, in time order (see `sim`).
    pub fn is_passive(&self) -> bool {
        self.off
            || (self.tx_state == TxState::Idle
                && !self.backoff.busy
                && self.pkt_tx.is_none()
                && self.pkt_rts.is_none()
                && self.pkt_ctrl.is_none()
                && self.timers.iter().all(|t| !t.is_armed()))
    }

    /// True when the MAC's next act is a timer of its own that overheard
    /// frames can only postpone, never bring forward: a backoff counting
    /// down, or a paused backoff that the NAV alone holds (the receiver is
    /// idle, and the backoff will resume as the NAV expires). It waits for
    /// nothing else: no frame to answer, no response, no transmission in
    /// progress. The world may then hand overheard frames over at that
    /// timer instead of at their ends.
    pub fn waits_for_own_timer(&self) -> bool {
        let armed = |t: MacTimer| self.timers[t as usize].is_armed();
        !self.off
            && self.backoff.busy
            && self.tx_state == TxState::Idle
            && self.pkt_ctrl.is_none()
            && !armed(MacTimer::Defer)
            && !armed(MacTimer::Send)
            && if self.backoff.paused {
                self.rx_state == RxState::Idle && self.backoff.resumes
            } else {
                armed(MacTimer::Backoff)
            }
    }

    /// True when the end of an overheard frame may make the MAC act at that
    /// very time, so that the world must hand it over then. Only a backoff
    /// can act on it (resume as the medium turns idle, or plan to resume as
    /// the NAV expires): a MAC without one, waiting for a
    /// response, a SIFS or its own transmission's end, only updates its
    /// receive state, NAV and counters, and neither does a backoff that
    /// waits for a timer of its own ([`Self::waits_for_own_timer`]). The
    /// world may then hand overheard frames over at the node's next event.
    pub fn acts_on_overheard_end(&self) -> bool {
        !self.off && (self.backoff.busy || self.backoff.paused) && !self.waits_for_own_timer()
    }

    /// How long the medium stays reserved past the end of a frame this MAC
    /// overhears (of `power_w`, with `duration_ns` in its duration field),
    /// at the least: the frame being received when it ends sets the NAV
    /// to EIFS if it failed (always, below the receive threshold) or to
    /// its duration if decoded; any other frame ends with no effect, and
    /// the medium turns idle only at the end of the one being received
    /// (or of our own transmission: an event of the node's own). See
    /// [`least_nav_after`].
    pub fn least_nav_after(&self, power_w: f64, duration_ns: SimTime) -> SimTime {
        least_nav_after(self.p.eifs_ns, self.rx_threshold_w, power_w, duration_ns)
    }

    /// The NAV frame `f` sets at a node that decodes it for another:
    /// [`MacParams::nav_of`].
    #[inline]
    pub fn nav_of(&self, f: &Frame) -> SimTime {
        self.p.nav_of(f)
    }

    /// The EIFS and the receive threshold, which every MAC of a run shares:
    /// what [`least_nav_after`] needs besides the frame.
    pub fn nav_rule(&self) -> (SimTime, f64) {
        (self.p.eifs_ns, self.rx_threshold_w)
    }

    /// How long after an overheard frame's end this MAC can act at the
    /// soonest, as of now: a paused backoff that resumes at the end counts
    /// DIFS and its remaining slots first (frozen while it is paused), and
    /// anything else the medium does can only delay it. Zero when the
    /// backoff is not paused. Until the MAC's next call, the world may
    /// hand over an overheard end that late after the least NAV it sets
    /// ([`Self::least_nav_after`]) instead of at its time.
    pub fn overheard_end_slack(&self) -> SimTime {
        if self.backoff.paused {
            self.p.difs_ns + self.backoff.rtime
        } else {
            0
        }
    }

    fn set_rx_state(&mut self, s: RxState, now: SimTime, out: &mut Vec<MacAction>) {
        self.rx_state = s;
        self.check_backoff(now, out);
    }

    fn set_tx_state(&mut self, s: TxState, now: SimTime, out: &mut Vec<MacAction>) {
        self.tx_state = s;
        self.check_backoff(now, out);
    }

    /// Resumes or pauses the backoff as the medium turned idle or busy, and
    /// plans the resumption at the NAV's expiry that a paused backoff
    /// needs. Without a backoff there is nothing to do: the common case, as
    /// most frames are heard by nodes with nothing to send, so it is
    /// checked before the call.
    #[inline]
    fn check_backoff(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        if self.backoff.busy || self.backoff.paused {
            self.update_backoff(now, out);
        }
    }

    fn update_backoff(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        if self.is_idle(now) && self.backoff.paused {
            self.backoff_resume(now, out);
        }
        if !self.is_idle(now) && self.backoff.busy && !self.backoff.paused {
            self.backoff_pause(now);
        }
        self.resume_at_nav_expiry(now, out);
    }

    /// A backoff of CW slots (ns-2.35's `mhBackoff_.start(cw_, is_idle())`),
    /// unless one is running.
    fn backoff_start(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        self.backoff_start_waiting(now, 0, out);
    }

    /// A backoff that first waits DIFS, as ns-2.35 starts one for a frame
    /// that finds no backoff running (`Mac/802_11 set bugFix_timer_ true`
    /// in ns-2.35's defaults; without it, a wait of DIFS and the slots
    /// that the medium could not pause). Like any backoff it pauses while
    /// the medium is busy and resumes after DIFS of idle medium.
    fn backoff_start_after_difs(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        self.backoff_start_waiting(now, self.p.difs_ns, out);
    }

    fn backoff_start_waiting(
        &mut self,
        now: SimTime,
        difs_wait: SimTime,
        out: &mut Vec<MacAction>,
    ) {
        if self.backoff.busy {
            return;
        }
        let rtime = self.draw_slots();
        self.backoff = Backoff {
            busy: true,
            paused: false,
            resumes: false,
            rtime,
            stime: now,
            difs_wait,
        };
        if self.is_idle(now) {
            let phase = self.idle_phase(now);
            self.arm_at_phase(MacTimer::Backoff, now + difs_wait + rtime, phase, out);
        } else {
            self.backoff.paused = true;
            self.resume_at_nav_expiry(now, out);
        }
    }

    fn backoff_pause(&mut self, now: SimTime) {
        // Only whole slots counted after the DIFS wait are consumed.
        let b = &self.backoff;
        let slots = self
            .p
            .backoff_count
            .slots(b.stime, b.difs_wait, now, self.p.slot_ns);
        self.backoff.rtime = self.backoff.rtime.saturating_sub(slots * self.p.slot_ns);
        self.backoff.paused = true;
        self.backoff.difs_wait = 0;
        self.cancel(MacTimer::Backoff);
    }

    fn backoff_resume(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        self.backoff.paused = false;
        self.backoff.stime = now;
        self.backoff.difs_wait = self.p.difs_ns;
        let at = now + self.backoff.rtime + self.p.difs_ns;
        let phase = self.idle_phase(now);
        self.arm_at_phase(MacTimer::Backoff, at, phase, out);
    }

    /// Where within the nanosecond `now` the medium, idle at `now`, turned
    /// idle: the later of the present and a NAV that expires in the same
    /// nanosecond (see [`Self::set_phase`]).
    fn idle_phase(&self, now: SimTime) -> Phase {
        if self.nav_until == now {
            self.phase.max(self.nav_phase)
        } else {
            self.phase
        }
    }

    /// The rate a data frame goes at. A frame for the broadcast address
    /// goes at the basic rate, as IEEE 802.11 (1999) section 9.6 has it for
    /// frames with a group address, ns-2.35's `sendDATA` does ("store data
    /// tx time for broadcast packets": `basicRate_`) and ns-3 does (its
    /// non-unicast mode); unicast data at the data rate.
    fn data_rate_bps(&self, f: &Frame) -> u64 {
        match &self.rate_control {
            Some(rc) if f.ra != BROADCAST => rc.rate_bps(f.ra),
            _ => self.p.frame_rate_bps(f),
        }
    }

    /// The rate `f`, a frame this MAC sent, went at: RTS, CTS and ACK at
    /// the basic rate, data as [`Self::data_rate_bps`] picks. Asked while
    /// the frame is still arriving at its receivers: rate control changes a
    /// neighbour's rate only when the frame's ACK or its timeout comes,
    /// after the frame has ended everywhere.
    pub fn rate_of(&self, f: &Frame) -> u64 {
        match (f.kind, self.responses.as_deref()) {
            (FrameKind::Data, _) => self.data_rate_bps(f),
            (FrameKind::Cts | FrameKind::Ack, Some(r)) => r.sent_rate_bps,
            _ => self.p.basic_rate_bps,
        }
    }

    /// The rate a data frame for `ra` would go at now (for a capture's
    /// radiotap header: the frames it is asked about have just ended).
    pub fn data_rate_to(&self, ra: NodeId) -> u64 {
        match &self.rate_control {
            _ if ra == BROADCAST => self.p.basic_rate_bps,
            Some(rc) => rc.rate_bps(ra),
            None => self.p.data_rate_bps,
        }
    }

    fn data_airtime(&self, f: &Frame) -> SimTime {
        self.p.txtime(f.bytes, self.data_rate_bps(f))
    }

    // ---------------------------------------------------------------------
    // From the upper layer
    // ---------------------------------------------------------------------

    /// Takes a packet from the interface queue, for `next_hop` (or `BROADCAST`).
    /// Only call when [`Self::ready_for_packet`] is true.
    pub fn send(
        &mut self,
        now: SimTime,
        packet: Packet,
        next_hop: NodeId,
        out: &mut Vec<MacAction>,
    ) {
        debug_assert!(self.ready && self.pkt_tx.is_none());
        self.catch_up(now, true);
        self.ready = false;
        self.next_seq = self.next_seq.wrapping_add(1).max(1);
        let unicast = next_hop != BROADCAST;
        let ack_time = self.p.ack_time();
        let msdu = packet.size_bytes;
        let mut frame = Frame {
            kind: FrameKind::Data,
            ta: self.id,
            ra: next_hop,
            duration_ns: if unicast {
                self.p.sifs_ns + ack_time
            } else {
                0
            },
            seq: self.next_seq,
            retry: false,
            bytes: self.p.data_frame_bytes(&packet),
            packet: Some(packet),
        };
        if unicast && self.answers_at_response_rates() {
            frame.duration_ns = self.p.sifs_ns + self.p.ack_time_after(self.data_rate_bps(&frame));
        }
        self.tx_uses_rts = unicast && msdu >= self.p.rts_threshold_bytes;
        self.pkt_tx = Some(frame);
        if self.tx_uses_rts {
            self.make_rts();
        }
        if !self.backoff.busy {
            if self.is_idle(now) {
                if !self.armed(MacTimer::Defer) {
                    self.backoff_start_after_difs(now, out);
                }
            } else {
                self.backoff_start(now, out);
            }
        }
    }

    fn make_rts(&mut self) {
        let data = self.pkt_tx.as_ref().expect("RTS needs a data frame");
        let ack_time = if self.answers_at_response_rates() {
            self.p.ack_time_after(self.data_rate_bps(data))
        } else {
            self.p.ack_time()
        };
        let dur = self.p.sifs_ns
            + self.p.cts_time()
            + self.p.sifs_ns
            + self.data_airtime(data)
            + self.p.sifs_ns
            + ack_time;
        let mut rts = Control::new(FrameKind::Rts, data.ra, dur);
        rts.retry = data.retry;
        self.pkt_rts = Some(rts);
    }

    // ---------------------------------------------------------------------
    // Timers
    // ---------------------------------------------------------------------

    /// The transmission whose frame the receiver is locked on, if any. The
    /// end of any other frame that has already started arriving changes
    /// nothing (a frame that starts later may take its place, never one
    /// that has started).
    pub fn receiving(&self) -> Option<u32> {
        self.rx.map(|r| r.tx_id)
    }

    /// Whether an event for `timer` with generation `gen` is its live
    /// expiry (false: cancelled or re-armed since, so [`Self::on_timer`]
    /// would ignore it).
    pub fn timer_is_live(&self, timer: MacTimer, gen: u32) -> bool {
        let t = &self.timers[timer as usize];
        t.is_armed() && t.generation() == gen
    }

    /// The armed timer that expires first, with its deadline and generation
    /// (ties: the lower [`MacTimer`] first).
    pub fn earliest_timer(&self) -> Option<(SimTime, MacTimer, u32)> {
        let mut best: Option<(SimTime, MacTimer, u32)> = None;
        for (k, t) in self.timers.iter().enumerate() {
            if let Some(d) = t.deadline() {
                if best.is_none_or(|b| d < b.0) {
                    let timer = MacTimer::from_u8(k as u8).expect("timer index");
                    best = Some((d, timer, t.generation()));
                }
            }
        }
        best
    }

    /// A timer event popped; stale generations are ignored.
    pub fn on_timer(
        &mut self,
        now: SimTime,
        timer: MacTimer,
        gen: u32,
        out: &mut Vec<MacAction>,
    ) -> bool {
        if !self.timers[timer as usize].fire(gen) {
            return false;
        }
        self.catch_up(now, true);
        match timer {
            MacTimer::Defer => self.defer_handler(now, out),
            MacTimer::Backoff => self.backoff_handler(now, out),
            MacTimer::Send => self.send_timeout(now, out),
        }
        true
    }

    fn defer_handler(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        match self.check_pkt_ctrl(now, out) {
            Ctrl::Sent => return,
            // As ns-2.35's `deferHandler`, which returns once
            // `check_pktCTRL` has dropped the CTS: a backoff of the node's
            // own goes on as it was, its window unchanged.
            Ctrl::Dropped if self.backoff.busy => return,
            // A pending RTS or DATA with no backoff running would be left
            // with no timer at all (ns-2.35 returns here too; its backoffs,
            // which wait DIFS after the RTS being answered, leave no way
            // to reach this state, but a defer timer did): it backs off
            // (see `check_pkt_ctrl`).
            Ctrl::Dropped | Ctrl::None => {}
        }
        if self.check_pkt_rts(now, out) {
            return;
        }
        self.check_pkt_tx(now, out);
    }

    fn backoff_handler(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        self.backoff.busy = false;
        self.backoff.paused = false;
        if self.pkt_ctrl.is_some() {
            return;
        }
        if self.check_pkt_rts(now, out) {
            return;
        }
        self.check_pkt_tx(now, out);
    }

    fn check_pkt_ctrl(&mut self, now: SimTime, out: &mut Vec<MacAction>) -> Ctrl {
        let Some(kind) = self.pkt_ctrl.as_ref().map(|f| f.kind) else {
            return Ctrl::None;
        };
        if matches!(self.tx_state, TxState::Cts | TxState::Ack) {
            return Ctrl::None;
        }
        let mut rate = self.p.basic_rate_bps;
        let timeout = match kind {
            FrameKind::Cts => {
                let idle = match self.p.cts_rule {
                    super::CtsRule::Ns2 => self.is_idle(now),
                    super::CtsRule::Standard => self.duration_nav_until <= now,
                };
                if !idle {
                    // The medium is reserved by someone else: no CTS.
                    // Reporting it sent once left a pending RTS with no
                    // backoff and no timer: the MAC never transmitted
                    // again (see `defer_handler`).
                    self.pkt_ctrl = None;
                    return Ctrl::Dropped;
                }
                self.set_tx_state(TxState::Cts, now, out);
                if self.answers_at_response_rates() {
                    if let Some(r) = self.responses.as_deref_mut() {
                        r.sent_rate_bps = rate;
                    }
                }
                let dur = self.pkt_ctrl.as_ref().map_or(0, |f| f.duration_ns);
                // Wait until the DATA should have arrived (the RTS's
                // duration counted an ACK at a rate this MAC is not told:
                // it allows for the shortest).
                self.p.cts_time() + self.p.max_prop_delay_ns + dur + self.p.max_prop_delay_ns
                    - self.p.sifs_ns
                    - self.p.shortest_ack_ns
            }
            _ => {
                self.set_tx_state(TxState::Ack, now, out);
                if !self.answers_at_response_rates() {
                    self.p.ack_time()
                } else if let Some(r) = self.responses.as_deref_mut() {
                    rate = r.ack_rate_bps;
                    r.sent_rate_bps = rate;
                    self.p.txtime(super::ACK_BYTES, rate)
                } else {
                    self.p.ack_time()
                }
            }
        };
        let frame = self.pkt_ctrl.expect("checked above").frame(self.id);
        self.transmit(now, frame, rate, timeout, out);
        Ctrl::Sent
    }

    fn check_pkt_rts(&mut self, now: SimTime, out: &mut Vec<MacAction>) -> bool {
        if self.pkt_rts.is_none() {
            return false;
        }
        if !self.is_idle(now) {
            self.inc_cw();
            self.backoff_start(now, out);
            return true;
        }
        self.set_tx_state(TxState::Rts, now, out);
        let timeout = self.p.rts_time()
            + self.p.max_prop_delay_ns
            + self.p.sifs_ns
            + self.p.cts_time()
            + self.p.max_prop_delay_ns;
        let frame = self.pkt_rts.expect("checked above").frame(self.id);
        self.transmit(now, frame, self.p.basic_rate_bps, timeout, out);
        true
    }

    fn check_pkt_tx(&mut self, now: SimTime, out: &mut Vec<MacAction>) -> bool {
        let Some(f) = self.pkt_tx.as_ref() else {
            return false;
        };
        let unicast = f.ra != BROADCAST;
        if !self.is_idle(now) {
            // As ns-2.35's `check_pktTx` (its `sendRTS`): a frame that had
            // its CTS but finds the medium busy SIFS later goes back to a
            // new RTS, after a backoff with a doubled window (the RTS
            // count starts afresh: the CTS reset it).
            if unicast && self.tx_uses_rts {
                self.make_rts();
            }
            self.inc_cw();
            self.backoff_start(now, out);
            return true;
        }
        let air = self.data_airtime(f);
        let rate = self.data_rate_bps(f);
        let mut ack_time = self.p.ack_time();
        if unicast && self.answers_at_response_rates() {
            // A retry may go at another rate than the first try, and be
            // answered at another.
            ack_time = self.p.ack_time_after(rate);
            if let Some(f) = self.pkt_tx.as_mut() {
                f.duration_ns = self.p.sifs_ns + ack_time;
            }
        }
        self.set_tx_state(TxState::Send, now, out);
        let timeout = if unicast {
            air + self.p.max_prop_delay_ns + self.p.sifs_ns + ack_time + self.p.max_prop_delay_ns
        } else {
            air
        };
        let frame = self.pkt_tx.clone().expect("checked above");
        self.transmit(now, frame, rate, timeout, out);
        true
    }

    fn transmit(
        &mut self,
        now: SimTime,
        frame: Frame,
        rate: u64,
        timeout: SimTime,
        out: &mut Vec<MacAction>,
    ) {
        if self.rx_state != RxState::Idle {
            // Half duplex: whatever we were hearing is lost.
            if let Some(r) = self.rx.as_mut() {
                r.error = true;
            }
        }
        let airtime_ns = self.p.txtime(frame.bytes, rate);
        self.stats.frames_sent += 1;
        self.tx_until = now + airtime_ns;
        debug_assert!(timeout >= airtime_ns, "the Send timer outlasts the frame");
        out.push(MacAction::Transmit { frame, airtime_ns });
        self.arm(MacTimer::Send, now + timeout, out);
    }

    fn send_timeout(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        match self.tx_state {
            TxState::Rts => self.retransmit_rts(now, out),
            TxState::Cts | TxState::Ack => self.pkt_ctrl = None,
            TxState::Send => self.retransmit_data(now, out),
            TxState::Idle => {}
        }
        self.tx_resume(now, out);
    }

    /// Gives up on the frame in hand; `rts_duration_ns` is the RTS's
    /// duration field when its retries ran out.
    fn fail_pkt_tx(&mut self, rts_duration_ns: Option<SimTime>, out: &mut Vec<MacAction>) {
        self.stats.link_failures += 1;
        if let Some(f) = self.pkt_tx.take() {
            if let Some(packet) = f.packet {
                out.push(MacAction::Done {
                    packet,
                    next_hop: f.ra,
                    outcome: TxOutcome::Failed(GaveUp {
                        duration_ns: f.duration_ns,
                        rts_duration_ns,
                    }),
                });
            }
        }
        self.rst_cw();
    }

    fn retransmit_rts(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        self.stats.rts_failures += 1;
        self.ssrc += 1;
        if self.ssrc >= self.p.short_retry_limit {
            let rts = self.pkt_rts.take().map(|r| r.duration_ns);
            self.ssrc = 0;
            if let (Some(rc), Some(f)) = (self.rate_control.as_mut(), self.pkt_tx.as_ref()) {
                rc.rts_gave_up(f.ra);
            }
            self.fail_pkt_tx(rts, out);
        } else {
            self.stats.retries += 1;
            if let Some(r) = self.pkt_rts.as_mut() {
                r.retry = true;
            }
            self.inc_cw();
            self.backoff_start(now, out);
        }
    }

    fn retransmit_data(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        let Some(f) = self.pkt_tx.as_mut() else {
            return;
        };
        if f.ra == BROADCAST {
            let f = self.pkt_tx.take().expect("checked above");
            if let Some(packet) = f.packet {
                out.push(MacAction::Done {
                    packet,
                    next_hop: BROADCAST,
                    outcome: TxOutcome::Broadcast,
                });
            }
            self.rst_cw();
            self.backoff_start(now, out);
            return;
        }
        self.stats.ack_failures += 1;
        let mut chain = None;
        if let Some(rc) = self.rate_control.as_mut() {
            rc.unacknowledged(f.ra, now);
            chain = rc.may_retry(f.ra);
        }
        let (count, limit) = if self.tx_uses_rts {
            (&mut self.slrc, self.p.long_retry_limit)
        } else {
            (&mut self.ssrc, self.p.short_retry_limit)
        };
        *count += 1;
        // Minstrel's retry chain, when it runs, decides instead of the limit.
        if !chain.unwrap_or(*count < limit) {
            *count = 0;
            let ra = f.ra;
            if let Some(rc) = self.rate_control.as_mut() {
                rc.gave_up(ra, now);
            }
            self.fail_pkt_tx(None, out);
        } else {
            self.stats.retries += 1;
            f.retry = true;
            if self.tx_uses_rts {
                self.make_rts();
            }
            self.inc_cw();
            self.backoff_start(now, out);
        }
    }

    fn tx_resume(&mut self, now: SimTime, out: &mut Vec<MacAction>) {
        if self.pkt_ctrl.is_some() {
            self.arm(MacTimer::Defer, now + self.p.sifs_ns, out);
        } else if self.pkt_rts.is_some() {
            if !self.backoff.busy {
                self.backoff_start_after_difs(now, out);
            }
        } else if self.pkt_tx.is_some() {
            if !self.backoff.busy {
                if self.tx_uses_rts {
                    // CTS received: the DATA follows after SIFS.
                    self.arm(MacTimer::Defer, now + self.p.sifs_ns, out);
                } else {
                    self.backoff_start_after_difs(now, out);
                }
            }
        } else {
            self.ready = true;
        }
        self.set_tx_state(TxState::Idle, now, out);
    }

    // ---------------------------------------------------------------------
    // Receiving
    // ---------------------------------------------------------------------

    /// A frame starts arriving with power `power_w` (already ≥ the
    /// carrier-sense threshold); it ends at `end`.
    pub fn on_rx_start(
        &mut self,
        now: SimTime,
        tx_id: u32,
        power_w: f64,
        end: SimTime,
        out: &mut Vec<MacAction>,
    ) {
        if self.off {
            return;
        }
        self.catch_up(now, true);
        let error = now < self.tx_until || power_w < self.rx_threshold_w;
        match self.rx {
            None => {
                self.rx = Some(Reception {
                    tx_id,
                    power_w,
                    end,
                    error,
                });
                if let Some(v) = self.interference.as_mut() {
                    // A frame captured by the last reception may outlast it.
                    v.retain(|&(_, end, _)| end > now);
                }
                self.set_rx_state(RxState::Recv, now, out);
            }
            Some(cur) if self.capture_ratio == 0.0 && cur.error && !error => {
                // `capture_rule = "sinr"`: the receiver never locked onto
                // a frame it cannot decode (too weak, or heard while it
                // sent), so a newcomer it can decode takes it. The old
                // frame stays on the air, interference for the new one's
                // bits, and keeps the medium busy to its end.
                if let Some(v) = self.interference.as_mut() {
                    v.retain(|&(_, end, _)| end > now);
                    v.push((now, cur.end, cur.power_w));
                }
                self.set_nav(now, cur.end - now, out);
                self.rx = Some(Reception {
                    tx_id,
                    power_w,
                    end,
                    error,
                });
            }
            Some(cur) => {
                // Under `capture_rule = "sinr"` (a ratio of 0) every
                // newcomer is captured: interference, its SINR deciding.
                if cur.power_w >= power_w * self.capture_ratio {
                    // Capture: the frame in progress survives. Keep carrier
                    // sense busy for the newcomer, and EIFS after it as
                    // ns-2 does; under `capture_rule = "sinr"` the
                    // newcomer was never received, and sets no EIFS.
                    self.stats.captures += 1;
                    if let Some(v) = self.interference.as_mut() {
                        v.push((now, end, power_w));
                    }
                    let eifs = if self.capture_ratio == 0.0 {
                        0
                    } else {
                        self.p.eifs_ns
                    };
                    self.set_nav(now, eifs + (end - now), out);
                } else {
                    // ns-2.35's `collision`: of the two frames, the one that
                    // lasts longest stays (the receiver is busy until its
                    // end, when it fails), the other is discarded now. Each
                    // keeps its own error (too weak, or heard while sending),
                    // for whether it is reported; the collision state alone
                    // makes the end fail.
                    self.stats.collisions += 1;
                    self.set_rx_state(RxState::Coll, now, out);
                    let lost = if end > cur.end {
                        self.rx = Some(Reception {
                            tx_id,
                            power_w,
                            end,
                            error,
                        });
                        (cur.tx_id, cur.error)
                    } else {
                        (tx_id, error)
                    };
                    if self.report_to_trace && !lost.1 {
                        out.push(MacAction::Collided { tx_id: lost.0 });
                    }
                }
            }
        }
    }

    /// The power of transmission `tx_id` if it is the frame being received
    /// and nothing has spoilt it yet (no collision, not too weak, not heard
    /// while sending): the frame a bit error model may still lose.
    pub fn intact_reception(&self, tx_id: u32) -> Option<f64> {
        match self.rx {
            Some(r) if r.tx_id == tx_id && !r.error && self.rx_state == RxState::Recv => {
                Some(r.power_w)
            }
            _ => None,
        }
    }

    /// Marks the frame being received as corrupted (an injected loss between
    /// PHY and MAC): it will end as a failed reception, with no ACK.
    pub fn corrupt_reception(&mut self, tx_id: u32) {
        if let Some(r) = self.rx.as_mut() {
            if r.tx_id == tx_id {
                r.error = true;
            }
        }
    }

    /// A frame finishes arriving. `frame` is the frame of transmission `tx_id`.
    pub fn on_rx_end(&mut self, now: SimTime, tx_id: u32, frame: &Frame, out: &mut Vec<MacAction>) {
        self.catch_up(now, false);
        let nav_ns = self.p.nav_of(frame);
        match self.end_reception(now, tx_id, frame.ra, nav_ns, out) {
            None => return,
            Some(RxEnd::Failed) => {}
            Some(RxEnd::ForOther) => {
                if self.tap != Tap::Off && frame.tappable(self.tap == Tap::DataAndControl) {
                    if let Some(packet) = frame.packet.clone() {
                        out.push(MacAction::Overheard {
                            packet,
                            from: frame.ta,
                        });
                    }
                }
            }
            Some(RxEnd::ForMe) => match frame.kind {
                FrameKind::Rts | FrameKind::Cts | FrameKind::Ack => {
                    let accepted = match frame.kind {
                        FrameKind::Rts => self.recv_rts(now, frame, out),
                        FrameKind::Cts => self.recv_cts(now, out),
                        _ => self.recv_ack(now, out),
                    };
                    if self.report_to_trace {
                        out.push(if accepted {
                            MacAction::Accepted {
                                frame: frame.clone(),
                            }
                        } else {
                            MacAction::Refused {
                                frame: frame.clone(),
                                why: if frame.kind == FrameKind::Rts {
                                    Refusal::Busy
                                } else {
                                    Refusal::InvalidState
                                },
                            }
                        });
                    }
                }
                FrameKind::Data => self.recv_data(now, frame, out),
            },
        }
        self.set_rx_state(RxState::Idle, now, out);
    }

    /// [`Self::on_rx_end`] for a frame known only by its header fields, which
    /// this node cannot act on: addressed to another node, or too weak to
    /// decode (the world's overheard frames), or a broadcast whose packet
    /// the node's routing agent would drop unread (a flood it has already
    /// seen: [`crate::net::RoutingProtocol::has_seen`]), so that decoding
    /// it only counts it. A promiscuous node's world never sends a
    /// decodable [`Frame::tappable`] frame this way.
    pub fn on_rx_end_overheard(
        &mut self,
        now: SimTime,
        tx_id: u32,
        ra: NodeId,
        duration_ns: SimTime,
        out: &mut Vec<MacAction>,
    ) {
        self.catch_up(now, false);
        if let Some(end) = self.end_reception(now, tx_id, ra, duration_ns, out) {
            debug_assert!(
                end != RxEnd::ForMe || ra == BROADCAST,
                "an overheard frame is never decoded for us"
            );
            self.set_rx_state(RxState::Idle, now, out);
        }
    }

    /// [`Self::on_rx_start`] at `start` then [`Self::on_rx_end_overheard`]
    /// at `end`, for a frame heard whole with nothing else arriving in
    /// between, when the MAC is receiving nothing and has no backoff: then
    /// neither call acts (no backoff to pause, resume or plan to resume as
    /// the NAV expires) and only the NAV and the counters change, which
    /// this does in one step. Returns false, having done nothing, in any
    /// other state.
    pub fn overhear_whole(
        &mut self,
        start: SimTime,
        power_w: f64,
        end: SimTime,
        ra: NodeId,
        duration_ns: SimTime,
    ) -> bool {
        if self.off
            || self.rx.is_some()
            || self.rx_state != RxState::Idle
            || self.backoff.busy
            || self.backoff.paused
        {
            return false;
        }
        // As `end_reception` would judge it.
        if end <= self.tx_until {
            return true;
        }
        let error = start < self.tx_until || power_w < self.rx_threshold_w;
        let nav_ns = if error {
            self.p.eifs_ns
        } else {
            self.stats.frames_received += 1;
            if ra == self.id {
                return true;
            }
            duration_ns
        };
        if end + nav_ns > self.nav_until {
            self.nav_until = end + nav_ns;
            self.nav_phase = self.phase;
        }
        true
    }

    /// The end of transmission `tx_id` at this receiver: `None` if it was not
    /// the frame being received (lost earlier in a collision or capture);
    /// else whether it was decoded, and for whom.
    fn end_reception(
        &mut self,
        now: SimTime,
        tx_id: u32,
        ra: NodeId,
        duration_ns: SimTime,
        out: &mut Vec<MacAction>,
    ) -> Option<RxEnd> {
        let cur = self.rx?;
        if cur.tx_id != tx_id {
            return None;
        }
        self.rx = None;
        if now <= self.tx_until {
            // We started transmitting during the reception: it is lost.
            Some(RxEnd::Failed)
        } else if self.rx_state == RxState::Coll || cur.error {
            if self.report_to_trace && self.rx_state == RxState::Coll && !cur.error {
                out.push(MacAction::Collided { tx_id: cur.tx_id });
            }
            // Under `capture_rule = "sinr"` a frame too weak to decode was
            // never received, only sensed: no EIFS after it.
            if !(self.capture_ratio == 0.0 && cur.power_w < self.rx_threshold_w) {
                self.set_nav(now, self.p.eifs_ns, out);
            }
            Some(RxEnd::Failed)
        } else {
            self.stats.frames_received += 1;
            if ra != self.id {
                self.set_nav(now, duration_ns, out);
                if self.p.cts_rule == super::CtsRule::Standard {
                    self.duration_nav_until = self.duration_nav_until.max(now + duration_ns);
                }
            }
            Some(if ra == self.id || ra == BROADCAST {
                RxEnd::ForMe
            } else {
                RxEnd::ForOther
            })
        }
    }

    fn recv_rts(&mut self, now: SimTime, rts: &Frame, out: &mut Vec<MacAction>) -> bool {
        if self.tx_state != TxState::Idle || self.pkt_ctrl.is_some() {
            return false;
        }
        let dur = rts
            .duration_ns
            .saturating_sub(self.p.cts_time() + self.p.sifs_ns);
        self.pkt_ctrl = Some(Control::new(FrameKind::Cts, rts.ta, dur));
        self.cancel(MacTimer::Defer);
        self.tx_resume(now, out);
        true
    }

    fn recv_cts(&mut self, now: SimTime, out: &mut Vec<MacAction>) -> bool {
        if self.tx_state != TxState::Rts {
            return false;
        }
        self.pkt_rts = None;
        self.cancel(MacTimer::Send);
        self.ssrc = 0;
        self.tx_resume(now, out);
        true
    }

    fn recv_ack(&mut self, now: SimTime, out: &mut Vec<MacAction>) -> bool {
        if self.tx_state != TxState::Send {
            return false;
        }
        self.cancel(MacTimer::Send);
        if self.tx_uses_rts {
            self.slrc = 0;
        } else {
            self.ssrc = 0;
        }
        self.rst_cw();
        if let Some(f) = self.pkt_tx.take() {
            if let Some(rc) = self.rate_control.as_mut() {
                rc.acknowledged(f.ra, now);
            }
            if let Some(packet) = f.packet {
                out.push(MacAction::Done {
                    packet,
                    next_hop: f.ra,
                    outcome: TxOutcome::Acked,
                });
            }
        }
        // Post-transmission backoff.
        self.backoff_start(now, out);
        self.tx_resume(now, out);
        true
    }

    /// Reports a data frame refused for a busy MAC, for the trace.
    fn refuse(&self, f: &Frame, out: &mut Vec<MacAction>) {
        if self.report_to_trace {
            out.push(MacAction::Refused {
                frame: f.clone(),
                why: Refusal::Busy,
            });
        }
    }

    fn send_ack(&mut self, to: NodeId) {
        self.pkt_ctrl = Some(Control::new(FrameKind::Ack, to, 0));
        if self.answers_at_response_rates() {
            if let Some(r) = self.responses.as_deref_mut() {
                r.ack_rate_bps = self.p.response_rate_bps(r.rx_rate_bps);
            }
        }
    }

    fn recv_data(&mut self, now: SimTime, f: &Frame, out: &mut Vec<MacAction>) {
        if f.ra != BROADCAST {
            let msdu = f.packet.as_ref().map_or(0, |p| p.size_bytes);
            let used_rts = msdu >= self.p.rts_threshold_bytes;
            if used_rts {
                if self.tx_state == TxState::Cts {
                    self.cancel(MacTimer::Send);
                    self.pkt_ctrl = None;
                } else {
                    // DATA without our CTS.
                    self.refuse(f, out);
                    return;
                }
                self.send_ack(f.ta);
                self.tx_resume(now, out);
            } else {
                if self.pkt_ctrl.is_some() {
                    // No room to buffer an ACK.
                    self.refuse(f, out);
                    return;
                }
                self.send_ack(f.ta);
                if !self.armed(MacTimer::Send) {
                    self.tx_resume(now, out);
                }
            }
            // Duplicate detection on (transmitter, sequence number).
            match self.dup_cache.iter_mut().find(|(n, _)| *n == f.ta) {
                Some((_, seq)) if *seq == f.seq => {
                    self.stats.duplicates += 1;
                    if self.report_to_trace {
                        out.push(MacAction::Duplicate { frame: f.clone() });
                    }
                    return;
                }
                Some((_, seq)) => *seq = f.seq,
                None => self.dup_cache.push((f.ta, f.seq)),
            }
        }
        if let Some(packet) = f.packet.clone() {
            out.push(MacAction::DeliverUp {
                packet,
                from: f.ta,
                seq: f.seq,
                ra: f.ra,
                duration_ns: f.duration_ns,
                retry: f.retry,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Stream;
    use crate::net::PacketKind;

    fn pkt(size: u32) -> Packet {
        Packet {
            uid: 1,
            kind: PacketKind::Data { flow: 0, seq: 0 },
            src: 0,
            dst: 1,
            ttl: 32,
            size_bytes: size,
            payload_bytes: size - 28,
            created_at: 0,
            hops: 0,
            stale_header_bytes: 0,
            path: 0,
            body: None,
            transport: None,
        }
    }

    fn mac(id: NodeId, rts_threshold: u32) -> Dcf {
        let p = MacParams {
            rts_threshold_bytes: rts_threshold,
            ..MacParams::default()
        };
        Dcf::new(
            id,
            Rc::new(p),
            10.0,
            3.652e-10,
            Rng::new(1, Stream::Test, id as u64),
        )
    }

    #[test]
    fn backoff_slots_span_the_window_or_one_fewer_as_ns2() {
        use crate::mac::BackoffDraw;
        for (draw, top) in [(BackoffDraw::Standard, 31), (BackoffDraw::Ns2, 30)] {
            let p = MacParams {
                backoff_draw: draw,
                ..MacParams::default()
            };
            let mut m = Dcf::new(0, Rc::new(p), 10.0, 3.652e-10, Rng::new(7, Stream::Test, 0));
            let mut seen = [false; 32];
            for _ in 0..5_000 {
                seen[(m.draw_slots() / m.p.slot_ns) as usize] = true;
            }
            // Every slot 0..=top is drawn, none beyond.
            assert!(seen[..=top].iter().all(|&s| s), "{draw:?}");
            assert!(seen[top + 1..].iter().all(|&s| !s), "{draw:?}");
        }
    }

    /// Two stations that start counting at the same idle instant, one
    /// whose frame arrives exactly three slots in at the other: the other
    /// pauses with three slots counted, or, as ns-2.35 counts them in
    /// doubles (`[mac] backoff_count = "ns2"`), with two at some instants
    /// (52.827731057 s, where its trace showed the tie) and three at others
    /// (1 ms). A nanosecond past the boundary, both count three.
    #[test]
    fn ns2s_count_of_slots_can_come_out_one_short_on_a_slot_boundary() {
        use crate::mac::BackoffCount;
        let (difs, slot) = (50_000, 20_000);
        let counted = |count: BackoffCount, idle_at: SimTime, late: SimTime| {
            let p = MacParams {
                rts_threshold_bytes: 3000,
                backoff_count: count,
                ..MacParams::default()
            };
            let mut m = Dcf::new(0, Rc::new(p), 10.0, 3.652e-10, Rng::new(1, Stream::Test, 0));
            let mut out = Vec::new();
            // A frame is heard as ours arrives: a paused backoff, which
            // resumes as the frame ends at `idle_at`.
            m.on_rx_start(idle_at - 1_000, 1, 1e-6, 1_000, &mut out);
            m.send(idle_at - 500, pkt(1028), 1, &mut out);
            assert!(m.backoff.paused);
            m.backoff.rtime = 10 * slot;
            let ack = Frame::control(FrameKind::Ack, 5, 6, 0);
            m.on_rx_end(idle_at, 1, &ack, &mut out);
            assert!(!m.backoff.paused);
            // The neighbour's frame, three slots after DIFS.
            m.on_rx_start(idle_at + difs + 3 * slot + late, 2, 1e-6, 352_000, &mut out);
            assert!(m.backoff.paused);
            10 - m.backoff.rtime / slot
        };
        for idle_at in [52_827_731_057, 1_000_000] {
            assert_eq!(counted(BackoffCount::Exact, idle_at, 0), 3);
            assert_eq!(counted(BackoffCount::Exact, idle_at, 1), 3);
            assert_eq!(counted(BackoffCount::Ns2, idle_at, 1), 3);
        }
        assert_eq!(counted(BackoffCount::Ns2, 52_827_731_057, 0), 2);
        assert_eq!(counted(BackoffCount::Ns2, 1_000_000, 0), 3);
    }

    /// Fires the live timer of kind `t` at its deadline, returning the deadline.
    fn fire(m: &mut Dcf, out: &mut Vec<MacAction>, t: MacTimer) -> SimTime {
        let slot = m.timers[t as usize];
        let at = slot
            .deadline()
            .unwrap_or_else(|| panic!("timer {t:?} is not armed"));
        out.clear();
        assert!(m.on_timer(at, t, slot.generation(), out));
        at
    }

    /// A 128-byte data frame from node 0 to node 1, its packet 100 bytes.
    fn data_0_to_1() -> Frame {
        Frame {
            packet: Some(pkt(100)),
            bytes: 128,
            ..Frame::control(FrameKind::Data, 0, 1, 0)
        }
    }

    fn transmitted(out: &[MacAction]) -> Vec<FrameKind> {
        out.iter()
            .filter_map(|a| match a {
                MacAction::Transmit { frame, .. } => Some(frame.kind),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_frame_heard_whole_in_one_step_leaves_the_mac_as_two_calls_do() {
        const STRONG: f64 = 1e-8;
        const WEAK: f64 = 1e-10; // below the receive threshold (3.652e-10 W)
        let us: NodeId = 4;
        let mut checked = 0;
        // (our transmission's end, the NAV, power, receiver address)
        for tx_until in [0, 1_000, 5_000, 9_000] {
            for nav_until in [0, 3_000, 20_000, 80_000] {
                for power_w in [STRONG, WEAK] {
                    for ra in [us, 7, BROADCAST] {
                        if ra == us && power_w == STRONG {
                            continue; // decoded for us: never overheard
                        }
                        let mut whole = mac(us, 3000);
                        whole.tx_until = tx_until;
                        whole.nav_until = nav_until;
                        let mut two = whole.clone();
                        let (start, end, dur) = (2_000, 8_000, 44_000);
                        assert!(whole.overhear_whole(start, power_w, end, ra, dur));
                        let mut out = Vec::new();
                        two.on_rx_start(start, 9, power_w, end, &mut out);
                        two.on_rx_end_overheard(end, 9, ra, dur, &mut out);
                        assert!(out.is_empty());
                        assert_eq!(format!("{whole:?}"), format!("{two:?}"));
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 80);
        // NAV and counters did change in some of those cases.
        let mut m = mac(us, 3000);
        assert!(m.overhear_whole(2_000, STRONG, 8_000, 7, 44_000));
        assert_eq!((m.nav_until, m.stats.frames_received), (52_000, 1));
        assert!(m.overhear_whole(60_000, WEAK, 70_000, 7, 44_000));
        assert_eq!(m.nav_until, 70_000 + m.p.eifs_ns);

        // Receiving, or holding a backoff: refused, nothing changed.
        let mut out = Vec::new();
        let mut receiving = mac(us, 3000);
        receiving.on_rx_start(1_000, 3, STRONG, 9_000, &mut out);
        let before = format!("{receiving:?}");
        assert!(!receiving.overhear_whole(2_000, STRONG, 8_000, 7, 44_000));
        assert_eq!(format!("{receiving:?}"), before);
        let mut backing_off = mac(us, 3000);
        backing_off.backoff_start(0, &mut out);
        assert!(backing_off.backoff.busy);
        let before = format!("{backing_off:?}");
        assert!(!backing_off.overhear_whole(2_000, STRONG, 8_000, 7, 44_000));
        assert_eq!(format!("{backing_off:?}"), before);
    }

    // ---- Idle medium: basic access ----

    #[test]
    fn idle_send_waits_difs_plus_backoff_then_transmits_data() {
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        m.send(0, pkt(1028), 1, &mut out);
        let at = fire(&mut m, &mut out, MacTimer::Backoff);
        assert!((50_000..=50_000 + 31 * 20_000).contains(&at));
        assert_eq!((at - 50_000) % 20_000, 0, "whole slots");
        assert_eq!(transmitted(&out), vec![FrameKind::Data]);
        assert!(m.is_transmitting(at));
        assert!(!m.is_transmitting(at + 4_416_000));
    }

    #[test]
    fn ack_completes_the_packet_and_starts_post_backoff() {
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        m.send(0, pkt(1028), 1, &mut out);
        let t = fire(&mut m, &mut out, MacTimer::Backoff);
        out.clear();
        out.clear();
        let ack = Frame::control(FrameKind::Ack, 1, 0, 0);
        let t_ack = t + 4_416_000 + 10_000;
        m.on_rx_start(t_ack, 7, 1e-6, t_ack + 304_000, &mut out);
        m.on_rx_end(t_ack + 304_000, 7, &ack, &mut out);
        assert!(out.iter().any(|a| matches!(
            a,
            MacAction::Done {
                outcome: TxOutcome::Acked,
                ..
            }
        )));
        assert!(m.ready_for_packet());
        assert!(m.backoff.busy, "post-backoff runs after a success");
    }

    #[test]
    fn missing_ack_retries_until_the_short_limit_then_reports_link_failure() {
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        m.send(0, pkt(1028), 1, &mut out);
        fire(&mut m, &mut out, MacTimer::Backoff);
        let mut attempts = 1;
        loop {
            out.clear();
            let mut o2 = out.clone();
            fire(&mut m, &mut o2, MacTimer::Send);
            if o2.iter().any(|a| {
                matches!(
                    a,
                    MacAction::Done {
                        outcome: TxOutcome::Failed(_),
                        ..
                    }
                )
            }) {
                break;
            }
            out = o2;
            fire(&mut m, &mut out, MacTimer::Backoff);
            assert_eq!(transmitted(&out), vec![FrameKind::Data]);
            attempts += 1;
        }
        assert_eq!(attempts, 7, "short retry limit 7 = 7 transmissions");
        assert_eq!(m.stats.link_failures, 1);
        assert_eq!(m.cw, 31, "cw resets after a drop");
    }

    #[test]
    fn contention_window_doubles_up_to_cwmax() {
        let mut m = mac(0, 3000);
        for expect in [63, 127, 255, 511, 1023, 1023] {
            m.inc_cw();
            assert_eq!(m.cw, expect);
        }
    }

    /// With `report_to_trace`, the RTS a MAC answers, the CTS to its RTS
    /// and the ACK of its DATA are reported as accepted (the trace's `r`
    /// lines, as ns-2.35's `mac_log`); an RTS it cannot answer, or a CTS
    /// it did not wait for, as refused.
    #[test]
    fn accepted_and_refused_control_frames_are_reported_only_when_asked() {
        let accepted = |out: &[MacAction]| -> Vec<FrameKind> {
            out.iter()
                .filter_map(|a| match a {
                    MacAction::Accepted { frame } => Some(frame.kind),
                    _ => None,
                })
                .collect()
        };
        let rts = Frame::control(FrameKind::Rts, 1, 0, 3_000_000);
        let mut out = Vec::new();
        let mut m = mac(0, 0);
        m.on_rx_start(0, 1, 1e-6, 352_000, &mut out);
        m.on_rx_end(352_000, 1, &rts, &mut out);
        assert!(accepted(&out).is_empty(), "off by default");
        let mut m = mac(0, 0);
        m.report_to_trace(true);
        out.clear();
        m.on_rx_start(0, 1, 1e-6, 352_000, &mut out);
        m.on_rx_end(352_000, 1, &rts, &mut out);
        assert_eq!(accepted(&out), vec![FrameKind::Rts]);
        // A second RTS while the CTS waits is not answered but refused
        // (ns-2.35's `BSY`), and so is a CTS the MAC did not ask for
        // (`STA`).
        out.clear();
        m.on_rx_start(353_000, 2, 1e-6, 355_000, &mut out);
        m.on_rx_end(
            355_000,
            2,
            &Frame::control(FrameKind::Rts, 2, 0, 0),
            &mut out,
        );
        let cts = Frame::control(FrameKind::Cts, 2, 0, 0);
        m.on_rx_start(400_000, 3, 1e-6, 404_000, &mut out);
        m.on_rx_end(404_000, 3, &cts, &mut out);
        assert!(accepted(&out).is_empty(), "{out:?}");
        let refused: Vec<_> = out
            .iter()
            .filter_map(|a| match a {
                MacAction::Refused { frame, why } => Some((frame.kind, *why)),
                _ => None,
            })
            .collect();
        assert_eq!(
            refused,
            [
                (FrameKind::Rts, Refusal::Busy),
                (FrameKind::Cts, Refusal::InvalidState)
            ]
        );
    }

    /// With `report_to_trace`, a frame lost to a collision is reported when
    /// ns-2.35's `collision` and `recv_timer` discard it: of two frames the
    /// one that ends first at the newcomer's start, the one that lasts
    /// longest at its end. A frame too weak to decode, or one heard while
    /// sending, is not (ns-2.35 frees it without a line); nor is a frame
    /// captured by a much stronger one.
    #[test]
    fn collided_frames_are_reported_when_ns2_discards_them() {
        let collided = |out: &[MacAction]| -> Vec<u32> {
            out.iter()
                .filter_map(|a| match a {
                    MacAction::Collided { tx_id } => Some(*tx_id),
                    _ => None,
                })
                .collect()
        };
        let f = |ra| Frame::control(FrameKind::Rts, 5, ra, 0);
        let strong = 1e-6;
        let weak = 1e-10; // below the receive threshold, above carrier sense
        let mut out = Vec::new();
        let mut m = mac(0, 0);
        m.on_rx_start(0, 1, strong, 1_000, &mut out);
        m.on_rx_start(100, 2, strong, 2_000, &mut out);
        assert!(collided(&out).is_empty(), "off by default");
        let mut m = mac(0, 0);
        m.report_to_trace(true);
        out.clear();
        m.on_rx_start(0, 1, strong, 1_000, &mut out);
        // Frame 2 outlasts frame 1, which is discarded as it starts.
        m.on_rx_start(100, 2, strong, 2_000, &mut out);
        assert_eq!(collided(&out), vec![1]);
        // Frame 3 ends before frame 2: it is discarded at once.
        out.clear();
        m.on_rx_start(200, 3, strong, 500, &mut out);
        assert_eq!(collided(&out), vec![3]);
        // A much weaker frame is captured, and a weak one that would outlast
        // frame 2 is too weak to decode: neither is reported.
        out.clear();
        m.on_rx_start(300, 4, strong / 20.0, 600, &mut out);
        assert!(collided(&out).is_empty(), "{out:?}");
        m.on_rx_end(500, 3, &f(0), &mut out);
        m.on_rx_end(600, 4, &f(0), &mut out);
        m.on_rx_end(1_000, 1, &f(0), &mut out);
        assert!(collided(&out).is_empty(), "{out:?}");
        // Frame 2, the longest, is discarded at its end.
        m.on_rx_end(2_000, 2, &f(0), &mut out);
        assert_eq!(collided(&out), vec![2]);

        // A weak frame that outlasts a strong one: the strong one is
        // reported at the weak one's start, the weak one not at its end.
        let mut m = mac(0, 0);
        m.report_to_trace(true);
        out.clear();
        m.on_rx_start(0, 1, 2.0 * weak, 1_000, &mut out);
        m.on_rx_start(0, 2, weak, 2_000, &mut out);
        assert!(collided(&out).is_empty(), "both too weak: {out:?}");
        let mut m = mac(0, 0);
        m.report_to_trace(true);
        out.clear();
        m.on_rx_start(0, 1, 4e-10, 1_000, &mut out);
        m.on_rx_start(10, 2, weak, 2_000, &mut out);
        assert_eq!(collided(&out), vec![1]);
        m.on_rx_end(1_000, 1, &f(0), &mut out);
        m.on_rx_end(2_000, 2, &f(0), &mut out);
        assert_eq!(collided(&out), vec![1]);
    }

    #[test]
    fn broadcast_data_goes_at_the_basic_rate_and_unicast_data_at_the_data_rate() {
        // IEEE 802.11 (1999) section 9.6; ns-2.35's `sendDATA` times a
        // broadcast frame at `basicRate_`, ns-3 at its non-unicast mode.
        let mut airtimes = Vec::new();
        for (next_hop, rate_bps) in [(BROADCAST, 1_000_000), (1, 2_000_000)] {
            let mut m = mac(0, 3000); // no RTS before a frame this short
            let mut out = Vec::new();
            m.send(0, pkt(100), next_hop, &mut out);
            let at = fire(&mut m, &mut out, MacTimer::Backoff);
            let (kind, ra, airtime_ns) = match &out[..] {
                [MacAction::Transmit { frame, airtime_ns }, ..] => {
                    (frame.kind, frame.ra, *airtime_ns)
                }
                other => panic!("{other:?}"),
            };
            assert_eq!((kind, ra), (FrameKind::Data, next_hop));
            let bytes = m.p.data_frame_bytes(&pkt(100));
            assert_eq!(airtime_ns, m.p.txtime(bytes, rate_bps), "to {next_hop}");
            assert_eq!(m.tx_until, at + airtime_ns);
            airtimes.push(airtime_ns);
        }
        // 128 bytes: the PLCP's 192 us, then 1,024 us at 1 Mb/s or 512 us at 2.
        assert_eq!(airtimes, vec![1_216_000, 704_000]);
    }

    // ---- RTS/CTS ----

    #[test]
    fn rts_cts_data_ack_exchange() {
        let mut a = mac(0, 0);
        let mut b = mac(1, 0);
        let (mut oa, mut ob) = (Vec::new(), Vec::new());
        a.send(0, pkt(1028), 1, &mut oa);
        let t0 = fire(&mut a, &mut oa, MacTimer::Backoff);
        let rts = match &oa[0] {
            MacAction::Transmit { frame, airtime_ns } => {
                assert_eq!(frame.kind, FrameKind::Rts);
                assert_eq!(*airtime_ns, 352_000);
                frame.clone()
            }
            other => panic!("{other:?}"),
        };
        // B hears the RTS and answers with CTS after SIFS.
        b.on_rx_start(t0, 1, 1e-6, t0 + 352_000, &mut ob);
        b.on_rx_end(t0 + 352_000, 1, &rts, &mut ob);
        let t_cts = fire(&mut b, &mut ob, MacTimer::Defer);
        assert_eq!(t_cts, t0 + 352_000 + 10_000);
        let cts = match &ob[0] {
            MacAction::Transmit { frame, .. } => frame.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!((cts.kind, cts.ra), (FrameKind::Cts, 0));
        // A gets the CTS and sends DATA after SIFS.
        oa.clear();
        oa.clear();
        a.on_rx_start(t_cts, 2, 1e-6, t_cts + 304_000, &mut oa);
        a.on_rx_end(t_cts + 304_000, 2, &cts, &mut oa);
        let t_data = fire(&mut a, &mut oa, MacTimer::Defer);
        assert_eq!(t_data, t_cts + 304_000 + 10_000);
        let data = match &oa[0] {
            MacAction::Transmit { frame, .. } => frame.clone(),
            other => panic!("{other:?}"),
        };
        // B receives DATA, delivers it and ACKs after SIFS.
        ob.clear();
        ob.clear();
        b.on_rx_start(t_data, 3, 1e-6, t_data + 4_416_000, &mut ob);
        b.on_rx_end(t_data + 4_416_000, 3, &data, &mut ob);
        assert!(ob
            .iter()
            .any(|x| matches!(x, MacAction::DeliverUp { from: 0, .. })));
        fire(&mut b, &mut ob, MacTimer::Defer);
        assert_eq!(transmitted(&ob), vec![FrameKind::Ack]);
    }

    #[test]
    fn with_the_standards_response_rates_an_ack_follows_the_data_rate() {
        // 802.11a, data at 54 Mb/s, basic rate 6: the RTS and CTS go at 6,
        // the ACK at 24 (the fastest mandatory rate not above 54), and
        // every duration field and timeout counts the 28 µs ACK.
        let p = Rc::new(MacParams::from_scenario(&crate::scenario::Mac {
            standard: "802.11a".into(),
            data_rate_bps: 54_000_000,
            basic_rate_bps: 6_000_000,
            rts_threshold_bytes: 0,
            response_rate: super::super::ResponseRate::Standard,
            ..Default::default()
        }));
        let new = |id: NodeId| {
            Dcf::new(
                id,
                p.clone(),
                10.0,
                3.652e-10,
                Rng::new(1, Stream::Test, u64::from(id)),
            )
        };
        let (mut a, mut b) = (new(0), new(1));
        assert!(a.answers_at_the_rate_received());
        let sent = |out: &[MacAction]| match out {
            [MacAction::Transmit { frame, airtime_ns }, ..] => (frame.clone(), *airtime_ns),
            other => panic!("{other:?}"),
        };
        let (mut oa, mut ob) = (Vec::new(), Vec::new());
        a.send(0, pkt(1028), 1, &mut oa);
        let t0 = fire(&mut a, &mut oa, MacTimer::Backoff);
        let (rts, rts_ns) = sent(&oa);
        let data_bytes = p.data_frame_bytes(&pkt(1028));
        let data_ns = p.txtime(data_bytes, 54_000_000);
        let (sifs, cts_ns, ack_ns) = (16_000, 44_000, 28_000);
        assert_eq!((rts.kind, rts_ns), (FrameKind::Rts, 52_000));
        assert_eq!(
            rts.duration_ns,
            sifs + cts_ns + sifs + data_ns + sifs + ack_ns
        );
        b.on_rx_start(t0, 1, 1e-6, t0 + rts_ns, &mut ob);
        b.on_rx_end(t0 + rts_ns, 1, &rts, &mut ob);
        let t_cts = fire(&mut b, &mut ob, MacTimer::Defer);
        let (cts, airtime) = sent(&ob);
        assert_eq!((cts.kind, airtime), (FrameKind::Cts, cts_ns));
        assert_eq!(b.rate_of(&cts), 6_000_000);
        a.on_rx_start(t_cts, 2, 1e-6, t_cts + cts_ns, &mut oa);
        a.on_rx_end(t_cts + cts_ns, 2, &cts, &mut oa);
        let t_data = fire(&mut a, &mut oa, MacTimer::Defer);
        let (data, airtime) = sent(&oa);
        assert_eq!((data.kind, airtime), (FrameKind::Data, data_ns));
        assert_eq!(data.duration_ns, sifs + ack_ns);
        // A waits for the ACK: the data, SIFS, the 28 µs ACK, 2 µs each way.
        let ack_due = a.timers[MacTimer::Send as usize].deadline();
        assert_eq!(
            ack_due,
            Some(t_data + data_ns + 2_000 + sifs + ack_ns + 2_000)
        );
        // B's wait for the data after its CTS outlasts the data.
        let data_end = t_data + data_ns;
        assert!(b.timers[MacTimer::Send as usize].deadline() >= Some(data_end));
        // The world tells B the data's rate; B answers at 24 Mb/s.
        ob.clear();
        b.on_rx_start(t_data, 3, 1e-6, data_end, &mut ob);
        b.receiving_at(a.rate_of(&data));
        b.on_rx_end(data_end, 3, &data, &mut ob);
        assert!(ob
            .iter()
            .any(|x| matches!(x, MacAction::DeliverUp { from: 0, .. })));
        fire(&mut b, &mut ob, MacTimer::Defer);
        let (ack, airtime) = sent(&ob);
        assert_eq!((ack.kind, airtime), (FrameKind::Ack, ack_ns));
        assert_eq!(b.rate_of(&ack), 24_000_000);
        // ns-2.35's rule answers at the basic rate, 44 µs.
        assert!(!mac(0, 0).answers_at_the_rate_received());
    }

    #[test]
    fn a_cts_followed_by_a_busy_medium_leads_to_a_new_rts_not_the_data() {
        // ns-2.35's `check_pktTx`: the DATA due SIFS after the CTS finds
        // the medium busy, so the MAC backs off and sends an RTS again.
        let mut a = mac(0, 0);
        let mut out = Vec::new();
        a.send(0, pkt(1028), 1, &mut out);
        let t0 = fire(&mut a, &mut out, MacTimer::Backoff);
        assert_eq!(transmitted(&out), vec![FrameKind::Rts]);
        let t_cts = t0 + 352_000 + 10_000;
        let cts = Frame::control(FrameKind::Cts, 1, 0, 5_000_000);
        a.on_rx_start(t_cts, 2, 1e-6, t_cts + 304_000, &mut out);
        a.on_rx_end(t_cts + 304_000, 2, &cts, &mut out);
        assert_eq!(a.ssrc, 0, "the CTS resets the RTS count");
        // Another frame starts arriving before the SIFS is over.
        let busy_from = t_cts + 304_000 + 5_000;
        a.on_rx_start(busy_from, 3, 1e-6, busy_from + 1_000_000, &mut out);
        fire(&mut a, &mut out, MacTimer::Defer);
        assert!(transmitted(&out).is_empty(), "no DATA on a busy medium");
        let other = Frame::control(FrameKind::Rts, 7, 8, 0);
        a.on_rx_end(busy_from + 1_000_000, 3, &other, &mut out);
        // After the backoff (DIFS first, resumed by the frame's end).
        let mut kinds = Vec::new();
        for _ in 0..4 {
            let next = [MacTimer::Defer, MacTimer::Backoff]
                .into_iter()
                .filter(|&t| a.armed(t))
                .min_by_key(|&t| a.timers[t as usize].deadline());
            let Some(t) = next else { break };
            fire(&mut a, &mut out, t);
            kinds.extend(transmitted(&out));
            if !kinds.is_empty() {
                break;
            }
        }
        assert_eq!(kinds, vec![FrameKind::Rts], "a new RTS, not the DATA");
    }

    #[test]
    fn overheard_rts_sets_nav_and_freezes_backoff() {
        let mut c = mac(2, 0);
        let mut out = Vec::new();
        c.send(0, pkt(1028), 3, &mut out);
        // Medium goes busy before the defer ends: a frame for someone else.
        let rts = Frame::control(FrameKind::Rts, 0, 1, 5_000_000);
        c.on_rx_start(1_000, 9, 1e-6, 353_000, &mut out);
        c.on_rx_end(353_000, 9, &rts, &mut out);
        assert_eq!(c.nav_until, 353_000 + 5_000_000);
        assert!(!c.is_idle(400_000));
    }

    #[test]
    fn cts_is_withheld_while_nav_is_set() {
        let mut b = mac(1, 0);
        let mut out = Vec::new();
        // An overheard RTS sets B's NAV.
        let other = Frame::control(FrameKind::Rts, 5, 6, 2_000_000);
        b.on_rx_start(0, 1, 1e-6, 352_000, &mut out);
        b.on_rx_end(352_000, 1, &other, &mut out);
        // Then an RTS for B arrives while the NAV is still set.
        let rts = Frame::control(FrameKind::Rts, 0, 1, 1_000_000);
        b.on_rx_start(400_000, 2, 1e-6, 752_000, &mut out);
        b.on_rx_end(752_000, 2, &rts, &mut out);
        fire(&mut b, &mut out, MacTimer::Defer);
        assert!(transmitted(&out).is_empty(), "no CTS under NAV");
    }

    /// A MAC under `[radio] capture_rule` (a capture ratio of 10, ns-2's
    /// 10 dB, or 0, `"sinr"`) and `[mac] cts_rule`, keeping the interference
    /// a bit error model counts.
    fn mac_under(capture_ratio: f64, cts_rule: crate::mac::CtsRule) -> Dcf {
        let p = MacParams {
            rts_threshold_bytes: 0,
            cts_rule,
            ..MacParams::default()
        };
        let mut m = Dcf::new(
            1,
            Rc::new(p),
            capture_ratio,
            3.652e-10,
            Rng::new(1, Stream::Test, 1),
        );
        m.track_interference();
        m
    }

    fn delivered(out: &[MacAction]) -> usize {
        out.iter()
            .filter(|a| matches!(a, MacAction::DeliverUp { .. }))
            .count()
    }

    #[test]
    fn under_the_sinr_rule_a_decodable_frame_takes_the_receiver_from_one_too_weak() {
        use crate::mac::CtsRule;
        let f = Frame {
            packet: Some(pkt(100)),
            ..Frame::control(FrameKind::Data, 0, BROADCAST, 0)
        };
        // A hidden node's frame, sensed but too weak to decode (1e-10 W),
        // then, 12 dB stronger, a broadcast frame.
        for (ratio, received) in [(10.0, 0), (0.0, 1)] {
            let mut m = mac_under(ratio, CtsRule::Ns2);
            let mut out = Vec::new();
            m.on_rx_start(0, 1, 1e-10, 3_000, &mut out);
            m.on_rx_start(500, 2, 1.6e-9, 2_000, &mut out);
            if ratio == 0.0 {
                // The weak frame is now interference, from the newcomer's start.
                assert_eq!(m.interference(), &[(500, 3_000, 1e-10)]);
                assert_eq!(m.intact_reception(2), Some(1.6e-9));
                assert_eq!(m.stats.collisions, 0);
            } else {
                assert_eq!(m.stats.collisions, 1);
                assert_eq!(m.intact_reception(2), None);
            }
            m.on_rx_end(2_000, 2, &f, &mut out);
            m.on_rx_end(3_000, 1, &f, &mut out);
            assert_eq!(delivered(&out), received, "capture ratio {ratio}");
            // ns-2's rule ends the collision at the later frame's end with
            // EIFS; under the SINR rule the weak frame holds the medium to
            // its end and sets no EIFS, never having been received.
            let eifs = m.p.eifs_ns;
            let nav = if ratio == 0.0 { 3_000 } else { 3_000 + eifs };
            assert_eq!(m.nav_until, nav, "capture ratio {ratio}");
        }
    }

    #[test]
    fn under_the_sinr_rule_a_newcomer_of_equal_power_is_interference_not_a_collision() {
        use crate::mac::CtsRule;
        let f = Frame {
            packet: Some(pkt(100)),
            ..Frame::control(FrameKind::Data, 0, BROADCAST, 0)
        };
        let mut m = mac_under(0.0, CtsRule::Ns2);
        let mut out = Vec::new();
        m.on_rx_start(0, 1, 1e-9, 1_000, &mut out);
        m.on_rx_start(500, 2, 1e-9, 1_500, &mut out);
        // The frame in progress keeps the receiver; its SINR, which a bit
        // error model computes from the interference kept, decides it.
        assert_eq!(m.intact_reception(1), Some(1e-9));
        assert_eq!(m.interference(), &[(500, 1_500, 1e-9)]);
        assert_eq!((m.stats.collisions, m.stats.captures), (0, 1));
        m.on_rx_end(1_000, 1, &f, &mut out);
        m.on_rx_end(1_500, 2, &f, &mut out);
        assert_eq!(delivered(&out), 1);
        // Busy to the newcomer's end, no EIFS after it.
        assert_eq!(m.nav_until, 1_500);
        // A frame too weak to decode, alone: no EIFS after it either.
        m.on_rx_start(2_000, 3, 1e-10, 3_000, &mut out);
        assert!(!m.is_idle(2_500));
        m.on_rx_end(3_000, 3, &f, &mut out);
        assert_eq!(m.nav_until, 1_500);
        assert!(m.is_idle(3_000));
    }

    #[test]
    fn the_standard_cts_rule_answers_whatever_the_receiver_senses_but_not_under_a_nav() {
        use crate::mac::CtsRule;
        let rts = Frame::control(FrameKind::Rts, 0, 1, 1_000_000);
        for (rule, answered) in [(CtsRule::Ns2, false), (CtsRule::Standard, true)] {
            let mut m = mac_under(10.0, rule);
            let mut out = Vec::new();
            // An RTS for this node, and during it a frame 20 dB weaker
            // (captured) that lasts past the SIFS before the CTS.
            m.on_rx_start(0, 1, 1e-8, 352_000, &mut out);
            m.on_rx_start(100_000, 2, 1e-10, 2_000_000, &mut out);
            m.on_rx_end(352_000, 1, &rts, &mut out);
            fire(&mut m, &mut out, MacTimer::Defer);
            let sent = transmitted(&out);
            assert_eq!(
                sent.contains(&FrameKind::Cts),
                answered,
                "{rule:?}: {sent:?}"
            );
        }
        // Under either rule, a NAV set by another exchange's Duration
        // field withholds the CTS.
        for rule in [CtsRule::Ns2, CtsRule::Standard] {
            let mut m = mac_under(10.0, rule);
            let mut out = Vec::new();
            let other = Frame::control(FrameKind::Rts, 5, 6, 2_000_000);
            m.on_rx_start(0, 1, 1e-6, 352_000, &mut out);
            m.on_rx_end(352_000, 1, &other, &mut out);
            m.on_rx_start(400_000, 2, 1e-6, 752_000, &mut out);
            m.on_rx_end(752_000, 2, &rts, &mut out);
            fire(&mut m, &mut out, MacTimer::Defer);
            assert!(
                transmitted(&out).is_empty(),
                "{rule:?}: no CTS under the NAV"
            );
        }
    }

    #[test]
    fn with_nav_reset_an_overheard_rts_holds_the_nav_only_until_its_cts_is_due() {
        // 802.11's DSSS: 2 SIFS (20 µs), a CTS at 1 Mb/s (304 µs), its
        // PLCP (192 µs) and 2 slots (40 µs): 556 µs.
        let scenario = |nav_reset| crate::scenario::Mac {
            nav_reset,
            ..crate::scenario::Mac::default()
        };
        let p = MacParams::from_scenario(&scenario(true));
        assert_eq!(p.rts_nav_limit_ns, 556_000);
        assert_eq!(
            MacParams::from_scenario(&scenario(false)).rts_nav_limit_ns,
            SimTime::MAX
        );
        for (nav_reset, nav) in [(false, 5_000_000), (true, 556_000)] {
            let p = MacParams::from_scenario(&scenario(nav_reset));
            let mut m = Dcf::new(2, Rc::new(p), 10.0, 3.652e-10, Rng::new(1, Stream::Test, 2));
            let mut out = Vec::new();
            let rts = Frame::control(FrameKind::Rts, 0, 1, 5_000_000);
            m.on_rx_start(0, 1, 1e-6, 352_000, &mut out);
            m.on_rx_end(352_000, 1, &rts, &mut out);
            assert_eq!(m.nav_until, 352_000 + nav, "nav_reset = {nav_reset}");
            // The CTS, when this node hears it, sets the rest itself; a
            // CTS or DATA is never cut.
            let cts = Frame::control(FrameKind::Cts, 1, 0, 5_000_000);
            m.on_rx_start(362_000, 2, 1e-6, 666_000, &mut out);
            m.on_rx_end(666_000, 2, &cts, &mut out);
            assert_eq!(m.nav_until, 666_000 + 5_000_000, "nav_reset = {nav_reset}");
        }
    }

    // ---- Receiving: collisions and capture ----

    #[test]
    fn overlapping_frames_of_similar_power_collide() {
        let mut m = mac(1, 3000);
        let mut out = Vec::new();
        let f = Frame {
            packet: Some(pkt(100)),
            ..Frame::control(FrameKind::Data, 0, 1, 0)
        };
        m.on_rx_start(0, 1, 2e-9, 1000, &mut out);
        m.on_rx_start(500, 2, 1e-9, 1500, &mut out);
        m.on_rx_end(1000, 1, &f, &mut out);
        m.on_rx_end(1500, 2, &f, &mut out);
        assert!(!out.iter().any(|a| matches!(a, MacAction::DeliverUp { .. })));
        assert_eq!(m.stats.collisions, 1);
        assert_eq!(
            m.nav_until,
            1500 + m.p.eifs_ns,
            "a failed reception defers EIFS"
        );
    }

    #[test]
    fn a_ten_times_stronger_frame_captures() {
        let mut m = mac(1, 3000);
        let mut out = Vec::new();
        let f = data_0_to_1();
        m.on_rx_start(0, 1, 1e-8, 1000, &mut out);
        m.on_rx_start(500, 2, 1e-9, 1500, &mut out);
        m.on_rx_end(1000, 1, &f, &mut out);
        assert!(out
            .iter()
            .any(|a| matches!(a, MacAction::DeliverUp { from: 0, .. })));
        assert_eq!(m.stats.captures, 1);
    }

    #[test]
    fn a_weak_frame_during_a_collision_is_captured_by_the_longest_frame() {
        // Frames 1 and 2 collide; frame 2 lasts longer and is kept. Frame 3,
        // ten times weaker than frame 2, is captured (ns-2.35's
        // Mac802_11::recv checks capture in the collision state too): it
        // neither counts as a collision nor stretches the reception, and
        // it keeps the medium reserved EIFS past its own end.
        let mut m = mac(1, 3000);
        let mut out = Vec::new();
        let f = Frame {
            packet: Some(pkt(100)),
            ..Frame::control(FrameKind::Data, 0, 1, 0)
        };
        m.on_rx_start(0, 1, 2e-9, 1000, &mut out);
        m.on_rx_start(500, 2, 1e-8, 1500, &mut out);
        m.on_rx_start(800, 3, 1e-9, 4000, &mut out);
        assert_eq!((m.stats.collisions, m.stats.captures), (1, 1));
        assert_eq!(m.nav_until, 4000 + m.p.eifs_ns);
        m.on_rx_end(1000, 1, &f, &mut out);
        m.on_rx_end(1500, 2, &f, &mut out);
        assert!(m.rx.is_none(), "the reception ended with frame 2");
        // A frame 4 after frame 2 is received on its own (under the NAV).
        m.on_rx_start(2000, 4, 2e-9, 3000, &mut out);
        m.on_rx_end(3000, 4, &f, &mut out);
        assert!(out
            .iter()
            .any(|a| matches!(a, MacAction::DeliverUp { from: 0, .. })));
        assert_eq!(m.stats.collisions, 1);
    }

    #[test]
    fn a_captured_frame_that_outlasts_its_reception_is_interference_for_the_next() {
        // Frame 2, captured by frame 1, is still on the air when frame 1
        // ends and frame 3 begins: its end overlaps frame 3. Frame 4
        // begins after it.
        let mut m = mac(1, 3000);
        m.track_interference();
        let mut out = Vec::new();
        let f = Frame {
            packet: Some(pkt(100)),
            ..Frame::control(FrameKind::Data, 0, 1, 0)
        };
        m.on_rx_start(0, 1, 1e-8, 1000, &mut out);
        m.on_rx_start(500, 2, 1e-10, 2500, &mut out);
        assert_eq!(m.interference(), &[(500, 2500, 1e-10)]);
        m.on_rx_end(1000, 1, &f, &mut out);
        m.on_rx_start(2000, 3, 1e-8, 3000, &mut out);
        assert_eq!(m.intact_reception(3), Some(1e-8));
        assert_eq!(m.interference(), &[(500, 2500, 1e-10)]);
        m.on_rx_end(3000, 3, &f, &mut out);
        m.on_rx_start(3500, 4, 1e-8, 4500, &mut out);
        assert_eq!(m.interference(), &[]);
        assert_eq!(m.stats.captures, 1);
    }

    #[test]
    fn below_rx_threshold_is_sensed_but_not_decoded() {
        let mut m = mac(1, 3000);
        let mut out = Vec::new();
        let mut f = Frame::control(FrameKind::Data, 0, 1, 0);
        f.packet = Some(pkt(100));
        m.on_rx_start(0, 1, 1e-10, 1000, &mut out);
        assert!(!m.is_idle(10));
        m.on_rx_end(1000, 1, &f, &mut out);
        assert!(!out.iter().any(|a| matches!(a, MacAction::DeliverUp { .. })));
    }

    /// Node 2 hears node 0's data frame for node 1.
    fn overhear(m: &mut Dcf, f: &Frame, power_w: f64) -> Vec<MacAction> {
        let mut out = Vec::new();
        m.on_rx_start(0, 1, power_w, 1000, &mut out);
        m.on_rx_end(1000, 1, f, &mut out);
        out
    }

    fn overheard(out: &[MacAction]) -> Vec<(u64, NodeId)> {
        out.iter()
            .filter_map(|a| match a {
                MacAction::Overheard { packet, from } => Some((packet.uid, *from)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_promiscuous_mac_hands_up_data_for_other_nodes() {
        let mut f = Frame::control(FrameKind::Data, 0, 1, 0);
        f.packet = Some(pkt(100));
        assert!(f.tappable(false));
        let mut m = mac(2, 3000);
        assert!(overheard(&overhear(&mut m, &f, 1e-8)).is_empty());
        m.set_promiscuous(true);
        let out = overhear(&mut m, &f, 1e-8);
        assert_eq!(overheard(&out), vec![(1, 0)]);
        assert!(!out.iter().any(|a| matches!(a, MacAction::DeliverUp { .. })));
        // Not decoded: too weak.
        assert!(overheard(&overhear(&mut m, &f, 1e-10)).is_empty());
        // Not tappable: broadcast, routing control, RTS.
        let mut b = f.clone();
        b.ra = BROADCAST;
        assert!(!b.tappable(true));
        let mut c = f.clone();
        c.packet.as_mut().unwrap().kind = PacketKind::Control;
        assert!(!c.tappable(false));
        assert!(overheard(&overhear(&mut m, &c, 1e-8)).is_empty());
        assert!(!Frame::control(FrameKind::Rts, 0, 1, 0).tappable(true));
        // With control: unicast routing control goes up too, broadcast not.
        m.set_promiscuous_with_control();
        assert!(m.is_promiscuous() && c.tappable(true));
        assert_eq!(overheard(&overhear(&mut m, &c, 1e-8)), vec![(1, 0)]);
        assert!(overheard(&overhear(&mut m, &b, 1e-8)).is_empty());
    }

    /// A duplicate is ACKed but not handed up; with `report_to_trace` it
    /// is reported (ns-2.35's `D … MAC DUP`).
    #[test]
    fn duplicate_data_is_acked_but_not_delivered_twice() {
        for report in [false, true] {
            duplicate_data(report);
        }
    }

    /// DATA sent with RTS/CTS that comes without this MAC's CTS is not
    /// taken (ns-2.35's `recvDATA`: `BSY`), nor ACKed.
    #[test]
    fn data_without_our_cts_is_refused() {
        let mut m = mac(1, 0);
        m.report_to_trace(true);
        let mut out = Vec::new();
        let f = data_0_to_1();
        m.on_rx_start(0, 1, 1e-8, 1000, &mut out);
        m.on_rx_end(1000, 1, &f, &mut out);
        assert!(
            matches!(&out[..], [MacAction::Refused { frame, why: Refusal::Busy }] if frame.kind == FrameKind::Data),
            "{out:?}"
        );
        assert!(!m.armed(MacTimer::Defer), "no ACK");
    }

    fn duplicate_data(report: bool) {
        let mut m = mac(1, 3000);
        m.report_to_trace(report);
        let mut out = Vec::new();
        let mut f = data_0_to_1();
        f.seq = 5;
        m.on_rx_start(0, 1, 1e-8, 1000, &mut out);
        m.on_rx_end(1000, 1, &f, &mut out);
        fire(&mut m, &mut out, MacTimer::Defer);
        out.clear();
        fire(&mut m, &mut out, MacTimer::Send);
        out.clear();
        m.on_rx_start(2_000_000, 2, 1e-8, 2_001_000, &mut out);
        m.on_rx_end(2_001_000, 2, &f, &mut out);
        assert!(!out.iter().any(|a| matches!(a, MacAction::DeliverUp { .. })));
        assert_eq!(m.stats.duplicates, 1);
        let dup: Vec<_> = out
            .iter()
            .filter_map(|a| match a {
                MacAction::Duplicate { frame } => {
                    Some((frame.packet.as_ref().map(|p| p.uid), frame.ta))
                }
                _ => None,
            })
            .collect();
        assert_eq!(dup, if report { vec![(Some(1), 0)] } else { vec![] });
        fire(&mut m, &mut out, MacTimer::Defer);
        assert_eq!(transmitted(&out), vec![FrameKind::Ack]);
    }

    #[test]
    fn a_powered_off_mac_returns_its_packet_and_ignores_everything() {
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        m.send(0, pkt(1028), 1, &mut out);
        let slot = m.timers[MacTimer::Backoff as usize];
        assert_eq!(m.power_off().map(|p| p.uid), Some(1));
        out.clear();
        assert!(!m.on_timer(
            slot.deadline().unwrap(),
            MacTimer::Backoff,
            slot.generation(),
            &mut out
        ));
        m.on_rx_start(10, 1, 1e-6, 100, &mut out);
        assert!(out.is_empty());
        assert!(!m.ready_for_packet());
    }

    #[test]
    fn broadcast_is_sent_once_without_ack() {
        let mut m = mac(0, 0);
        let mut out = Vec::new();
        m.send(0, pkt(100), BROADCAST, &mut out);
        fire(&mut m, &mut out, MacTimer::Backoff);
        assert_eq!(
            transmitted(&out),
            vec![FrameKind::Data],
            "no RTS for broadcast"
        );
        out.clear();
        let mut o = out.clone();
        fire(&mut m, &mut o, MacTimer::Send);
        assert!(o.iter().any(|a| matches!(
            a,
            MacAction::Done {
                outcome: TxOutcome::Broadcast,
                ..
            }
        )));
        assert!(m.ready_for_packet());
    }

    /// A frame that finds the medium idle and no backoff running waits
    /// DIFS and its slots on a backoff, as ns-2.35 does (`bugFix_timer_`):
    /// a frame heard meanwhile pauses it, and it resumes, its slots kept
    /// and its window unchanged, DIFS after the medium turns idle again.
    /// (A defer timer would have gone off under the frame, found the
    /// medium busy and doubled the window.)
    #[test]
    fn a_frame_on_an_idle_medium_backs_off_and_pauses_while_a_frame_is_heard() {
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        m.send(0, pkt(1028), 1, &mut out);
        assert!(m.backoff.busy && !m.backoff.paused && !m.armed(MacTimer::Defer));
        let rtime = m.backoff.rtime;
        let at = m.timers[MacTimer::Backoff as usize].deadline();
        assert_eq!(at, Some(50_000 + rtime), "DIFS, then the slots");
        // A frame for another node, no NAV, arrives 20 µs in (within DIFS).
        let other = Frame::control(FrameKind::Ack, 7, 8, 0);
        m.on_rx_start(20_000, 9, 1e-6, 1_020_000, &mut out);
        assert!(m.backoff.paused && !m.armed(MacTimer::Backoff));
        m.on_rx_end(1_020_000, 9, &other, &mut out);
        assert_eq!((m.backoff.rtime, m.cw), (rtime, 31), "no slot counted yet");
        let at = fire(&mut m, &mut out, MacTimer::Backoff);
        assert_eq!(at, 1_020_000 + 50_000 + rtime);
        assert_eq!(transmitted(&out), vec![FrameKind::Data]);
    }

    /// ns-2.35's `deferHandler` returns once `check_pktCTRL` has dropped a
    /// CTS for a busy medium: the node's own backoff, paused by the NAV,
    /// goes on as it was, its window not doubled.
    #[test]
    fn a_cts_the_medium_holds_back_leaves_the_nodes_own_backoff_as_it_was() {
        let mut m = mac(0, 0);
        let mut out = Vec::new();
        // A neighbour's CTS to another node reserves the medium for 5 ms.
        let cts = Frame::control(FrameKind::Cts, 7, 8, 5_000_000);
        m.on_rx_start(0, 9, 1e-6, 304_000, &mut out);
        // A packet comes meanwhile: its backoff starts paused.
        m.send(100_000, pkt(1028), 1, &mut out);
        assert!(m.backoff.busy && m.backoff.paused && m.pkt_rts.is_some());
        m.on_rx_end(304_000, 9, &cts, &mut out);
        let (rtime, cw) = (m.backoff.rtime, m.cw);
        let resume = m.timers[MacTimer::Backoff as usize].deadline();
        assert_eq!(resume, Some(5_304_000 + 50_000 + rtime), "at the NAV's end");
        // A hidden node's RTS to this node: a CTS is due SIFS after it.
        let rts = Frame::control(FrameKind::Rts, 2, 0, 3_000_000);
        m.on_rx_start(1_000_000, 10, 1e-6, 1_352_000, &mut out);
        m.on_rx_end(1_352_000, 10, &rts, &mut out);
        let at = fire(&mut m, &mut out, MacTimer::Defer);
        assert_eq!(at, 1_362_000);
        assert!(transmitted(&out).is_empty(), "no CTS under the NAV");
        assert!(m.pkt_ctrl.is_none());
        assert_eq!((m.backoff.rtime, m.cw), (rtime, cw), "window not doubled");
        assert_eq!(m.timers[MacTimer::Backoff as usize].deadline(), resume);
        let at = fire(&mut m, &mut out, MacTimer::Backoff);
        assert_eq!(at, 5_304_000 + 50_000 + rtime);
        assert_eq!(transmitted(&out), vec![FrameKind::Rts]);
    }

    /// A CTS that cannot go out (someone else's NAV) must not strand the
    /// node's own pending RTS: before the fix, a backoff that had completed
    /// while the CTS waited left the RTS with no backoff and no timer, and
    /// the node never transmitted again (found on a 6-node TCP chain).
    #[test]
    fn a_dropped_cts_does_not_strand_a_pending_rts() {
        let mut m = mac(0, 0);
        let mut out = Vec::new();
        // The node's own RTS waits; its backoff has just completed while a
        // CTS for node 2 was pending; the medium is reserved by a NAV.
        m.pkt_rts = Some(Control::new(FrameKind::Rts, 1, 5_000_000));
        m.pkt_ctrl = Some(Control::new(FrameKind::Cts, 2, 2_000_000));
        m.backoff.busy = false;
        m.nav_until = 1_000_000;
        m.arm(MacTimer::Defer, 100, &mut out);
        fire(&mut m, &mut out, MacTimer::Defer);
        assert!(
            transmitted(&out).is_empty(),
            "no CTS into a reserved medium"
        );
        assert!(m.pkt_ctrl.is_none());
        // The RTS now backs off, paused until the NAV ends, when it
        // resumes: its end is DIFS and its slots after the NAV's …
        assert!(m.backoff.busy && m.backoff.paused && m.backoff.resumes);
        let end = 1_000_000 + 50_000 + m.backoff.rtime;
        assert_eq!(m.timers[MacTimer::Backoff as usize].deadline(), Some(end));
        // … then it goes out.
        let at = fire(&mut m, &mut out, MacTimer::Backoff);
        assert_eq!(at, end);
        assert_eq!(transmitted(&out), vec![FrameKind::Rts]);
    }

    /// `acts_on_overheard_end` is false exactly where an overheard end
    /// makes the MAC do nothing: without a backoff (a data frame waiting
    /// out its DIFS, an idle MAC), and true for a paused backoff that the
    /// end of the frame being received resumes.
    #[test]
    fn only_a_backoff_acts_on_an_overheard_end() {
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        assert!(!m.acts_on_overheard_end());
        // With nothing to send, a frame overheard acts on nothing.
        m.on_rx_start(1_000, 7, 1e-6, 40_000, &mut out);
        m.on_rx_end_overheard(40_000, 7, 3, 0, &mut out);
        assert!(out.is_empty(), "{out:?}");
        // Idle medium: the frame's backoff waits out DIFS plus slots,
        // counting down: it waits for its own timer.
        m.send(100_000, pkt(512), 1, &mut out);
        out.clear();
        assert!(m.backoff.busy && !m.backoff.paused && !m.armed(MacTimer::Defer));
        assert!(m.waits_for_own_timer() && !m.acts_on_overheard_end());
        // A backoff paused by a frame being received resumes at its end.
        let mut m = mac(0, 3000);
        m.on_rx_start(0, 1, 1e-6, 100_000, &mut out);
        m.send(10, pkt(512), 1, &mut out);
        out.clear();
        assert!(m.backoff.busy && m.backoff.paused);
        assert!(m.acts_on_overheard_end());
        m.on_rx_end_overheard(100_000, 1, 3, 0, &mut out);
        assert!(
            matches!(
                out[..],
                [MacAction::SetTimer {
                    timer: MacTimer::Backoff,
                    ..
                }]
            ),
            "{out:?}"
        );
        // Counting down, it waits for its own timer.
        assert!(!m.acts_on_overheard_end());
    }

    /// With phases (`[mac] tie_rule = "ns2"`), a backoff resumes where the
    /// medium turned idle within its nanosecond: at a frame's end, or at a
    /// NAV that expires later in the same nanosecond; what is counted from
    /// the present gets the present's phase.
    #[test]
    fn a_backoff_resumes_at_the_later_of_a_frames_end_and_the_navs_in_one_nanosecond() {
        let resumed_at = |nav_phase: Phase, end_phase: Phase| {
            let mut m = mac(0, 3000);
            let mut out = Vec::new();
            m.on_rx_start(0, 1, 1e-6, 100_000, &mut out);
            m.send(10, pkt(512), 1, &mut out);
            assert!(m.backoff.busy && m.backoff.paused);
            (m.nav_until, m.nav_phase) = (100_000, nav_phase);
            out.clear();
            m.set_phase(end_phase);
            m.on_rx_end_overheard(100_000, 1, 3, 0, &mut out);
            match out[..] {
                [MacAction::SetTimer {
                    timer: MacTimer::Backoff,
                    phase,
                    ..
                }] => phase,
                _ => panic!("{out:?}"),
            }
        };
        assert_eq!(resumed_at(900, 100), 900);
        assert_eq!(resumed_at(100, 900), 900);
        assert_eq!(resumed_at(PHASE_NEUTRAL, PHASE_NEUTRAL), PHASE_NEUTRAL);
        // A NAV that expired a nanosecond before counts for nothing.
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        m.on_rx_start(0, 1, 1e-6, 100_000, &mut out);
        m.send(10, pkt(512), 1, &mut out);
        (m.nav_until, m.nav_phase) = (99_999, 900);
        out.clear();
        m.set_phase(100);
        m.on_rx_end_overheard(100_000, 1, 3, 0, &mut out);
        assert!(
            matches!(out[..], [MacAction::SetTimer { phase: 100, .. }]),
            "{out:?}"
        );
    }

    /// After a frame too weak to decode, a waiting backoff counts from
    /// EIFS + DIFS after its end as in ns-2.35, from EIFS after it as the
    /// standard says (`[mac] eifs_rule`).
    #[test]
    fn a_backoff_counts_again_after_eifs_and_difs_or_after_eifs_by_the_rule() {
        use crate::mac::EifsRule;
        for (rule, wait) in [(EifsRule::Ns2, 414_000), (EifsRule::Standard, 364_000)] {
            let p = MacParams::from_scenario(&crate::scenario::Mac {
                eifs_rule: rule,
                rts_threshold_bytes: 3000,
                ..Default::default()
            });
            let mut m = Dcf::new(0, Rc::new(p), 10.0, 3.652e-10, Rng::new(1, Stream::Test, 0));
            let mut out = Vec::new();
            m.on_rx_start(0, 1, 1e-10, 100_000, &mut out);
            m.send(10, pkt(512), 1, &mut out);
            assert!(m.backoff.busy && m.backoff.paused);
            out.clear();
            m.on_rx_end_overheard(100_000, 1, 3, 0, &mut out);
            let rtime = m.backoff.rtime;
            match out[..] {
                [MacAction::SetTimer {
                    timer: MacTimer::Backoff,
                    at,
                    ..
                }] => assert_eq!(at, 100_000 + wait + rtime, "{rule:?}"),
                _ => panic!("{rule:?}: {out:?}"),
            }
        }
    }

    /// What an overheard frame's end leaves of the NAV is never less than
    /// [`least_nav_after`], which the world waits out before a paused
    /// backoff's `Sync`.
    #[test]
    fn an_overheard_end_reserves_the_medium_at_least_as_long_as_least_nav_after() {
        const STRONG: f64 = 1e-8;
        const WEAK: f64 = 1e-10; // below the receive threshold (3.652e-10 W)
        let eifs = MacParams::default().eifs_ns;
        assert_eq!(eifs, 364_000);
        let mut out = Vec::new();
        // Heard alone: the NAV runs the frame's duration (EIFS when it
        // fails), never less than the least.
        for (power_w, duration_ns, ra, least, nav) in [
            (WEAK, 5_000_000, 7, eifs, eifs),
            (WEAK, 0, BROADCAST, eifs, eifs),
            (STRONG, 5_000_000, 7, eifs, 5_000_000),
            (STRONG, 44_000, 7, 44_000, 44_000),
            (STRONG, 0, BROADCAST, 0, 0),
        ] {
            let mut m = mac(4, 0);
            m.on_rx_start(1_000, 9, power_w, 400_000, &mut out);
            m.on_rx_end_overheard(400_000, 9, ra, duration_ns, &mut out);
            assert_eq!(m.least_nav_after(power_w, duration_ns), least);
            assert_eq!(m.nav_until, 400_000 + nav, "{power_w} {duration_ns}");
        }
        // Two strong frames collide: the later end fails, EIFS, which is
        // at least the least for either frame.
        let mut m = mac(4, 0);
        m.on_rx_start(1_000, 9, STRONG, 400_000, &mut out);
        m.on_rx_start(2_000, 10, STRONG, 500_000, &mut out);
        m.on_rx_end_overheard(400_000, 9, 7, 5_000_000, &mut out);
        assert_eq!(
            m.nav_until, 0,
            "the frame lost in the collision ends with no effect"
        );
        m.on_rx_end_overheard(500_000, 10, 7, 5_000_000, &mut out);
        assert_eq!(m.nav_until, 500_000 + eifs);
        assert!(eifs >= m.least_nav_after(STRONG, 5_000_000));
        // A weak frame captured by a strong one: its end does nothing, and
        // the capture kept the medium reserved EIFS past it already.
        let mut m = mac(4, 0);
        m.on_rx_start(1_000, 9, STRONG, 900_000, &mut out);
        m.on_rx_start(2_000, 10, WEAK, 300_000, &mut out);
        assert_eq!(m.nav_until, 300_000 + eifs);
        m.on_rx_end_overheard(300_000, 10, 7, 0, &mut out);
        m.on_rx_end_overheard(900_000, 9, 7, 44_000, &mut out);
        assert_eq!(m.nav_until, 900_000 + 44_000);
    }

    /// A paused backoff resumed at an overheard end expires no sooner than
    /// its slack (DIFS and its frozen slots) after it, whatever follows.
    #[test]
    fn a_paused_backoff_acts_no_sooner_than_its_slack_after_an_overheard_end() {
        let (difs, slot) = (50_000, 20_000);
        let mut out = Vec::new();
        let deadline = |m: &Dcf| m.timers[MacTimer::Backoff as usize].deadline();
        let mut m = mac(0, 3000);
        // A frame is arriving as the packet comes: the backoff starts paused.
        m.on_rx_start(0, 9, 1e-6, 400_000, &mut out);
        m.send(10_000, pkt(512), 1, &mut out);
        assert!(m.backoff.paused && m.acts_on_overheard_end());
        let r = m.backoff.rtime;
        assert_eq!(m.overheard_end_slack(), difs + r);

        // The medium stays idle after the end: the backoff ends exactly
        // the slack after it.
        let mut a = m.clone();
        a.on_rx_end_overheard(400_000, 9, 5, 0, &mut out);
        // Counting down, it waits for its own timer: no slack.
        assert!(!a.backoff.paused && a.overheard_end_slack() == 0);
        assert_eq!(deadline(&a), Some(400_000 + difs + r));

        // A frame starting in between pauses it again, with what it
        // counted taken off; its end leaves the new slack, and the
        // backoff's end still comes later than the first end's slack.
        for gap in [0, difs - 1, difs + slot + 1, difs + 3 * slot + 7] {
            let mut b = m.clone();
            b.on_rx_end_overheard(400_000, 9, 5, 0, &mut out);
            b.on_rx_start(400_000 + gap, 10, 1e-6, 900_000, &mut out);
            assert!(b.backoff.paused);
            let counted = gap.saturating_sub(difs) / slot * slot;
            assert_eq!(b.overheard_end_slack(), difs + r.saturating_sub(counted));
            b.on_rx_end_overheard(900_000, 10, 5, 0, &mut out);
            let end = deadline(&b).expect("resumed");
            assert_eq!(end, 900_000 + difs + r.saturating_sub(counted));
            assert!(end > 400_000 + difs + r);
        }
    }

    /// A backoff that only the NAV holds resumes as the NAV expires, with
    /// no event there: its timer is armed at once to the end it will have,
    /// and the states in between are those the NAV timer of ns-2 gives.
    #[test]
    fn a_backoff_held_by_the_nav_resumes_as_it_expires_without_an_event() {
        const NAV: SimTime = 1_000_000;
        let (difs, slot) = (50_000, 20_000);
        let mut out = Vec::new();
        let deadline = |m: &Dcf| m.timers[MacTimer::Backoff as usize].deadline();
        let mut m = mac(0, 3000);
        m.nav_until = NAV;
        m.send(0, pkt(512), 1, &mut out);
        assert!(m.backoff.paused && m.backoff.resumes);
        assert!(m.waits_for_own_timer() && !m.acts_on_overheard_end());
        let r = m.backoff.rtime;
        assert_eq!(deadline(&m), Some(NAV + difs + r));

        // A frame arriving before the expiry calls the resumption off; its
        // end, still under the NAV, plans it again, to the same end.
        let mut a = m.clone();
        a.on_rx_start(500_000, 9, 1e-6, 600_000, &mut out);
        assert!(!a.backoff.resumes && deadline(&a).is_none());
        a.on_rx_end_overheard(600_000, 9, 5, 0, &mut out);
        assert!(a.backoff.paused && a.backoff.resumes);
        assert_eq!(deadline(&a), Some(NAV + difs + r));

        // One that ends after the expiry: the backoff resumes at its end.
        let mut b = m.clone();
        b.on_rx_start(900_000, 9, 1e-6, 1_200_000, &mut out);
        b.on_rx_end_overheard(1_200_000, 9, 5, 0, &mut out);
        assert!(!b.backoff.paused);
        assert_eq!(deadline(&b), Some(1_200_000 + difs + r));

        // One that starts DIFS and two slots after the expiry: two slots
        // were counted down.
        if r >= 3 * slot {
            let mut c = m.clone();
            c.on_rx_start(
                NAV + difs + 2 * slot + 5_000,
                9,
                1e-6,
                NAV + 900_000,
                &mut out,
            );
            assert!(c.backoff.paused && !c.backoff.resumes);
            assert_eq!(c.backoff.rtime, r - 2 * slot);
            assert!(deadline(&c).is_none());
        }

        // At the expiry's instant, a reception's end comes before it (the
        // plan stands) and a start after it (resumed, then paused at once
        // with no slot counted).
        let mut d = m.clone();
        d.on_rx_end_overheard(NAV, 77, 5, 0, &mut out);
        assert!(d.backoff.resumes && deadline(&d) == Some(NAV + difs + r));
        d.on_rx_start(NAV, 9, 1e-6, NAV + 300_000, &mut out);
        assert!(d.backoff.paused && !d.backoff.resumes && d.backoff.rtime == r);

        // Nothing arrives: the timer fires where it was armed and sends.
        let at = fire(&mut m, &mut out, MacTimer::Backoff);
        assert_eq!(at, NAV + difs + r);
        assert_eq!(transmitted(&out), vec![FrameKind::Data]);
    }

    #[test]
    fn backoff_freezes_while_busy_and_keeps_remaining_slots() {
        let mut m = mac(0, 3000);
        let mut out = Vec::new();
        // Busy medium: send() starts a paused backoff.
        m.on_rx_start(0, 1, 1e-6, 100_000, &mut out);
        m.send(10, pkt(1028), 1, &mut out);
        assert!(m.backoff.busy && m.backoff.paused);
        let initial = m.backoff.rtime;
        let f = Frame::control(FrameKind::Ack, 5, 6, 0);
        m.on_rx_end(100_000, 1, &f, &mut out);
        assert!(!m.backoff.paused);
        // Busy again after DIFS + 2 slots: two slots consumed.
        if initial >= 3 * 20_000 {
            m.on_rx_start(
                100_000 + 50_000 + 2 * 20_000 + 5_000,
                2,
                1e-6,
                1_000_000,
                &mut out,
            );
            assert!(m.backoff.paused);
            assert_eq!(m.backoff.rtime, initial - 2 * 20_000);
        }
    }
}
