"""The report's per-phase breakdown: the REGION records (docs/regions.md) as one row
per region and layer, summed over the processes."""
from __future__ import annotations

from .tables import Table, seconds

SUMS = ["count", "open_at_end", "bytes_read", "bytes_written", "data_ops", "meta_ops", "io_time"]


def breakdown(data):
    """Time, bytes and operations per region and layer; a region without I/O keeps
    one row (layer "-") so that its time still shows."""
    frame = data.log.regions()
    if not len(frame):
        return None
    runs = frame.drop_duplicates(["region", "rank"]).groupby("region", sort=False)
    time = runs["total_time"].sum()
    longest = runs["max_time"].max()
    per_layer = frame.groupby(["region", "layer"], sort=False)[SUMS].sum()
    rows = []
    for region in time.sort_values(ascending=False).index:
        layers = per_layer.loc[region]
        busy = layers[(layers.data_ops > 0) | (layers.meta_ops > 0)]
        head = [region, int(layers["count"].iloc[0]), seconds(time[region]),
                seconds(longest[region])]
        if not len(busy):
            rows.append(head + ["-", 0, 0, 0, 0, seconds(0)])
        for layer, r in busy.iterrows():
            rows.append(head + [layer, int(r.bytes_read), int(r.bytes_written), int(r.data_ops),
                                int(r.meta_ops), seconds(r.io_time)])
    return Table(["region", "runs", "time", "longest run", "layer", "bytes read",
                  "bytes written", "data ops", "metadata ops", "I/O time"], rows)
