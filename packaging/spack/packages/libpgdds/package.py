# Spack package for libpgdds. There is no release archive to fetch: build a checkout with
#   spack repo add <checkout>/packaging/spack
#   cd <checkout> && spack dev-build libpgdds@0.1.0 [+cuda] [~ucx]
# Each variant is one of the Meson feature options (meson_options.txt); tests/packaging checks
# that they match.
from spack.package import *


class Libpgdds(MesonPackage):
    """PGAS distributed data structures: one-sided distributed hash tables, queues, Bloom
    filters, arrays and key tables over shared memory, libfabric, UCX or ibverbs."""

    license("BSD-3-Clause")

    version("0.1.0")

    variant("ofi", default=True, description="libfabric transport")
    variant("ucx", default=True, description="UCX transport")
    variant("verbs", default=False, description="ibverbs transport")
    variant("pmix", default=True, description="PMIx bootstrap (Open MPI mpirun, srun --mpi=pmix)")
    variant("fortran", default=True, description="Fortran 2008 bindings")
    variant("docs", default=False, description="API reference (HTML, section 3 manual pages)")
    variant("cuda", default=False, description="GPU memory with the CUDA runtime")

    depends_on("meson@1.0:", type="build")
    depends_on("ninja", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("python@3:", type="build")
    depends_on("xxhash")
    depends_on("hwloc")
    depends_on("zlib-api")
    depends_on("libfabric@1.11:", when="+ofi")
    depends_on("ucx@1.10:", when="+ucx")
    depends_on("rdma-core", when="+verbs")
    depends_on("pmix", when="+pmix")
    depends_on("doxygen", type="build", when="+docs")
    depends_on("cuda", when="+cuda")

    def meson_args(self):
        def feature(name):
            return "-D{0}={1}".format(name, "enabled" if self.spec.satisfies("+" + name) else "disabled")

        return ["-Dtests=false"] + [feature(v) for v in ("ofi", "ucx", "verbs", "pmix", "fortran", "docs", "cuda")]
