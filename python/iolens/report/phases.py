"""The report's per-phase breakdown: the REGION records (docs/regions.md) as one row
per region and layer, summed over the processes."""
from __future__ import annotations

from ..region_frame import region_layer_sums, region_runs
from .tables import Table, seconds


def breakdown(data):
    """Time, bytes and operations per region and layer; a region without I/O keeps
    one row (layer "-") so that its time still shows."""
    frame = data.log.regions()
    if not len(frame):
        return None
    runs = region_runs(frame)
    per_layer = region_layer_sums(frame)
    rows = []
    for region in runs["total_time"].sort_values(ascending=False).index:
        layers = per_layer.loc[region]
        busy = layers[(layers.data_ops > 0) | (layers.meta_ops > 0)]
        run = runs.loc[region]
        head = [region, int(run["count"]), seconds(run["total_time"]), seconds(run["max_time"])]
        if not len(busy):
            rows.append(head + ["-", 0, 0, 0, 0, seconds(0)])
        for layer, r in busy.iterrows():
            rows.append(head + [layer, int(r.bytes_read), int(r.bytes_written), int(r.data_ops),
                                int(r.meta_ops), seconds(r.io_time)])
    return Table(["region", "runs", "time", "longest run", "layer", "bytes read",
                  "bytes written", "data ops", "metadata ops", "I/O time"], rows)
