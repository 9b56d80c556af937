//! Loader tests: parsing, overrides, error locations, round trips and the
//! bad-scenario corpus in `tests/bad_scenarios/`.

use super::*;
use std::path::PathBuf;

/// A small valid scenario; the line numbers below depend on its layout.
pub(crate) const BASE: &str = r#"name = "base"
duration_s = 100.0
seed = 7

[area]
width_m = 1000.0
height_m = 500.0

[nodes]
count = 4
placement = "chain"
spacing_m = 200.0

[routing]
protocol = "static"

[[flows]]
src = 0
dst = 3
start_s = 1.0
packet_size_bytes = 512
rate_bps = 10000.0
"#;

fn load(text: &str) -> Result<Scenario, ScenarioError> {
    load_str(text, "dir/test.toml", &[])
}

fn load_with(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let ovs = sets
        .iter()
        .map(|a| parse_override(a))
        .collect::<Result<Vec<_>, _>>()?;
    load_str(text, "dir/test.toml", &ovs)
}

fn err(r: Result<Scenario, ScenarioError>) -> ScenarioError {
    match r {
        Ok(s) => panic!("expected an error, loaded {s:?}"),
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "multi-line error: {e}");
            e
        }
    }
}

#[test]
fn base_loads_and_resolves_defaults() {
    let s = load(BASE).unwrap();
    assert_eq!(s.name, "base");
    assert_eq!(s.seed, 7);
    assert_eq!(s.nodes.count, 4);
    assert_eq!(s.flows[0].stop_s, Some(100.0));
    assert_eq!(s.flows[0].rate_bps, Some(10000.0));
    assert_eq!(s.radio, Radio::default());
    assert_eq!(s.mac, Mac::default());
}

#[test]
fn empty_name_becomes_the_file_stem() {
    let text = BASE.replace("name = \"base\"\n", "");
    assert_eq!(
        load_str(&text, "a/b/chain-6.toml", &[]).unwrap().name,
        "chain-6"
    );
    let text = BASE.replace("name = \"base\"", "name = \"\"");
    assert_eq!(load_str(&text, "x.toml", &[]).unwrap().name, "x");
}

#[test]
fn flow_defaults_are_filled_in() {
    let text = BASE.replace("rate_bps = 10000.0\n", "");
    let s = load(&text).unwrap();
    assert_eq!(s.flows[0].rate_bps, Some(DEFAULT_CBR_RATE_BPS));
    assert_eq!(s.flows[0].interval_s, None);
    let text = BASE.replace("rate_bps = 10000.0", "interval_s = 0.25");
    let s = load(&text).unwrap();
    assert_eq!(
        (s.flows[0].rate_bps, s.flows[0].interval_s),
        (None, Some(0.25))
    );
    let text = BASE.replace("start_s = 1.0", "start_s = 1.0\nstop_s = 50.0");
    assert_eq!(load(&text).unwrap().flows[0].stop_s, Some(50.0));
}

#[test]
fn count_defaults_to_grid_size_or_number_of_positions() {
    let text = BASE.replace("count = 4\n", "").replace(
        "placement = \"chain\"",
        "placement = \"grid\"\nrows = 2\ncols = 3",
    );
    assert_eq!(load(&text).unwrap().nodes.count, 6);
    let text = BASE.replace("count = 4\n", "").replace(
        "placement = \"chain\"",
        "placement = \"explicit\"\npositions = [[0.0, 0.0], [10.0, 0.0], [20.0, 0.0], [30.0, 5.0], [40.0, 5.0]]",
    );
    assert_eq!(load(&text).unwrap().nodes.count, 5);
}

// ---------------------------------------------------------------- round trip

#[test]
fn show_config_round_trips_to_an_equal_scenario() {
    let variants = [
        BASE.to_string(),
        BASE.replace("name = \"base\"\n", "")
            .replace("rate_bps = 10000.0\n", ""),
        BASE.replace("count = 4\n", "")
            .replace("placement = \"chain\"", "placement = \"grid\"\nrows = 2\ncols = 2"),
        BASE.replace(
            "placement = \"chain\"",
            "placement = \"explicit\"\npositions = [[0.0, 0.0], [0.1, 1e-7], [333.3333333333333, 0.0], [1000.0, 500.0]]",
        ),
        BASE.replace(
            "[routing]",
            "[radio]\npropagation = \"shadowing\"\nrx_threshold_w = 1.234567e-10\n\
             shadowing_std_db = 7.5\npath_loss_exponent = 2.7\n\
             [mac]\nqueue_packets = 7\nrts_threshold_bytes = 3000\n[output]\n[routing]",
        ),
        BASE.replace("rate_bps = 10000.0", "interval_s = 0.01\nstart_jitter_s = 0.5"),
        BASE.split("[[flows]]").next().unwrap_or_default().to_string(),
    ];
    for text in &variants {
        let s = load_str(text, "rt.toml", &[]).unwrap();
        let shown = to_toml_string(&s);
        let again = load_str(&shown, "elsewhere.toml", &[])
            .unwrap_or_else(|e| panic!("{e}\n--- shown:\n{shown}"));
        assert_eq!(s, again, "--- shown:\n{shown}");
        // And it is a fixed point.
        assert_eq!(shown, to_toml_string(&again));
    }
}

#[test]
fn show_config_writes_every_key() {
    let shown = to_toml_string(&load(BASE).unwrap());
    assert!(shown.ends_with("\n"), "{shown:?}");
    assert!(!shown.contains("loss = []"), "{shown}");
    for needle in [
        "name = \"base\"",
        "duration_s = 100.0",
        "seed = 7",
        "[area]",
        "[nodes]",
        "[mobility]",
        "max_speed_mps = 20.0",
        "[radio]",
        "rx_threshold_w = 3.652e-10",
        "cs_threshold_w = 1.559e-11",
        "frequency_hz = 914000000.0",
        "system_loss = 1.0",
        "[mac]",
        "standard = \"802.11\"",
        "queue_packets = 50",
        "[routing]",
        "protocol = \"static\"",
        "[[flows]]",
        "stop_s = 100.0",
        "start_jitter_s = 0.0",
        "[output]",
        "pcap = false",
    ] {
        assert!(shown.contains(needle), "missing {needle:?} in\n{shown}");
    }
}

#[test]
fn every_optional_table_round_trips_through_toml() {
    // Structure only (these features are refused by validation today).
    let text = r#"
        [nodes]
        count = 3
        placement = "grid"
        rows = 1
        cols = 3
        [mobility]
        model = "waypoints"
        file = "m.tcl"
        [[mobility.moves]]
        node = 2
        at_s = 50.0
        to = [600.0, 150.0]
        speed_mps = 10.0
        [[flows]]
        src = 0
        dst = 2
        transport = "tcp"
        app = "ftp"
        [flows.tcp]
        variant = "tcp_ap"
        window_packets = 32
        delayed_ack = true
        handshake = false
        [energy]
        initial_j = 5.0
        idle_w = 0.01
        [[loss]]
        node = 1
        model = "gilbert_elliott"
        rate = 0.05
        packets = "all"
        where = "before_mac"
        [output]
        pcap = true
        ns2_trace = true
    "#;
    let s: Scenario = toml::from_str(text).unwrap();
    let shown = to_toml_string(&s);
    let again: Scenario = toml::from_str(&shown).unwrap();
    assert_eq!(s, again, "{shown}");
    assert!(shown.contains("where = \"before_mac\""), "{shown}");
}

