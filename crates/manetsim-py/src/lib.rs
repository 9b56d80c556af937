//! PyO3 bindings (being written)
