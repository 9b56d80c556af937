//! What one meeting of two threads costs on this machine: the barrier a
//! parallel core on two cores would cross at the end of every window of
//! simulated time (see `manetsim_core::sim::parallel`).
//!
//! ```text
//! cargo run --release -p manetsim-core --example barrier [MEETINGS]
//! ```
//!
//! Two threads meet `MEETINGS` times (default 20,000,000) at a spinning
//! barrier (a shared counter each adds one to, then waits for the other's
//! one), then 200,000 times at `std::sync::Barrier`, which sleeps; each is
//! printed in ns per meeting.

use std::hint::spin_loop;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

/// Both threads' meetings at a spinning barrier; seconds.
fn spinning(meetings: u64) -> f64 {
    let arrived = Arc::new(AtomicU64::new(0));
    let meet = move |arrived: &AtomicU64| {
        for i in 1..=meetings {
            arrived.fetch_add(1, Ordering::AcqRel);
            while arrived.load(Ordering::Acquire) < 2 * i {
                spin_loop();
            }
        }
    };
    let started = Instant::now();
    let other = {
        let arrived = Arc::clone(&arrived);
        std::thread::spawn(move || meet(&arrived))
    };
    meet(&arrived);
    other.join().expect("the other thread ends");
    started.elapsed().as_secs_f64()
}

/// Both threads' meetings at `std::sync::Barrier`; seconds.
fn sleeping(meetings: u64) -> f64 {
    let barrier = Arc::new(Barrier::new(2));
    let started = Instant::now();
    let other = {
        let barrier = Arc::clone(&barrier);
        std::thread::spawn(move || {
            for _ in 0..meetings {
                barrier.wait();
            }
        })
    };
    for _ in 0..meetings {
        barrier.wait();
    }
    other.join().expect("the other thread ends");
    started.elapsed().as_secs_f64()
}

fn main() {
    let meetings = match std::env::args().nth(1).map(|a| a.parse::<u64>()) {
        None => 20_000_000,
        Some(Ok(n)) if n > 0 => n,
        Some(_) => {
            eprintln!("usage: barrier [MEETINGS], a whole number above 0");
            std::process::exit(2);
        }
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        eprintln!("barrier: one core here; the threads would take turns, not meet");
    }
    let spin_ns = spinning(meetings) * 1e9 / meetings as f64;
    let sleeping_meetings = meetings.min(200_000);
    let sleep_ns = sleeping(sleeping_meetings) * 1e9 / sleeping_meetings as f64;
    // A closed pipe (`| head -1`) ends the output, not the program.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "spinning barrier: {spin_ns:.1} ns per meeting ({meetings} meetings, {cores} cores)"
    )
    .and_then(|()| {
        writeln!(
            out,
            "std::sync::Barrier: {sleep_ns:.1} ns per meeting ({sleeping_meetings} meetings)"
        )
    });
}
