"""Interactive trace explorer: `iolens explore` (see docs/explore.md)."""
