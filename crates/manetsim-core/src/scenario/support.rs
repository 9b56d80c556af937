//! Features the scenario format describes but the simulator does not run yet.
//!
//! [`NOT_YET_SUPPORTED`] (with [`crate::mac::MacStandard::ALL`]) is the one place that says
//! what is refused. When a feature lands, delete its line; validation then lets
//! it through, the "supported" lists in the messages grow by themselves, and
//! `docs/scenario.md` must drop it (a test checks the doc lists every entry).

use super::error::ScenarioError;
use super::schema::*;
use super::validate::name_of;

/// A feature the schema accepts but a run cannot use yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feature {
    Routing(RoutingProtocol),
    Mobility(MobilityModel),
    Transport(Transport),
    App(AppKind),
    /// Any `[energy]` table.
    Energy,
    /// Any `[[loss]]` entry.
    Loss,
    /// `output.pcap = true`.
    Pcap,
    /// `output.ns2_trace = true`.
    Ns2Trace,
}

/// What a scenario may not use yet. Remove a line when its feature lands.
pub(crate) const NOT_YET_SUPPORTED: &[Feature] = &[];

const ALL_ROUTING: [RoutingProtocol; 6] = [
    RoutingProtocol::Static,
    RoutingProtocol::Aodv,
    RoutingProtocol::Dsr,
    RoutingProtocol::Aomdv,
    RoutingProtocol::Dsdv,
    RoutingProtocol::Olsr,
];
const ALL_MOBILITY: [MobilityModel; 10] = [
    MobilityModel::Static,
    MobilityModel::RandomWaypoint,
    MobilityModel::Waypoints,
    MobilityModel::Ns2,
    MobilityModel::Bonnmotion,
    MobilityModel::RandomDirection,
    MobilityModel::RandomWalk,
    MobilityModel::GaussMarkov,
    MobilityModel::Rpgm,
    MobilityModel::Manhattan,
];
const ALL_TRANSPORTS: [Transport; 4] = [
    Transport::Udp,
    Transport::Tcp,
    Transport::Tfrc,
    Transport::Sctp,
];
const ALL_APPS: [AppKind; 3] = [AppKind::Cbr, AppKind::Ftp, AppKind::Onoff];

/// Fails to compile when a schema enum gains a variant, so the lists above
/// are updated with it.
#[allow(dead_code)]
fn all_lists_are_complete(r: RoutingProtocol, m: MobilityModel, t: Transport, a: AppKind) {
    use AppKind as A;
    use MobilityModel as M;
    use RoutingProtocol as R;
    use Transport as T;
    match r {
        R::Static | R::Aodv | R::Dsr | R::Aomdv | R::Dsdv | R::Olsr => {}
    }
    match m {
        M::Static
        | M::RandomWaypoint
        | M::Waypoints
        | M::Ns2
        | M::Bonnmotion
        | M::RandomDirection
        | M::RandomWalk
        | M::GaussMarkov
        | M::Rpgm
        | M::Manhattan => {}
    }
    match t {
        T::Udp | T::Tcp | T::Tfrc | T::Sctp => {}
    }
    match a {
        A::Cbr | A::Ftp | A::Onoff => {}
    }
}

fn refused(f: Feature) -> bool {
    NOT_YET_SUPPORTED.contains(&f)
}

/// `"a", "b"` for the values of `all` that `feature` does not refuse.
fn supported<T: Copy + serde::Serialize + std::fmt::Debug>(
    all: &[T],
    feature: impl Fn(T) -> Feature,
) -> String {
    let names: Vec<String> = all
        .iter()
        .filter(|v| !refused(feature(**v)))
        .map(|v| format!("\"{}\"", name_of(v)))
        .collect();
    if names.is_empty() {
        "none yet".to_string()
    } else {
        names.join(", ")
    }
}

