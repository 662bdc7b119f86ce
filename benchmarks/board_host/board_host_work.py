#!/usr/bin/python3
"""Board end-to-end estimate: the board CPU's share of one inference on target vdla.

What it measures
  On a Zynq board the ARM cores run the deployable runtime (libvdla_runtime.so
  and the driver): input quantisation, packing activations into the
  accelerator's blocked layout and unpacking them, copies into and out of the
  device buffers, and the steps left on the CPU (residual adds, pooling, the
  classifier's reshapes). The accelerator's time comes from `vdla profile
  --device cycle`; this script counts the host's side.

Method
  1. The cross-built runner (build/release/arm-runtime or arm64-runtime,
     runtime/tools/vdla_run_artifact) runs the artifact under qemu-user with
     --device fsim: the functional simulator stands in for the FPGA.
  2. A small TCG plugin (insn_count_plugin.c, built here with cc) counts the
     guest instructions executed per translation block. Blocks in the system
     libraries (libc, libstdc++, libm, libgcc_s) and in the PLT stubs are
     charged to the last block the same thread ran outside them, so a memcpy
     counts for the function that called it. Counts are kept apart per thread:
     the first thread runs main() and the runtime; the simulated device runs
     each accelerator program on a thread of its own (std::async in
     SimulatedDramDevice::launch).
  3. Library load addresses come from qemu's -strace (openat of the library,
     then the first mmap of that descriptor at file offset 0, which maps the
     ELF's address 0), the runner's from the plugin (qemu_plugin_start_code).
     The plugin needs the system libraries' ranges before the run, so a
     first run that only loads the artifact (no --input) finds them; each
     measured run's -strace must show the same addresses, or the script
     stops.
     A block is named by the function symbol (nm -C -S) that contains it.
  4. The artifact runs with --repeat 1 and --repeat 2; the difference is one
     steady-state inference, without start-up, artifact loading, the device
     session's set-up (weights and programs uploaded once) and exit.
  5. Excluded as the accelerator's stand-in: everything on the device's
     threads, and on the main thread the functional simulator's code
     (namespace vdla::sim, i.e. libvdla_sim.so), FsimDevice, and the simulated
     device's launch/wait machinery (thread start, futures). A board's driver
     instead writes a few registers and waits. Kept as host work: the device
     buffer reads and writes (SimulatedDramDevice::read/write: a memcpy into
     or out of DRAM, as on a board, where the buffers are DMA memory).
  6. Host time = host instructions / (IPC x CPU clock); accelerator time =
     the profile's "total, latency hiding on" cycles at the config's clock as
     the profile prints it; end-to-end = their sum (the runtime runs each
     offloaded step to completion before the next host step, so they do not
     overlap).

Limits
  - Instruction counts, not cycles: the IPC is an assumption (--ipc, default
    1.0). A Cortex-A9 or A53 runs simple integer loops at about 1 IPC, but
    cache misses on megabyte-sized activations (memcpy into uncached or
    write-combined DMA buffers on a real board) can cost more than that; treat
    the host time as an estimate, not a measurement.
  - The functional simulator is removed by symbol and by thread, not by
    measurement on a board; the register writes and interrupt or polling
    wait of the board's driver are not counted (they are small: a handful of
    register accesses per offloaded step).
  - qemu executes the same ARM code a board would, so the instruction counts
    are exact for this build, libc and input; libc's memcpy on the board may
    differ (same glibc family, different version).
  - Single thread (VDLA_NUM_THREADS=1): the host steps of a board with two
    cores could run in parallel; this counts the serial work.

Usage
  /usr/bin/python3 benchmarks/board_host/board_host_work.py [--boards pynq,ultra96,zcu104]
      [--networks resnet18,mobilenetv2] [--ipc 1.0] [--json PATH] [--top 12]
      [--flags='--no-im2col'] [--keep DIR]
  Needs qemu-user with TCG plugin support (Debian's qemu-arm/qemu-aarch64
  7.2), the cross toolchains' binutils and C libraries
  (/usr/arm-linux-gnueabihf, /usr/aarch64-linux-gnu), the cross-built runtime
  (targets vdla_armv7_runtime, vdla_aarch64_runtime) and the installed vdla
  CLI. About 20 to 40 s per network and board on a 2-core machine.
"""
import argparse
import bisect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from array import array

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "insn_count_plugin.c")