// ---------------------------------------------------------- file errors

#[test]
fn syntax_errors_name_the_line() {
    let text = BASE.replace("seed = 7", "seed = = 7");
    let e = err(load(&text));
    assert_eq!(
        (e.file.as_str(), e.line, e.key.as_deref()),
        ("dir/test.toml", Some(3), None)
    );
    assert!(e.message.starts_with("TOML syntax error"), "{e}");
    let e = err(load(&format!("{BASE}\n[nodes]\ncount = 3\n")));
    assert!(e.message.contains("duplicate key"), "{e}");
}

#[test]
fn unknown_keys_name_the_key_path_and_line() {
    let e = err(load(&BASE.replace("seed = 7", "sed = 7")));
    assert_eq!(e.key.as_deref(), Some("sed"));
    assert_eq!(e.line, Some(3));
    assert!(e.message.contains("unknown key `sed`"), "{e}");
    assert!(e.message.contains("`seed`"), "lists the accepted keys: {e}");

    let e = err(load(&BASE.replace("spacing_m = 200.0", "spacing = 200.0")));
    assert_eq!(e.key.as_deref(), Some("nodes.spacing"));
    assert_eq!(e.line, Some(12));
    assert_eq!(
        e.to_string(),
        "dir/test.toml:12: key `nodes.spacing`: unknown key `spacing`, expected one of \
         `count`, `placement`, `spacing_m`, `rows`, `cols`, `positions`"
    );

    let text = format!("{BASE}[[flows]]\nsrc = 1\ndst = 2\n[flows.tcp]\nvarient = \"vegas\"\n");
    let e = err(load(&text));
    assert_eq!(e.key.as_deref(), Some("flows[1].tcp.varient"));
    assert_eq!(e.line, Some(27));
}

#[test]
fn unknown_enum_values_list_the_accepted_names() {
    let text = format!(
        "{BASE}[[flows]]\nsrc = 1\ndst = 2\ntransport = \"tcp\"\n[flows.tcp]\nvariant = \"vegs\"\n"
    );
    let e = err(load(&text));
    assert_eq!(e.key.as_deref(), Some("flows[1].tcp.variant"));
    assert_eq!(e.line, Some(28));
    assert!(e.message.contains("unknown value `vegs`"), "{e}");
    assert!(
        e.message.contains("`newreno`") && e.message.contains("`tcp_ap`"),
        "{e}"
    );

    let e = err(load(&BASE.replace("\"static\"\n\n", "\"stattic\"\n\n")));
    assert_eq!(e.key.as_deref(), Some("routing.protocol"));
    assert!(
        e.message.contains("expected one of `static`, `aodv`"),
        "{e}"
    );
}

#[test]
fn wrong_types_say_what_was_expected() {
    let e = err(load(
        &BASE.replace("duration_s = 100.0", "duration_s = \"long\""),
    ));
    assert_eq!(e.key.as_deref(), Some("duration_s"));
    assert_eq!(e.line, Some(2));
    assert_eq!(e.message, "expected a number, got string \"long\"");

    let e = err(load(&BASE.replace("count = 4", "count = 4.5")));
    assert_eq!(e.key.as_deref(), Some("nodes.count"));
    assert!(
        e.message
            .starts_with("expected an integer in 0..=4294967295"),
        "{e}"
    );

    let e = err(load(&BASE.replace("count = 4", "count = -4")));
    assert!(e.message.contains("got integer `-4`"), "{e}");

    let e = err(load(
        &BASE.replace("[area]", "[output]\npcap = \"yes\"\n[area]"),
    ));
    assert_eq!(e.key.as_deref(), Some("output.pcap"));
    assert!(e.message.contains("expected a boolean"), "{e}");

    let e = err(load(&BASE.replace("[area]", "area = 5\n[nodes2]")));
    assert_eq!(e.key.as_deref(), Some("area"));
    assert_eq!(e.message, "expected a table, got integer `5`");
    let e = err(load(&BASE.replace("[[flows]]", "[flows]")));
    assert_eq!(e.message, "expected an array, got a table");

    let text = BASE.replace(
        "placement = \"chain\"",
        "placement = \"explicit\"\npositions = [[0.0, 0.0, 1.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]",
    );
    let e = err(load(&text));
    assert_eq!(e.key.as_deref(), Some("nodes.positions[0]"));
    assert_eq!(
        e.message,
        "expected an [x, y] pair, got an array of length 3"
    );
}

#[test]
fn missing_required_keys_name_the_table() {
    let e = err(load(&BASE.replace("dst = 3\n", "")));
    assert_eq!(e.key.as_deref(), Some("flows[0]"));
    assert_eq!(e.line, Some(17));
    assert_eq!(e.message, "missing required key `dst`");
}

#[test]
fn validation_errors_carry_the_line_of_their_key() {
    let e = err(load(&BASE.replace("dst = 3", "dst = 9")));
    assert_eq!(
        e.to_string(),
        "dir/test.toml:19: key `flows[0].dst`: node 9 does not exist (nodes.count = 4)"
    );
    // A key not written in the file has no line of its own: its table's line.
    let e = err(load(
        &BASE.replace("spacing_m = 200.0", "spacing_m = 400.0"),
    ));
    assert_eq!(e.key.as_deref(), Some("area.width_m"));
    assert_eq!(e.line, Some(6));
}

#[test]
fn missing_routing_defaults_to_aodv() {
    let s = load(&BASE.replace("[routing]\nprotocol = \"static\"\n", "")).unwrap();
    assert_eq!(s.routing.protocol, RoutingProtocol::Aodv);
}

#[test]
fn unreadable_file_is_an_error_not_a_panic() {
    let e = load_file(Path::new("/nonexistent/dir/x.toml"), &[]).unwrap_err();
    assert_eq!(e.file, "/nonexistent/dir/x.toml");
    assert!(
        e.message.starts_with("cannot read the scenario file"),
        "{e}"
    );
}

// ---------------------------------------------------------- overrides

