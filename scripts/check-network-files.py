"""Runs network files with the native tool simdsynet-run (through an emulator, if given) and
compares its outputs with PyTorch's.

    python3 scripts/check-network-files.py DIR [COMMAND...] RUNNER

DIR holds NAME.ssn and NAME.npz pairs (the .npz with 'input' and 'output<i>', as the model test
writes them with SIMD_SYNET_NETWORK_FILES=DIR); COMMAND (e.g. qemu-aarch64-static -L /) is
prepended to the runner's command line. Each output must be within 1e-4 of PyTorch's relative to
its largest magnitude, the model tests' tolerance. Exits non-zero when one is not, or when a
file fails to run.
"""

import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

TOLERANCE = 1e-4


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    directory, command = sys.argv[1], sys.argv[2:]
    files = sorted(glob.glob(os.path.join(directory, "*.ssn")))
    if not files:
        sys.exit(f"no .ssn files in {directory}")
    failures = []
    for file in files:
        name = os.path.splitext(os.path.basename(file))[0]
        reference = np.load(os.path.splitext(file)[0] + ".npz")
        with tempfile.TemporaryDirectory(prefix="ssn-check") as work:
            x = os.path.join(work, "input.npy")
            np.save(x, reference["input"])
            start = time.perf_counter()
            run = subprocess.run(command + [file, "--input", x, "--output-dir", work],
                                 capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if run.returncode != 0:
                failures.append(name)
                print(f"{name}: the runner failed ({run.returncode}): {run.stderr.strip()}")
                continue
            worst = 0.0
            outputs = sorted(k for k in reference.files if k.startswith("output"))
            for key in outputs:
                path = os.path.join(work, key + ".npy")
                if not os.path.exists(path):
                    failures.append(name)
                    print(f"{name}: the runner wrote no {key}.npy")
                    break
                y, expected = np.load(path), reference[key]
                if y.shape != expected.shape:
                    failures.append(name)
                    print(f"{name}: {key} has shape {y.shape}, PyTorch's {expected.shape}")
                    break
                scale = float(np.abs(expected).max()) or 1.0
                worst = max(worst, float(np.abs(y - expected).max()) / scale)
            else:
                ok = worst <= TOLERANCE
                if not ok:
                    failures.append(name)
                print(f"{name}: largest difference {worst:.2e} of the output's magnitude "
                      f"({'ok' if ok else 'FAILED'}), {seconds:.1f} s")
    print(f"{len(files) - len(failures)} of {len(files)} network files match PyTorch")
    if failures:
        sys.exit(f"failed: {', '.join(failures)}")


if __name__ == "__main__":
    main()
