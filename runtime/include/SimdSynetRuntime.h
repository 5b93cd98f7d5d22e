/*
 * simd-synet network runtime: runs a compiled network file (.ssn) from C.
 *
 * A file is written once by the compiler (`python3 -m simdsynet.compile MODEL.onnx -o
 * MODEL.ssn`, or simdsynet.onnx.compile in Python) and holds the whole plan: the steps and
 * their parameters, the folded weights, the buffer plan, the inputs and outputs. It records no
 * instruction set: the library's contexts are created at load on the CPU that runs it, so a file
 * compiled on x86 runs on Arm and the reverse. The runtime is a library of its own over the
 * public API of the kernel library (SimdSynet.h) and needs no Python.
 *
 * Files are untrusted input: the loader verifies the container, then every count, offset, size
 * and enumerator before using it; a file it rejects gives NULL and a message naming what is
 * wrong, never an access outside the file or the network's memory.
 *
 * Errors: a function that fails records a message readable through SimdSynetGetLastError()
 * (SimdSynet.h, per thread) and returns NULL, 0 or SimdFalse; one that succeeds clears it.
 *
 * Threads: one network may be run by several threads at once; each run takes memory of its own
 * (activations and scratch, kept for later runs), and results are bit-identical to a lone run
 * and for every thread count.
 */
#ifndef SIMD_SYNET_RUNTIME_H
#define SIMD_SYNET_RUNTIME_H

#include <stddef.h>

#include "SimdSynet.h"

#if defined(_WIN32)
#if defined(SIMD_SYNET_RUNTIME_EXPORTS)
#define SIMD_RUNTIME_API __declspec(dllexport)
#else
#define SIMD_RUNTIME_API
#endif
#else
#define SIMD_RUNTIME_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded network: its steps, weights and library contexts. Opaque. */
typedef struct SimdSynetNetwork SimdSynetNetwork;

/** Options of a load; a NULL pointer gives the defaults (the zero-initialised struct). */
typedef struct SimdSynetNetworkOptions {
    /** Threads a run may use (the library's thread budget during the run); 0 means 1. */
    size_t threads;
} SimdSynetNetworkOptions;

/**
 * The newest file format version this runtime reads, and the one the compiler writes (a file
 * records the version it was written in). This runtime reads versions 1 to this one; version 2
 * added the convolution's residual, which a version-1 runtime would ignore.
 */
#define SIMD_SYNET_NETWORK_FORMAT_VERSION 2

/**
 * Loads a network file. The file is mapped into memory and its weights are read in place where
 * the layers use them as stored; the mapping is released with the network. Returns NULL (and a
 * message) when the file cannot be read or is not a valid network file of this format version.
 */
SIMD_RUNTIME_API SimdSynetNetwork* SimdSynetNetworkLoad(const char* path,
                                                        const SimdSynetNetworkOptions* options);

/**
 * Loads a network from `size` bytes at `data` (a file's contents). The bytes are copied: the
 * caller may free them when the call returns. NULL and a message as SimdSynetNetworkLoad.
 */
SIMD_RUNTIME_API SimdSynetNetwork* SimdSynetNetworkLoadMemory(
    const void* data, size_t size, const SimdSynetNetworkOptions* options);

/** Releases a network and everything it holds; NULL is a no-op. */
SIMD_RUNTIME_API void SimdSynetNetworkRelease(SimdSynetNetwork* network);

/** The number of inputs (0 and a message for a NULL network). */
SIMD_RUNTIME_API size_t SimdSynetNetworkInputCount(const SimdSynetNetwork* network);

/** The number of outputs (0 and a message for a NULL network). */
SIMD_RUNTIME_API size_t SimdSynetNetworkOutputCount(const SimdSynetNetwork* network);

/** The name of input `index` (as in the ONNX model), valid while the network lives; NULL and a
 * message for a NULL network or an index out of range. */
SIMD_RUNTIME_API const char* SimdSynetNetworkInputName(const SimdSynetNetwork* network,
                                                       size_t index);

/** The name of output `index`, as SimdSynetNetworkInputName. */
SIMD_RUNTIME_API const char* SimdSynetNetworkOutputName(const SimdSynetNetwork* network,
                                                        size_t index);

/**
 * The shape of input `index` (NCHW as the model declares it): returns the rank and points
 * `*shape` at that many extents, valid while the network lives. 0 and a message for a NULL
 * argument or an index out of range.
 */
SIMD_RUNTIME_API size_t SimdSynetNetworkInputShape(const SimdSynetNetwork* network, size_t index,
                                                   const size_t** shape);

/** The shape of output `index`, as SimdSynetNetworkInputShape. */
SIMD_RUNTIME_API size_t SimdSynetNetworkOutputShape(const SimdSynetNetwork* network, size_t index,
                                                    const size_t** shape);

/** Sets the threads later runs may use (0 means 1); SimdFalse for a NULL network. */
SIMD_RUNTIME_API SimdBool SimdSynetNetworkSetThreads(SimdSynetNetwork* network, size_t threads);

/** The threads a run may use (0 and a message for a NULL network). */
SIMD_RUNTIME_API size_t SimdSynetNetworkGetThreads(const SimdSynetNetwork* network);

/**
 * Runs the network once. inputs[i] points at the C-contiguous float32 values of input i in the
 * shape SimdSynetNetworkInputShape gives; outputs[i] receives output i the same way. Returns
 * SimdTrue, or SimdFalse and a message (NULL arguments, a failing step) without
 * writing the outputs. Several threads may run one network at once.
 */
SIMD_RUNTIME_API SimdBool SimdSynetNetworkRun(SimdSynetNetwork* network, const float* const* inputs,
                                         float* const* outputs);

/** The number of steps of the plan (a step is one library call or one glue operation). */
SIMD_RUNTIME_API size_t SimdSynetNetworkStepCount(const SimdSynetNetwork* network);

/**
 * Describes step `index`: the ONNX node(s) it runs (`name`), what it is (`kind`, such as
 * "convolution" or "copy") and the library's algorithm where a context chose one (`info`, else
 * ""). Each pointer may be NULL; the strings live as long as the network. SimdFalse and
 * a message for a NULL network or an index out of range.
 */
SIMD_RUNTIME_API SimdBool SimdSynetNetworkStepDescribe(const SimdSynetNetwork* network, size_t index,
                                                  const char** name, const char** kind,
                                                  const char** info);

/**
 * As SimdSynetNetworkRun, and also writes the seconds each step took in this run to
 * seconds[0 .. SimdSynetNetworkStepCount() - 1].
 */
SIMD_RUNTIME_API SimdBool SimdSynetNetworkRunProfiled(SimdSynetNetwork* network,
                                                 const float* const* inputs,
                                                 float* const* outputs, double* seconds);

#ifdef __cplusplus
}
#endif

#endif /* SIMD_SYNET_RUNTIME_H */
