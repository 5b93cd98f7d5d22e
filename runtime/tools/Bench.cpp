// simdsynet-bench: times network files on random inputs at several thread counts, one table row
// per file and thread count (as ncnn's benchncnn); --profile adds the time of every step.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "Common.h"
#include "SimdSynetRuntime.hpp"

using namespace simdsynet_tools;

namespace {

const char kUsage[] =
    "usage: simdsynet-bench [--threads 1,2,...] [--runs N] [--warmup N] [--profile] FILE.ssn...\n"
    "Times each network file on random inputs: the median and the fastest of N runs (default\n"
    "10) after the warm-up runs (default 2), at each thread count (default 1). --profile adds\n"
    "each step's average time over N profiled runs and its share of their total.\n";

struct Options {
    std::vector<size_t> threads;
    size_t runs = 10, warmup = 2;
    bool profile = false;
    std::vector<std::string> files;
};

bool ParseThreads(const std::string& text, std::vector<size_t>& threads) {
    size_t start = 0;
    while (true) {
        const size_t comma = text.find(',', start);
        size_t count = 0;
        if (!ParseCount(text.substr(start, comma - start), 1, count)) return false;
        threads.push_back(count);
        if (comma == std::string::npos) return true;
        start = comma + 1;
    }
}

// Returns false (and says why on stderr) for anything the command line cannot mean.
bool ParseOptions(int argc, char** argv, Options& options) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool valued = arg == "--threads" || arg == "--runs" || arg == "--warmup";
        if (valued && i + 1 == argc) {
            std::fprintf(stderr, "simdsynet-bench: %s needs a value\n%s", arg.c_str(), kUsage);
            return false;
        }
        const std::string value = valued ? argv[++i] : "";
        bool ok = true;
        if (arg == "--threads")
            ok = ParseThreads(value, options.threads);
        else if (arg == "--runs")
            ok = ParseCount(value, 1, options.runs);
        else if (arg == "--warmup")
            ok = ParseCount(value, 0, options.warmup);
        else if (arg == "--profile")
            options.profile = true;
        else if (arg.size() > 1 && arg[0] == '-') {
            std::fprintf(stderr, "simdsynet-bench: unknown option %s\n%s", arg.c_str(), kUsage);
            return false;
        } else
            options.files.push_back(arg);
        if (!ok) {
            std::fprintf(stderr, "simdsynet-bench: %s %s: not a %s\n", arg.c_str(), value.c_str(),
                         arg == "--threads" ? "list of counts >= 1 (1,2,4)"
                         : arg == "--runs"  ? "count >= 1"
                                            : "count >= 0");
            return false;
        }
    }
    if (options.files.empty()) {
        std::fprintf(stderr, "simdsynet-bench: no network file given\n%s", kUsage);
        return false;
    }
    if (options.threads.empty()) options.threads.push_back(1);
    return true;
}

double Median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string Shorten(const std::string& text, size_t width) {
    return text.size() <= width ? text : "..." + text.substr(text.size() - (width - 3));
}

void PrintProfile(const std::vector<Simd::Network::Step>& steps, const std::vector<double>& ms) {
    double total = 0;
    for (double t : ms) total += t;
    std::printf("  %4s %9s %6s  %-20s %-28s %s\n", "#", "avg ms", "%", "kind", "info", "step");
    for (size_t i = 0; i < steps.size(); ++i)
        std::printf("  %4zu %9.4f %6.2f  %-20s %-28s %s\n", i, ms[i],
                    total > 0 ? 100 * ms[i] / total : 0.0, steps[i].kind.c_str(),
                    steps[i].info.c_str(), Shorten(steps[i].name, 60).c_str());
    std::printf("  total %.4f ms per profiled run\n", total);
}

// Times one file at every thread count; false (and the message) when it cannot load or run.
bool Bench(const std::string& file, const Options& options) {
    Simd::Network net;
    std::vector<std::vector<float>> inputs, outputs;
    if (!net.Load(file)) {
        std::fprintf(stderr, "simdsynet-bench: %s\n", Simd::Network::LastError().c_str());
        return false;
    }
    inputs.resize(net.InputCount());
    for (size_t i = 0; i < inputs.size(); ++i)
        inputs[i].resize(Simd::Network::Volume(net.InputShape(i)));
    RandomFill(inputs);
    std::vector<const float*> in;
    for (const auto& input : inputs) in.push_back(input.data());
    outputs.resize(net.OutputCount());
    std::vector<float*> out;
    for (size_t i = 0; i < outputs.size(); ++i) {
        outputs[i].resize(Simd::Network::Volume(net.OutputShape(i)));
        out.push_back(outputs[i].data());
    }
    const std::vector<Simd::Network::Step> steps = net.Steps();
    for (size_t threads : options.threads) {
        net.SetThreads(threads);
        std::vector<double> ms;
        for (size_t r = 0; r < options.warmup + options.runs; ++r) {
            const auto start = std::chrono::steady_clock::now();
            if (!net.Run(in, out)) {
                std::fprintf(stderr, "simdsynet-bench: %s: %s\n", file.c_str(),
                             Simd::Network::LastError().c_str());
                return false;
            }
            const std::chrono::duration<double, std::milli> took =
                std::chrono::steady_clock::now() - start;
            if (r >= options.warmup) ms.push_back(took.count());
        }
        std::printf("%-32s %7zu %11.4f %11.4f\n", Shorten(file, 32).c_str(), threads, Median(ms),
                    *std::min_element(ms.begin(), ms.end()));
        if (!options.profile) continue;
        // Separate runs: the clock reads around every step are not part of the timed runs.
        std::vector<double> sum(steps.size(), 0.0), seconds;
        for (size_t r = 0; r < options.runs; ++r) {
            if (!net.RunProfiled(in, out, seconds)) {
                std::fprintf(stderr, "simdsynet-bench: %s: %s\n", file.c_str(),
                             Simd::Network::LastError().c_str());
                return false;
            }
            for (size_t s = 0; s < sum.size(); ++s) sum[s] += seconds[s];
        }
        for (double& t : sum) t *= 1000.0 / double(options.runs);
        PrintProfile(steps, sum);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::printf("%s", kUsage);
        return 0;
    }
    if (!ParseOptions(argc, argv, options)) return 1;
    std::printf("simd-synet %s on %s; %zu run(s) after %zu warm-up run(s), random inputs\n",
                SimdVersion(), SimdSynetIsa(), options.runs, options.warmup);
    std::printf("%-32s %7s %11s %11s\n", "file", "threads", "median ms", "min ms");
    bool ok = true;
    // A file that fails does not stop the others: the table is what a user waits for.
    for (const std::string& file : options.files) ok = Bench(file, options) && ok;
    return ok ? 0 : 1;
}
