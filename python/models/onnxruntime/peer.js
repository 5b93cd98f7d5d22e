// ONNX Runtime as the model benchmark's peer, driven by python/models/onnxruntime_peer.py over
// stdin/stdout: one JSON request a line, one JSON answer a line. A request names a session
// (one per model and thread count: the thread count is a session option) and what to do:
//   {"op": "load", "id": ..., "path": MODEL, "threads": N, "profile": PREFIX or null}
//   {"op": "input", "id": ..., "path": RAW, "shape": [...]}   float32 little-endian
//   {"op": "block", "id": ..., "settle_ms": 30, "count": 3}  untimed runs for settle_ms (one at
//        least), then `count` timed ones: answers {"ms": [...]}
//   {"op": "output", "id": ..., "path": RAW}                  first output, float32
//   {"op": "end_profiling", "id": ...}                        answers {"file": JSON path}
//   {"op": "close", "id": ...}
// Sessions use ONNX Runtime's fastest CPU mode: graph optimisation "all", sequential
// execution, intra-op threads = N, inter-op threads 1.
'use strict';
const fs = require('fs');
const readline = require('readline');
const ort = require('onnxruntime-node');

const sessions = new Map();

function nowMs() {
  return Number(process.hrtime.bigint()) / 1e6;
}

async function handle(request) {
  const op = request.op;
  if (op === 'version') return {version: require('onnxruntime-node/package.json').version};
  if (op === 'load') {
    const options = {
      executionProviders: ['cpu'],
      intraOpNumThreads: request.threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    };
    if (request.profile) {
      options.enableProfiling = true;
      options.profileFilePrefix = request.profile;
    }
    const session = await ort.InferenceSession.create(request.path, options);
    sessions.set(request.id, {session, feeds: null});
    return {inputs: session.inputNames, outputs: session.outputNames};
  }
  const entry = sessions.get(request.id);
  if (!entry) throw new Error(`no session ${request.id}`);
  const session = entry.session;
  if (op === 'input') {
    const bytes = fs.readFileSync(request.path);
    const data = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    entry.feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, request.shape)};
    return {};
  }
  if (op === 'block') {
    const settled = nowMs() + request.settle_ms;
    do {
      await session.run(entry.feeds);
    } while (nowMs() < settled);
    const ms = [];
    for (let i = 0; i < request.count; ++i) {
      const start = nowMs();
      await session.run(entry.feeds);
      ms.push(nowMs() - start);
    }
    return {ms};
  }
  if (op === 'output') {
    const results = await session.run(entry.feeds);
    const out = results[session.outputNames[0]];
    fs.writeFileSync(request.path, Buffer.from(out.data.buffer, out.data.byteOffset,
                                               out.data.byteLength));
    return {shape: out.dims};
  }
  if (op === 'end_profiling') {
    const file = session.endProfiling();
    return {file: typeof file === 'string' ? file : null};
  }
  if (op === 'close') {
    await session.release();
    sessions.delete(request.id);
    return {};
  }
  throw new Error(`unknown op ${op}`);
}

async function main() {
  const lines = readline.createInterface({input: process.stdin, terminal: false});
  for await (const line of lines) {
    if (!line.trim()) continue;
    let answer;
    try {
      answer = await handle(JSON.parse(line));
      answer.ok = true;
    } catch (e) {
      answer = {ok: false, error: String(e && e.message ? e.message : e)};
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
}

main();
