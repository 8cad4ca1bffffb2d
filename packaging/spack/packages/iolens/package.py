# The Spack package of iolens (docs/install.md, "Spack").  It lives in its own
# Spack repository (../../repo.yaml, namespace `iolens`): `spack repo add
# packaging/spack`, then `spack install iolens`.

import spack.config
from spack.package import *


class Iolens(CMakePackage):
    """HPC I/O characterization: a Darshan-compatible preloadable runtime
    (libiolens.so, libiolens-mpi.so), the log format library libiolens-log,
    the `iolens` command-line tools, and (+python) the Python package."""

    # The project has no public address yet: these two are placeholders to set when
    # it is published.  Until then build from a checkout (`spack develop`, below).
    homepage = "https://github.com/iolens/iolens"
    git = "https://github.com/iolens/iolens.git"

    # No release tarball yet: the git branch, or a local source tree through
    # `spack develop --path SRC iolens@=develop` (what tests/packaging/test_spack.py does).
    version("develop", branch="main")

    variant("mpi", default=True,
            description="MPI runtime libiolens-mpi.so (PMPI wrappers, MPI-IO module)")
    # The HDF5, PnetCDF and Lustre modules find their library inside the instrumented
    # process (dlsym / dlopen, docs/hdf5.md), so none of them is a build dependency:
    # these variants make Spack provide the library at run time (`spack load
    # iolens` brings it in) and pass the matching IOLENS_WITH_* option.
    variant("hdf5", default=False, description="HDF5 module with a Spack-provided HDF5")
    variant("pnetcdf", default=False,
            description="PnetCDF module with a Spack-provided parallel-netcdf")
    variant("lustre", default=False,
            description="Lustre layout module with the site's liblustreapi (external)")
    variant("bzip2", default=True, description="read and write bzip2-compressed logs")
    variant("libdeflate", default=True, description="decode zlib regions with libdeflate")
    variant("python", default=False,
            description="the Python package (iolens.open, report, diagnose, ...) and its verbs")

    # Spack 0.23 and later name the compiler as a build dependency on the `c`
    # virtual (with default providers in its packages.yaml); older versions have no
    # such virtual and add the compiler themselves.  (Asking the repository whether
    # `c` is virtual here would recurse: this runs while Spack indexes the repos.)
    if spack.config.get("packages:all:providers:c"):
        depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("zlib-api")
    depends_on("bzip2", when="+bzip2")
    depends_on("libdeflate", when="+libdeflate")
    depends_on("mpi", when="+mpi")
    depends_on("hdf5", when="+hdf5", type="run")
    depends_on("parallel-netcdf", when="+pnetcdf", type="run")
    depends_on("lustre", when="+lustre", type="run")

    # +python: the package is built by scikit-build-core through pip (pyproject.toml)
    # into this prefix, as Spack packages with bindings in the same source tree do
    # (e.g. faiss).
    extends("python", when="+python")
    depends_on("python@3.11:", when="+python", type=("build", "run"))
    depends_on("py-pip", when="+python", type="build")
    depends_on("py-scikit-build-core@0.8:", when="+python", type="build")
    depends_on("py-numpy", when="+python", type="run")
    depends_on("py-pandas", when="+python", type="run")
    depends_on("py-matplotlib", when="+python", type="run")

    def cmake_args(self):
        return [
            self.define_from_variant("IOLENS_WITH_MPI", "mpi"),
            self.define_from_variant("IOLENS_WITH_HDF5", "hdf5"),
            self.define_from_variant("IOLENS_WITH_PNETCDF", "pnetcdf"),
            self.define_from_variant("IOLENS_WITH_LUSTRE", "lustre"),
            self.define_from_variant("IOLENS_WITH_BZIP2", "bzip2"),
            self.define_from_variant("IOLENS_WITH_LIBDEFLATE", "libdeflate"),
            # the Python extension is built by pip below, not by this CMake build
            self.define("IOLENS_PYTHON", False),
            self.define("BUILD_TESTING", False),
        ]

    @run_after("install")
    def install_python_package(self):
        """+python: pip-install the Python package into the prefix.  The runtime is
        left out of that build (CMake installed it); `iolens` is installed again,
        the same program."""
        if "+python" not in self.spec:
            return
        python = self.spec["python"].command
        with working_dir(self.stage.source_path):
            python("-m", "pip", *std_pip_args, f"--prefix={self.prefix}",
                   f"--config-settings=build-dir={join_path(self.build_directory, 'wheel')}",
                   "--config-settings=cmake.define.IOLENS_WITH_RUNTIME=OFF", ".")

    def setup_run_environment(self, env):
        # `iolens run` finds libiolens.so in <prefix>/lib by itself; this names it for
        # tools and scripts that preload it directly (LD_PRELOAD=$IOLENS_RUNTIME).
        env.set("IOLENS_RUNTIME", join_path(self.prefix.lib, "libiolens.so"))