NETWORKS = {
    "resnet18": "resnet18",
    "mobilenetv2": "/work/shared/data/models/mobilenetv2-imagenet-int8-qdq.onnx",
}

# The boards: their CPU, its clock and the runtime build that runs on it.
BOARDS = {
    "pynq": {"cpu": "Zynq-7020 Cortex-A9", "cpu_mhz": 650.0, "arch": "armv7"},
    "ultra96": {"cpu": "ZU3EG Cortex-A53", "cpu_mhz": 1200.0, "arch": "aarch64"},
    "zcu104": {"cpu": "ZU7EV Cortex-A53", "cpu_mhz": 1200.0, "arch": "aarch64"},
}

ARCHES = {
    "armv7": {
        "qemu": "qemu-arm",
        "sysroot": "/usr/arm-linux-gnueabihf",
        "build": "arm-runtime",
        "target": "vdla_armv7_runtime",
        "nm": "arm-linux-gnueabihf-nm",
        "thumb": True,  # function symbols of Thumb code have bit 0 set
    },
    "aarch64": {
        "qemu": "qemu-aarch64",
        "sysroot": "/usr/aarch64-linux-gnu",
        "build": "arm64-runtime",
        "target": "vdla_aarch64_runtime",
        "nm": "aarch64-linux-gnu-nm",
        "thumb": False,
    },
}

# The runtime's own libraries (relative to the cross build) and what they hold.
OWN_LIBS = ["runtime/libvdla_runtime.so", "driver/libvdla_driver.so", "simulator/libvdla_sim.so", "vdla_hw/libvdla_hw.so"]

CAT_DATA = "quantise/pack/unpack/copies"
CAT_CPU = "CPU-step kernels"
CAT_OTHER = "other runtime"
CAT_UNKNOWN = "unattributed (loader, no symbol)"
CAT_FSIM = "accelerator stand-in (excluded)"
CAT_FSIM_MAIN = "of which on the main thread"
HOST_CATS = [CAT_DATA, CAT_CPU, CAT_OTHER, CAT_UNKNOWN]


class Failure(Exception):
    pass


