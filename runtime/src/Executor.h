// The executor of the network runtime: a plan of steps over one arena of activations, built
// once at load (Loader.cpp, from a network file) and run in one C++ call per inference. Every
// step is a call of the public C API (SimdSynet.h) on preallocated memory, or glue the C API
// lacks (copies, transposes, padding, tiling, resizing, reductions, dilated max pooling,
// log-softmax) written here. The compiler (python/simdsynet) decides the plan (fusions,
// layouts, where each tensor lives in the arena); this file only runs it.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

#include "SimdSynet.h"

namespace simdsynet_executor {

// An error the library or the executor reported while building or running a plan.
class ExecutorError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws ExecutorError with `what` and the library's message when the last library call of this
// thread recorded one.
void CheckLibrary(const std::string& what);

// Floats in memory from SimdAllocate (64-byte aligned, so the library's vector loads of them
// never split a cache line), freed with SimdFree.
class Floats {
public:
    Floats() = default;
    explicit Floats(size_t size);
    Floats(const float* data, size_t size);
    // Floats the caller owns and keeps alive (not freed here).
    static Floats Borrow(const float* data, size_t size);
    ~Floats();
    Floats(Floats&& other) noexcept;
    Floats& operator=(Floats&& other) noexcept;
    Floats(const Floats&) = delete;
    Floats& operator=(const Floats&) = delete;
    float* data() const { return data_; }
    size_t size() const { return size_; }

private:
    float* data_ = nullptr;
    size_t size_ = 0;
    bool owned_ = true;
};

// Where a float array a step reads or writes lives: at an offset (in floats) of the arena, in a
// constant the executor owns, or nowhere (a NULL pointer for the library).
struct Ref {
    enum Kind { None, Arena, Constant };
    Kind kind = None;
    size_t index = 0;  // arena offset or constant number
    static Ref InArena(size_t offset) { return {Arena, offset}; }
};

// Turns references into pointers into one run's arena; constants are shared by all runs and
// read-only.
class Memory {
public:
    Memory(float* arena, const std::vector<Floats>& constants)
        : arena_(arena), constants_(constants) {}
    float* operator()(const Ref& ref) const;

private:
    float* arena_;
    const std::vector<Floats>& constants_;
};

// What a step's time counts as in the profile: a compute kernel of the library, a layout
// conversion of the library (ConvertImage at the network's edges or around NCHW-only layers), or
// glue written here.
enum class Category { Kernel, Layout, Glue };

class Step {
public:
    Step(std::string name, std::string kind, Category category)
        : name(std::move(name)), kind(std::move(kind)), category(category) {}
    virtual ~Step() = default;
    // Runs the step on the arena of `memory`; `scratch` holds at least ScratchFloats() floats
    // shared by the steps of this run. Const: several threads run one step at once, each on
    // memory of its own, so a step resolves its references here and keeps nothing of a run.
    virtual void Run(const Memory& memory, float* scratch) const = 0;
    virtual size_t ScratchFloats() const { return 0; }
    // The library's description of the algorithm (contexts), or empty.
    virtual std::string Info() const { return {}; }

    const std::string name;  // the ONNX node(s) the step runs
    const std::string kind;
    const Category category;
};

// A network input or output: a C-contiguous array of `shape` (NCHW as the model declares it) and
// the arena tensor that holds it in the physical order `perm` (physical axis i is logical axis
// perm[i]).
struct Binding {
    std::string name;
    std::vector<size_t> shape;
    std::vector<size_t> perm;
    Ref ref;
    size_t Size() const;
    // Outputs: the physical shape and the permutation back to `shape` (set by AddOutput).
    std::vector<size_t> physical, inverse;
};

struct StepProfile {
    double seconds = 0;  // summed over the profiled runs
    double fastest = 0;  // the fastest run (robust when other work shares the machine)
};

// What the profiled runs accumulated: per step, and the input and output copies and whole runs.
struct RunProfile {
    std::vector<StepProfile> steps;
    double inputSeconds = 0, outputSeconds = 0, totalSeconds = 0;
    size_t runs = 0;
};

class Executor {
public:
    Executor() = default;
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // Copies `size` floats into storage the executor owns, or with `borrow` refers to the
    // caller's array, which must outlive the executor; returns the reference.
    Ref AddConstant(const float* data, size_t size, bool borrow = false);
    void AddStep(std::unique_ptr<Step> step);
    void AddInput(Binding binding);
    void AddOutput(Binding binding);
    // Fixes the plan: the arena of a run holds `arenaFloats`, its scratch the most any step
    // asks for. Allocates the first workspace, so that a plan too large fails here.
    void Finalize(size_t arenaFloats);

