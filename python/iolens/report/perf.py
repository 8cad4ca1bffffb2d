"""The parser-equivalent figures now live in the view (iolens.view.parser);
this name stays for code and tests that import them from the report."""
from ..view.parser import (CATEGORIES, MIB, Perf, Times, file_categories,  # noqa: F401
                           per_file, perf, record_times, seq_sum)
