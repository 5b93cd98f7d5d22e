// SimdSetThreadNumber / SimdGetThreadNumber and the worker pool behind RunParts.
#include "core/ThreadPool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "SimdSynet.h"
#include "core/Error.h"

namespace simd {
namespace {

// A budget beyond any machine's cores only multiplies idle threads.
constexpr size_t kMaxThreads = 256;

// How long a worker waiting for work, or a caller waiting for its workers, polls before it
// blocks. Layers run several parallel regions back to back (an NCHW convolution computed as
// NHWC: transpose, compute, transpose back), and on this VM waking a blocked thread cost tens
// of microseconds per region: (a) 3x3 64->64 56x56 NCHW on 2 threads took 640-720 us against
// 505 us for the same work in NHWC, one region.
constexpr auto kSpin = std::chrono::microseconds(100);

// Polls `ready` for up to kSpin; true when it held. Between short bursts of polls it yields
// the core: with more threads than cores (2 threads pinned to one core) a pure spin kept the
// thread it waited for from running, and the layer above took 1.5x its serial time.
template <class Ready>
bool SpinUntil(const Ready& ready) {
    const auto end = std::chrono::steady_clock::now() + kSpin;
    for (;;) {
        for (int i = 0; i < 64; ++i) {
            if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::yield();
    }
}

std::atomic<size_t> g_threadBudget{1};

// Workers wait for a new job, then claim its parts one at a time, as the caller does, until
// none is left. Parts are claimed, not dealt: with fixed shares a caller waited at every
// parallel region for a worker the scheduler had not run yet (two other busy processes on two
// cores: resnet18 at 2 threads took 82 ms against 39 ms at 1 thread). Now a part waits only for
// a thread that has started it, and a caller whose workers are late computes the parts itself,
// so a budget of N is never much slower than 1. A part's result never depends on the thread
// that computes it (callers give scratch per part), so results stay bit-identical.
//
// The pool is never destroyed: an entry point called from a static destructor or an atexit
// handler still finds it, and the workers, parked on a condition variable, end with the
// process.
class Pool {
public:
    // job_ packs the job's serial number, its thread count, its part count and the next
    // unclaimed part, so that one compare-and-swap both checks that a job is still the one a
    // thread saw and claims a part of it: a thread that slept through a job's end cannot claim
    // a part of the next one by mistake (the serial differs) or of a finished one. (The serial
    // wraps after 2^23 jobs; a thread would have to sleep through all of them.)
    static constexpr unsigned kPartBits = 16, kThreadBits = 9;
    static constexpr unsigned kThreadShift = 2 * kPartBits, kJobShift = kThreadShift + kThreadBits;
    static constexpr uint64_t kPartMask = (uint64_t(1) << kPartBits) - 1;
    static constexpr uint64_t kJobMask = (uint64_t(1) << (64 - kJobShift)) - 1;
    static_assert(kMaxThreads < (size_t(1) << kThreadBits), "thread count field too narrow");

    static Pool& Instance() {
        static Pool* pool = new Pool;
        return *pool;
    }

    // Parts one job may have; RunParts groups larger counts into this many.
    static constexpr size_t kMaxParts = (size_t(1) << kPartBits) - 1;

    // False when the pool is already running a call (another thread's or an enclosing one):
    // the caller then computes every part itself.
    bool Run(size_t threads, size_t parts, ParallelTask task, void* context) {
        bool expected = false;
        if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return false;
        const size_t workers = Grow(threads - 1);  // fewer when the system refused a thread
        if (workers == 0) {
            busy_.store(false, std::memory_order_release);
            return false;
        }
        task_.store(task, std::memory_order_relaxed);
        context_.store(context, std::memory_order_relaxed);
        done_.store(0, std::memory_order_relaxed);
        const uint64_t job = ((job_.load(std::memory_order_relaxed) >> kJobShift) + 1) & kJobMask;
        // The release publishes task_, context_ and done_ to every thread that claims a part.
        job_.store(Pack(job, workers + 1, parts, 0), std::memory_order_release);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            wakeups_.fetch_add(1, std::memory_order_release);
        }
        wake_.notify_all();
        ClaimParts(job);
        if (!SpinUntil([&] { return done_.load(std::memory_order_acquire) == parts; })) {
            std::unique_lock<std::mutex> lock(mutex_);
            finished_.wait(lock, [&] { return done_.load(std::memory_order_acquire) == parts; });
        }
        busy_.store(false, std::memory_order_release);
        return true;
    }

private:
    static uint64_t Pack(uint64_t job, size_t threads, size_t parts, size_t next) {
        return job << kJobShift | uint64_t(threads) << kThreadShift | uint64_t(parts) << kPartBits |
               uint64_t(next);
    }
    static size_t Threads(uint64_t word) {
        return size_t(word >> kThreadShift) & ((size_t(1) << kThreadBits) - 1);
    }
    static size_t Parts(uint64_t word) { return size_t(word >> kPartBits & kPartMask); }
    static size_t Next(uint64_t word) { return size_t(word & kPartMask); }

    // Claims and runs parts of job `job` until none is left.
    void ClaimParts(uint64_t job) {
        uint64_t word = job_.load(std::memory_order_acquire);
        for (;;) {
            if (word >> kJobShift != job || Next(word) >= Parts(word)) return;
            if (!job_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel,
                                            std::memory_order_acquire))
                continue;  // `word` now holds the current value
            // A claimed part keeps the job open (the caller waits for it), so task_ and
            // context_ are still this job's.
            const size_t parts = Parts(word);
            task_.load(std::memory_order_relaxed)(context_.load(std::memory_order_relaxed),
                                                  Next(word), parts);
            if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == parts) {
                std::lock_guard<std::mutex> lock(mutex_);
                finished_.notify_one();
            }
            word = job_.load(std::memory_order_acquire);
        }
    }

