"""Repository rules that wrap the libraries kcoll finds installed on the machine.

Each rule reads an environment variable naming an install (KOKKOS_ROOT, MPI_HOME, CUDA_PATH, NCCL_HOME), falls back
to the default that tools/setup.sh provides, and generates a small BUILD file plus a defs.bzl of facts the rest of
the build can load (which Kokkos backends exist, whether NCCL is present, ...). Nothing is downloaded.
"""

load("//third_party:gloo.bzl", "gloo_configure")

def _symlink_dir(rctx, src, dst):
    rctx.symlink(rctx.path(src), dst)

def _bool(value):
    return "True" if value else "False"

# ---------------------------------------------------------------------------------------------------------------------
# The CUDA toolkit (shared by the Kokkos and the CUDA/NCCL rules)

def _cuda_root(rctx):
    """CUDA_PATH, else CUDA_HOME, else the toolkit of the nvcc on PATH, else /usr/local/cuda (tools/cuda_toolkit.sh).

    The toolkit of the nvcc on PATH is asked of nvcc itself (its TOP in a dry run): the nvcc on PATH may be a wrapper
    script outside the toolkit, where the directory above it holds no CUDA libraries.
    """
    env = rctx.os.environ
    root = env.get("CUDA_PATH", "") or env.get("CUDA_HOME", "")
    if root:
        return root
    nvcc = rctx.which("nvcc")
    if nvcc:
        result = rctx.execute([nvcc, "-dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"])
        for line in (result.stdout + "\n" + result.stderr).split("\n"):
            if line.startswith("#$ TOP="):
                top = line[len("#$ TOP="):].strip()  # ".../bin/.."
                return str(rctx.path(top[:-3]).dirname) if top.endswith("/..") else top
        return str(nvcc.dirname.dirname)
    return "/usr/local/cuda"

def _cuda_lib_dir(rctx, cuda):
    return cuda + "/lib64" if rctx.path(cuda + "/lib64").exists else cuda + "/lib"

def _cuda_driver_linkopts(rctx, cudalib, archives):
    """How the CUDA driver (libcuda, used by Kokkos' CUDA backend) is linked on this machine.

    A GPU node has the driver's libcuda.so; a build machine has the toolkit's stub (lib64/stubs). With neither (a
    toolkit installed without its stubs), a stub is made here: a shared library named like the driver (soname
    libcuda.so.1, so the real driver is the one loaded at run time) defining the driver functions the Kokkos archives
    call.
    """
    if rctx.path(cudalib + "/libcuda.so").exists:
        return ["-lcuda"]
    if rctx.path(cudalib + "/stubs/libcuda.so").exists:
        return ["-L" + cudalib + "/stubs", "-lcuda"]
    ldconfig = rctx.which("ldconfig") or ("/sbin/ldconfig" if rctx.path("/sbin/ldconfig").exists else None)
    if ldconfig and "libcuda.so " in rctx.execute([ldconfig, "-p"]).stdout:
        return ["-lcuda"]
    symbols = []
    for archive in archives:
        dynamic = ["-D"] if archive.basename.endswith(".so") else []
        for line in rctx.execute(["nm", "-u", "--format=posix"] + dynamic + [str(archive)]).stdout.split("\n"):
            name = line.split(" ")[0]
            if len(name) > 2 and name.startswith("cu") and name[2].isupper() and name not in symbols:
                symbols.append(name)
    rctx.file("driver_stub/libcuda_stub.c", "".join(["void %s(void) {}\n" % s for s in symbols]))
    cc = rctx.which("cc") or rctx.which("gcc")
    if not cc:
        fail("kcoll: no CUDA driver library (libcuda.so) on this machine, and no C compiler (cc) to make a stub of it")
    result = rctx.execute([cc, "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o", "driver_stub/libcuda.so",
                           "driver_stub/libcuda_stub.c"])
    if result.return_code != 0:
        fail("kcoll: no CUDA driver library (libcuda.so) on this machine and making a stub of it failed: " +
             result.stderr)
    return ["-L" + str(rctx.path("driver_stub")), "-lcuda"]

# ---------------------------------------------------------------------------------------------------------------------
# Kokkos

_KOKKOS_BACKENDS = ["SERIAL", "OPENMP", "THREADS", "CUDA", "HIP", "SYCL", "HPX"]

