#include "Executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>

namespace simdsynet_executor {

void CheckLibrary(const std::string& what) {
    if (const char* message = SimdSynetGetLastError()) throw ExecutorError(what + ": " + message);
}

// ---------------------------------------------------------------------------------------------
// Floats.

Floats::Floats(size_t size) : size_(size) {
    data_ = static_cast<float*>(SimdAllocate((size ? size : 1) * sizeof(float), 64));
    if (data_ == nullptr) throw std::bad_alloc();
}

Floats::Floats(const float* data, size_t size) : Floats(size) {
    if (size) std::memcpy(data_, data, size * sizeof(float));
}

Floats Floats::Borrow(const float* data, size_t size) {
    Floats f;
    f.data_ = const_cast<float*>(data);
    f.size_ = size;
    f.owned_ = false;
    return f;
}

Floats::~Floats() {
    if (owned_) SimdFree(data_);
}

Floats::Floats(Floats&& other) noexcept
    : data_(other.data_), size_(other.size_), owned_(other.owned_) {
    other.data_ = nullptr;
    other.size_ = 0;
}

Floats& Floats::operator=(Floats&& other) noexcept {
    if (this != &other) {
        if (owned_) SimdFree(data_);
        data_ = other.data_;
        size_ = other.size_;
        owned_ = other.owned_;
        other.data_ = nullptr;
        other.size_ = 0;
    }
    return *this;
}

float* Memory::operator()(const Ref& ref) const {
    switch (ref.kind) {
        case Ref::Arena:
            return arena_ + ref.index;
        case Ref::Constant:
            return constants_.at(ref.index).data();
        default:
            return nullptr;
    }
}

size_t Binding::Size() const {
    size_t size = 1;
    for (size_t extent : shape) size *= extent;
    return size;
}

// ---------------------------------------------------------------------------------------------
// Permute.

namespace {

// Physical order `perm` of a tensor of `shape`, with axes that stay neighbours merged and axes
// of extent 1 dropped (they move no data).
void Simplify(const std::vector<size_t>& shape, const std::vector<size_t>& perm,
              std::vector<size_t>& outShape, std::vector<size_t>& outPerm) {
    std::vector<size_t> keep;  // source axes of extent > 1, renumbered
    std::vector<size_t> renumber(shape.size(), SIZE_MAX);
    std::vector<size_t> sizes;
    for (size_t a = 0; a < shape.size(); ++a)
        if (shape[a] != 1) {
            renumber[a] = sizes.size();
            sizes.push_back(shape[a]);
        }
    std::vector<size_t> p;
    for (size_t a : perm)
        if (renumber[a] != SIZE_MAX) p.push_back(renumber[a]);
    // Merge runs of destination axes that are consecutive source axes.
    std::vector<size_t> group(sizes.size());  // source axis -> merged axis
    std::vector<size_t> mergedSize;
    std::vector<size_t> head;  // destination order of merged axes, as their first source axis
    for (size_t i = 0; i < p.size(); ++i) {
        if (i > 0 && p[i] == p[i - 1] + 1) {
            mergedSize.back() *= sizes[p[i]];
        } else {
            head.push_back(p[i]);
            mergedSize.push_back(sizes[p[i]]);
        }
    }
    // Merged axes in source order give the simplified source shape.
    std::vector<size_t> order(head.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return head[a] < head[b]; });
    outShape.assign(order.size(), 0);
    std::vector<size_t> rank(order.size());
    for (size_t r = 0; r < order.size(); ++r) {
        outShape[r] = mergedSize[order[r]];
        rank[order[r]] = r;
    }
    outPerm.assign(head.size(), 0);
    for (size_t i = 0; i < head.size(); ++i) outPerm[i] = rank[i];
}

}  // namespace

