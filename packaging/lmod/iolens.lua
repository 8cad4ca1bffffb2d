-- iolens: HPC I/O characterization, for sites that turn the runtime on in every
-- job (docs/install.md, "An Lmod module for every job").  Load it from the
-- default module set (LMOD_SYSTEM_DEFAULT_MODULES, or the batch system's job
-- prologue); users opt out with `module unload iolens`, or for one program with
-- DARSHAN_DISABLE=1 in its environment.
--
-- The site sets the three values below.  `prefix` is where iolens is installed
-- (`cmake --install ... --prefix`, `spack location -i iolens`); `logdir` is the
-- log directory, laid out once a year with `iolens config --mk-log-dirs DIR`
-- (the runtime writes <logdir>/<year>/<month>/<day>/); `preload` chooses the runtime:
--   "mpi"   libiolens-mpi.so: only MPI programs are instrumented (it starts at
--           MPI_Init); every other process of the job loads it and stays idle.
--           Needs the runtime built for the site's MPI (Spack: iolens+mpi).
--   "posix" libiolens.so with DARSHAN_ENABLE_NONMPI=1: every process of the job,
--           shells and utilities included, writes a log.
--   "none"  no preload: the tools only (`iolens run` instruments on request).
local prefix  = "/opt/iolens"
local logdir  = "/scratch/iolens-logs"
local preload = "mpi"

whatis("Name: iolens")
whatis("Description: Darshan-compatible I/O characterization; runtime preloaded in every job")
help([[
iolens records the I/O of the programs of this job (POSIX, STDIO, MPI-IO, HDF5,
PnetCDF) into a Darshan-format log under ]] .. logdir .. [[.
  iolens parse LOG        read a log (also: iolens report, iolens diagnose)
  DARSHAN_DISABLE=1 prog  run one program without instrumentation
  module unload iolens    stop instrumenting this session
]])

local libs = { mpi = "libiolens-mpi.so", posix = "libiolens.so" }
if libs[preload] == nil and preload ~= "none" then
  LmodError("iolens.lua: preload must be \"mpi\", \"posix\" or \"none\", not ", preload)
end

prepend_path("PATH", pathJoin(prefix, "bin"))
-- `iolens run` and scripts name the non-MPI runtime through IOLENS_RUNTIME.
setenv("IOLENS_RUNTIME", pathJoin(prefix, "lib", "libiolens.so"))
setenv("DARSHAN_LOGPATH", logdir)

if preload ~= "none" then
  -- Prepended, so the user's own LD_PRELOAD entries stay, and unloading the
  -- module removes only this one.
  prepend_path("LD_PRELOAD", pathJoin(prefix, "lib", libs[preload]))
  if preload == "posix" then
    setenv("DARSHAN_ENABLE_NONMPI", "1")
  end
end