def _kokkos_default_root(rctx):
    # The same path tools/setup.sh installs into.
    env = rctx.os.environ
    cache = env.get("KCOLL_CACHE", "") or (env.get("XDG_CACHE_HOME", "") or env.get("HOME", "/root") + "/.cache") + "/kcoll"
    return cache + "/kokkos-3.4.01"

def _kokkos_cuda_compile_options(rctx, libdir):
    """The compiler options Kokkos' CMake package gives its C++ users, e.g. -extended-lambda, -arch=sm_80."""
    targets = rctx.path(libdir + "/cmake/Kokkos/KokkosTargets.cmake")
    if not targets.exists:
        return []
    options = []
    for line in rctx.read(targets).split("\n"):
        line = line.strip()
        if not line.startswith("INTERFACE_COMPILE_OPTIONS"):
            continue
        text = line[len("INTERFACE_COMPILE_OPTIONS"):].strip().strip('"')
        text = text.replace("\\$", "$").replace("$<$<COMPILE_LANGUAGE:CXX>:", ";").replace(">", ";")
        for word in text.split(";"):
            if word.startswith("-") and word not in options:
                options.append(word)
    return options

def _kokkos_impl(rctx):
    root = rctx.os.environ.get("KOKKOS_ROOT", "") or _kokkos_default_root(rctx)
    config = rctx.path(root + "/include/KokkosCore_config.h")
    if not config.exists:
        fail("kcoll: no Kokkos at KOKKOS_ROOT=%s (missing include/KokkosCore_config.h). " % root +
             "Run tools/setup.sh, or set KOKKOS_ROOT to a Kokkos install.")
    text = rctx.read(config)
    backends = [b for b in _KOKKOS_BACKENDS if ("#define KOKKOS_ENABLE_" + b + "\n") in text or
                                                ("#define KOKKOS_ENABLE_" + b + " ") in text]
    version = 0
    for line in text.split("\n"):
        if line.startswith("#define KOKKOS_VERSION "):
            version = int(line.split(" ")[2])
    _symlink_dir(rctx, root + "/include", "include")
    libdir = "lib64" if rctx.path(root + "/lib64/cmake").exists else "lib"
    _symlink_dir(rctx, root + "/" + libdir, "lib")

    copts = []
    linkopts = ["-ldl", "-lpthread"]
    if "OPENMP" in backends:
        copts.append("-fopenmp")
        linkopts.append("-fopenmp")
    if "CUDA" in backends:
        # Code that includes a CUDA Kokkos is compiled with its nvcc_wrapper (--config=cuda) and needs the device flags
        # Kokkos was built with (-arch=sm_XX, extended lambdas), which its CMake package lists; and the CUDA runtime
        # and driver.
        # KCOLL_KOKKOS_CUDA tells --config=cuda's compiler (tools/configure_cuda.sh) to compile the file with nvcc.
        # nvcc's front end warns (2810) when an absl::Status is assigned, as if a [[nodiscard]] result were dropped:
        # silenced.
        copts += ["-DKCOLL_KOKKOS_CUDA", "-Xcudafe", "--diag_suppress=2810"]
        copts += _kokkos_cuda_compile_options(rctx, root + "/" + libdir)
        cuda = _cuda_root(rctx)
        cudalib = _cuda_lib_dir(rctx, cuda)
        if not rctx.path(cudalib + "/libcudart.so").exists:
            fail("kcoll: the Kokkos at %s uses CUDA, but the CUDA toolkit at %s has no %s/libcudart.so: " % (root, cuda, cudalib) +
                 "set CUDA_PATH to the toolkit Kokkos was built with.")
        libraries = [f for f in rctx.path(root + "/" + libdir).readdir()
                     if f.basename.startswith("libkokkos") and (f.basename.endswith(".a") or f.basename.endswith(".so"))]
        linkopts += ["-L" + cudalib, "-Wl,-rpath," + cudalib, "-lcudart"]
        linkopts += _cuda_driver_linkopts(rctx, cudalib, libraries)

    rctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

_STATIC = glob(["lib/libkokkos*.a"])

cc_library(
    name = "kokkos",
    hdrs = glob(["include/**"]),
    includes = ["include"],
    srcs = _STATIC if _STATIC else glob(["lib/libkokkos*.so"]),
    # Kokkos registers its backends from static initialisers: keep every object of the archives.
    alwayslink = True,
    copts = {copts},
    linkopts = {linkopts},
)
""".format(copts = repr(copts), linkopts = repr(linkopts)))

    rctx.file("defs.bzl", """# Generated from {config}
