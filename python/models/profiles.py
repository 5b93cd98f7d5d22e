"""Where the time goes, ours against ONNX Runtime's: profiles one model through both on the
same input and thread count and prints each side's time by operation kind and its slowest
steps (ours: the executor's per-step timers; ONNX Runtime: its own profiler, the nodes' kernel
times after its graph optimisation, so a Conv there may carry a fused BatchNorm, activation or
residual Add).

    PYTHONPATH=build/python python3 python/models/profiles.py --models mnasnet1_0 [--threads 1]
        [--size 224] [--runs 20] [--top 15] [--out build-models]

The model is exported by zoo.py as for the benchmark (same cache). Node times are medians over
--runs profiled runs.
"""

import argparse
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import onnxruntime_peer  # noqa: E402
import zoo  # noqa: E402

import simdsynet  # noqa: E402
import simdsynet.onnx  # noqa: E402


def onnxruntime_nodes(peer, path, x, threads, runs):
    """[(node name, op type, input shapes, median ms)] in run order, and the median ms of a
    whole run (the profiler's model_run events), from ONNX Runtime's profile."""
    with tempfile.TemporaryDirectory(prefix="ortprofile") as folder:
        session = peer.session(path, threads, profile=os.path.join(folder, "profile"))
        session.set_input(x)
        session.block(0.0, runs)
        file = session.end_profiling()
        session.close()
        if not file or not os.path.exists(file):
            names = [f for f in os.listdir(folder) if f.endswith(".json")]
            file = os.path.join(folder, names[0])
        with open(file) as f:
            events = json.load(f)
    nodes, order, runs_us = {}, [], []
    for e in events:
        if e.get("cat") == "Session" and e.get("name") == "model_run":
            runs_us.append(e["dur"])
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        name = e["name"][:-len("_kernel_time")]
        if name not in nodes:
            args = e.get("args", {})
            shapes = [list(s.values())[0] for s in args.get("input_type_shape", [])]
            nodes[name] = (args.get("op_name", "?"), shapes, [])
            order.append(name)
        nodes[name][2].append(e["dur"])
    # The first run is a warm-up inside block(); skip it where there are more.
    table = [(n, nodes[n][0], nodes[n][1],
              float(np.median(nodes[n][2][1:] if len(nodes[n][2]) > 1 else nodes[n][2])) / 1e3)
             for n in order]
    total = float(np.median(runs_us[1:] if len(runs_us) > 1 else runs_us)) / 1e3
    return table, total


def by_kind(items):
    kinds = {}
    for kind, ms in items:
        kinds[kind] = kinds.get(kind, 0.0) + ms
    return sorted(kinds.items(), key=lambda kv: -kv[1])


def compare(name, size, cache, threads, runs, top, peer):
    path, _ = zoo.export(name, size, cache)
    x = np.random.default_rng(7).standard_normal((1, 3, size, size)).astype(np.float32)
    cores = sorted(os.sched_getaffinity(0))
    pinned = cores[:1] if threads == 1 else cores
    os.sched_setaffinity(0, pinned)
    peer.pin(pinned)
    net = simdsynet.onnx.load(path, threads=threads)
    ours = net.profile(x, runs=runs, warmup=3)
    theirs, their_total = onnxruntime_nodes(peer, path, x, threads, runs)
    os.sched_setaffinity(0, cores)
    peer.pin(cores)
    print(f"\n{name}, {size}x{size}, {threads} thread(s): ours {ours['plain_ms']:.3f} ms a run "
          f"({ours['total_ms']:.3f} profiled), ONNX Runtime {their_total:.3f} ms a run "
          f"(node time {sum(t[3] for t in theirs):.3f})")
    ours_kinds = by_kind((s["kind"] + (" " + s["info"].split("-")[0] if s["info"] else ""),
                          s["ms"]) for s in ours["steps"])
    their_kinds = by_kind((t[1], t[3]) for t in theirs)
    rows = max(len(ours_kinds), len(their_kinds))
    print(f"  {'ours by kind':<36} {'ms':>8}   {'ONNX Runtime by op':<28} {'ms':>8}")
    for i in range(rows):
        a = ours_kinds[i] if i < len(ours_kinds) else ("", None)
        b = their_kinds[i] if i < len(their_kinds) else ("", None)
        print(f"  {a[0][:36]:<36} {'' if a[1] is None else f'{a[1]:8.3f}':>8}   "
              f"{b[0][:28]:<28} {'' if b[1] is None else f'{b[1]:8.3f}':>8}")
    print(f"  slowest {top} steps, ours:")
    for s in sorted(ours["steps"], key=lambda s: -s["ms"])[:top]:
        rate = f"{s['flops'] / s['min_ms'] / 1e6:7.1f} GF/s" if s["flops"] and s["min_ms"] else ""
        print(f"    {s['ms']:8.3f} ms {rate:>12}  {s['kind']:<18} {s['info']:<26} {s['name'][-50:]}")
    print(f"  slowest {top} nodes, ONNX Runtime:")
    for n, op, shapes, ms in sorted(theirs, key=lambda t: -t[3])[:top]:
        print(f"    {ms:8.3f} ms  {op:<18} {str(shapes)[:60]:<60} {n[-40:]}")
    return dict(model=name, threads=threads, ours=ours, onnxruntime=dict(
        total_ms=their_total, nodes=[dict(name=n, op=op, shapes=s, ms=ms)
                                     for n, op, s, ms in theirs]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="mnasnet1_0")
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--out", default="build-models", help="results folder (model cache)")
    args = parser.parse_args(argv)
    results = []
    with onnxruntime_peer.Peer() as peer:
        print(f"simd-synet {simdsynet.version()} ({simdsynet.isa()}), ONNX Runtime {peer.version}")
        for name in [n for n in args.models.split(",") if n]:
            results.append(compare(name, args.size, os.path.join(args.out, "models"),
                                   args.threads, args.runs, args.top, peer))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "profiles.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
