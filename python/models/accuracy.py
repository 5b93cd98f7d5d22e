"""simdsynet.onnx against PyTorch on every Highway target the CPU supports: the largest
relative difference (max |ours - torch| / max |torch| over each output) of every model of
zoo.py, one process per target (SIMD_SYNET_MAX_ISA is read when the library loads).

    PYTHONPATH=build/python python3 python/models/accuracy.py [--size 32] [--models a,b]

prints a table model x target. The tests run the same check (`--check`, which prints JSON).
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.abspath(__file__)
TARGETS = ["scalar", "sse4", "avx2", "avx512"]


def check(entries):
    """{"isa", "differences": {name: [per output]}, "errors": {name: message}} for entries
    (name, onnx path, npz path) run on this process's target."""
    import simdsynet
    import simdsynet.onnx
    differences, errors = {}, {}
    for name, model, reference in entries:
        try:
            ref = np.load(reference)
            outputs = simdsynet.onnx.load(model).run(ref["input"])
            diffs = []
            for k, y in enumerate(outputs):
                expected = ref[f"output{k}"]
                if y.shape != expected.shape:
                    raise ValueError(f"output {k} has shape {y.shape}, not {expected.shape}")
                scale = float(np.abs(expected).max()) or 1.0
                diffs.append(float(np.abs(y - expected).max()) / scale)
            differences[name] = diffs
        except Exception as error:  # reported per model; the others still run
            errors[name] = f"{type(error).__name__}: {error}"
    return {"isa": simdsynet.isa(), "differences": differences, "errors": errors}


def check_runs(entries):
    """As check, for entries whose .npz holds several runs (zoo.export_runs: a model with
    dimensions known only at run time run at several shapes in one session): the differences
    of every output of every run, in one list per model."""
    import simdsynet
    import simdsynet.onnx
    differences, errors = {}, {}
    for name, model, reference in entries:
        try:
            ref = np.load(reference)
            net = simdsynet.onnx.load(model)
            diffs = []
            for r in range(int(ref["runs"])):
                outputs = net.run(ref[f"input{r}"])
                for k, y in enumerate(outputs):
                    expected = ref[f"output{k}_{r}"]
                    if y.shape != expected.shape:
                        raise ValueError(f"run {r}: output {k} has shape {y.shape}, not "
                                         f"{expected.shape}")
                    scale = float(np.abs(expected).max()) or 1.0
                    diffs.append(float(np.abs(y - expected).max()) / scale)
            differences[name] = diffs
        except Exception as error:  # reported per model; the others still run
            errors[name] = f"{type(error).__name__}: {error}"
    return {"isa": simdsynet.isa(), "differences": differences, "errors": errors}


def environment(target):
    env = dict(os.environ)
    env["SIMD_SYNET_MAX_ISA"] = target
    return env


def supported_targets():
    """The targets whose cap the library honours here (the CPU has them)."""
    found = []
    for target in TARGETS:
        out = subprocess.run([sys.executable, "-c", "import simdsynet; print(simdsynet.isa())"],
                             env=environment(target), capture_output=True, text=True, check=True)
        if out.stdout.strip() == target:
            found.append(target)
    return found


def check_on(target, entries, runs=False):
    """check(entries) (check_runs with `runs`) in a process capped at `target`."""
    arguments = [item for entry in entries for item in entry]
    mode = "--check-runs" if runs else "--check"
    out = subprocess.run([sys.executable, HERE, mode, *arguments],
                         env=environment(target), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"the check failed on {target}:\n{out.stderr[-4000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["isa"] != target:
        raise RuntimeError(f"asked for {target}, ran on {result['isa']}")
    return result["differences"], result["errors"]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("--check", "--check-runs"):
        entries = [tuple(argv[i:i + 3]) for i in range(1, len(argv), 3)]
        print(json.dumps((check_runs if argv[0] == "--check-runs" else check)(entries)))
        return
    sys.path.insert(0, os.path.dirname(HERE))
    import zoo
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--models", default=",".join(zoo.ARCHITECTURES + list(zoo.COVERAGE)))
    args = parser.parse_args(argv)
    names = [n for n in args.models.split(",") if n]
    entries = [(n, *zoo.export(n, args.size)) for n in names]
    targets = supported_targets()
    results = {t: check_on(t, entries) for t in targets}
    print(f"{'model':<20}" + "".join(f"{t:>10}" for t in targets))
    for name in names:
        cells = []
        for t in targets:
            differences, errors = results[t]
            cells.append("error" if name in errors else f"{max(differences[name]):.1e}")
        print(f"{name:<20}" + "".join(f"{c:>10}" for c in cells))


if __name__ == "__main__":
    main()