KOKKOS_ROOT = "{root}"
KOKKOS_VERSION = {version}
KOKKOS_BACKENDS = {backends}
KOKKOS_HAS_SERIAL = {serial}
KOKKOS_HAS_OPENMP = {openmp}
KOKKOS_HAS_CUDA = {cuda}
# Every translation unit that includes Kokkos needs these (OpenMP's pragmas and runtime).
KOKKOS_COPTS = {copts}
KOKKOS_LINKOPTS = {linkopts}
""".format(
        config = str(config),
        root = root,
        version = version,
        backends = repr(backends),
        serial = _bool("SERIAL" in backends),
        openmp = _bool("OPENMP" in backends),
        cuda = _bool("CUDA" in backends),
        copts = repr(copts),
        linkopts = repr(linkopts),
    ))

kokkos_configure = repository_rule(
    implementation = _kokkos_impl,
    environ = ["KOKKOS_ROOT", "KCOLL_CACHE", "HOME", "XDG_CACHE_HOME", "CUDA_PATH", "CUDA_HOME", "PATH"],
    local = True,
)

# ---------------------------------------------------------------------------------------------------------------------
# MPI

def _run_words(rctx, args):
    """The whitespace-separated words a command prints, or [] when it fails."""
    result = rctx.execute(args)
    if result.return_code != 0:
        return []
    return [w for w in result.stdout.replace("\n", " ").split(" ") if w]

def _mpich_show(rctx, mpicc):
    """MPICH's wrapper (`mpicc -show`): its -I, -L and -l words as (incdirs, libdirs, libs)."""
    incdirs, libdirs, libs = [], [], []
    for w in _run_words(rctx, [mpicc, "-show"]):
        if w.startswith("-I"):
            incdirs.append(w[2:])
        elif w.startswith("-L"):
            libdirs.append(w[2:])
        elif w.startswith("-l"):
            libs.append(w[2:])
    return incdirs, libdirs, libs

def _mpi_impl(rctx):
    # The MPI to build against: the wrapper $MPICC names (Debian's MPICH: MPICC=mpicc.mpich), else $MPI_HOME/bin/mpicc,
    # else mpicc on PATH. Open MPI's wrapper answers --showme:*, MPICH's -show.
    home = rctx.os.environ.get("MPI_HOME", "")
    mpicc = rctx.os.environ.get("MPICC", "")
    if mpicc and not mpicc.startswith("/"):
        mpicc = str(rctx.which(mpicc) or mpicc)
    if not mpicc:
        mpicc = home + "/bin/mpicc" if home else str(rctx.which("mpicc") or "")
    if not mpicc or not rctx.path(mpicc).exists:
        fail("kcoll: no MPI found (MPICC=%s, MPI_HOME=%s, mpicc not on PATH). Run tools/setup.sh or set MPI_HOME." %
             (rctx.os.environ.get("MPICC", ""), home))
    incdirs = _run_words(rctx, [mpicc, "--showme:incdirs"])
    libdirs = _run_words(rctx, [mpicc, "--showme:libdirs"])
    libs = _run_words(rctx, [mpicc, "--showme:libs"]) or ["mpi"]
    if not incdirs:
        incdirs, libdirs, libs = _mpich_show(rctx, mpicc)
    if not incdirs and home:
        # Neither wrapper: assume the conventional layout under MPI_HOME.
        incdirs, libdirs, libs = [home + "/include"], [home + "/lib"], ["mpi"]
    if not incdirs:
        fail("kcoll: %s answers neither --showme:incdirs (Open MPI) nor -show (MPICH); set MPI_HOME" % mpicc)

    # The launcher beside the wrapper, with its suffix (mpicc.mpich -> mpirun.mpich).
    wrapper = rctx.path(mpicc)
    mpirun = str(wrapper.dirname) + "/" + wrapper.basename.replace("mpicc", "mpirun", 1)
    if not rctx.path(mpirun).exists:
        mpirun = str(wrapper.dirname) + "/mpiexec"
    hdrs = []
    for i, d in enumerate(incdirs):
        _symlink_dir(rctx, d, "include%d" % i)
        hdrs.append("include%d" % i)
    linkopts = ["-L" + d for d in libdirs] + ["-Wl,-rpath," + d for d in libdirs] + ["-l" + l for l in libs]
    rctx.file("kcoll_mpi_paths.h", """// Generated: where the MPI that kcoll was built against lives.
#ifndef KCOLL_MPI_PATHS_H_
#define KCOLL_MPI_PATHS_H_
#define KCOLL_MPIRUN "{mpirun}"
#endif
""".format(mpirun = mpirun))
    rctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "mpi",
    hdrs = glob([{globs}]) + ["kcoll_mpi_paths.h"],
    includes = {includes},
    # Open MPI's C++ bindings are deprecated and break the link; kcoll uses the C API only.
    defines = ["OMPI_SKIP_MPICXX", "MPICH_SKIP_MPICXX"],
    linkopts = {linkopts},
)
""".format(
        globs = ", ".join(['"%s/**/*.h"' % h for h in hdrs]),
        includes = repr(hdrs),
        linkopts = repr(linkopts),
    ))
    rctx.file("defs.bzl", 'MPIRUN = "%s"\n' % mpirun)

mpi_configure = repository_rule(
    implementation = _mpi_impl,
    environ = ["MPI_HOME", "MPICC", "PATH"],
    local = True,
)

# ---------------------------------------------------------------------------------------------------------------------
# CUDA and NCCL (optional: an empty stand-in when absent, so CPU-only machines build)

def _first_existing(rctx, candidates):
    for c in candidates:
        if c and rctx.path(c).exists:
            return c
    return None

def _cuda_impl(rctx):
    cuda = _cuda_root(rctx)
    has_cuda = rctx.path(cuda + "/include/cuda_runtime.h").exists
    nccl_home = rctx.os.environ.get("NCCL_HOME", "")
    nccl_inc = _first_existing(rctx, [
        nccl_home + "/include/nccl.h" if nccl_home else None,
        cuda + "/include/nccl.h",
        "/usr/include/nccl.h",
    ])
    nccl_lib_dir = None
    if nccl_inc:
        nccl_root = str(rctx.path(nccl_inc).dirname.dirname)
        nccl_lib_dir = _first_existing(rctx, [
            nccl_root + "/lib/libnccl.so",
            nccl_root + "/lib64/libnccl.so",
            "/usr/lib/x86_64-linux-gnu/libnccl.so",
        ])
    has_nccl = has_cuda and nccl_inc != None and nccl_lib_dir != None

    build = ['package(default_visibility = ["//visibility:public"])\n']
    if has_cuda:
        _symlink_dir(rctx, cuda + "/include", "cuda_include")
        cudalib = _cuda_lib_dir(rctx, cuda)
        build.append("""
