//! Per-flow counters at the application layer (definitions in SCENARIO.md).

use crate::engine::{to_secs, SimTime};

#[derive(Debug, Clone, Default)]
pub struct FlowStats {
    pub sent: u64,
    pub sent_payload_bytes: u64,
    pub received: u64,
    /// Bytes of received packets counting transport and IP headers.
    pub received_ip_bytes: u64,
    /// Unique payload bytes delivered.
    pub received_payload_bytes: u64,
    pub first_send: Option<SimTime>,
    pub last_receive: Option<SimTime>,
    delay_sum_ns: u128,
    jitter_sum_ns: u128,
    last_delay_ns: Option<SimTime>,
    hops_sum: u64,
    /// Route fingerprint of the last delivered packet, and how often it changed.
    last_path: Option<u64>,
    pub route_changes: u64,
    /// Bitset of delivered sequence numbers, to count unique deliveries.
    seen: Vec<u64>,
}

impl FlowStats {
    pub fn on_send(&mut self, now: SimTime, payload_bytes: u32) {
        self.sent += 1;
        self.sent_payload_bytes += payload_bytes as u64;
        self.first_send.get_or_insert(now);
    }

    /// Records the route fingerprint of a delivered packet.
    pub fn on_route(&mut self, path: u64) {
        if self.last_path.is_some_and(|p| p != path) {
            self.route_changes += 1;
        }
        self.last_path = Some(path);
    }

    /// Records a delivery; returns false (and counts nothing) for a duplicate.
    pub fn on_receive(
        &mut self,
        now: SimTime,
        seq: u64,
        created_at: SimTime,
        ip_bytes: u32,
        payload_bytes: u32,
        hops: u16,
    ) -> bool {
        let (w, b) = ((seq / 64) as usize, seq % 64);
        if self.seen.len() <= w {
            self.seen.resize(w + 1, 0);
        }
        if self.seen[w] & (1 << b) != 0 {
            return false;
        }
        self.seen[w] |= 1 << b;
        self.received += 1;
        self.received_ip_bytes += ip_bytes as u64;
        self.received_payload_bytes += payload_bytes as u64;
        self.last_receive = Some(now);
        let d = now - created_at;
        self.delay_sum_ns += d as u128;
        if let Some(prev) = self.last_delay_ns {
            self.jitter_sum_ns += d.abs_diff(prev) as u128;
        }
        self.last_delay_ns = Some(d);
        self.hops_sum += hops as u64;
        true
    }

    fn interval_s(&self) -> f64 {
        match (self.first_send, self.last_receive) {
            (Some(a), Some(b)) if b > a => to_secs(b - a),
            _ => 0.0,
        }
    }

    pub fn throughput_kbps(&self) -> f64 {
        let t = self.interval_s();
        if t > 0.0 {
            self.received_ip_bytes as f64 * 8.0 / t / 1000.0
        } else {
            0.0
        }
    }

    pub fn goodput_kbps(&self) -> f64 {
        let t = self.interval_s();
        if t > 0.0 {
            self.received_payload_bytes as f64 * 8.0 / t / 1000.0
        } else {
            0.0
        }
    }

    pub fn delay_ms(&self) -> f64 {
        if self.received == 0 {
            0.0
        } else {
            self.delay_sum_ns as f64 / self.received as f64 / 1e6
        }
    }

    pub fn jitter_ms(&self) -> f64 {
        if self.received < 2 {
            0.0
        } else {
            self.jitter_sum_ns as f64 / (self.received - 1) as f64 / 1e6
        }
    }

    pub fn loss_pct(&self) -> f64 {
        if self.sent == 0 {
            0.0
        } else {
            self.sent.saturating_sub(self.received) as f64 / self.sent as f64 * 100.0
        }
    }

    pub fn hops_mean(&self) -> f64 {
        if self.received == 0 {
            0.0
        } else {
            self.hops_sum as f64 / self.received as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    #[test]
    fn figures_follow_the_scenario_definitions() {
        let mut f = FlowStats::default();
        f.on_send(0, 100);
        f.on_send(NS_PER_MS * 500, 100);
        f.on_send(NS_PER_MS * 1000, 100);
        assert!(f.on_receive(10 * NS_PER_MS, 0, 0, 128, 100, 2));
        assert!(f.on_receive(1000 * NS_PER_MS, 2, 970 * NS_PER_MS, 128, 100, 2));
        assert!(
            !f.on_receive(1001 * NS_PER_MS, 2, 970 * NS_PER_MS, 128, 100, 2),
            "duplicate"
        );
        // 2 × 128 B over 1 s.
        assert!((f.throughput_kbps() - 2.048).abs() < 1e-9);
        assert!((f.goodput_kbps() - 1.6).abs() < 1e-9);
        assert!((f.delay_ms() - 20.0).abs() < 1e-9);
        assert!((f.jitter_ms() - 20.0).abs() < 1e-9);
        assert!((f.loss_pct() - 100.0 / 3.0).abs() < 1e-9);
        assert_eq!(f.hops_mean(), 2.0);
    }

    #[test]
    fn route_changes_count_fingerprint_changes() {
        let mut f = FlowStats::default();
        for p in [7, 7, 9, 9, 7, 7] {
            f.on_route(p);
        }
        assert_eq!(f.route_changes, 2);
    }
}