    // One inference: inputs[i] holds inputs()[i] (C order), outputs[i] receives outputs()[i].
    // Several threads may run at once: each run takes a workspace (arena and scratch) of its
    // own from a pool, which keeps it for later runs, and results are those of a lone run.
    // With `profile`, the time of every step and of the input/output copies is accumulated;
    // `stepSeconds`, when not null, receives the seconds of each step of this run (Steps().size()
    // values).
    void Run(const std::vector<const float*>& inputs, const std::vector<float*>& outputs,
             bool profile, double* stepSeconds = nullptr);

    // Tests: zones of the arena (offset, size in floats) that no step may write, and the
    // scratch's tail beyond what the steps asked for. Run fills them with a pattern in its
    // workspace and checks them after every step, naming the step that wrote one. Set before
    // the first run.
    void SetGuards(const std::vector<std::pair<size_t, size_t>>& zones);

    void SetThreads(size_t threads) { threads_ = threads ? threads : 1; }
    size_t Threads() const { return threads_; }
    const std::vector<Binding>& Inputs() const { return inputs_; }
    const std::vector<Binding>& Outputs() const { return outputs_; }
    const std::vector<std::unique_ptr<Step>>& Steps() const { return steps_; }
    // A copy taken at one moment: profiled runs may be accumulating meanwhile.
    RunProfile Profile() const;
    void ResetProfile();
    size_t ArenaFloats() const { return arenaFloats_; }
    // The arena of the most recently completed run (calibration reads tensors from it). A run
    // that starts meanwhile may take that workspace and overwrite it: callers that read it
    // keep runs out while they do.
    const float* ArenaData() const;
    // The scratch of one run (with the guard zone when there are guards).
    size_t ScratchFloats() const { return scratchFloats_ + (guarded_ ? kScratchGuard : 0); }
    size_t ConstantFloats() const;
    bool Finalized() const { return finalized_; }

private:
    // What one run writes: the activations, the steps' scratch.
    struct Workspace {
        Floats arena, scratch;
    };
    static constexpr size_t kScratchGuard = 64;

    std::vector<Floats> constants_;
    std::vector<std::unique_ptr<Step>> steps_;
    std::vector<Binding> inputs_, outputs_;
    size_t arenaFloats_ = 0;
    size_t scratchFloats_ = 0;  // the most a step asks for; the scratch's guard zone starts here
    std::atomic<size_t> threads_{1};
    bool finalized_ = false;
    bool guarded_ = false;
    std::vector<std::pair<size_t, size_t>> guards_;  // in the arena

    // The pool: workspaces no run holds, the last one returned on top (its memory is the most
    // likely to be in cache). A run holds the lock only to take or return one.
    mutable std::mutex poolMutex_;
    std::vector<std::unique_ptr<Workspace>> free_;
    size_t workspaces_ = 0;            // ever created: free_'s capacity
    const Workspace* last_ = nullptr;  // the most recently completed run's, in free_ or in use

    mutable std::mutex profileMutex_;
    RunProfile profile_;

    std::unique_ptr<Workspace> NewWorkspace() const;
    std::unique_ptr<Workspace> Acquire();
    void Release(std::unique_ptr<Workspace> workspace, bool completed);
    void FillGuards(Workspace& workspace) const;
    void CheckGuards(const Workspace& workspace, const std::string& after) const;
};

// Copies a C-contiguous tensor of `shape` into the physical order `perm` (dst axis i is src
// axis perm[i]), or back (`inverse`). 4D NCHW <-> NHWC goes through SimdSynetConvertImage.
void Permute(const float* src, const std::vector<size_t>& shape, const std::vector<size_t>& perm,
             float* dst);

}  // namespace simdsynet_executor