def progress(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def niced(cmd):
    # The build machine is small; keep the long runs out of the way.
    return ["nice", "-n", "10"] + cmd if shutil.which("nice") else cmd


# ---- Prerequisites ----------------------------------------------------------------


def check_qemu(qemu):
    path = shutil.which(qemu)
    if not path:
        raise Failure(f"{qemu} not found (apt-get install qemu-user)")
    # A qemu built without TCG plugins neither exports the API nor takes -plugin.
    nm = run(["nm", "-D", path])
    if nm.returncode == 0 and "qemu_plugin_register_vcpu_tb_trans_cb" not in nm.stdout:
        raise Failure(f"{path} has no TCG plugin support (qemu_plugin_register_vcpu_tb_trans_cb is not exported)")
    return path


def build_plugin(workdir):
    if not os.path.exists(PLUGIN_SOURCE):
        raise Failure(f"{PLUGIN_SOURCE} is missing")
    out = os.path.join(workdir, "insn_count_plugin.so")
    r = run(["cc", "-O2", "-shared", "-fPIC", "-o", out, PLUGIN_SOURCE])
    if r.returncode != 0:
        raise Failure("building the qemu plugin failed:\n" + r.stderr)
    return out


def arch_products(build_dir, arch):
    a = ARCHES[arch]
    base = os.path.join(build_dir, a["build"])
    runner = os.path.join(base, "runtime/tools/vdla_run_artifact")
    libs = [os.path.join(base, p) for p in OWN_LIBS]
    missing = [p for p in [runner] + libs if not os.path.exists(p)]
    if missing:
        raise Failure(
            f"missing {', '.join(missing)}: build it with `cmake --build {build_dir} --target {a['target']}`"
            " (a cross build with the accelerator's side, VDLA_RUNTIME_ACCEL=ON)")
    if not os.path.isdir(a["sysroot"]):
        raise Failure(f"{a['sysroot']} (the {arch} C library that qemu runs the runner with) is missing")
    nm = shutil.which(a["nm"]) or shutil.which("nm")
    if not nm:
        raise Failure(f"{a['nm']} not found (binutils for {arch})")
    return {"runner": runner, "libs": libs, "nm": nm, "qemu": check_qemu(a["qemu"]), **a}


# ---- ELF helpers ----------------------------------------------------------------


def plt_ranges(path):
    """Offsets [lo, hi) of the PLT sections: call stubs, charged to their caller."""
    r = run(["readelf", "-SW", path])
    ranges = []
    for line in r.stdout.splitlines():
        m = re.search(r"\]\s+(\.plt\S*|\.iplt)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m:
            lo, size = int(m.group(2), 16), int(m.group(3), 16)
            if size:
                ranges.append((lo, lo + size))
    return ranges


def plt_symbols(path):
    """The PLT sections as pseudo-functions named after the functions they
    call (from the JUMP_SLOT relocations): the stubs take a library call's
    owner when the calling code is not itself named (the generated CPU code)."""
    r = run(["readelf", "-rW", path])
    called = []
    for line in r.stdout.splitlines():
        if "JUMP_SLOT" in line:
            parts = line.split()
            if len(parts) >= 5:
                called.append(re.sub(r"@.*", "", parts[4]))
    names = ", ".join(called[:6]) + (", ..." if len(called) > 6 else "")
    return [(lo, hi, f"PLT stubs (calls to {names or 'shared libraries'})") for lo, hi in plt_ranges(path)]


def symbols(nm, path, thumb):
    """Sorted (start, end, name) of the function symbols of an ELF file (static and dynamic tables)."""
    syms = {}
    for extra in ([], ["-D"]):
        r = run([nm, "-C", "-S", "--defined-only"] + extra + [path])
        for line in r.stdout.splitlines():
            parts = line.split(None, 3)
            if len(parts) < 4 or parts[2] not in "tTwWiI":
                continue
            start, size = int(parts[0], 16), int(parts[1], 16)
            if thumb:
                start &= ~1
            name = re.sub(r"@@?[A-Z][\w.]*$", "", parts[3])  # symbol versions (memcpy@@GLIBC_2.4)
            if size and (start not in syms or syms[start][0] < size):
                syms[start] = (size, name)
    out = sorted((s, s + size, name) for s, (size, name) in syms.items())
    return sorted(out + plt_symbols(path))


def carve_native_library(artifact, out_path):
    """The CPU steps' generated code is a shared library stored inside the
    artifact; the runtime writes it to a temporary file and unlinks it once
    loaded. Cut it out of the artifact (ELF header to the end of the section
    headers) so that its functions can be named."""
    import struct

    data = open(artifact, "rb").read()
    i = data.find(b"\x7fELF")
    if i < 0:
        return None
    if data[i + 4] == 1:
        (shoff,) = struct.unpack_from("<I", data, i + 0x20)
        shentsize, shnum = struct.unpack_from("<HH", data, i + 0x2E)
    else:
        (shoff,) = struct.unpack_from("<Q", data, i + 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, i + 0x3A)
    with open(out_path, "wb") as f:
        f.write(data[i:i + shoff + shentsize * shnum])
    return out_path


# ---- qemu runs ----------------------------------------------------------------


def parse_strace(path, sysroot):
    """Maps each file the guest mmapped at offset 0 to (base, end): the first
    mmap of a descriptor at offset 0 puts the ELF's address 0 there; the end is
    the furthest end of that descriptor's mappings."""
    fd_path = {}
    maps = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r'openat\([^,]*,"([^"]+)",[^)]*\) = (\d+)$', line)
            if m:
                fd_path[int(m.group(2))] = m.group(1)
                continue
            m = re.search(r"\bclose\((\d+)\) = 0", line)
            if m:
                fd_path.pop(int(m.group(1)), None)
                continue
            m = re.search(r"\bmmap2?\((?:NULL|0x[0-9a-f]+),(\d+),[^,]*,[^,]*,(\d+),(0x[0-9a-f]+|\d+)\) = (0x[0-9a-f]+)", line)
            if m:
                length, fd, off, addr = int(m.group(1)), int(m.group(2)), int(m.group(3), 0), int(m.group(4), 16)
                p = fd_path.get(fd)
                if p is None:
                    continue
                if p not in maps:
                    if off != 0:
                        continue
                    maps[p] = [addr, addr + length]
                else:
                    maps[p][1] = max(maps[p][1], addr + length)
    return {p: tuple(v) for p, v in maps.items()}


def is_system_lib(path):
    name = os.path.basename(path)
    return bool(re.match(r"(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux\S*)\.so", name))


def qemu_cmd(prod, plugin_args=None, strace_log=None):
    cmd = [prod["qemu"], "-L", prod["sysroot"]]
    if strace_log:
        cmd += ["-D", strace_log, "-strace"]
    if plugin_args:
        cmd += ["-plugin", ",".join(plugin_args)]
    return cmd + [prod["runner"]]


def read_counts(path):
    exe = None
    counts = []
    with open(path) as f:
        for line in f:
            if line.startswith("# exe"):
                _, _, lo, hi, entry = line.split()
                exe = (int(lo, 16), int(hi, 16))
                continue
            cls, vaddr, owner, n = line.split()
            counts.append((int(cls), int(vaddr, 16), int(owner, 16), int(n)))
    if exe is None:
        raise Failure(f"{path}: the plugin wrote no '# exe' line (did the guest exit normally?)")
    return exe, counts


# ---- Attribution ----------------------------------------------------------------


class Modules:
    """Guest address -> (module, function)."""

    def __init__(self):
        self.mods = []  # (lo, hi, name, syms, sym_starts)

    def add(self, name, lo, hi, syms):
        shifted = [(s + lo, e + lo, n) for s, e, n in syms]
        self.mods.append((lo, hi, name, shifted, [s for s, _, _ in shifted]))

    def lookup(self, addr):
        for lo, hi, name, syms, starts in self.mods:
            if lo <= addr < hi:
                i = bisect.bisect_right(starts, addr) - 1
                if i >= 0 and addr < syms[i][1]:
                    return name, syms[i][2]
                if i >= 0:
                    # Local functions of a stripped library (the generated
                    # code's loop bodies, libc's memcpy variants) have no
                    # symbol; the one before them says where they belong.
                    return name, f"(unnamed code after {syms[i][2]})"
                return name, f"({name}: no symbol)"
        return None, None


STANDIN_DRIVER = re.compile(
    r"FsimDevice|SimulatedDramDevice::(launch|wait|finishPrevious|cancelAndFinish|runProgram)|"
    r"__future_base|std::thread|_State_impl|_Async_state|std::async|__basic_future|std::future|"
    r"\{lambda\(\)#\d+\}|_Sp_counted_ptr_inplace<std::__future")
DATA_MOVEMENT = re.compile(
    r"pack|Pack|quantiz|Quantiz|InputTransform|transformInput|im2col|spaceToDepth|space_to_depth|"
    r"writePlane|stridedCopy|PackedGeometry|"
    r"Device::(read|write)|Dram::map|staging|copyTensor|Tensor::copy")
CPU_KERNELS = re.compile(r"vdla::rt::ref::|vdla::rt::native::|vdla_cpu_step|runNativeStep|NativeLibrary")


def classify(module, func, cls):
    if cls != 0:
        return CAT_FSIM
    if module is None:
        return CAT_UNKNOWN
    if module == "libvdla_sim.so" or "vdla::sim::" in func:
        return CAT_FSIM
    if module == "libvdla_driver.so" and STANDIN_DRIVER.search(func):
        return CAT_FSIM
    if module == "generated CPU code":
        return CAT_CPU
    if DATA_MOVEMENT.search(func):
        return CAT_DATA
    if CPU_KERNELS.search(func):
        return CAT_CPU
    if is_system_lib(module):
        return CAT_UNKNOWN  # library code before any runtime code ran (start-up)
    return CAT_OTHER


def attribute(counts, mods, lib_ranges):
    """Sums the counts per (category, function) and per (caller, library
    function). A system-library block is charged to its owner (the plugin's
    caller block)."""
    per_func = {}
    per_cat = {}
    per_call = {}
    for cls, vaddr, owner, n in counts:
        addr = owner if owner else vaddr
        module, func = mods.lookup(addr)
        if owner and cls == 0:
            lib, callee = mods.lookup(vaddr)
            key = (module or "?", func or "?", f"{lib}: {callee}")
            per_call[key] = per_call.get(key, 0) + n
        if owner == 0 and any(lo <= vaddr < hi for lo, hi in lib_ranges):
            module, func = module or "system libraries", func or "(system library, before any runtime code)"
        if module is None:
            func = "(outside known modules: dynamic loader, vectors page)"
        cat = classify(module, func, cls)
        key = (cat, module or "?", func)
        per_func[key] = per_func.get(key, 0) + n
        per_cat[cat] = per_cat.get(cat, 0) + n
        if cat == CAT_FSIM and cls == 0:
            per_cat[CAT_FSIM_MAIN] = per_cat.get(CAT_FSIM_MAIN, 0) + n
    return per_cat, per_func, per_call


# ---- Profile ----------------------------------------------------------------


def profile(vdla, model, config, workdir, flags):
    cmd = niced([vdla, "profile", model, "--config", config, "--device", "cycle", "--latency-hiding", "on"] + flags)
    r = run(cmd, cwd=workdir)
    if r.returncode != 0:
        raise Failure(f"{' '.join(cmd)} failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    m = re.search(r"total, latency hiding on: (\d+) cycles \(([\d.]+) ms at ([\d.]+) MHz\)", r.stdout)
    if not m:
        raise Failure(f"{' '.join(cmd)}: no 'total, latency hiding on: N cycles (T ms at F MHz)' line")
    host_lines = [l.strip() for l in r.stdout.splitlines() if re.match(r"\s+(offloaded layers|CPU steps|kept in)", l)]
    return {"cycles": int(m.group(1)), "accel_mhz": float(m.group(3)), "accel_ms": float(m.group(2)),
            "profile_host_lines": host_lines, "command": " ".join(cmd[3:] if cmd[0] == "nice" else cmd)}


# ---- One network on one board ----------------------------------------------------


def make_input(prod, artifact, path):
    """Deterministic input of the artifact's graph input (a smooth pattern in
    the range of a normalised image; the instruction counts barely depend on
    the values)."""
    r = run(qemu_cmd(prod) + [artifact])
    m = re.search(r"input 0 '[^']*' (\w+)\[([\d,]+)\]", r.stdout)
    if r.returncode != 0 or not m:
        raise Failure(f"cannot read the inputs of {artifact}:\n{r.stdout}{r.stderr}")
    dtype, shape = m.group(1), [int(x) for x in m.group(2).split(",")]
    n = 1
    for d in shape:
        n *= d
    if dtype == "f32":
        a = array("f", (((i * 2654435761) % 1000) / 250.0 - 2.0 for i in range(n)))
    elif dtype in ("i8", "u8"):
        a = array("b" if dtype == "i8" else "B", (((i * 2654435761) % 200) - (100 if dtype == "i8" else 0) for i in range(n)))
    else:
        raise Failure(f"{artifact}: input type {dtype} not handled")
    with open(path, "wb") as f:
        a.tofile(f)
    return f"{dtype}[{','.join(map(str, shape))}]"


def measure(net, board, args, prod, plugin, vdla, workdir):
    b = BOARDS[board]
    tag = f"{net}_{board}"
    artifact = os.path.join(workdir, tag + ".vdla")
    progress(f"{net} on {board}: compiling ({b['arch']}, config {board})")
    cmd = niced([vdla, "compile", NETWORKS[net], "-o", artifact, "--target", "vdla", "--config", board, "--cpu",
                 b["arch"]] + args.flags.split())
    r = run(cmd)
    if r.returncode != 0:
        raise Failure(f"{' '.join(cmd)} failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    progress(f"{net} on {board}: vdla profile --device cycle")
    prof = profile(vdla, NETWORKS[net], board, workdir, args.flags.split())
    progress(f"{net} on {board}: {prof['cycles']} accelerator cycles at {prof['accel_mhz']:g} MHz")

    inp = os.path.join(workdir, tag + ".in")
    in_type = make_input(prod, artifact, inp)

    # Where the libraries land: a run that only loads them (no --input) maps
    # them as the measured runs will (qemu-user places mappings
    # deterministically; checked against each measured run below).
    pre_log = os.path.join(workdir, tag + ".pre.strace")
    r = run(qemu_cmd(prod, strace_log=pre_log) + [artifact])
    if r.returncode != 0:
        raise Failure(f"loading {artifact} under qemu failed:\n{r.stderr}")
    pre_maps = parse_strace(pre_log, prod["sysroot"])
    own_paths = {os.path.realpath(p): p for p in prod["libs"]}
    lib_ranges = [v for p, v in pre_maps.items() if is_system_lib(p)]
    if not lib_ranges:
        raise Failure(f"{pre_log}: found no system library mappings in qemu's -strace output")
    # PLT stubs of the runtime's libraries are charged to their caller too.
    for p, (lo, hi) in pre_maps.items():
        if os.path.realpath(p) in own_paths:
            lib_ranges += [(lo + a, lo + e) for a, e in plt_ranges(p)]

    results = {}
    for repeat in (1, 2):
        out = os.path.join(workdir, f"{tag}.r{repeat}.counts")
        log = os.path.join(workdir, f"{tag}.r{repeat}.strace")
        pargs = [plugin, "out=" + out] + [f"lib={lo:x}-{hi:x}" for lo, hi in lib_ranges]
        cmd = niced(qemu_cmd(prod, pargs, log) + [artifact, "--input", inp, "--output",
                                                    os.path.join(workdir, tag + ".out"), "--device", "fsim",
                                                    "--repeat", str(repeat)])
        progress(f"{net} on {board}: qemu {prod['qemu']} --repeat {repeat} (fsim under qemu; minutes)")
        t0 = time.time()
        r = run(cmd, env=dict(os.environ, VDLA_NUM_THREADS="1"))
        if r.returncode != 0:
            if "plugin" in r.stderr.lower():
                raise Failure(f"{prod['qemu']} refused the plugin:\n{r.stderr}")
            raise Failure(f"the runner failed under qemu:\n{r.stdout}{r.stderr}")
        progress(f"{net} on {board}: --repeat {repeat} took {time.time() - t0:.0f} s: {r.stdout.strip().splitlines()[0]}")
        maps = parse_strace(log, prod["sysroot"])
        for p, v in pre_maps.items():
            if maps.get(p) != v:
                raise Failure(f"{p} was mapped at {maps.get(p)} in the measured run but {v} when loading only; "
                              "the library ranges given to the plugin would be wrong")
        exe, counts = read_counts(out)
        results[repeat] = (exe, counts, maps)

    # Symbols: the runner, the runtime's libraries, the generated CPU code.
    exe, _, maps = results[2]
    if results[1][0] != exe:
        raise Failure("the runner was loaded at different addresses in the two runs")
    mods = Modules()
    runner_syms = symbols(prod["nm"], prod["runner"], prod["thumb"])
    # start_code is the first loaded segment's start, where a PIE's address 0 lands.
    mods.add("vdla_run_artifact", exe[0], exe[1], runner_syms)
    native = carve_native_library(artifact, os.path.join(workdir, tag + ".cpu_code.so"))
    for p, (lo, hi) in maps.items():
        if os.path.realpath(p) in own_paths:
            mods.add(os.path.basename(p), lo, hi, symbols(prod["nm"], p, prod["thumb"]))
        elif "/vdla-code-" in p:
            mods.add("generated CPU code", lo, hi, symbols(prod["nm"], native, prod["thumb"]) if native else [])
        elif is_system_lib(p):
            # qemu -L resolves the guest's /lib/... under the sysroot.
            host = prod["sysroot"] + p if os.path.exists(prod["sysroot"] + p) else p
            mods.add(os.path.basename(p), lo, hi, symbols(prod["nm"], host, prod["thumb"]) if os.path.exists(host) else [])
    # The generated code's temporary file has a new name in each run; it must
    # still land at the same address, since run 1's counts are named with
    # run 2's map.
    code_ranges = [sorted(v for p, v in results[k][2].items() if "/vdla-code-" in p) for k in (1, 2)]
    if code_ranges[0] != code_ranges[1]:
        raise Failure(f"the generated CPU code was loaded at {code_ranges[0]} and {code_ranges[1]} in the two runs")

    cats, funcs, calls = {}, {}, {}
    for repeat in (1, 2):
        cats[repeat], funcs[repeat], calls[repeat] = attribute(results[repeat][1], mods, lib_ranges)
    diff_call = {k: calls[2].get(k, 0) - calls[1].get(k, 0) for k in set(calls[1]) | set(calls[2])}
    top_calls = sorted(((v, k) for k, v in diff_call.items() if v > 0), reverse=True)[:8]
    diff_cat = {c: cats[2].get(c, 0) - cats[1].get(c, 0) for c in HOST_CATS + [CAT_FSIM, CAT_FSIM_MAIN]}
    diff_func = {}
    for k in set(funcs[1]) | set(funcs[2]):
        d = funcs[2].get(k, 0) - funcs[1].get(k, 0)
        if d:
            diff_func[k] = d
    host = sum(diff_cat[c] for c in HOST_CATS)
    total = host + diff_cat[CAT_FSIM]
    host_ms = host / (args.ipc * b["cpu_mhz"] * 1e3)
    e2e = host_ms + prof["accel_ms"]
    top = sorted(((v, k) for k, v in diff_func.items() if k[0] in HOST_CATS), reverse=True)[: args.top]
    top_fsim = sorted(((v, k) for k, v in diff_func.items() if k[0] == CAT_FSIM), reverse=True)[:8]
    return {
        "network": net,
        "model": NETWORKS[net],
        "board": board,
        "board_cpu": b["cpu"],
        "cpu_mhz": b["cpu_mhz"],
        "arch": b["arch"],
        "input": in_type,
        "ipc_assumed": args.ipc,
        "host_instructions_per_inference": host,
        "host_by_category": {c: diff_cat[c] for c in HOST_CATS},
        "fsim_instructions_excluded": diff_cat[CAT_FSIM],
        # The simulated device's bookkeeping that runs on the caller's thread
        # (buffer lookups, starting and joining the run's thread): small.
        "fsim_excluded_on_main_thread": diff_cat[CAT_FSIM_MAIN],
        "total_instructions_per_inference": total,
        "fsim_share_of_instructions_pct": 100.0 * diff_cat[CAT_FSIM] / total if total else 0.0,
        "host_ms": host_ms,
        "accel_cycles": prof["cycles"],
        "accel_mhz": prof["accel_mhz"],
        "accel_ms": prof["cycles"] / (prof["accel_mhz"] * 1e3),
        "end_to_end_ms": e2e,
        "host_share_pct": 100.0 * host_ms / e2e,
        "profile_host_work": prof["profile_host_lines"],
        "top_host_functions": [{"instructions": v, "category": k[0], "module": k[1], "function": k[2]} for v, k in top],
        "top_library_calls_on_main_thread": [{"instructions": v, "caller_module": k[0], "caller": k[1], "callee": k[2]}
                                             for v, k in top_calls],
        "top_excluded_functions": [{"instructions": v, "module": k[1], "function": k[2]} for v, k in top_fsim],
        "run1_instructions": {c: cats[1].get(c, 0) for c in HOST_CATS + [CAT_FSIM, CAT_FSIM_MAIN]},
        "run2_instructions": {c: cats[2].get(c, 0) for c in HOST_CATS + [CAT_FSIM, CAT_FSIM_MAIN]},
    }


def fmt_m(n):
    return f"{n / 1e6:.2f} M"


def report(r):
    print(f"\n== {r['network']} on {r['board']} ({r['board_cpu']} {r['cpu_mhz']:g} MHz, {r['arch']}); input {r['input']}")
    print(f"  host instructions per inference: {fmt_m(r['host_instructions_per_inference'])}")
    for c, v in r["host_by_category"].items():
        print(f"    {c:34s} {fmt_m(v):>12s}")
    print(f"  fsim instructions excluded:      {fmt_m(r['fsim_instructions_excluded'])} "
          f"({r['fsim_share_of_instructions_pct']:.2f}% of all instructions; "
          f"{fmt_m(r['fsim_excluded_on_main_thread'])} of it on the main thread)")
    print(f"  host time at {r['cpu_mhz']:g} MHz, IPC {r['ipc_assumed']:g} (assumed): {r['host_ms']:.2f} ms")
    print(f"  accelerator: {r['accel_cycles']} cycles at {r['accel_mhz']:g} MHz: {r['accel_ms']:.2f} ms")
    print(f"  end to end: {r['end_to_end_ms']:.2f} ms, host share {r['host_share_pct']:.1f}%")
    print("  vdla profile's host work per inference:")
    for l in r["profile_host_work"]:
        print(f"    {l}")
    print("  top host functions (instructions per inference; libc calls charged to their caller):")
    for f in r["top_host_functions"]:
        print(f"    {fmt_m(f['instructions']):>10s}  {f['category'][:12]:12s} {f['module']}: {f['function'][:110]}")
    print("  of these, time in system libraries (main thread; caller <- library function):")
    for f in r["top_library_calls_on_main_thread"]:
        print(f"    {fmt_m(f['instructions']):>10s}  {f['caller'][:70]} <- {f['callee'][:60]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", default="resnet18,mobilenetv2", help="comma-separated: " + ",".join(NETWORKS))
    ap.add_argument("--boards", default="pynq", help="comma-separated: " + ",".join(BOARDS))
    ap.add_argument("--ipc", type=float, default=1.0, help="instructions per cycle assumed for the board CPU (1.0)")
    ap.add_argument("--json", help="write all figures to this file")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build/release"))
    ap.add_argument("--vdla", help="the vdla CLI (default: BUILD_DIR/install/bin/vdla)")
    ap.add_argument("--flags", default="", help="extra options for both `vdla compile` and `vdla profile` "
                    "(e.g. '--no-im2col'), one string")
    ap.add_argument("--top", type=int, default=12, help="how many host functions to list")
    ap.add_argument("--keep", help="keep the artifacts, counts and qemu logs in this directory")
    args = ap.parse_args()
    nets = [n for n in args.networks.split(",") if n]
    boards = [b for b in args.boards.split(",") if b]
    for n in nets:
        if n not in NETWORKS:
            raise Failure(f"unknown network '{n}' ({', '.join(NETWORKS)})")
    for b in boards:
        if b not in BOARDS:
            raise Failure(f"unknown board '{b}' ({', '.join(BOARDS)})")
    if args.ipc <= 0:
        raise Failure("--ipc must be positive")
    vdla = args.vdla or os.path.join(args.build_dir, "install/bin/vdla")
    if not os.path.exists(vdla):
        raise Failure(f"{vdla} is missing: build and install the vdla CLI (cmake --build {args.build_dir} "
                      "--target install)")
    for n in nets:
        if os.path.isabs(NETWORKS[n]) and not os.path.exists(NETWORKS[n]):
            raise Failure(f"{NETWORKS[n]} is missing")
    prods = {a: arch_products(args.build_dir, a) for a in sorted({BOARDS[b]["arch"] for b in boards})}

    workdir = args.keep or tempfile.mkdtemp(prefix="vdla-board-host-")
    os.makedirs(workdir, exist_ok=True)
    try:
        plugin = build_plugin(workdir)
        progress(f"plugin built: {plugin}; IPC assumed {args.ipc:g} (--ipc)")
        results = []
        for board in boards:
            for net in nets:
                r = measure(net, board, args, prods[BOARDS[board]["arch"]], plugin, vdla, workdir)
                report(r)
                results.append(r)
        print(f"\nHost time assumes {args.ipc:g} instruction(s) per cycle on the board CPU (--ipc); instruction counts "
              "are measured under qemu, cycles on the accelerator by `vdla profile --device cycle`.")
        print(f"\n| network | board | host insns/inference | quant/pack/copies | CPU steps | other | fsim excluded "
              f"| host ms (IPC {args.ipc:g}) | accel cycles | accel ms | end-to-end ms | host share |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in results:
            c = r["host_by_category"]
            print(f"| {r['network']} | {r['board']} ({r['cpu_mhz']:g} MHz) | {fmt_m(r['host_instructions_per_inference'])} "
                  f"| {fmt_m(c[CAT_DATA])} | {fmt_m(c[CAT_CPU])} | {fmt_m(c[CAT_OTHER] + c[CAT_UNKNOWN])} "
                  f"| {fmt_m(r['fsim_instructions_excluded'])} | {r['host_ms']:.2f} | {r['accel_cycles']} "
                  f"({r['accel_mhz']:g} MHz) | {r['accel_ms']:.2f} | {r['end_to_end_ms']:.2f} | {r['host_share_pct']:.1f}% |")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"ipc_assumed": args.ipc, "vdla_flags": args.flags, "method": "guest instructions under qemu-user with a TCG plugin, "
                           "--repeat 2 minus --repeat 1; fsim excluded by thread and symbol", "results": results},
                          f, indent=2)
            progress(f"wrote {args.json}")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print(f"board_host_work: {e}", file=sys.stderr)
        sys.exit(1)
