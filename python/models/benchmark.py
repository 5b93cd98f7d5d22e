"""The model benchmark: every architecture of zoo.py through simdsynet.onnx, through
PyTorch's fastest CPU mode (a traced module, torch.jit.freeze, then
torch.jit.optimize_for_inference: oneDNN convolutions) and through ONNX Runtime's (the same
ONNX file; CPU provider, graph optimisation "all", sequential, intra-op threads = the thread
count; onnxruntime_peer.py), at 1 thread and at all cores, on the same input. Prints one table
for the twelve CNNs at --size (GFLOP, ms, speed-ups, relative output differences, share of time
outside the library's kernels) and a second one for the newer networks of
zoo.EXTRA_ARCHITECTURES (ConvNeXt, a vision transformer, DeepLab), each at its own size, writes
results.json and speedup.png into --out.

    PYTHONPATH=build/python python3 python/models/benchmark.py --out build-models [--quick]
        [--int8]

Timing: after warm-up runs, blocks of our runs, PyTorch's and ONNX Runtime's alternate until
each side has `--repeat` timed runs, and the median of each is reported with its range, so that a
machine whose speed drifts disturbs both sides alike. Each block starts with untimed runs for
at least 300 ms: after a parallel run PyTorch's OpenMP workers and ONNX Runtime's keep spinning
on the cores for milliseconds, and our pool's workers have gone to sleep, so the runs right
after a switch measure the thread pools fighting, not either framework (2 threads on Zen 5: our
first run of mobilenet_v2 after PyTorch's took 9.6 ms against 3.8 ms with PyTorch never run;
squeezenet1_1 after one untimed run 3.77 ms, after 30 ms of them 2.83, alone 2.80; PyTorch's
own figures move the same way, less). Their spinning also makes our pool see a busy machine
and run serial spells of up to 40 ms (src/core/ThreadPool.cpp), which the settling lets end
(Sapphire Rapids, mobilenet_v2 at 2 threads after ONNX Runtime's blocks: 3.98 ms with 30 ms,
2.8 alone). 300 ms, since with 100 ms two of ten 2-thread medians of mobilenet_v3_large and
mnasnet1_0 were still those of serial spells (4.50-5.03 ms against 2.9-3.6; ten of ten clean
with 300 ms). 1-thread runs are pinned to one core, ONNX Runtime's process as well.

--busy N runs everything beside N busy processes (a build beside the service: each spins for
0.5-5 ms, then calls sched_yield in a storm for 0.2 ms, and again), unpinned, so that the
thread pools meet a machine whose cores are taken; a run with N threads must then still not be
slower than the same run with 1 thread. 1-thread runs are not pinned then: a pinned thread has
the scheduler move the busy processes off its core and runs as on a free machine, which no
unpinned service gets. A last table times our runs at every thread count alternating run by
run, so that they meet the same load (measure_gain).

--int8 adds the INT8 plan of every model (simdsynet.onnx.load(..., int8=True): convolutions on
the INT8 framework, calibrated on random standard-normal inputs, the distribution of the test
inputs): its time at each thread count against our FP32 plan's (alternating the same way), the
top-1 agreement with the FP32 plan over --agreement random inputs and the median over them of
the output difference relative to the FP32 output's largest magnitude. Random weights make
top-1 agreement a weak measure (the logits of an untrained model are close together, so small
differences swap classes, or no difference matters), hence the relative difference too.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import onnxruntime_peer  # noqa: E402
import zoo  # noqa: E402

import simdsynet  # noqa: E402
import simdsynet.onnx  # noqa: E402


def pytorch_frozen(model, x):
    with torch.no_grad():
        traced = torch.jit.trace(model, x)
        return torch.jit.optimize_for_inference(torch.jit.freeze(traced))


def timed(function):
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) * 1e3


# Timed runs per block of alternate_blocks, and the untimed time that starts each block.
BLOCK = 3
SETTLE_S = 0.3


def local_block(function):
    """A block of `function`'s runs (see alternate_blocks) as a function of (settle_s, n)."""
    def block(settle_s, n):
        settled = time.perf_counter() + settle_s
        function()
        while time.perf_counter() < settled:
            function()
        return [timed(function) for _ in range(n)]
    return block


