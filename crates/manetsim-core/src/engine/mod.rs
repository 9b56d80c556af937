//! The discrete-event engine: time, the event queue, timers and RNG streams.
//!
//! - [`SimTime`] is integer nanoseconds; no floating-point time enters the queue.
//! - [`EventQueue`] pops events in (time, class, insertion sequence) order, a
//!   total order that does not depend on pointers or hashing: at one instant,
//!   frame receptions that end go first and those that start go last.
//! - [`TimerSlot`] makes timers cancellable without touching the queue: each
//!   scheduled timer event carries the slot's generation, and a popped event
//!   whose generation is stale is skipped.
//! - [`Rng`] streams are derived from (master seed, [`Stream`] purpose, id) by a
//!   fixed function, so adding or changing one consumer never shifts another's draws.

mod hash;
mod queue;
mod rng;
mod time;
mod timer;

pub use hash::{IntHasher, IntMap, IntSet};
pub use queue::{
    phase_of, phase_of_remainder, place, seq_of, tie_key, tie_key_at, Class, EventQueue, Phase,
    Place, TieKey, PHASE_NEUTRAL,
};
pub use rng::{Rng, Stream};
pub use time::{from_secs, to_secs, SimTime, NS_PER_MS, NS_PER_S, NS_PER_US};
pub use timer::TimerSlot;

/// Asks the CPU to start loading the cache line that holds `x`: a hint with
/// no effect on results. Loops that visit many nodes' state in an order the
/// hardware cannot guess (a frame's listeners) issue these for the nodes
/// ahead, so that the loads overlap instead of waiting one after another.
#[inline(always)]
pub fn prefetch<T>(x: &T) {
    prefetch_raw(std::ptr::from_ref(x));
}

/// [`prefetch`] through a pointer, which may dangle (an empty `Vec`'s).
#[inline(always)]
pub fn prefetch_raw<T>(x: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE, which the intrinsic needs, is part of the x86-64
        // baseline, and a prefetch only hints: it reads nothing the program
        // sees and never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(x.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
