//! The lines ns-2.35's DSR writes into its trace about flow state, so that
//! manetsim's ns-2 trace carries them too (`RoutingAction::Note`, only when
//! the run writes a trace). Their layout is ns-2.35's `dsragent.cc`'s; the
//! tools that read ns-2's traces (`manetsim crosscheck` among them) then
//! read both alike.
//!
//! | line | written when |
//! |---|---|
//! | `SFESTs t _n_ uid [src -> dst] id(1) to next [src \|a b … dst ]` | a source sends a packet that carries its flow's route |
//! | `SFs t _n_ uid [src -> dst] id(h) to next ` | a source sends a packet by flow, `h` 1 with the flow header, 0 without |
//! | `SFf t _n_ uid [src -> dst] id to next` | a relay forwards a packet by its flow table |
//! | `SFErr t _n_ src -> dst : id` | a relay does not know the flow (`id` 0: the default flow) |
//! | `SFEr t _n_ from relay re dst : id [count]` | a source hears so (`id` -1: the default flow; `count` after the error, -1: no flow found) |

use crate::engine::SimTime;
use crate::net::NodeId;
use crate::trace::ns2::seconds;
use std::fmt::Write as _;

/// `SFESTs`: `route` is the flow's whole route, source first.
pub(super) fn established(
    now: SimTime,
    me: NodeId,
    uid: u64,
    dst: NodeId,
    id: u16,
    next: NodeId,
    route: &[NodeId],
) -> String {
    let mut line = format!(
        "SFESTs {} _{me}_ {uid} [{me} -> {dst}] {id}(1) to {next} [",
        seconds(now, 9)
    );
    // ns-2's header dump marks the next node to visit with `|`.
    for (i, node) in route.iter().enumerate() {
        if i == 1 {
            line.push('|');
        }
        let _ = write!(line, "{node} ");
    }
    line.push(']');
    line
}

/// `SFs`: a packet sent by flow, with the flow header or (`header` false)
/// without one, on the default flow.
pub(super) fn sent(
    now: SimTime,
    me: NodeId,
    uid: u64,
    dst: NodeId,
    id: u16,
    header: bool,
    next: NodeId,
) -> String {
    format!(
        "SFs {} _{me}_ {uid} [{me} -> {dst}] {id}({}) to {next} ",
        seconds(now, 9),
        u8::from(header)
    )
}

/// `SFf`: a relay forwards a packet of `src -> dst` by flow `id`.
pub(super) fn forwarded(
    now: SimTime,
    me: NodeId,
    uid: u64,
    src: NodeId,
    dst: NodeId,
    id: u16,
    next: NodeId,
) -> String {
    format!(
        "SFf {} _{me}_ {uid} [{src} -> {dst}] {id} to {next}",
        seconds(now, 9)
    )
}

/// `SFErr`: this relay does not know flow `id` of `src -> dst` (`None`:
/// the default flow, which ns-2 writes as 0).
pub(super) fn unknown(
    now: SimTime,
    me: NodeId,
    src: NodeId,
    dst: NodeId,
    id: Option<u16>,
) -> String {
    format!(
        "SFErr {} _{me}_ {src} -> {dst} : {}",
        seconds(now, 5),
        id.unwrap_or(0)
    )
}

/// `SFEr`: this source hears from `relay` that it does not know flow `id`
/// to `dst` (`None`: the default flow); `count` is the flow's count after
/// the error (`None`: no flow was found).
pub(super) fn heard(
    now: SimTime,
    me: NodeId,
    relay: NodeId,
    dst: NodeId,
    id: Option<u16>,
    count: Option<u32>,
) -> String {
    let id = id.map_or(-1, i64::from);
    let count = count.map_or(-1, i64::from);
    format!(
        "SFEr {} _{me}_ from {relay} re {dst} : {id} [{count}]",
        seconds(now, 9)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines as ns-2.35 wrote them on rwp50's seed 1 (`ns2.tr`).
    #[test]
    fn lines_are_laid_out_as_ns2_lays_them_out() {
        assert_eq!(
            established(
                34_347_906_644,
                14,
                15652,
                43,
                39,
                9,
                &[14, 9, 12, 10, 33, 20, 46, 43]
            ),
            "SFESTs 34.347906644 _14_ 15652 [14 -> 43] 39(1) to 9 [14 |9 12 10 33 20 46 43 ]"
        );
        assert_eq!(
            established(2_902_621_637, 31, 0, 17, 1, 17, &[31, 17]),
            "SFESTs 2.902621637 _31_ 0 [31 -> 17] 1(1) to 17 [31 |17 ]"
        );
        assert_eq!(
            sent(34_347_906_644, 14, 16082, 43, 39, false, 9),
            "SFs 34.347906644 _14_ 16082 [14 -> 43] 39(0) to 9 "
        );
        assert_eq!(
            forwarded(5_542_734_015, 41, 969, 15, 44, 3, 8),
            "SFf 5.542734015 _41_ 969 [15 -> 44] 3 to 8"
        );
        assert_eq!(
            unknown(34_593_870_506, 12, 14, 43, None),
            "SFErr 34.59387 _12_ 14 -> 43 : 0"
        );
        assert_eq!(
            heard(35_555_551_184, 14, 12, 43, None, None),
            "SFEr 35.555551184 _14_ from 12 re 43 : -1 [-1]"
        );
        assert_eq!(
            heard(1_000_000_000, 0, 2, 5, Some(165), Some(0)),
            "SFEr 1.000000000 _0_ from 2 re 5 : 165 [0]"
        );
    }
}
