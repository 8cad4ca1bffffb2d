/* iolens under iolens (docs/cli.md, `iolens run`, "Nested runs and the tools'
 * own I/O"): a run inside another run's job adds its program to that job (one job
 * log), and no `iolens` verb records its own I/O into a job. */
#ifndef IOLENS_TOOLS_RUN_NESTED_H
#define IOLENS_TOOLS_RUN_NESTED_H

#include <sys/types.h>

/* The variable an `iolens run` gives its program: its own pid. */
#define IOL_RUN_PID_VAR "IOLENS_RUN_PID"

/* The pid of the `iolens run` this process runs under (IOL_RUN_PID_VAR names one
 * of its ancestors), else 0.  An inherited variable whose run has ended, or a
 * process that left that run's tree, is not under it. */
pid_t iol_run_outer(void);

/* Called first in main: when the iolens runtime is preloaded into this process
 * (LD_PRELOAD names a libiolens*.so), exec this program again without it, so that
 * the tool's own reads and writes are recorded nowhere; the runtime writes no log
 * for an image that recorded nothing.  Not for `iolens run` under another run,
 * whose program must keep the preload.  Returns when nothing was to be done, or
 * when the exec failed (the tool then runs instrumented). */
void iol_tool_leave_runtime(int argc, char **argv);

#endif
