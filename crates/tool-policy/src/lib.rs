//! # tool-policy
//!
//! Planned (issue: tool-policy): allow/ask/deny permissions (exact and glob),
//! tier merge, exec tiers, the command-policy floor and the approval gate.