def alternate_blocks(blocks, repeat):
    """Times `repeat` runs of each side, in alternating blocks of untimed runs for at least
    SETTLE_S (one at least) and up to BLOCK timed ones (see the module's text). `blocks` are
    functions of (settle_s, n) that run such a block and return its n times in ms; returns one
    list of ms per side."""
    times = [[] for _ in blocks]
    while len(times[0]) < repeat:
        n = min(BLOCK, repeat - len(times[0]))
        for block, side in zip(blocks, times):
            side.extend(block(SETTLE_S, n))
    return times


def measure(net, frozen, peer, session, x, threads, repeat, warmup, cores, pin=True):
    """Times (ms) of ours, PyTorch's and ONNX Runtime's (its `session` in the process of
    `peer`; None when there is none), alternating, at `threads` threads (1 thread pinned to one
    core when `pin`)."""
    pinned = cores[:1] if threads == 1 and pin else cores
    os.sched_setaffinity(0, pinned)
    torch.set_num_threads(threads)
    net.threads = threads
    xt = torch.from_numpy(x)
    blocks = [local_block(lambda: net.run(x)), local_block(lambda: frozen(xt))]
    if session is not None:
        peer.pin(pinned)
        blocks.append(session.block)
    with torch.no_grad():
        for _ in range(warmup):
            net.run(x)
            frozen(xt)
        if session is not None:
            session.block(0.0, warmup)
        times = alternate_blocks(blocks, repeat)
    os.sched_setaffinity(0, cores)
    if session is None:
        return times + [None]
    peer.pin(cores)
    return times


def measure_gain(net, x, thread_counts, repeat, warmup, cores):
    """Our times (ms) at each thread count, unpinned, the counts alternating run by run
    (--busy), 3 * `repeat` runs each. Beside busy processes the scheduler puts a thread on a
    core of its own or on one it shares, and keeps it there for seconds: in blocks, two
    identical 1-thread sides of one loop differed by up to 1.5x (mobilenet_v2 4.38 against
    7.22 ms), so only runs that alternate one by one meet the same load."""
    os.sched_setaffinity(0, cores)
    for threads in thread_counts:
        net.threads = threads
        for _ in range(warmup):
            net.run(x)
    times = [[] for _ in thread_counts]
    for _ in range(3 * repeat):
        for threads, side in zip(thread_counts, times):
            net.threads = threads
            side.append(timed(lambda: net.run(x)))
    net.threads = 1
    return times


def measure_int8(net, qnet, x, threads, repeat, warmup, cores):
    """Median and range (ms) of the INT8 plan and the FP32 plan, alternating."""
    os.sched_setaffinity(0, cores[:1] if threads == 1 else cores)
    net.threads = qnet.threads = threads
    for _ in range(warmup):
        net.run(x)
        qnet.run(x)
    int8, fp32 = alternate_blocks([local_block(lambda: qnet.run(x)),
                                   local_block(lambda: net.run(x))], repeat)
    os.sched_setaffinity(0, cores)
    net.threads = qnet.threads = 1
    return int8, fp32


def agreement(net, qnet, size, count):
    """(items whose top-1 class INT8 and FP32 share, median relative output difference) over
    `count` random standard-normal inputs (seeds 100...)."""
    same, differences = 0, []
    for i in range(count):
        x = np.random.default_rng(100 + i).standard_normal((1, 3, size, size)).astype(np.float32)
        a, b = qnet.run(x)[0], net.run(x)[0]
        same += int(a.reshape(-1).argmax() == b.reshape(-1).argmax())
        differences.append(zoo.relative_difference(a, b))
    return same, float(np.median(differences))


BUSY_LOOP = """
import os, random, time
random.seed(os.getpid())
while True:
    end = time.perf_counter() + random.uniform(0.0005, 0.005)
    while time.perf_counter() < end:
        pass
    end = time.perf_counter() + 0.0002
    while time.perf_counter() < end:
        os.sched_yield()
"""


def start_busy(count):
    """`count` busy processes (BUSY_LOOP), ended by stop_busy."""
    return [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(count)]


def stop_busy(processes):
    for p in processes:
        p.kill()
    for p in processes:
        p.wait()


def summary(times):
    return dict(median=float(np.median(times)), min=float(min(times)), max=float(max(times)))