void Permute(const float* src, const std::vector<size_t>& shape, const std::vector<size_t>& perm,
             float* dst) {
    std::vector<size_t> s, p;
    Simplify(shape, perm, s, p);
    size_t total = 1;
    for (size_t e : s) total *= e;
    bool identity = true;
    for (size_t i = 0; i < p.size(); ++i) identity = identity && p[i] == i;
    if (identity) {
        std::memcpy(dst, src, total * sizeof(float));
        return;
    }
    // [N][A][B] -> [N][B][A] is the library's NCHW -> NHWC conversion.
    if (p.size() == 2 || (p.size() == 3 && p[0] == 0)) {
        size_t n = p.size() == 3 ? s[0] : 1, a = s[p.size() - 2], b = s[p.size() - 1];
        SimdSynetConvertImage(n, a, b, src, SimdTensorFormatNchw, dst, SimdTensorFormatNhwc);
        CheckLibrary("transpose");
        return;
    }
    // General case: walk the destination in order, the source through permuted strides.
    const size_t rank = s.size();
    std::vector<size_t> srcStride(rank);
    for (size_t a = rank, stride = 1; a-- > 0;) {
        srcStride[a] = stride;
        stride *= s[a];
    }
    std::vector<size_t> extent(rank), stride(rank);
    for (size_t i = 0; i < rank; ++i) {
        extent[i] = s[p[i]];
        stride[i] = srcStride[p[i]];
    }
    std::vector<size_t> index(rank, 0);
    const size_t inner = extent[rank - 1], innerStride = stride[rank - 1];
    size_t offset = 0;
    for (size_t done = 0; done < total; done += inner) {
        const float* from = src + offset;
        for (size_t j = 0; j < inner; ++j) dst[j] = from[j * innerStride];
        dst += inner;
        for (size_t i = rank - 1; i-- > 0;) {
            offset += stride[i];
            if (++index[i] < extent[i]) break;
            offset -= stride[i] * extent[i];
            index[i] = 0;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Executor.

Ref Executor::AddConstant(const float* data, size_t size, bool borrow) {
    if (borrow)
        constants_.push_back(Floats::Borrow(data, size));
    else
        constants_.emplace_back(data, size);
    return {Ref::Constant, constants_.size() - 1};
}

void Executor::AddStep(std::unique_ptr<Step> step) {
    if (finalized_) throw ExecutorError("the plan is finalized");
    steps_.push_back(std::move(step));
}

void Executor::AddInput(Binding binding) {
    inputs_.push_back(std::move(binding));
}

void Executor::AddOutput(Binding binding) {
    // The arena holds the output in physical order: Run undoes the permutation.
    const size_t rank = binding.perm.size();
    binding.physical.resize(rank);
    binding.inverse.resize(rank);
    for (size_t a = 0; a < rank; ++a) {
        binding.physical[a] = binding.shape[binding.perm[a]];
        binding.inverse[binding.perm[a]] = a;
    }
    outputs_.push_back(std::move(binding));
}

size_t Executor::ConstantFloats() const {
    size_t total = 0;
    for (const Floats& c : constants_) total += c.size();
    return total;
}

void Executor::Finalize(size_t arenaFloats) {
    if (finalized_) throw ExecutorError("the plan is finalized");
    arenaFloats_ = arenaFloats;
    scratchFloats_ = 1;
    for (const auto& step : steps_)
        scratchFloats_ = std::max(scratchFloats_, step->ScratchFloats());
    free_.push_back(NewWorkspace());
    workspaces_ = 1;
    last_ = free_.back().get();
    profile_.steps.assign(steps_.size(), StepProfile());
    finalized_ = true;
}

std::unique_ptr<Executor::Workspace> Executor::NewWorkspace() const {
    auto workspace = std::make_unique<Workspace>();
    workspace->arena = Floats(arenaFloats_);
    workspace->scratch = Floats(ScratchFloats());
    return workspace;
}

std::unique_ptr<Executor::Workspace> Executor::Acquire() {
    {
        std::lock_guard<std::mutex> lock(poolMutex_);
        if (!free_.empty()) {
            std::unique_ptr<Workspace> workspace = std::move(free_.back());
            free_.pop_back();
            return workspace;
        }
        // Room for every workspace, so that Release (in a destructor) never allocates.
        free_.reserve(++workspaces_);
    }
    // Every workspace is running: allocating outside the lock lets the others return theirs.
    return NewWorkspace();
}

void Executor::Release(std::unique_ptr<Workspace> workspace, bool completed) {
    std::lock_guard<std::mutex> lock(poolMutex_);
    // One taken before SetGuards resized the scratch would not fit the guarded plan.
    if (workspace->scratch.size() != ScratchFloats()) {
        if (last_ == workspace.get()) last_ = nullptr;
        return;
    }
    if (completed) last_ = workspace.get();
    free_.push_back(std::move(workspace));
}

const float* Executor::ArenaData() const {
    std::lock_guard<std::mutex> lock(poolMutex_);
    if (last_) return last_->arena.data();
    return free_.empty() ? nullptr : free_.back()->arena.data();
}

namespace {
const uint32_t kGuardBits = 0x7FC0DEADu;  // a quiet NaN no step computes
}  // namespace

void Executor::SetGuards(const std::vector<std::pair<size_t, size_t>>& zones) {
    if (!finalized_) throw ExecutorError("guards are set after finalize");
    for (const auto& [offset, size] : zones)
        if (offset + size > arenaFloats_) throw ExecutorError("a guard zone is outside the arena");
    guards_ = zones;
    // The scratch gets a guard zone after the largest size a step asked for: the workspaces
    // allocated so far are too small.
    guarded_ = true;
    std::unique_ptr<Workspace> workspace = NewWorkspace();
    std::lock_guard<std::mutex> lock(poolMutex_);
    free_.clear();
    free_.reserve(workspaces_);
    last_ = workspace.get();
    free_.push_back(std::move(workspace));
}

void Executor::FillGuards(Workspace& workspace) const {
    auto fill = [](float* p, size_t n) {
        for (size_t i = 0; i < n; ++i) std::memcpy(p + i, &kGuardBits, sizeof(float));
    };
    for (const auto& [offset, size] : guards_) fill(workspace.arena.data() + offset, size);
    fill(workspace.scratch.data() + scratchFloats_, kScratchGuard);
}

void Executor::CheckGuards(const Workspace& workspace, const std::string& after) const {
    auto intact = [](const float* p, size_t n) {
        for (size_t i = 0; i < n; ++i)
            if (std::memcmp(p + i, &kGuardBits, sizeof(float)) != 0) return false;
        return true;
    };
    for (const auto& [offset, size] : guards_)
        if (!intact(workspace.arena.data() + offset, size))
            throw ExecutorError(after + " wrote the guard zone at arena offset " +
                                std::to_string(offset));
    if (!intact(workspace.scratch.data() + scratchFloats_, kScratchGuard))
        throw ExecutorError(after + " wrote past its scratch buffer");
}

RunProfile Executor::Profile() const {
    std::lock_guard<std::mutex> lock(profileMutex_);
    return profile_;
}

void Executor::ResetProfile() {
    std::lock_guard<std::mutex> lock(profileMutex_);
    profile_ = RunProfile();
    profile_.steps.assign(steps_.size(), StepProfile());
}

void Executor::Run(const std::vector<const float*>& inputs, const std::vector<float*>& outputs,
                   bool profile, double* stepSeconds) {
    using Clock = std::chrono::steady_clock;
    if (!finalized_) throw ExecutorError("the plan is not finalized");
    // Returned to the pool however the run ends; only a completed run's arena is ArenaData.
    struct Lease {
        Executor& executor;
        std::unique_ptr<Workspace> workspace;
        bool completed = false;
        ~Lease() { executor.Release(std::move(workspace), completed); }
    } lease{*this, Acquire()};
    Workspace& workspace = *lease.workspace;
    const Memory memory(workspace.arena.data(), constants_);
    const bool timed = profile || stepSeconds;
    // Accumulated into the profile at the end, under its lock once rather than per step.
    std::vector<double> seconds(profile ? steps_.size() : 0);
    const auto start = Clock::now();
    SimdSetThreadNumber(threads_);
    const bool guarded = guarded_;
    if (guarded) FillGuards(workspace);
    for (size_t i = 0; i < inputs_.size(); ++i) {
        const Binding& b = inputs_[i];
        Permute(inputs[i], b.shape, b.perm, memory(b.ref));
    }
    if (guarded) CheckGuards(workspace, "the input copy");
    const auto inputEnd = Clock::now();
    auto last = inputEnd;
    float* scratch = workspace.scratch.data();
    for (size_t i = 0; i < steps_.size(); ++i) {
        steps_[i]->Run(memory, scratch);
        if (SimdSynetGetLastError()) CheckLibrary(steps_[i]->name);
        if (guarded)
            CheckGuards(workspace, "step " + std::to_string(i) + " (" + steps_[i]->name + ")");
        if (timed) {
            const auto now = Clock::now();
            const double s = std::chrono::duration<double>(now - last).count();
            if (profile) seconds[i] = s;
            if (stepSeconds) stepSeconds[i] = s;
            last = now;
        }
    }
    for (size_t i = 0; i < outputs_.size(); ++i) {
        const Binding& b = outputs_[i];
        Permute(memory(b.ref), b.physical, b.inverse, outputs[i]);
    }
    lease.completed = true;
    if (profile) {
        const auto end = Clock::now();
        std::lock_guard<std::mutex> lock(profileMutex_);
        for (size_t i = 0; i < steps_.size(); ++i) {
            StepProfile& p = profile_.steps[i];
            p.seconds += seconds[i];
            p.fastest = profile_.runs == 0 ? seconds[i] : std::min(p.fastest, seconds[i]);
        }
        profile_.inputSeconds += std::chrono::duration<double>(inputEnd - start).count();
        profile_.outputSeconds += std::chrono::duration<double>(end - last).count();
        profile_.totalSeconds += std::chrono::duration<double>(end - start).count();
        ++profile_.runs;
    }
}

}  // namespace simdsynet_executor
