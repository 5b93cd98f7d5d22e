"""ONNX Runtime (the npm package onnxruntime-node, CPU provider) as a peer of the model
benchmark, run in a Node.js process (onnxruntime/peer.js) that this module drives over pipes.

ONNX Runtime has no Debian package and PyPI is out of reach; its npm package carries the CPU
library for linux-x64 and linux-arm64. `onnxruntime/package.json` and its lock file pin the
version; `npm ci --ignore-scripts` installs it (the package's install script only fetches GPU
providers from elsewhere). A session's thread count is fixed at its creation, so there is one
session per model and thread count.
"""

import json
import os
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "onnxruntime")


class Unavailable(RuntimeError):
    pass


def install():
    """Installs the pinned package into FOLDER/node_modules when missing."""
    if os.path.isdir(os.path.join(FOLDER, "node_modules", "onnxruntime-node")):
        return
    try:
        subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=FOLDER,
                       check=True, stdout=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as e:
        raise Unavailable(f"npm ci in {FOLDER} failed: {e}") from e


class Peer:
    """One Node.js process holding ONNX Runtime sessions."""

    def __init__(self):
        install()
        self._process = subprocess.Popen(["node", os.path.join(FOLDER, "peer.js")],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         text=True, bufsize=1)
        self._folder = tempfile.TemporaryDirectory(prefix="ortpeer")
        self._next = 0
        self.version = self._ask(op="version")["version"]

    def _ask(self, **request):
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise Unavailable("the ONNX Runtime process ended")
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise RuntimeError(f"ONNX Runtime: {answer['error']}")
        return answer

    def pin(self, cores):
        """Sets the CPU affinity of every thread of the Node.js process (threads made later
        inherit it from the thread that makes them)."""
        for tid in os.listdir(f"/proc/{self._process.pid}/task"):
            try:
                os.sched_setaffinity(int(tid), cores)
            except OSError:
                pass  # a thread that just ended

    def session(self, path, threads, profile=None):
        self._next += 1
        return Session(self, self._next, path, threads, profile)

    def close(self):
        if self._process.poll() is None:
            self._process.stdin.close()
            self._process.wait(timeout=30)
        self._folder.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Session:
    """An ONNX Runtime session of one model at one thread count."""

    def __init__(self, peer, number, path, threads, profile):
        self._peer, self._id = peer, number
        answer = peer._ask(op="load", id=number, path=os.path.abspath(path), threads=threads,
                           profile=profile)
        self.inputs, self.outputs = answer["inputs"], answer["outputs"]

    def set_input(self, x):
        path = os.path.join(self._peer._folder.name, f"in{self._id}.raw")
        np.ascontiguousarray(x, dtype="<f4").tofile(path)
        self._peer._ask(op="input", id=self._id, path=path, shape=list(x.shape))

    def block(self, settle_s, count):
        """Untimed runs for settle_s (one at least), then `count` timed runs: their ms."""
        return self._peer._ask(op="block", id=self._id, settle_ms=settle_s * 1e3,
                               count=count)["ms"]

    def output(self):
        path = os.path.join(self._peer._folder.name, f"out{self._id}.raw")
        shape = self._peer._ask(op="output", id=self._id, path=path)["shape"]
        return np.fromfile(path, dtype="<f4").reshape(shape)

    def end_profiling(self):
        return self._peer._ask(op="end_profiling", id=self._id)["file"]

    def close(self):
        self._peer._ask(op="close", id=self._id)