    // Called with busy_ held, so the worker list has a single writer. Returns the number of
    // workers available, at most `workers`.
    size_t Grow(size_t workers) {
        while (workers_.size() < workers) {
            const size_t index = workers_.size() + 1;  // thread 0 is the caller
            try {
                workers_.emplace_back([this, index] { Work(index); });
            } catch (...) {  // std::system_error (thread limit) or bad_alloc
                break;
            }
        }
        return workers_.size() < workers ? workers_.size() : workers;
    }

    void Work(size_t index) {
        uint64_t seen = 0;
        for (;;) {
            if (!SpinUntil([&] { return wakeups_.load(std::memory_order_acquire) != seen; })) {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return wakeups_.load(std::memory_order_acquire) != seen; });
            }
            seen = wakeups_.load(std::memory_order_acquire);
            const uint64_t word = job_.load(std::memory_order_acquire);
            // Workers beyond the job's thread count stay out: the budget is a ceiling.
            if (index < Threads(word)) ClaimParts(word >> kJobShift);
        }
    }

    std::atomic<bool> busy_{false};
    std::atomic<uint64_t> job_{0};
    std::atomic<ParallelTask> task_{nullptr};
    std::atomic<void*> context_{nullptr};
    std::atomic<size_t> done_{0};
    // Counts jobs for sleeping workers; changed under mutex_ so that a wake-up is not lost.
    std::atomic<uint64_t> wakeups_{0};
    std::mutex mutex_;
    std::condition_variable wake_, finished_;
    std::vector<std::thread> workers_;
};

// More parts than a job can hold run as groups of consecutive parts, one group a job part.
struct PartGroups {
    ParallelTask task;
    void* context;
    size_t parts, groups;

    static void Run(void* self, size_t group, size_t) {
        const PartGroups& g = *static_cast<const PartGroups*>(self);
        const auto range = PartRange(g.parts, group, g.groups);
        for (size_t part = range.first; part < range.second; ++part)
            g.task(g.context, part, g.parts);
    }
};

}  // namespace

size_t ThreadBudget() {
    return g_threadBudget.load(std::memory_order_relaxed);
}

void RunParts(size_t parts, ParallelTask task, void* context) {
    const size_t budget = ThreadBudget();
    const size_t threads = parts < budget ? parts : budget;
    if (threads > 1) {
        if (parts <= Pool::kMaxParts) {
            if (Pool::Instance().Run(threads, parts, task, context)) return;
        } else {
            PartGroups groups{task, context, parts, Pool::kMaxParts};
            if (Pool::Instance().Run(threads, groups.groups, PartGroups::Run, &groups)) return;
        }
    }
    for (size_t part = 0; part < parts; ++part) task(context, part, parts);
}

}  // namespace simd

SIMD_API size_t SimdGetThreadNumber(void) {
    simd::ClearLastError();
    return simd::ThreadBudget();
}

SIMD_API void SimdSetThreadNumber(size_t threadNumber) {
    simd::ClearLastError();
    // 0 means "no parallelism" rather than an error: the budget is a ceiling, 1 is the floor.
    if (threadNumber == 0) threadNumber = 1;
    if (threadNumber > simd::kMaxThreads) threadNumber = simd::kMaxThreads;
    simd::g_threadBudget.store(threadNumber, std::memory_order_relaxed);
}