#[test]
fn overrides_of_each_value_form() {
    let s = load_with(
        BASE,
        &[
            "nodes.count=5",    // integer
            "duration_s=250.5", // float
            "duration_s=250",   // integer where a float is expected
            "seed=42",          // the CLI's --seed
            "name=renamed",     // bare string
            "flows.0.packet_size_bytes=1000",
            "flows[0].dst=4",                  // bracketed index
            "radio.propagation=free_space",    // enum name, bare
            "radio.propagation=\"shadowing\"", // enum name, quoted
            "mac.standard=802.11",             // float-looking string
            "area.width_m=2e3",
            "output.pcap=false", // bool
        ],
    )
    .unwrap();
    assert_eq!(s.nodes.count, 5);
    assert_eq!(s.duration_s, 250.0);
    assert_eq!(s.seed, 42);
    assert_eq!(s.name, "renamed");
    assert_eq!(s.flows[0].packet_size_bytes, 1000);
    assert_eq!(s.flows[0].dst, 4);
    assert_eq!(s.flows[0].stop_s, Some(250.0));
    assert_eq!(s.radio.propagation, Propagation::Shadowing);
    assert_eq!(s.mac.standard, "802.11");
    assert_eq!(s.area.width_m, 2000.0);

    let s = load_with(
        BASE,
        &[
            "nodes.placement=explicit",
            "nodes.positions=[[0,0],[1,1],[2,2],[3,3]]", // array
        ],
    )
    .unwrap();
    assert_eq!(s.nodes.positions.as_ref().map(Vec::len), Some(4));

    let s = load_with(BASE, &["flows=[{src = 2, dst = 1}]"]).unwrap();
    assert_eq!((s.flows[0].src, s.flows[0].dst), (2, 1));
}

#[test]
fn mac_frames_and_backoff_draw_take_standard_or_ns2() {
    use crate::mac::{BackoffDraw, FrameSizes};
    let s = load_with(BASE, &[]).unwrap();
    assert_eq!(
        (s.mac.frames, s.mac.backoff_draw),
        (FrameSizes::Standard, BackoffDraw::Standard)
    );
    let s = load_with(BASE, &["mac.frames=ns2", "mac.backoff_draw=ns2"]).unwrap();
    assert_eq!(
        (s.mac.frames, s.mac.backoff_draw),
        (FrameSizes::Ns2, BackoffDraw::Ns2)
    );
    let s = load_with(BASE, &["mac.frames=llc_snap"]).unwrap();
    assert_eq!(s.mac.frames, FrameSizes::LlcSnap);
    for key in ["mac.frames", "mac.backoff_draw"] {
        let e = err(load_with(BASE, &[&format!("{key}=ieee")]));
        assert_eq!(e.key.as_deref(), Some(key));
        assert!(
            e.message.contains("`standard`") && e.message.contains("`ns2`"),
            "{e}"
        );
    }
}

#[test]
fn mac_backoff_count_takes_exact_or_ns2() {
    use crate::mac::BackoffCount;
    assert_eq!(
        load_with(BASE, &[]).unwrap().mac.backoff_count,
        BackoffCount::Exact
    );
    let s = load_with(BASE, &["mac.backoff_count=ns2"]).unwrap();
    assert_eq!(s.mac.backoff_count, BackoffCount::Ns2);
    let e = err(load_with(BASE, &["mac.backoff_count=standard"]));
    assert_eq!(e.key.as_deref(), Some("mac.backoff_count"));
    assert!(
        e.message.contains("`exact`") && e.message.contains("`ns2`"),
        "{e}"
    );
}

#[test]
fn mac_tie_rule_takes_timers_first_or_ns2() {
    use crate::mac::TieRule;
    assert_eq!(
        load_with(BASE, &[]).unwrap().mac.tie_rule,
        TieRule::TimersFirst
    );
    let s = load_with(BASE, &["mac.tie_rule=ns2"]).unwrap();
    assert_eq!(s.mac.tie_rule, TieRule::Ns2);
    let e = err(load_with(BASE, &["mac.tie_rule=standard"]));
    assert_eq!(e.key.as_deref(), Some("mac.tie_rule"));
    assert!(
        e.message.contains("`timers_first`") && e.message.contains("`ns2`"),
        "{e}"
    );
}

#[test]
fn tcp_ssthresh_rule_and_limited_transmit_are_flow_keys() {
    use crate::transport::tcp::SsthreshRule;
    let tcp = "flows=[{src = 0, dst = 1, transport = \"tcp\", app = \"ftp\"}]";
    let s = load_with(BASE, &[tcp]).unwrap();
    let t = s.flows[0].tcp.clone().unwrap_or_default();
    assert_eq!(
        (t.ssthresh_rule, t.limited_transmit),
        (SsthreshRule::FlightSize, false)
    );
    let s = load_with(
        BASE,
        &[
            tcp,
            "flows.0.tcp.ssthresh_rule=ns2",
            "flows.0.tcp.limited_transmit=true",
        ],
    )
    .unwrap();
    let t = s.flows[0].tcp.clone().unwrap();
    assert_eq!(
        (t.ssthresh_rule, t.limited_transmit),
        (SsthreshRule::Ns2, true)
    );
    let e = err(load_with(BASE, &[tcp, "flows.0.tcp.ssthresh_rule=half"]));
    assert!(
        e.message.contains("`flight_size`") && e.message.contains("`ns2`"),
        "{e}"
    );
    assert_eq!(e.key.as_deref(), Some("flows[0].tcp.ssthresh_rule"));
}