/// Human-readable entries, one per refused feature, e.g.
/// `routing.protocol = "aodv"` or `[energy]`. `docs/scenario.md` lists each.
pub fn not_yet_supported() -> Vec<String> {
    let mut out: Vec<String> = NOT_YET_SUPPORTED
        .iter()
        .map(|f| match f {
            Feature::Routing(p) => format!("routing.protocol = \"{}\"", name_of(p)),
            Feature::Mobility(m) => format!("mobility.model = \"{}\"", name_of(m)),
            Feature::Transport(t) => format!("flows.transport = \"{}\"", name_of(t)),
            Feature::App(a) => format!("flows.app = \"{}\"", name_of(a)),
            Feature::Energy => "[energy]".to_string(),
            Feature::Loss => "[[loss]]".to_string(),
            Feature::Pcap => "output.pcap = true".to_string(),
            Feature::Ns2Trace => "output.ns2_trace = true".to_string(),
        })
        .collect();
    out.push(format!(
        "mac.standard other than {}",
        crate::mac::MacStandard::ALL
            .iter()
            .map(|s| format!("\"{}\"", s.name()))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out
}

/// Refuses the first feature `s` uses that is not yet supported.
pub(crate) fn check(s: &Scenario, file: &str) -> Result<(), ScenarioError> {
    let fail = |key: String, msg: String| Err(ScenarioError::at_key(file, key, msg));

    let p = s.routing.protocol;
    if refused(Feature::Routing(p)) {
        let default = if p == Routing::default().protocol {
            " (it is the default when [routing] has no protocol)"
        } else {
            ""
        };
        return fail(
            "routing.protocol".into(),
            format!(
                "routing protocol \"{}\"{default} is not yet supported; supported: {}. Set routing.protocol = \"static\" for now (or `--set routing.protocol=static`)",
                name_of(&p),
                supported(&ALL_ROUTING, Feature::Routing)
            ),
        );
    }
    let m = s.mobility.model;
    if refused(Feature::Mobility(m)) {
        return fail(
            "mobility.model".into(),
            format!(
                "mobility model \"{}\" is not yet supported; supported: {}",
                name_of(&m),
                supported(&ALL_MOBILITY, Feature::Mobility)
            ),
        );
    }
    if crate::mac::MacStandard::parse(&s.mac.standard).is_none() {
        return fail(
            "mac.standard".into(),
            format!(
                "MAC standard \"{}\" is not yet supported; supported: {}",
                s.mac.standard,
                crate::mac::MacStandard::ALL
                    .iter()
                    .map(|s| format!("\"{}\" ({})", s.name(), s.describe()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    for (i, f) in s.flows.iter().enumerate() {
        if refused(Feature::Transport(f.transport)) {
            return fail(
                format!("flows[{i}].transport"),
                format!(
                    "transport \"{}\" is not yet supported; supported: {}",
                    name_of(&f.transport),
                    supported(&ALL_TRANSPORTS, Feature::Transport)
                ),
            );
        }
        if refused(Feature::App(f.app)) {
            return fail(
                format!("flows[{i}].app"),
                format!(
                    "app \"{}\" is not yet supported; supported: {}",
                    name_of(&f.app),
                    supported(&ALL_APPS, Feature::App)
                ),
            );
        }
    }
    if s.energy.is_some() && refused(Feature::Energy) {
        return fail(
            "energy".into(),
            "the energy model ([energy]) is not yet supported; remove the [energy] table".into(),
        );
    }
    if !s.loss.is_empty() && refused(Feature::Loss) {
        return fail(
            "loss[0]".into(),
            "injected packet loss ([[loss]]) is not yet supported; remove the [[loss]] tables"
                .into(),
        );
    }
    if s.output.pcap && refused(Feature::Pcap) {
        return fail(
            "output.pcap".into(),
            "pcap output is not yet supported; set output.pcap = false".into(),
        );
    }
    if s.output.ns2_trace && refused(Feature::Ns2Trace) {
        return fail(
            "output.ns2_trace".into(),
            "ns-2 trace output is not yet supported; set output.ns2_trace = false".into(),
        );
    }
    Ok(())
}