def benchmark(name, size, cache, thread_counts, repeat, warmup, cores, peer, int8=0, busy=0):
    path, _ = zoo.export(name, size, cache)
    model = zoo.architecture(name, size)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((1, 3, size, size)).astype(np.float32)
    net = simdsynet.onnx.load(path)
    frozen = pytorch_frozen(model, torch.from_numpy(x))
    row = dict(model=name, size=size, gflop=net.flops / 1e9, threads={})
    with torch.no_grad():
        expected = frozen(torch.from_numpy(x)).numpy()
        eager = model(torch.from_numpy(x)).numpy()
    row["difference"] = zoo.relative_difference(net.run(x)[0], expected)
    row["difference_eager"] = zoo.relative_difference(net.run(x)[0], eager)
    sessions = {}
    if peer is not None:
        for threads in thread_counts:
            sessions[threads] = peer.session(path, threads)
            sessions[threads].set_input(x)
        row["difference_onnxruntime"] = zoo.relative_difference(
            net.run(x)[0], sessions[thread_counts[0]].output())
    for threads in thread_counts:
        ours, theirs, ort = measure(net, frozen, peer, sessions.get(threads), x, threads,
                                    repeat, warmup, cores, pin=not busy)
        row["threads"][threads] = dict(ours=summary(ours), pytorch=summary(theirs))
        if ort is not None:
            row["threads"][threads]["onnxruntime"] = summary(ort)
    for session in sessions.values():
        session.close()
    if busy and len(thread_counts) > 1:
        times = measure_gain(net, x, thread_counts, repeat, warmup, cores)
        row["busy_gain"] = {t: summary(v) for t, v in zip(thread_counts, times)}
    os.sched_setaffinity(0, cores[:1])
    net.threads = 1
    p = net.profile(x, runs=max(3, repeat // 2), warmup=1)
    os.sched_setaffinity(0, cores)
    if int8:
        qnet = simdsynet.onnx.load(path, int8=True)
        row["int8"] = dict(threads={}, inputs=int8)
        row["int8"]["top1"], row["int8"]["difference"] = agreement(net, qnet, size, int8)
        for threads in thread_counts:
            q, f = measure_int8(net, qnet, x, threads, repeat, warmup, cores)
            row["int8"]["threads"][threads] = dict(int8=summary(q), fp32=summary(f))
    row["outside_share"] = p["outside_ms"] / p["total_ms"]
    row["profile"] = dict(total_ms=p["total_ms"], kernel_ms=p["kernel_ms"],
                          layout_ms=p["layout_ms"], glue_ms=p["glue_ms"],
                          outside_ms=p["outside_ms"])
    return row


def geometric_mean(values):
    return float(np.exp(np.mean(np.log(values))))


def print_table(rows, thread_counts, out=sys.stdout):
    """Per thread count: our time, PyTorch's and ONNX Runtime's with our speed-up over each
    (its time / ours); then our output's difference from each, relative to its largest
    magnitude, and the share of our time outside the library's kernels."""
    peers = [("torch", "pytorch")] + ([("ORT", "onnxruntime")] if
                                      "onnxruntime" in rows[0]["threads"][thread_counts[0]]
                                      else [])
    w = max([20] + [len(r["model"]) for r in rows])
    head = f"{'model':<{w}} {'GFLOP':>6}"
    for t in thread_counts:
        head += f" | {'ours ' + str(t) + 't':>9}"
        for label, _ in peers:
            head += f" {label + ' ' + str(t) + 't':>9} {'x':>5}"
    head += " |" + "".join(f" {'diff ' + label:>10}" for label, _ in peers) + f" {'outside':>7}"
    print("ms, median of alternating runs; x = their time / ours (> 1: we are faster); diff = "
          "max |ours - theirs| / max |theirs|", file=out)
    print(head, file=out)
    print("-" * len(head), file=out)
    speedups = {(t, key): [] for t in thread_counts for _, key in peers}
    for r in rows:
        line = f"{r['model']:<{w}} {r['gflop']:6.2f}"
        for t in thread_counts:
            m = r["threads"][t]
            o = m["ours"]["median"]
            line += f" | {o:9.2f}"
            for _, key in peers:
                p = m[key]["median"]
                speedups[(t, key)].append(p / o)
                line += f" {p:9.2f} {p / o:5.2f}"
        line += " |" + f" {r['difference']:10.1e}"
        if len(peers) > 1:
            line += f" {r['difference_onnxruntime']:10.1e}"
        line += f" {100 * r['outside_share']:6.2f}%"
        print(line, file=out)
    line = f"{'geometric mean':<{w + 7}}"
    for t in thread_counts:
        line += f" | {'':9}"
        for _, key in peers:
            line += f" {'':9} {geometric_mean(speedups[(t, key)]):5.2f}"
    print(line, file=out)
    return speedups


def print_scaling(rows, thread_counts, out=sys.stdout):
    """Each side's gain from 1 thread to each larger count (its 1-thread time / that time)."""
    if 1 not in thread_counts or len(thread_counts) < 2:
        return
    keys = [k for k in ("ours", "pytorch", "onnxruntime") if k in rows[0]["threads"][1]]
    more = [t for t in thread_counts if t > 1]
    print("gain from 1 thread: " + ", ".join(f"{t} threads" for t in more) + " (" +
          ", ".join(keys) + ")", file=out)
    w = max([20] + [len(r["model"]) for r in rows])
    for r in rows:
        line = f"{r['model']:<{w}}"
        for t in more:
            line += " |" + "".join(f" {r['threads'][1][k]['median'] / r['threads'][t][k]['median']:5.2f}"
                                   for k in keys)
        print(line, file=out)


def print_busy_gain(rows, thread_counts, out=sys.stdout):
    """--busy: our gain from 1 thread, the counts alternating run by run (measure_gain)."""
    rows = [r for r in rows if "busy_gain" in r]
    if not rows:
        return
    more = [t for t in thread_counts if t > 1]
    print("ours, thread counts alternating run by run (the same load): ms at " +
          ", ".join(f"{t}t" for t in thread_counts) + "; gain from 1 thread", file=out)
    w = max([20] + [len(r["model"]) for r in rows])
    for r in rows:
        g = {int(t): v["median"] for t, v in r["busy_gain"].items()}
        print(f"{r['model']:<{w}} |" + "".join(f" {g[t]:8.2f}" for t in thread_counts) + " |" +
              "".join(f" {g[1] / g[t]:5.2f}" for t in more), file=out)


def print_int8_table(rows, thread_counts, out=sys.stdout):
    head = f"{'model':<20}"
    for t in thread_counts:
        head += f" | {'int8 ' + str(t) + 't ms':>13} {'fp32 ' + str(t) + 't ms':>13} {'x':>5}"
    head += f" | {'top-1':>7} {'rel diff':>8}"
    print(head, file=out)
    print("-" * len(head), file=out)
    speedups = {t: [] for t in thread_counts}
    for r in rows:
        q = r["int8"]
        line = f"{r['model']:<20}"
        for t in thread_counts:
            m = q["threads"][t]
            i, f = m["int8"]["median"], m["fp32"]["median"]
            speedups[t].append(f / i)
            line += f" | {i:13.2f} {f:13.2f} {f / i:5.2f}"
        line += f" | {q['top1']:3d}/{q['inputs']:<3d} {q['difference']:8.1e}"
        print(line, file=out)
    line = f"{'geometric mean':<20}"
    for t in thread_counts:
        line += f" | {'':13} {'':13} {geometric_mean(speedups[t]):5.2f}"
    print(line, file=out)


def chart(rows, thread_counts, path, onnxruntime_version=None):
    """Our speed-up over each peer, one panel a peer, one bar per thread count."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    peers = [("pytorch", f"PyTorch {torch.__version__} (frozen, oneDNN)")]
    if onnxruntime_version:
        peers.append(("onnxruntime", f"ONNX Runtime {onnxruntime_version} (CPU, optimisation "
                                     f"all)"))
    names = [r["model"] for r in rows]
    fig, axes = plt.subplots(len(peers), 1, figsize=(11, 3.6 * len(peers) + 0.8), squeeze=False)
    width = 0.8 / len(thread_counts)
    for ax, (key, label) in zip(axes[:, 0], peers):
        for i, t in enumerate(thread_counts):
            values = [r["threads"][t][key]["median"] / r["threads"][t]["ours"]["median"]
                      for r in rows]
            ax.bar(np.arange(len(rows)) + (i - (len(thread_counts) - 1) / 2) * width, values,
                   width, label=f"{t} thread{'s' if t > 1 else ''}")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.set_xticks(np.arange(len(rows)))
        ax.set_xticklabels(names, rotation=30, ha="right")
        ax.set_ylabel("speed-up")
        ax.set_title(f"simd-synet over {label}, {rows[0]['size']}x{rows[0]['size']} (newer "
                     f"networks at their own size), {simdsynet.isa()}")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="build-models", help="results folder")
    parser.add_argument("--models", default=None,
                        help="comma-separated (default: the twelve CNNs and the newer networks)")
    parser.add_argument("--size", type=int, default=224,
                        help="input size of the twelve CNNs (the others keep their own)")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", default="",
                        help="thread counts, e.g. 1,2 (default: 1 and all cores)")
    parser.add_argument("--int8", action="store_true",
                        help="also the INT8 plans: speed-up over FP32, agreement with it")
    parser.add_argument("--agreement", type=int, default=20,
                        help="random inputs of the INT8 agreement (default 20)")
    parser.add_argument("--busy", type=int, default=0,
                        help="run beside N busy processes (an oversubscribed machine)")
    parser.add_argument("--no-onnxruntime", action="store_true",
                        help="without the ONNX Runtime columns (no Node.js needed)")
    parser.add_argument("--quick", action="store_true",
                        help="three CNNs and the newer networks at 32x32, one repetition: "
                             "exercises the command in CI")
    args = parser.parse_args(argv)
    sizes = dict(zoo.EXTRA_ARCHITECTURES)
    if args.quick:
        args.size, args.repeat, args.warmup = 32, 1, 1
        if args.models is None:
            args.models = "resnet18,mobilenet_v2,shufflenet_v2_x1_0," + ",".join(sizes)
        sizes = {name: 32 for name in sizes}
    if args.models is None:
        args.models = ",".join(zoo.ARCHITECTURES + list(sizes))
    cores = sorted(os.sched_getaffinity(0))
    thread_counts = sorted({int(t) for t in args.threads.split(",")} if args.threads else
                           {1, len(cores)})
    cache = os.path.join(args.out, "models")
    names = [n for n in args.models.split(",") if n]
    peer = None if args.no_onnxruntime else onnxruntime_peer.Peer()
    print(f"simd-synet {simdsynet.version()} ({simdsynet.isa()}), PyTorch {torch.__version__}"
          + (f", ONNX Runtime {peer.version}" if peer else "") +
          f", {args.size}x{args.size}, {len(cores)} cores, median of {args.repeat} runs in "
          f"alternating blocks" + (f", beside {args.busy} busy processes" if args.busy else ""),
          flush=True)
    busy = start_busy(args.busy)
    try:
        rows = []
        for name in names:
            started = time.time()
            rows.append(benchmark(name, sizes.get(name, args.size), cache, thread_counts,
                                  args.repeat, args.warmup, cores, peer,
                                  args.agreement if args.int8 else 0, args.busy))
            r = rows[-1]
            times = ", ".join(
                f"{t}t {r['threads'][t]['ours']['median']:.2f} vs torch "
                f"{r['threads'][t]['pytorch']['median']:.2f}"
                + (f", ORT {r['threads'][t]['onnxruntime']['median']:.2f}" if peer else "") + " ms"
                for t in thread_counts)
            print(f"  {name}: {times} ({time.time() - started:.0f} s)", flush=True)
    finally:
        stop_busy(busy)
    if peer:
        peer.close()
    cnns = [r for r in rows if r["model"] not in zoo.EXTRA_ARCHITECTURES]
    newer = [r for r in rows if r["model"] in zoo.EXTRA_ARCHITECTURES]
    for title, table in (("", cnns), ("Newer networks, each at its own size", newer)):
        if table:
            print()
            if title:
                print(title + ": " + ", ".join(f"{r['model']} {r['size']}x{r['size']}"
                                               for r in table))
            print_table(table, thread_counts)
    print()
    print_scaling(rows, thread_counts)
    if args.busy and 1 in thread_counts:
        print()
        print_busy_gain(rows, thread_counts)
    if args.int8:
        print(f"\nINT8 convolutions against our FP32 (top-1 agreement and median relative "
              f"difference over {args.agreement} random inputs)")
        print_int8_table(rows, thread_counts)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(dict(isa=simdsynet.isa(), torch=torch.__version__,
                       onnxruntime=peer.version if peer else None, size=args.size,
                       busy=args.busy,
                       cores=len(cores), rows=rows), f, indent=1)
    chart(rows, thread_counts, os.path.join(args.out, "speedup.png"),
          peer.version if peer else None)
    print(f"\nwritten: {os.path.join(args.out, 'results.json')}, "
          f"{os.path.join(args.out, 'speedup.png')}")


if __name__ == "__main__":
    main()
