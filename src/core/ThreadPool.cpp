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

// Workers wait for a new generation of work, compute their share of its parts and count down.
// The pool is never destroyed: an entry point called from a static destructor or an atexit
// handler still finds it, and the workers, parked on a condition variable, end with the
// process.
class Pool {
public:
    static Pool& Instance() {
        static Pool* pool = new Pool;
        return *pool;
    }

    // False when the pool is already running a call (another thread's or an enclosing one):
    // the caller then computes every part itself.
    bool Run(size_t threads, size_t parts, ParallelTask task, void* context) {
        bool expected = false;
        if (!busy_.compare_exchange_strong(expected, true, std::memory_order_acquire)) return false;
        // With fewer workers than asked for (the system refused a thread), the shares of the
        // missing ones are spread over those that exist: parts never depend on the count.
        const size_t workers = Grow(threads - 1);
        threads = workers + 1;
        if (threads == 1) {
            busy_.store(false, std::memory_order_release);
            return false;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            task_ = task;
            context_ = context;
            parts_ = parts;
            threads_ = threads;
            pending_.store(threads - 1);
            generation_.fetch_add(1);
        }
        wake_.notify_all();
        RunShare(0, threads, parts, task, context);
        if (!SpinUntil([this] { return pending_.load(std::memory_order_acquire) == 0; })) {
            std::unique_lock<std::mutex> lock(mutex_);
            done_.wait(lock, [this] { return pending_.load() == 0; });
        }
        busy_.store(false, std::memory_order_release);
        return true;
    }

private:
    static void RunShare(size_t thread, size_t threads, size_t parts, ParallelTask task,
                         void* context) {
        for (size_t part = thread; part < parts; part += threads) task(context, part, parts);
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
            ParallelTask task;
            void* context;
            size_t parts, threads;
            SpinUntil([&] { return generation_.load(std::memory_order_acquire) != seen; });
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return generation_.load() != seen; });
                seen = generation_.load();
                if (index >= threads_) continue;  // not needed this time
                task = task_;
                context = context_;
                parts = parts_;
                threads = threads_;
            }
            RunShare(index, threads, parts, task, context);
            std::lock_guard<std::mutex> lock(mutex_);
            if (pending_.fetch_sub(1) == 1) done_.notify_one();
        }
    }

    std::atomic<bool> busy_{false};
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    // Written under mutex_; atomic so that waiters can poll them without it.
    std::atomic<uint64_t> generation_{0};
    std::atomic<size_t> pending_{0};
    ParallelTask task_ = nullptr;
    void* context_ = nullptr;
    size_t parts_ = 0, threads_ = 0;
    std::vector<std::thread> workers_;
};

}  // namespace

size_t ThreadBudget() {
    return g_threadBudget.load(std::memory_order_relaxed);
}

void RunParts(size_t parts, ParallelTask task, void* context) {
    const size_t budget = ThreadBudget();
    const size_t threads = parts < budget ? parts : budget;
    if (threads > 1 && Pool::Instance().Run(threads, parts, task, context)) return;
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