#[test]
fn tfrc_oscillation_prevention_and_rtt_filter_are_flow_keys() {
    let tfrc = "flows=[{src = 0, dst = 1, transport = \"tfrc\", app = \"ftp\"}]";
    let t = load_with(BASE, &[tfrc]).unwrap().flows[0]
        .tfrc
        .clone()
        .unwrap();
    assert_eq!((t.oscillation_prevention, t.rtt_filter), (false, 0.9));
    let sets = [
        tfrc,
        "flows.0.tfrc.oscillation_prevention=true",
        "flows.0.tfrc.rtt_filter=0.95",
    ];
    let t = load_with(BASE, &sets).unwrap().flows[0]
        .tfrc
        .clone()
        .unwrap();
    assert_eq!((t.oscillation_prevention, t.rtt_filter), (true, 0.95));
    let e = err(load_with(BASE, &[tfrc, "flows.0.tfrc.rtt_filter=1"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].tfrc.rtt_filter"));
    let e = err(load_with(BASE, &["flows.0.tfrc.rtt_filter=0.5"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].tfrc"));
}

#[test]
fn sctp_max_burst_and_its_rule_are_flow_keys() {
    use crate::transport::sctp::MaxBurstRule;
    let sctp = "flows=[{src = 0, dst = 1, transport = \"sctp\", app = \"ftp\"}]";
    let s = load_with(BASE, &[sctp]).unwrap();
    let t = s.flows[0].sctp.clone().unwrap();
    assert_eq!((t.max_burst, t.max_burst_rule), (4, MaxBurstRule::Rfc));
    let s = load_with(
        BASE,
        &[
            sctp,
            "flows.0.sctp.max_burst=2",
            "flows.0.sctp.max_burst_rule=ns2",
        ],
    )
    .unwrap();
    let t = s.flows[0].sctp.clone().unwrap();
    assert_eq!((t.max_burst, t.max_burst_rule), (2, MaxBurstRule::Ns2));
    let e = err(load_with(
        BASE,
        &[sctp, "flows.0.sctp.max_burst_rule=never"],
    ));
    assert!(
        e.message.contains("`rfc`") && e.message.contains("`ns2`"),
        "{e}"
    );
    assert_eq!(e.key.as_deref(), Some("flows[0].sctp.max_burst_rule"));
    let e = err(load_with(BASE, &[sctp, "flows.0.sctp.max_burst=0"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].sctp.max_burst"));
    // Streams: one, ordered, unless the table says otherwise.
    assert_eq!((t.streams, t.unordered), (1, false));
    let s = load_with(
        BASE,
        &[
            sctp,
            "flows.0.sctp.streams=8",
            "flows.0.sctp.unordered=true",
        ],
    )
    .unwrap();
    let t = s.flows[0].sctp.clone().unwrap();
    assert_eq!((t.streams, t.unordered), (8, true));
    let e = err(load_with(BASE, &[sctp, "flows.0.sctp.streams=0"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].sctp.streams"));
    let e = err(load_with(BASE, &[sctp, "flows.0.sctp.streams=70000"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].sctp.streams"));
    assert!(e.message.contains("70000"), "{e}");
    let udp = "flows=[{src = 0, dst = 1, sctp = {max_burst = 4}}]";
    let e = err(load_with(BASE, &[udp]));
    assert_eq!(e.key.as_deref(), Some("flows[0].sctp"));
    assert!(e.message.contains("transport = \"sctp\""), "{e}");
}

#[test]
fn tcp_start_rule_is_a_flow_key_for_flows_without_the_handshake() {
    use crate::transport::tcp::StartRule;
    let tcp = "flows=[{src = 0, dst = 1, transport = \"tcp\", app = \"ftp\"}]";
    let s = load_with(BASE, &[tcp]).unwrap();
    let t = s.flows[0].tcp.clone().unwrap_or_default();
    assert_eq!(t.start_rule, StartRule::Window);
    let one_way = [
        tcp,
        "flows.0.tcp.handshake=false",
        "flows.0.tcp.start_rule=ns2",
    ];
    let s = load_with(BASE, &one_way).unwrap();
    assert_eq!(s.flows[0].tcp.clone().unwrap().start_rule, StartRule::Ns2);
    // ns-2.35's one-way start has no meaning with the handshake.
    let e = err(load_with(BASE, &[tcp, "flows.0.tcp.start_rule=ns2"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].tcp.start_rule"));
    assert!(e.message.contains("handshake = false"), "{e}");
    let e = err(load_with(BASE, &[tcp, "flows.0.tcp.start_rule=syn"]));
    assert!(
        e.message.contains("`window`") && e.message.contains("`ns2`"),
        "{e}"
    );
}

#[test]
fn mac_arp_takes_a_model_name() {
    use crate::net::arp::ArpModel;
    assert_eq!(load_with(BASE, &[]).unwrap().mac.arp, ArpModel::Off);
    let s = load_with(BASE, &["mac.arp=ns2"]).unwrap();
    assert_eq!(s.mac.arp, ArpModel::Ns2);
    let e = err(load_with(BASE, &["mac.arp=yes"]));
    assert_eq!(e.key.as_deref(), Some("mac.arp"));
    assert!(
        e.message.contains("`off`") && e.message.contains("`ns2`"),
        "{e}"
    );
}

#[test]
fn override_creates_missing_tables() {
    // [mac] is absent from BASE.
    let s = load_with(BASE, &["mac.queue_packets=7"]).unwrap();
    assert_eq!(s.mac.queue_packets, 7);
    // [flows.tcp] is absent: it is created and deserialized.
    let s = load_with(
        &BASE.replace("rate_bps = 10000.0\n", ""),
        &["flows.0.tcp.variant=vegas", "flows.0.transport=tcp"],
    )
    .unwrap();
    assert_eq!(s.flows[0].transport, Transport::Tcp);
    assert_eq!(
        s.flows[0].tcp.as_ref().map(|t| t.variant),
        Some(TcpVariant::Vegas)
    );
}

#[test]
fn override_of_unknown_key_fails_like_the_file_would() {
    let e = err(load_with(BASE, &["routing.protokol=dsr"]));
    assert_eq!(e.file, "--set routing.protokol=dsr");
    assert_eq!(e.key.as_deref(), Some("routing.protokol"));
    assert_eq!(e.line, None);
    assert_eq!(
        e.message,
        "unknown key `protokol`, expected one of `protocol`, `aodv`, `aomdv`, `dsdv`, `dsr`, `olsr`"
    );
    let file = err(load(
        &BASE.replace("protocol = \"static\"", "protokol = \"dsr\""),
    ));
    assert_eq!(file.message, e.message);

    let e = err(load_with(BASE, &["flows.0.tcp.varient=vegas"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].tcp.varient"));
    let e = err(load_with(BASE, &["colour=blue"]));
    assert_eq!(e.to_string().split(": ").next(), Some("--set colour=blue"));
}

#[test]
fn override_with_wrong_type_or_enum_reports_the_typed_reading() {
    let e = err(load_with(BASE, &["nodes.count=abc"]));
    assert_eq!(e.file, "--set nodes.count=abc");
    assert!(e.message.contains("got string \"abc\""), "{e}");
    let e = err(load_with(BASE, &["nodes.count=2.5"]));
    assert!(e.message.contains("got floating point `2.5`"), "{e}");
    let e = err(load_with(BASE, &["seed=-1"]));
    assert!(e.message.contains("got integer `-1`"), "{e}");
    let e = err(load_with(BASE, &["routing.protocol=dsrr"]));
    assert!(
        e.message.contains("unknown value `dsrr`, expected one of"),
        "{e}"
    );
}

#[test]
fn override_index_past_the_end_is_an_error() {
    let e = err(load_with(BASE, &["flows.1.dst=2"]));
    assert_eq!(e.file, "--set flows.1.dst=2");
    assert!(
        e.message
            .contains("index 1 is past the end of `flows`, which has 1 entry"),
        "{e}"
    );
}

#[test]
fn override_validation_errors_name_the_override() {
    let e = err(load_with(BASE, &["flows.0.dst=9"]));
    assert_eq!(
        e.to_string(),
        "--set flows.0.dst=9: key `flows[0].dst`: node 9 does not exist (nodes.count = 4)"
    );
    // An error about a key the override did not set points into the file.
    let e = err(load_with(BASE, &["nodes.count=2"]));
    assert_eq!((e.file.as_str(), e.line), ("dir/test.toml", Some(19)));
    assert!(
        e.message
            .contains("node 3 does not exist (nodes.count = 2)"),
        "{e}"
    );
    // An unsupported feature set from the command line names the override.
    assert!(load_with(BASE, &["flows.0.transport=udp"]).is_ok());
    let e = err(load_with(BASE, &["mac.standard=802.11n"]));
    assert_eq!(e.file, "--set mac.standard=802.11n");
}

#[test]
fn mac_standards_take_their_rates_and_preambles() {
    let rates = |sets: &[&str]| {
        let s = load_with(BASE, sets).unwrap();
        (s.mac.data_rate_bps, s.mac.basic_rate_bps)
    };
    // Rates not given: 2 and 1 Mb/s where DSSS rates exist, else 6 and 6.
    assert_eq!(rates(&[]), (2_000_000, 1_000_000));
    assert_eq!(rates(&["mac.standard=802.11b"]), (2_000_000, 1_000_000));
    assert_eq!(rates(&["mac.standard=802.11a"]), (6_000_000, 6_000_000));
    assert_eq!(rates(&["mac.standard=802.11g"]), (6_000_000, 6_000_000));
    // Given ones stay, and 802.11 takes any rate, as ns-2's dataRate_.
    assert_eq!(
        rates(&["mac.standard=802.11a", "mac.data_rate_bps=54000000"]),
        (54_000_000, 6_000_000)
    );
    assert_eq!(
        rates(&["mac.data_rate_bps=3000000"]),
        (3_000_000, 1_000_000)
    );
    assert_eq!(
        rates(&[
            "mac.standard=802.11g",
            "mac.data_rate_bps=11000000",
            "mac.basic_rate_bps=1000000"
        ]),
        (11_000_000, 1_000_000)
    );
    let s = load_with(BASE, &["mac.standard=802.11b", "mac.preamble=short"]).unwrap();
    assert_eq!(s.mac.preamble, crate::mac::Preamble::Short);

    let refused = |sets: &[&str], key: &str, text: &str| {
        let e = err(load_with(BASE, sets));
        assert_eq!(e.key.as_deref(), Some(key), "{e}");
        assert!(e.message.contains(text), "{e}");
    };
    refused(
        &["mac.standard=802.11b", "mac.data_rate_bps=54000000"],
        "mac.data_rate_bps",
        "54000000 b/s is not a rate of 802.11b (1, 2, 5.5, 11 Mb/s)",
    );
    refused(
        &["mac.standard=802.11a", "mac.data_rate_bps=11000000"],
        "mac.data_rate_bps",
        "not a rate of 802.11a (6, 9, 12, 18, 24, 36, 48, 54 Mb/s)",
    );
    // 802.11a's default basic rate is 6 Mb/s; the default 1 Mb/s of an
    // 802.11 scenario is not carried over when only the standard changes.
    refused(
        &["mac.standard=802.11a", "mac.basic_rate_bps=1000000"],
        "mac.basic_rate_bps",
        "1000000 b/s is not a rate of 802.11a",
    );
    refused(
        &["mac.standard=802.11a", "mac.preamble=short"],
        "mac.preamble",
        "802.11a's PHY has one preamble",
    );
    refused(
        &["mac.preamble=short"],
        "mac.preamble",
        "802.11's PHY has one preamble",
    );
    refused(
        &["mac.standard=802.11b", "mac.preamble=medium"],
        "mac.preamble",
        "`long`",
    );
    let s = load_with(BASE, &["mac.eifs_rule=standard"]).unwrap();
    assert_eq!(s.mac.eifs_rule, crate::mac::EifsRule::Standard);
    assert_eq!(load(BASE).unwrap().mac.eifs_rule, crate::mac::EifsRule::Ns2);
    refused(&["mac.eifs_rule=ieee"], "mac.eifs_rule", "`standard`");
    let e = err(load_with(BASE, &["mac.standard=802.11n"]));
    assert!(
        e.message.contains("\"802.11a\" (OFDM: 6 to 54 Mb/s)"),
        "{e}"
    );
}

#[test]
fn the_error_model_needs_rates_with_a_modulation() {
    let refused = |sets: &[&str], key: &str, text: &str| {
        let e = err(load_with(BASE, sets));
        assert_eq!(e.key.as_deref(), Some(key), "{e}");
        assert!(e.message.contains(text), "{e}");
    };
    let s = load(BASE).unwrap();
    assert_eq!(s.radio.error_model, ErrorModelKind::None);
    assert_eq!(s.radio.noise_figure_db, 7.0);
    let s = load_with(BASE, &["radio.error_model=awgn", "radio.noise_figure_db=9"]).unwrap();
    assert_eq!(
        (s.radio.error_model, s.radio.noise_figure_db),
        (ErrorModelKind::Awgn, 9.0)
    );
    // 802.11's DSSS runs at any rate, but bit errors need a modulation.
    refused(
        &["radio.error_model=awgn", "mac.data_rate_bps=3000000"],
        "mac.data_rate_bps",
        "3000000 b/s has no modulation for radio.error_model = \"awgn\"",
    );
    assert!(load_with(
        BASE,
        &["radio.error_model=awgn", "mac.data_rate_bps=11000000"]
    )
    .is_ok());
    assert!(load_with(BASE, &["mac.data_rate_bps=3000000"]).is_ok());
    assert!(load_with(
        BASE,
        &[
            "radio.error_model=awgn",
            "mac.standard=802.11g",
            "mac.data_rate_bps=54000000",
            "mac.basic_rate_bps=1000000"
        ]
    )
    .is_ok());
    refused(&["radio.noise_figure_db=-1"], "radio.noise_figure_db", "-1");
    refused(&["radio.error_model=nist"], "radio.error_model", "`awgn`");
}

#[test]
fn frames_below_carrier_sense_interfere_only_under_the_error_model() {
    let refused = |sets: &[&str], text: &str| {
        let e = err(load_with(BASE, sets));
        assert_eq!(
            e.key.as_deref(),
            Some("radio.interference_threshold_w"),
            "{e}"
        );
        assert!(e.message.contains(text), "{e}");
    };
    assert_eq!(load(BASE).unwrap().radio.interference_threshold_w, None);
    let s = load_with(
        BASE,
        &[
            "radio.error_model=awgn",
            "radio.interference_threshold_w=1e-14",
        ],
    )
    .unwrap();
    assert_eq!(s.radio.interference_threshold_w, Some(1e-14));
    // As low as carrier sense: the same as without the key.
    assert!(load_with(
        BASE,
        &[
            "radio.error_model=awgn",
            "radio.interference_threshold_w=1.559e-11"
        ]
    )
    .is_ok());
    refused(
        &["radio.interference_threshold_w=1e-14"],
        "counts only under radio.error_model = \"awgn\"",
    );
    refused(
        &[
            "radio.error_model=awgn",
            "radio.interference_threshold_w=1e-10",
        ],
        "1e-10 W is above cs_threshold_w = 1.559e-11 W",
    );
    refused(
        &["radio.error_model=awgn", "radio.interference_threshold_w=0"],
        "0",
    );
}

#[test]
fn fixed_nodes_are_checked_and_need_a_moving_model() {
    let rwp = "name = \"rwp\"\n[area]\nwidth_m = 1000.0\nheight_m = 500.0\n\
               [nodes]\ncount = 4\n[mobility]\nmodel = \"random_waypoint\"\n";
    let fix = |extra: &str| load_with(rwp, &[extra]);
    let s = fix("mobility.fixed=[{node = 3, position = [400.0, 100.0]}]").unwrap();
    assert_eq!(s.mobility.fixed[0].position, [400.0, 100.0]);
    let cases = [
        (
            "mobility.fixed=[{node = 4, position = [1.0, 1.0]}]",
            "mobility.fixed[0].node",
        ),
        (
            "mobility.fixed=[{node = 1, position = [2000.0, 1.0]}]",
            "mobility.fixed[0].position",
        ),
        (
            "mobility.fixed=[{node = 1, position = [1.0, 1.0]}, {node = 1, position = [2.0, 1.0]}]",
            "mobility.fixed[1].node",
        ),
    ];
    for (set, key) in cases {
        let e = err(fix(set));
        assert_eq!(e.key.as_deref(), Some(key), "{e}");
    }
    let e = err(load_with(
        BASE,
        &["mobility.fixed=[{node = 1, position = [1.0, 1.0]}]"],
    ));
    assert_eq!(e.key.as_deref(), Some("mobility.fixed"));
    assert!(e.message.contains("random_waypoint"), "{e}");
}

#[test]
fn a_gateway_numbers_its_hosts_after_the_nodes() {
    let s = load_with(BASE, &["gateway={node = 3}", "flows.0.dst=4"]).unwrap();
    let g = s.gateway.clone().unwrap();
    assert_eq!((g.node.ids(), g.hosts, g.queue_packets), (&[3][..], 1, 50));
    assert_eq!((g.rate_bps, g.delay_s), (100e6, 0.002));
    assert_eq!(g.forwarding, GatewayForwarding::Tunnel);
    let s = load_with(
        BASE,
        &[
            "gateway={node = 3, forwarding = \"base_station\"}",
            "flows.0.dst=4",
        ],
    )
    .unwrap();
    assert_eq!(
        s.gateway.unwrap().forwarding,
        GatewayForwarding::BaseStation
    );
    let e = err(load_with(BASE, &["flows.0.dst=4"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].dst"));
    let e = err(load_with(BASE, &["gateway={node = 3}", "flows.0.dst=5"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].dst"));
    assert!(e.message.contains("gateway.hosts = 1"), "{e}");
    let cases = [
        ("gateway={node = 4}", "gateway.node"),
        ("gateway={node = 3, hosts = 0}", "gateway.hosts"),
        ("gateway={node = 3, rate_bps = 0}", "gateway.rate_bps"),
        ("gateway={node = 3, delay_s = -1}", "gateway.delay_s"),
        (
            "gateway={node = 3, queue_packets = 0}",
            "gateway.queue_packets",
        ),
        (
            "gateway={node = 3, forwarding = \"ip_in_ip\"}",
            "gateway.forwarding",
        ),
    ];
    for (set, key) in cases {
        let e = err(load_with(BASE, &[set]));
        assert_eq!(e.key.as_deref(), Some(key), "{e}");
    }
    // Captures cover the wires and tunnels.
    assert!(load_with(BASE, &["gateway={node = 3}", "output.pcap=true"]).is_ok());
}

#[test]
fn gateway_advertisements_need_aodv_uu_and_their_keys_the_discovery_that_reads_them() {
    let uu = [
        "routing.protocol=\"aodv\"",
        "routing.aodv={preset = \"aodv_uu\"}",
    ];
    let with = |g: &str| {
        let mut v = uu.to_vec();
        v.push(g);
        load_with(BASE, &v)
    };
    let s =
        with("gateway={node = 3, discovery = \"hybrid\", advertisement_zone_hops = 2}").unwrap();
    let g = s.gateway.unwrap();
    assert_eq!(g.discovery, GatewayDiscovery::Hybrid);
    assert_eq!(
        (g.advertisement_interval_s, g.advertisement_zone_hops),
        (5.0, 2)
    );
    let s = with("gateway={node = 3}").unwrap();
    assert_eq!(s.gateway.unwrap().discovery, GatewayDiscovery::Reactive);
    assert!(
        with("gateway={node = 3, discovery = \"proactive\", advertisement_interval_s = 2.5}")
            .is_ok()
    );
    let cases = [
        (
            "gateway={node = 3, discovery = \"proactive\", advertisement_zone_hops = 2}",
            "gateway.advertisement_zone_hops",
            "only gateway.discovery = \"hybrid\"",
        ),
        (
            "gateway={node = 3, advertisement_interval_s = 2.0}",
            "gateway.advertisement_interval_s",
            "only gateway.discovery = \"proactive\" or \"hybrid\"",
        ),
        (
            "gateway={node = 3, discovery = \"hybrid\", advertisement_zone_hops = 0}",
            "gateway.advertisement_zone_hops",
            "1 to 255",
        ),
        (
            "gateway={node = 3, discovery = \"hybrid\", advertisement_zone_hops = 256}",
            "gateway.advertisement_zone_hops",
            "got 256",
        ),
        (
            "gateway={node = 3, discovery = \"proactive\", advertisement_interval_s = 0}",
            "gateway.advertisement_interval_s",
            "from 1e-09 s",
        ),
        (
            "gateway={node = 3, discovery = \"proactive\", advertisement_interval_s = 1e10}",
            "gateway.advertisement_interval_s",
            "to 1e9 s",
        ),
        (
            "gateway={node = 3, discovery = \"periodic\"}",
            "gateway.discovery",
            "proactive",
        ),
    ];
    for (set, key, says) in cases {
        let e = err(with(set));
        assert_eq!(e.key.as_deref(), Some(key), "{e}");
        assert!(e.message.contains(says), "{e}");
    }
    // Other protocols know the gateways without discovery.
    let e = err(load_with(
        BASE,
        &["gateway={node = 3, discovery = \"proactive\"}"],
    ));
    assert_eq!(e.key.as_deref(), Some("gateway.discovery"), "{e}");
    assert!(e.message.contains("aodv_uu"), "{e}");
    assert!(e.message.contains("without discovery"), "{e}");
    // OLSR's gateways announce themselves by HNA: the interval is read,
    // a discovery is not.
    let olsr = "routing.protocol=olsr";
    let e = err(load_with(
        BASE,
        &[olsr, "gateway={node = 3, discovery = \"hybrid\"}"],
    ));
    assert_eq!(e.key.as_deref(), Some("gateway.discovery"), "{e}");
    assert!(e.message.contains("HNA"), "{e}");
    let s = load_with(
        BASE,
        &[olsr, "gateway={node = 3, advertisement_interval_s = 2.0}"],
    )
    .unwrap();
    assert_eq!(s.gateway.unwrap().advertisement_interval_s, 2.0);
    let e = err(load_with(
        BASE,
        &[olsr, "gateway={node = 3, advertisement_interval_s = 0.0}"],
    ));
    assert_eq!(e.key.as_deref(), Some("gateway.advertisement_interval_s"));
    let e = err(load_with(
        BASE,
        &["gateway={node = 3, advertisement_interval_s = 2.0}"],
    ));
    assert!(e.message.contains("olsr"), "{e}");
}

#[test]
fn a_gateway_node_may_be_a_list_of_distinct_nodes() {
    let s = load_with(BASE, &["gateway={node = [3, 0]}", "flows.0.dst=4"]).unwrap();
    let g = s.gateway.clone().unwrap();
    assert_eq!(g.node.ids(), [3, 0]);
    // Written back as given: a list stays a list, one id an integer.
    let shown = crate::scenario::to_toml_string(&s);
    assert!(shown.contains("node = [3, 0]"), "{shown}");
    let one = load_with(BASE, &["gateway={node = 3}"]).unwrap();
    let shown = crate::scenario::to_toml_string(&one);
    assert!(shown.contains("node = 3\n"), "{shown}");
    for (set, says) in [
        ("gateway={node = [3, 3]}", "listed twice"),
        ("gateway={node = []}", "non-empty"),
        ("gateway={node = [1, 9]}", "9"),
        ("gateway={node = \"3\"}", "a node id or a list of node ids"),
        ("gateway={node = -1}", "a node id or a list of node ids"),
    ] {
        let e = err(load_with(BASE, &[set]));
        assert_eq!(e.key.as_deref(), Some("gateway.node"), "{set}: {e}");
        assert!(e.message.contains(says), "{set}: {e}");
    }
}

#[test]
fn onoff_keys_are_a_flow_table_for_onoff_sources() {
    use crate::scenario::OnOffDistribution;
    let s = load_with(BASE, &["flows.0.app=onoff"]).unwrap();
    let o = s.flows[0].onoff.clone().unwrap();
    assert_eq!(
        (o.on_s, o.off_s, o.distribution, o.shape),
        (0.5, 0.5, OnOffDistribution::Exponential, 1.5)
    );
    let s = load_with(
        BASE,
        &[
            "flows.0.app=onoff",
            "flows.0.onoff.distribution=pareto",
            "flows.0.onoff.on_s=2",
            "flows.0.onoff.off_s=0",
        ],
    )
    .unwrap();
    let o = s.flows[0].onoff.clone().unwrap();
    assert_eq!((o.on_s, o.off_s), (2.0, 0.0));
    assert_eq!(o.distribution, OnOffDistribution::Pareto);
    let cases = [
        ("flows.0.onoff.on_s=0", "flows[0].onoff.on_s", "1e-09 s"),
        ("flows.0.onoff.off_s=-1", "flows[0].onoff.off_s", "got -1"),
        ("flows.0.onoff.shape=1", "flows[0].onoff.shape", "above 1"),
        (
            "flows.0.onoff.distribution=weibull",
            "flows[0].onoff.distribution",
            "`pareto`",
        ),
    ];
    for (set, key, fragment) in cases {
        let e = err(load_with(BASE, &["flows.0.app=onoff", set]));
        assert_eq!(e.key.as_deref(), Some(key), "{e}");
        assert!(e.message.contains(fragment), "{e}");
    }
    let e = err(load_with(BASE, &["flows.0.onoff.on_s=1"]));
    assert_eq!(e.key.as_deref(), Some("flows[0].onoff"));
    assert!(e.message.contains("app = \"onoff\""), "{e}");
}

#[test]
fn later_overrides_win() {
    let s = load_with(BASE, &["seed=1", "seed=2"]).unwrap();
    assert_eq!(s.seed, 2);
}

#[test]
fn malformed_override_keys_are_errors() {
    for arg in [
        "novalue",
        "=1",
        "a..b=1",
        "flows[x].dst=1",
        "flows.0 .dst=1 x",
    ] {
        let r = parse_override(arg);
        if let Ok((k, v)) = &r {
            // Whatever parse_override lets through must still not panic.
            let _ = load_str(BASE, "t.toml", &[(k.clone(), v.clone())]);
        } else {
            let e = r.unwrap_err();
            assert!(e.file.starts_with("--set "), "{e}");
        }
    }
    // Unparsed pairs handed to load_str directly are checked too.
    let e = load_str(BASE, "t.toml", &[("a..b".into(), "1".into())]).unwrap_err();
    assert_eq!(e.file, "--set a..b=1");
}

// ---------------------------------------------------------- robustness

/// Deterministic mutations of a valid file never panic the loader.
#[test]
fn no_panic_on_mangled_input() {
    let bytes = BASE.as_bytes();
    let junk: &[&str] = &[
        "",
        "=",
        "[",
        "]",
        "[[",
        "\"",
        "'",
        "nan",
        "-inf",
        "1e999",
        "-1",
        "99999999999999999999",
        "\n",
        "{",
        "}",
        ",",
        ".",
        "[flows]",
        "[[nodes]]",
        "\u{0}",
        "é",
        "\\u0000",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..3000 {
        let at = next(bytes.len() + 1);
        let cut = next(8);
        let mut text = String::from_utf8_lossy(&bytes[..at]).into_owned();
        text.push_str(junk[next(junk.len())]);
        let resume = (at + cut).min(bytes.len());
        text.push_str(&String::from_utf8_lossy(&bytes[resume..]));
        if let Err(e) = load_str(&text, "fuzz.toml", &[]) {
            assert!(!e.to_string().contains('\n'), "{e}");
        }
        let key = [
            "seed",
            "nodes.count",
            "flows.0.dst",
            "flows.0",
            "area",
            "mac.standard",
        ][next(6)];
        let val = junk[next(junk.len())];
        if let Err(e) = load_str(BASE, "fuzz.toml", &[(key.into(), val.into())]) {
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }
}

// ---------------------------------------------------------- corpus and docs

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_bad_scenario_is_refused_with_its_expected_message() {
    let dir = repo_root().join("tests/bad_scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 24, "only {} bad scenarios", files.len());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let fragment = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect:"))
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| {
                panic!(
                    "{}: first line must be `# expect: <fragment>`",
                    path.display()
                )
            });
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let e = match load_file(path, &[]) {
            Ok(_) => panic!("{name} loaded without error"),
            Err(e) => e.to_string(),
        };
        assert!(!e.contains('\n'), "{name}: multi-line error: {e}");
        assert!(
            e.contains(name),
            "{name}: error does not name the file: {e}"
        );
        assert!(
            e.contains(fragment),
            "{name}: expected {fragment:?} in: {e}"
        );
    }
}

#[test]
fn docs_list_every_unsupported_feature() {
    let path = repo_root().join("docs/scenario.md");
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for entry in not_yet_supported() {
        assert!(
            doc.contains(&entry),
            "docs/scenario.md does not list `{entry}`"
        );
    }
}

#[test]
fn every_example_loads_and_round_trips() {
    let dir = repo_root().join("examples");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.extension().is_some_and(|x| x == "toml") {
            let s = load_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
            let again = load_str(&to_toml_string(&s), "again.toml", &[]).unwrap();
            assert_eq!(s, again, "{}", path.display());
        }
    }
}

#[test]
fn vegas_rule_is_a_flow_key() {
    use crate::transport::tcp::VegasRule;
    let tcp = "flows=[{src = 0, dst = 1, transport = \"tcp\", app = \"ftp\", tcp = {variant = \"vegas\"}}]";
    let s = load_with(BASE, &[tcp]).unwrap();
    assert_eq!(s.flows[0].tcp.clone().unwrap().vegas_rule, VegasRule::Paper);
    let s = load_with(BASE, &[tcp, "flows.0.tcp.vegas_rule=ns2"]).unwrap();
    assert_eq!(s.flows[0].tcp.clone().unwrap().vegas_rule, VegasRule::Ns2);
    let e = err(load_with(BASE, &[tcp, "flows.0.tcp.vegas_rule=linux"]));
    assert!(
        e.message.contains("`paper`") && e.message.contains("`ns2`"),
        "{e}"
    );
    assert_eq!(e.key.as_deref(), Some("flows[0].tcp.vegas_rule"));
}

#[test]
fn sack_rule_recovery_rule_and_rto_rule_are_flow_keys() {
    use crate::transport::tcp::{RecoveryRule, RtoRule, SackRule};
    let tcp = "flows=[{src = 0, dst = 1, transport = \"tcp\", app = \"ftp\", tcp = {variant = \"sack\"}}]";
    let t = load_with(BASE, &[tcp]).unwrap().flows[0]
        .tcp
        .clone()
        .unwrap();
    assert_eq!(
        (t.sack_rule, t.recovery_rule, t.rto_rule),
        (SackRule::Rfc, RecoveryRule::Rfc, RtoRule::Rfc)
    );
    let all = [
        "flows.0.tcp.sack_rule=ns2",
        "flows.0.tcp.recovery_rule=ns2",
        "flows.0.tcp.rto_rule=ns2",
    ];
    let s = load_with(BASE, &[tcp, all[0], all[1], all[2]]).unwrap();
    let t = s.flows[0].tcp.clone().unwrap();
    assert_eq!(
        (t.sack_rule, t.recovery_rule, t.rto_rule),
        (SackRule::Ns2, RecoveryRule::Ns2, RtoRule::Ns2)
    );
    let s = load_with(BASE, &[tcp, "flows.0.tcp.rto_rule=ns3"]).unwrap();
    assert_eq!(s.flows[0].tcp.as_ref().unwrap().rto_rule, RtoRule::Ns3);
    let e = err(load_with(BASE, &[tcp, "flows.0.tcp.rto_rule=ns4"]));
    assert!(e.message.contains("`ns3`"), "{e}");
    for key in ["sack_rule", "recovery_rule", "rto_rule"] {
        let bad = format!("flows.0.tcp.{key}=linux");
        let e = err(load_with(BASE, &[tcp, &bad]));
        assert!(
            e.message.contains("`rfc`") && e.message.contains("`ns2`"),
            "{e}"
        );
        assert_eq!(
            e.key.as_deref(),
            Some(format!("flows[0].tcp.{key}").as_str())
        );
    }
}

#[test]
fn a_choice_overridden_with_a_number_lists_its_names() {
    let e = err(load_with(BASE, &["nodes.placement=5"]));
    assert_eq!(e.key.as_deref(), Some("nodes.placement"));
    assert_eq!(
        e.message,
        "unknown value `5`, expected one of `chain`, `grid`, `uniform`, `explicit`"
    );
    // A word where a number belongs still reports the type it wants.
    let e = err(load_with(BASE, &["nodes.count=six"]));
    assert!(
        e.message.starts_with("expected an integer"),
        "{}",
        e.message
    );
}

#[test]
fn an_array_where_a_table_belongs_is_refused_not_read_by_position() {
    // serde would read this flow's fields in order: src, dst, transport, ...
    let e = err(load_with(BASE, &[r#"flows=[[0, 3, "udp", "cbr"]]"#]));
    assert_eq!(e.key.as_deref(), Some("flows[0]"));
    assert_eq!(e.message, "expected a table, got an array");
    let text = BASE
        .replace("[area]\nwidth_m = 1000.0\nheight_m = 500.0\n", "")
        .replace("seed = 7\n", "seed = 7\narea = [1200.0, 200.0]\n");
    let e = err(load(&text));
    assert_eq!((e.key.as_deref(), e.line), (Some("area"), Some(4)));
}

#[test]
fn arf_adapts_over_the_standards_rates_up_to_the_data_rate() {
    let s = load(BASE).unwrap();
    assert_eq!(s.mac.rate_control, RateControlKind::Constant);
    // Without a data rate, ARF may climb to the standard's fastest.
    let s = load_with(BASE, &["mac.standard=802.11a", "mac.rate_control=arf"]).unwrap();
    assert_eq!(
        (s.mac.rate_control, s.mac.data_rate_bps),
        (RateControlKind::Arf, 54_000_000)
    );
    let s = load_with(BASE, &["mac.standard=802.11g", "mac.rate_control=arf"]).unwrap();
    assert_eq!(s.mac.data_rate_bps, 54_000_000);
    let s = load_with(
        BASE,
        &[
            "mac.standard=802.11b",
            "mac.rate_control=arf",
            "mac.data_rate_bps=5500000",
        ],
    )
    .unwrap();
    assert_eq!(s.mac.data_rate_bps, 5_500_000);
    let e = err(load_with(BASE, &["mac.rate_control=arf"]));
    assert_eq!(e.key.as_deref(), Some("mac.rate_control"), "{e}");
    assert!(e.message.contains("no list of them"), "{e}");
    let s = load_with(BASE, &["mac.standard=802.11b", "mac.rate_control=aarf"]).unwrap();
    assert_eq!(
        (s.mac.rate_control, s.mac.data_rate_bps),
        (RateControlKind::Aarf, 11_000_000)
    );
    let e = err(load_with(BASE, &["mac.rate_control=aarf"]));
    assert!(e.message.contains("\"aarf\" adapts"), "{e}");
    let e = err(load_with(BASE, &["mac.rate_control=minstrel"]));
    assert_eq!(e.key.as_deref(), Some("mac.rate_control"), "{e}");
}

#[test]
fn a_doppler_frequency_correlates_rayleigh_fading_only() {
    let s = load(BASE).unwrap();
    assert_eq!(s.radio.fading_doppler_hz, 0.0);
    let s = load_with(
        BASE,
        &["radio.fading=rayleigh", "radio.fading_doppler_hz=20"],
    )
    .unwrap();
    assert_eq!(s.radio.fading_doppler_hz, 20.0);
    for (sets, text) in [
        (
            &["radio.fading=nakagami", "radio.fading_doppler_hz=20"][..],
            "not \"nakagami\"",
        ),
        (&["radio.fading_doppler_hz=20"][..], "not \"none\""),
        (
            &["radio.fading=rayleigh", "radio.fading_doppler_hz=-1"][..],
            "finite number ≥ 0",
        ),
    ] {
        let e = err(load_with(BASE, sets));
        assert_eq!(e.key.as_deref(), Some("radio.fading_doppler_hz"), "{e}");
        assert!(e.message.contains(text), "{e}");
    }
}