cc_library(
    name = "cuda_runtime",
    hdrs = glob(["cuda_include/**"]),
    includes = ["cuda_include"],
    # Code that can use the CUDA runtime when it is installed tests this define.
    defines = ["KCOLL_HAVE_CUDA"],
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lcudart"],
)
""".format(lib = cudalib))
    else:
        build.append('cc_library(name = "cuda_runtime")\n')
    if has_nccl:
        nccl_dir = str(rctx.path(nccl_lib_dir).dirname)
        rctx.symlink(rctx.path(nccl_inc), "nccl_include/nccl.h")
        build.append("""
cc_library(
    name = "nccl",
    hdrs = ["nccl_include/nccl.h"],
    includes = ["nccl_include"],
    # Set only when NCCL is present: the NCCL transport and the NCCL baselines compile their host code against it.
    defines = ["KCOLL_HAVE_NCCL"],
    deps = [":cuda_runtime"],
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lnccl"],
)
""".format(lib = nccl_dir))
    else:
        build.append('cc_library(name = "nccl")\n')
    rctx.file("BUILD", "\n".join(build))
    rctx.file("defs.bzl", """CUDA_PATH = "{cuda}"
HAS_CUDA = {has_cuda}
HAS_NVCC = {has_nvcc}
HAS_NCCL = {has_nccl}
""".format(
        cuda = cuda,
        has_cuda = _bool(has_cuda),
        has_nvcc = _bool(has_cuda and rctx.path(cuda + "/bin/nvcc").exists),
        has_nccl = _bool(has_nccl),
    ))

cuda_configure = repository_rule(
    implementation = _cuda_impl,
    environ = ["CUDA_PATH", "CUDA_HOME", "NCCL_HOME", "PATH"],
    local = True,
)

def kcoll_installed_libraries():
    """The repositories that wrap the installed libraries (//:deps.bzl's kcoll_dependencies calls this)."""
    kokkos_configure(name = "kcoll_kokkos")
    gloo_configure(name = "kcoll_gloo")
    mpi_configure(name = "kcoll_mpi")
    cuda_configure(name = "kcoll_cuda")
