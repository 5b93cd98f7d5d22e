#!/usr/bin/env python3
"""Turns the JSON output of the bench programs into the readable report of scripts/bench.sh.

Conventions (bench/BenchUtil.h): a benchmark labelled "vs <name>" is compared with benchmark
<name> (its copy baseline moving the same bytes); "overhead vs <name>" reports the extra time
relative to <name>; a counter "elements_per_ns" is a throughput in elements per nanosecond.
"""
import glob
import json
import os
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data.get("benchmarks", []):
        # Medians, except where a benchmark asks for its minimum (validation_bench).
        aggregate = b.get("aggregate_name", "median")
        if aggregate not in ("median", "min"):
            continue
        if aggregate == "median" and b.get("run_name", b["name"]).split("/repeats:")[0] in rows:
            continue
        name = b.get("run_name", b["name"])
        name = name.split("/repeats:")[0]
        rows[name] = b
    return data.get("context", {}), rows


def gbps(b):
    return b.get("bytes_per_second", 0.0) / 1e9


def time_ns(b):
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    return b["real_time"] * scale


def main(folder):
    # The per-target runs (isa-<target>-<program>_bench.json) belong to the table at the end
    # only: matched here, they replaced the default target's figures with the last target's.
    files = sorted(f for f in glob.glob(os.path.join(folder, "*_bench.json"))
                   if not os.path.basename(f).startswith("isa-"))
    everything, context = {}, {}
    for path in files:
        context, rows = load(path)
        everything.update(rows)
    if context:
        print(f"host: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs at "
              f"{context.get('mhz_per_cpu', '?')} MHz, caches: " +
              ", ".join(f"L{c['level']} {c['size'] // 1024} KiB" for c in context.get("caches", [])
                        if c.get("type") != "Instruction"))
    print("baselines: every 'base' is the same vector loop (4 vectors per step, no arithmetic) "
          "moving the function's bytes with its read/write mix, one input or several, in every "
          "cache level; L1-resident float streams use a load -> multiply-add -> store loop")
    print()
    header = f"{'benchmark':58} {'time':>10} {'GB/s':>8} {'base GB/s':>10} {'% of base':>9}"
    print(header)
    print("-" * len(header))
    for name, b in everything.items():
        if (name.startswith("Copy/") or name.startswith("MulAddLoop/") or
                name.startswith("Stream") or "/direct/" in name or name.endswith("EmptyCall")):
            continue
        label = b.get("label", "")
        t = time_ns(b)
        tstr = f"{t / 1e3:.2f} us" if t >= 1e3 else f"{t:.1f} ns"
        if label.startswith("validation vs "):
            # "validation vs <direct tiny call> per <direct full call>"
            tiny, full = label[len("validation vs "):].split(" per ")
            tiny, full = everything.get(tiny), everything.get(full)
            if tiny and full:
                extra = t - time_ns(tiny)
                print(f"{name:58} {tstr:>10}  validation {extra:+.2f} ns = "
                      f"{100.0 * extra / time_ns(full):+.2f}% of a {time_ns(full):.1f} ns 4 KiB "
                      f"call (bar <= 2%)")
            continue
        if label.startswith("checks vs "):
            # "checks vs <empty call> per <direct full call>"
            empty, full = label[len("checks vs "):].split(" per ")
            empty, full = everything.get(empty), everything.get(full)
            if empty and full:
                extra = t - time_ns(empty)
                print(f"{name:58} {tstr:>10}  checks {extra:+.2f} ns = "
                      f"{100.0 * extra / time_ns(full):+.2f}% of a {time_ns(full):.1f} ns 4 KiB "
                      f"call (bar <= 2%)")
            continue
        if "GFLOPS" in b:
            # Compute-bound kernels: GFLOP/s against the FMA peak the bench measured itself.
            line = f"{name:58} {tstr:>10} {b['GFLOPS']:8.1f} GFLOP/s"
            peak = b.get("peak_GFLOPS")
            if "pct_of_peak" in b:
                line += f" {b['pct_of_peak']:6.1f}% of FMA peak"
            elif peak:
                line += f" {100.0 * b['GFLOPS'] / peak:6.1f}% of FMA peak ({peak:.0f})"
            if label:
                line += f"  [{label}]"
            print(line)
            continue
        base = everything.get(label[3:]) if label.startswith("vs ") else None
        line = f"{name:58} {tstr:>10} {gbps(b):8.1f}"
        if base:
            line += f" {gbps(base):10.1f} {100.0 * gbps(b) / gbps(base):8.1f}%"
        if "elements_per_ns" in b:
            line += f"  {b['elements_per_ns']:.2f} elements/ns"
        if label and not label.startswith("vs "):
            line += f"  [{label}]"
        print(line)

    isa_files = sorted(glob.glob(os.path.join(folder, "isa-*.json")))
    table = {}
    for path in isa_files:
        # isa-<target>[-<program>].json
        isa = os.path.basename(path)[4:-5].split("-")[0]
        try:
            _, rows = load(path)
        except (json.JSONDecodeError, OSError):
            continue
        for name, b in rows.items():
            if "elements_per_ns" in b:
                cell = f"{b['elements_per_ns']:.2f}"
            elif "GFLOPS" in b:
                cell = f"{b['GFLOPS']:.0f} GF/s"
            else:
                cell = f"{time_ns(b) / 1e3:.2f} us"
            table.setdefault(name, {})[isa] = cell
    if table:
        isas = [i for i in ("scalar", "sse4", "avx2", "avx512")
                if any(i in v for v in table.values())]
        print()
        print("per target (SIMD_SYNET_MAX_ISA): elements/ns, GFLOP/s or time per call; bars on "
              "avx2: >= 2 elements/ns for sigmoid, tanh, elu, softplus over L1-resident data, "
              "<= 1 us for a 1000-element softmax row")
        print(f"{'benchmark':58} " + " ".join(f"{i:>10}" for i in isas))
        for name, v in table.items():
            print(f"{name:58} " + " ".join(f"{v.get(i, '-'):>10}" for i in isas))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build-bench/results")
