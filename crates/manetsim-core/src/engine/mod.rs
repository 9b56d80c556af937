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
pub use queue::{seq_of, tie_key, Class, EventQueue, TieKey};
pub use rng::{Rng, Stream};
pub use time::{from_secs, to_secs, SimTime, NS_PER_MS, NS_PER_S, NS_PER_US};
pub use timer::TimerSlot;
