// SimdSetThreadNumber / SimdGetThreadNumber and the worker pool behind RunParts.
#include "core/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

#include "SimdSynet.h"
#include "core/CpuLoad.h"
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
// steady_clock ticks until which the budget acts as 1 (Pool::NoteBusySign).
std::atomic<int64_t> g_serialUntil{0};
// Workers not blocked on the condition variable (spinning or computing): with the caller, the
// pool's runnable threads, which CoresLeftNow does not count as others.
std::atomic<size_t> g_wakeWorkers{0};

// Workers wait for a new job, then claim its parts one at a time, as the caller does, until
// none is left. Parts are claimed, not dealt: with fixed shares a caller waited at every
// parallel region for a worker the scheduler had not run yet (two other busy processes on two
// cores: resnet18 at 2 threads took 82 ms against 39 ms at 1 thread). Now a part waits only for
// a thread that has started it, and a caller whose workers are late computes the parts itself;
// a machine too busy to run the workers at all gets serial spells (NoteBusySign). A part's
// result never depends on the thread that computes it (callers give scratch per part), so
// results stay bit-identical.
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
        const auto start = std::chrono::steady_clock::now();
        const size_t mine = ClaimParts(job, false);
        if (!SpinUntil([&] { return done_.load(std::memory_order_acquire) == parts; })) {
            std::unique_lock<std::mutex> lock(mutex_);
            finished_.wait(lock, [&] { return done_.load(std::memory_order_acquire) == parts; });
        }
        // A region long enough for a sleeping worker to wake (tens of microseconds in a VM)
        // whose every part the caller took: the workers are not being run.
        if (mine < parts) {
            unhelped_ = 0;
        } else {
            const auto now = std::chrono::steady_clock::now();
            if (now - start > kWakeTime && ++unhelped_ >= kUnhelpedRegions) {
                unhelped_ = 0;
                NoteBusySign(now);
            }
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

    // On a machine with more runnable threads than cores (a build beside the service) the
    // workers run late. A worker that has not started gets no part (the caller takes it), but
    // waking it and its spinning still take the caller's share of a core, and a worker
    // descheduled in the middle of a part makes the caller wait a time slice, milliseconds.
    // Two signs of that: a part that took a worker over twice its thread's CPU time and 50 us
    // more (wall clock against CPU clock), and kUnhelpedRegions regions in a row, each longer
    // than kWakeTime, whose every part the caller took itself. Two signs within kSignWindow
    // start a serial spell, in which the budget acts as 1 (layers do not split, as split work
    // run by one thread is slower: 7x7 layers split by channels 30%) and the workers sleep;
    // one sign alone is a hiccup (another process ran for a moment), not a busy machine.
    // Regions are tried again after the spell; a spell that starts again within its own length
    // of the last one's end lasts twice as long (10 ms up to 40 ms), so a budget of N on a
    // busy machine costs few late regions against 1 thread, and a machine that frees up gets
    // its threads back within the spell. A free machine shows no signs (spinning workers take
    // their part within a microsecond).
    static constexpr auto kFirstSpell = std::chrono::milliseconds(10);
    static constexpr auto kLongestSpell = std::chrono::milliseconds(40);
    static constexpr auto kSignWindow = std::chrono::milliseconds(200);
    static constexpr auto kWakeTime = std::chrono::microseconds(100);
    static constexpr size_t kUnhelpedRegions = 4;

    void NoteBusySign(std::chrono::steady_clock::time_point now) {
        std::lock_guard<std::mutex> lock(spellMutex_);
        const auto previous = lastSign_;
        lastSign_ = now;
        if (now - previous > kSignWindow) return;
        if (now.time_since_epoch().count() <
            g_serialUntil.load(std::memory_order_relaxed) + spell_.count())
            spell_ = std::min<std::chrono::steady_clock::duration>(2 * spell_, kLongestSpell);
        else
            spell_ = kFirstSpell;
        g_serialUntil.store((now + spell_).time_since_epoch().count(), std::memory_order_relaxed);
    }

    static std::chrono::nanoseconds ThreadCpuTime() {
        timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return std::chrono::seconds(t.tv_sec) + std::chrono::nanoseconds(t.tv_nsec);
    }

    // Claims and runs parts of job `job` until none is left and returns how many it ran; a
    // worker (`timed`) checks that it was not descheduled meanwhile (NoteBusySign).
    size_t ClaimParts(uint64_t job, bool timed) {
        uint64_t word = job_.load(std::memory_order_acquire);
        for (size_t ran = 0;; ++ran) {
            if (word >> kJobShift != job || Next(word) >= Parts(word)) return ran;
            if (!job_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel,
                                            std::memory_order_acquire))
                continue;  // `word` now holds the current value
            // A claimed part keeps the job open (the caller waits for it), so task_ and
            // context_ are still this job's.
            const size_t parts = Parts(word);
            const auto wall =
                timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
            const auto cpu = timed ? ThreadCpuTime() : std::chrono::nanoseconds(0);
            task_.load(std::memory_order_relaxed)(context_.load(std::memory_order_relaxed),
                                                  Next(word), parts);
            if (timed) {
                const auto now = std::chrono::steady_clock::now();
                if (now - wall > 2 * (ThreadCpuTime() - cpu) + std::chrono::microseconds(50))
                    NoteBusySign(now);
            }
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
        g_wakeWorkers.fetch_add(1, std::memory_order_relaxed);
        uint64_t seen = 0;
        for (;;) {
            if (!SpinUntil([&] { return wakeups_.load(std::memory_order_acquire) != seen; })) {
                g_wakeWorkers.fetch_sub(1, std::memory_order_relaxed);
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return wakeups_.load(std::memory_order_acquire) != seen; });
                g_wakeWorkers.fetch_add(1, std::memory_order_relaxed);
            }
            seen = wakeups_.load(std::memory_order_acquire);
            const uint64_t word = job_.load(std::memory_order_acquire);
            // Workers beyond the job's thread count stay out: the budget is a ceiling.
            if (index < Threads(word)) ClaimParts(word >> kJobShift, true);
        }
    }

    std::atomic<bool> busy_{false};
    // The last busy sign and the serial spell's length (NoteBusySign; its end is
    // g_serialUntil).
    std::mutex spellMutex_;
    std::chrono::steady_clock::time_point lastSign_;
    std::chrono::steady_clock::duration spell_ = kFirstSpell;
    size_t unhelped_ = 0;  // regions in a row the caller ran alone; changed with busy_ held
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
    const size_t budget = g_threadBudget.load(std::memory_order_relaxed);
    if (budget <= 1) return budget;
    const int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
    if (now < g_serialUntil.load(std::memory_order_relaxed)) return 1;
    const size_t cores = CoresLeftNow(now, 1 + g_wakeWorkers.load(std::memory_order_relaxed));
    return budget < cores ? budget : cores;
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
    return simd::g_threadBudget.load(std::memory_order_relaxed);
}

SIMD_API void SimdSetThreadNumber(size_t threadNumber) {
    simd::ClearLastError();
    // 0 means "no parallelism" rather than an error: the budget is a ceiling, 1 is the floor.
    if (threadNumber == 0) threadNumber = 1;
    if (threadNumber > simd::kMaxThreads) threadNumber = simd::kMaxThreads;
    simd::g_threadBudget.store(threadNumber, std::memory_order_relaxed);
}
