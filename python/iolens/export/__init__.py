"""Trace export: `iolens export --perfetto` (Perfetto's protobuf trace) and
`--format json` (Chrome trace-event JSON).  See docs/explore.md."""
