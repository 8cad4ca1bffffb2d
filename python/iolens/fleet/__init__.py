"""Fleet analytics: every log of a facility in one queryable Parquet store.

``iolens fleet ingest LOGDIR... --store STORE`` reads logs into the store
(tables ``jobs``, ``files``, ``quarantine`` and, when ``iolens.diagnose`` is
installed, ``findings``), ``iolens fleet query`` runs SQL over it with DuckDB,
``job-stats``/``file-stats`` print PyDarshan's CSV columns and ``report`` writes
a dashboard.  ``docs/fleet.md`` has the layout and the guarantees.
"""
