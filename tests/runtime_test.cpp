// The network runtime (SimdSynetRuntime.h) and its loader (runtime/src/Loader.cpp): small
// network files written here with the FlatBuffers builder, run through the C API against a
// naive reference, then corrupted (truncated, bit-flipped) and hostile files, each of which
// must be refused with a message that names the problem, never crash or touch memory outside
// the file and the network (the sanitizer build runs this too).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "Loader.h"
#include "NetworkFiles.h"
#include "SimdSynetRuntime.h"

namespace {

using namespace netfile;
using simdsynet_executor::ExecutorError;
using simdsynet_executor::LoadLimits;
using simdsynet_executor::LoadNetwork;

// The network computed naively in the logical (NCHW) order.
void Reference(const Weights& w, const std::vector<float>& x, std::vector<float>& y,
               std::vector<float>& feat) {
    float act[4][6][6];
    for (int o = 0; o < 4; ++o)
        for (int r = 0; r < 6; ++r)
            for (int c = 0; c < 6; ++c) {
                double s = w.bias[o];
                for (int i = 0; i < 3; ++i)
                    for (int ky = 0; ky < 3; ++ky)
                        for (int kx = 0; kx < 3; ++kx) {
                            const int sy = r + ky - 1, sx = c + kx - 1;
                            if (sy < 0 || sy >= 6 || sx < 0 || sx >= 6) continue;
                            s += double(w.conv[((o * 3 + i) * 3 + ky) * 3 + kx]) *
                                 x[(i * 6 + sy) * 6 + sx];
                        }
                act[o][r][c] = float(s > 0 ? s : kSlope * s);
            }
    feat.assign(72, 0);
    for (int o = 0; o < 4; ++o)
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                const float a = act[o][2 * r][2 * c], b = act[o][2 * r][2 * c + 1],
                            d = act[o][2 * r + 1][2 * c], e = act[o][2 * r + 1][2 * c + 1];
                feat[(o * 3 + r) * 3 + c] = std::max(std::max(a, b), std::max(d, e));
                feat[((o + 4) * 3 + r) * 3 + c] = (a + b + d + e) / 4;
            }
    // The sum and the inner product read the arena's NHWC order: pixel, then channel.
    std::vector<float> sum(72);
    for (int p = 0; p < 9; ++p)
        for (int ch = 0; ch < 8; ++ch)
            sum[p * 8 + ch] = feat[ch * 9 + p] + kSumWeight * w.addend[p * 8 + ch];
    y.assign(5, 0);
    for (int j = 0; j < 5; ++j) {
        double s = w.fcBias[j];
        for (int k = 0; k < 72; ++k) s += double(sum[k]) * w.fc[j * 72 + k];
        y[j] = float(s);
    }
}

struct NetworkDeleter {
    void operator()(SimdSynetNetwork* n) const { SimdSynetNetworkRelease(n); }
};
using Network = std::unique_ptr<SimdSynetNetwork, NetworkDeleter>;

std::string LastError() {
    const char* e = SimdSynetGetLastError();
    return e ? e : "";
}

bool RunNet(SimdSynetNetwork* net, const std::vector<float>& x, std::vector<float>& y,
            std::vector<float>& feat, double* seconds = nullptr) {
    y.assign(5, 0);
    feat.assign(72, 0);
    const float* in[] = {x.data()};
    float* out[] = {y.data(), feat.data()};
    return (seconds ? SimdSynetNetworkRunProfiled(net, in, out, seconds)
                    : SimdSynetNetworkRun(net, in, out)) == SimdTrue;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-4f * (1 + std::fabs(want[i]))) << what << "[" << i << "]";
}

std::string TempPath(const std::string& name) {
    return ::testing::TempDir() + "runtime_test_" + std::to_string(getpid()) + "_" + name;
}

void WriteFile(const std::string& path, const Bytes& bytes) {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr) << path;
    if (!bytes.empty()) {
        ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
    }
    std::fclose(f);
}

// ---------------------------------------------------------------------------------------------
// The C API on the valid network.

TEST(Runtime, RunsTheNetworkAsTheReference) {
    const Weights w;
    const Bytes bytes = ValidNetwork(w);
    const std::string path = TempPath("valid.ssn");
    WriteFile(path, bytes);
    Network net(SimdSynetNetworkLoad(path.c_str(), nullptr));
    ASSERT_NE(net, nullptr) << LastError();
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    std::remove(path.c_str());  // the mapping keeps the weights readable

    ASSERT_EQ(SimdSynetNetworkInputCount(net.get()), 1u);
    ASSERT_EQ(SimdSynetNetworkOutputCount(net.get()), 2u);
    EXPECT_STREQ(SimdSynetNetworkInputName(net.get(), 0), "x");
    EXPECT_STREQ(SimdSynetNetworkOutputName(net.get(), 0), "y");
    EXPECT_STREQ(SimdSynetNetworkOutputName(net.get(), 1), "feat");
    const size_t* shape = nullptr;
    ASSERT_EQ(SimdSynetNetworkInputShape(net.get(), 0, &shape), 4u);
    EXPECT_EQ(std::vector<size_t>(shape, shape + 4), (std::vector<size_t>{1, 3, 6, 6}));
    ASSERT_EQ(SimdSynetNetworkOutputShape(net.get(), 1, &shape), 4u);
    EXPECT_EQ(std::vector<size_t>(shape, shape + 4), (std::vector<size_t>{1, 8, 3, 3}));
    ASSERT_EQ(SimdSynetNetworkOutputShape(net.get(), 0, &shape), 2u);
    EXPECT_EQ(std::vector<size_t>(shape, shape + 2), (std::vector<size_t>{1, 5}));

    for (uint32_t seed = 10; seed < 13; ++seed) {
        const std::vector<float> x = Random(108, seed);
        std::vector<float> y, feat, wantY, wantFeat;
        Reference(w, x, wantY, wantFeat);
        ASSERT_TRUE(RunNet(net.get(), x, y, feat)) << LastError();
        ExpectNear(feat, wantFeat, "feat");
        ExpectNear(y, wantY, "y");
    }
}

TEST(Runtime, LoadMemoryCopiesTheBuffer) {
    const Weights w;
    Network net;
    {
        const Bytes valid = ValidNetwork(w);
        auto copy = std::make_unique<uint8_t[]>(valid.size());
        std::memcpy(copy.get(), valid.data(), valid.size());
        net.reset(SimdSynetNetworkLoadMemory(copy.get(), valid.size(), nullptr));
        ASSERT_NE(net, nullptr) << LastError();
        // A runtime that kept pointing into the caller's bytes would now read garbage (or
        // freed memory, which the sanitizer build reports).
        std::memset(copy.get(), 0xA5, valid.size());
    }
    const std::vector<float> x = Random(108, 20);
    std::vector<float> y, feat, wantY, wantFeat;
    Reference(w, x, wantY, wantFeat);
    ASSERT_TRUE(RunNet(net.get(), x, y, feat)) << LastError();
    ExpectNear(y, wantY, "y");
    ExpectNear(feat, wantFeat, "feat");
}

TEST(Runtime, LoadErrorsNameTheFile) {
    EXPECT_EQ(SimdSynetNetworkLoad(nullptr, nullptr), nullptr);
    EXPECT_NE(LastError().find("path is NULL"), std::string::npos) << LastError();

    const std::string missing = TempPath("missing.ssn");
    EXPECT_EQ(SimdSynetNetworkLoad(missing.c_str(), nullptr), nullptr);
    EXPECT_NE(LastError().find(missing + ": cannot open"), std::string::npos) << LastError();

    const std::string dir = TempPath("dir");
    ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
    EXPECT_EQ(SimdSynetNetworkLoad(dir.c_str(), nullptr), nullptr);
    EXPECT_NE(LastError().find("not a regular file"), std::string::npos) << LastError();
    rmdir(dir.c_str());

    const std::string empty = TempPath("empty.ssn");
    WriteFile(empty, {});
    EXPECT_EQ(SimdSynetNetworkLoad(empty.c_str(), nullptr), nullptr);
    EXPECT_NE(LastError().find(empty), std::string::npos) << LastError();
    EXPECT_NE(LastError().find("0 bytes is not the size of a network file"), std::string::npos)
        << LastError();
    std::remove(empty.c_str());

    const std::string text = TempPath("text.ssn");
    const std::string words = "this is not a network file, only some words";
    WriteFile(text, Bytes(words.begin(), words.end()));
    EXPECT_EQ(SimdSynetNetworkLoad(text.c_str(), nullptr), nullptr);
    EXPECT_NE(LastError().find("no 'SSNF' identifier"), std::string::npos) << LastError();
    std::remove(text.c_str());

    EXPECT_EQ(SimdSynetNetworkLoadMemory(nullptr, 100, nullptr), nullptr);
    EXPECT_NE(LastError().find("data is NULL"), std::string::npos) << LastError();
    const uint8_t byte = 0;
    EXPECT_EQ(SimdSynetNetworkLoadMemory(&byte, 0, nullptr), nullptr);
    EXPECT_NE(LastError().find("0 bytes"), std::string::npos) << LastError();
}

TEST(Runtime, NullNetworkAndIndexErrors) {
    const auto named = [](const char* function) {
        const std::string e = LastError();
        EXPECT_NE(e.find(std::string(function) + ": network is NULL"), std::string::npos) << e;
    };
    const size_t* shape = nullptr;
    EXPECT_EQ(SimdSynetNetworkInputCount(nullptr), 0u);
    named("SimdSynetNetworkInputCount");
    EXPECT_EQ(SimdSynetNetworkOutputCount(nullptr), 0u);
    named("SimdSynetNetworkOutputCount");
    EXPECT_EQ(SimdSynetNetworkInputName(nullptr, 0), nullptr);
    named("SimdSynetNetworkInputName");
    EXPECT_EQ(SimdSynetNetworkOutputName(nullptr, 0), nullptr);
    named("SimdSynetNetworkOutputName");
    EXPECT_EQ(SimdSynetNetworkInputShape(nullptr, 0, &shape), 0u);
    named("SimdSynetNetworkInputShape");
    EXPECT_EQ(SimdSynetNetworkOutputShape(nullptr, 0, &shape), 0u);
    named("SimdSynetNetworkOutputShape");
    EXPECT_EQ(SimdSynetNetworkSetThreads(nullptr, 2), SimdFalse);
    named("SimdSynetNetworkSetThreads");
    EXPECT_EQ(SimdSynetNetworkGetThreads(nullptr), 0u);
    named("SimdSynetNetworkGetThreads");
    EXPECT_EQ(SimdSynetNetworkStepCount(nullptr), 0u);
    named("SimdSynetNetworkStepCount");
    EXPECT_EQ(SimdSynetNetworkStepDescribe(nullptr, 0, nullptr, nullptr, nullptr), SimdFalse);
    named("SimdSynetNetworkStepDescribe");
    const float* in[1] = {nullptr};
    float* out[2] = {nullptr, nullptr};
    EXPECT_EQ(SimdSynetNetworkRun(nullptr, in, out), SimdFalse);
    named("SimdSynetNetworkRun");
    double seconds[8];
    EXPECT_EQ(SimdSynetNetworkRunProfiled(nullptr, in, out, seconds), SimdFalse);
    named("SimdSynetNetworkRunProfiled");
    SimdSynetNetworkRelease(nullptr);  // a no-op
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);

    const Bytes bytes = ValidNetwork();
    Network net(SimdSynetNetworkLoadMemory(bytes.data(), bytes.size(), nullptr));
    ASSERT_NE(net, nullptr) << LastError();
    EXPECT_EQ(SimdSynetNetworkInputName(net.get(), 1), nullptr);
    EXPECT_NE(LastError().find("SimdSynetNetworkInputName: index 1 of 1"), std::string::npos)
        << LastError();
    EXPECT_EQ(SimdSynetNetworkOutputName(net.get(), size_t(-1)), nullptr);
    EXPECT_NE(LastError().find("SimdSynetNetworkOutputName: index"), std::string::npos)
        << LastError();
    EXPECT_NE(LastError().find(" of 2"), std::string::npos) << LastError();
    EXPECT_EQ(SimdSynetNetworkInputShape(net.get(), 1, &shape), 0u);
    EXPECT_NE(LastError().find("SimdSynetNetworkInputShape: index 1 of 1"), std::string::npos)
        << LastError();
    EXPECT_EQ(SimdSynetNetworkOutputShape(net.get(), 2, &shape), 0u);
    EXPECT_NE(LastError().find("SimdSynetNetworkOutputShape: index 2 of 2"), std::string::npos)
        << LastError();
    EXPECT_EQ(SimdSynetNetworkOutputShape(net.get(), 0, nullptr), 0u);
    EXPECT_NE(LastError().find("shape is NULL"), std::string::npos) << LastError();
    EXPECT_EQ(SimdSynetNetworkStepDescribe(net.get(), 7, nullptr, nullptr, nullptr), SimdFalse);
    EXPECT_NE(LastError().find("SimdSynetNetworkStepDescribe: index 7 of 7"), std::string::npos)
        << LastError();
    // A call that succeeds clears the message of the one before.
    EXPECT_EQ(SimdSynetNetworkInputCount(net.get()), 1u);
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
}

TEST(Runtime, FailedRunLeavesOutputsUntouched) {
    const Bytes bytes = ValidNetwork();
    Network net(SimdSynetNetworkLoadMemory(bytes.data(), bytes.size(), nullptr));
    ASSERT_NE(net, nullptr) << LastError();
    const std::vector<float> x = Random(108, 30);
    std::vector<float> y(5, 42.0f), feat(72, 42.0f);
    const float* in[] = {x.data()};
    const float* noIn[] = {nullptr};
    float* out[] = {y.data(), feat.data()};
    float* halfOut[] = {y.data(), nullptr};
    double seconds[7];
    const auto untouched = [&] {
        for (float v : y) EXPECT_EQ(v, 42.0f);
        for (float v : feat) EXPECT_EQ(v, 42.0f);
    };
    EXPECT_EQ(SimdSynetNetworkRun(net.get(), nullptr, out), SimdFalse);
    EXPECT_NE(LastError().find("inputs or outputs is NULL"), std::string::npos) << LastError();
    EXPECT_EQ(SimdSynetNetworkRun(net.get(), in, nullptr), SimdFalse);
    EXPECT_NE(LastError().find("inputs or outputs is NULL"), std::string::npos) << LastError();
    EXPECT_EQ(SimdSynetNetworkRun(net.get(), noIn, out), SimdFalse);
    EXPECT_NE(LastError().find("input 0 is NULL"), std::string::npos) << LastError();
    EXPECT_EQ(SimdSynetNetworkRun(net.get(), in, halfOut), SimdFalse);
    EXPECT_NE(LastError().find("output 1 is NULL"), std::string::npos) << LastError();
    untouched();
    EXPECT_EQ(SimdSynetNetworkRunProfiled(net.get(), in, out, nullptr), SimdFalse);
    EXPECT_NE(LastError().find("SimdSynetNetworkRunProfiled: seconds is NULL"), std::string::npos)
        << LastError();
    EXPECT_EQ(SimdSynetNetworkRunProfiled(net.get(), in, halfOut, seconds), SimdFalse);
    EXPECT_NE(LastError().find("SimdSynetNetworkRunProfiled: output 1 is NULL"), std::string::npos)
        << LastError();
    untouched();
    EXPECT_EQ(SimdSynetNetworkRun(net.get(), in, out), SimdTrue) << LastError();
    EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    EXPECT_NE(y[0], 42.0f);
}

TEST(Runtime, ProfiledRunAndStepDescriptions) {
    const Weights w;
    const Bytes bytes = ValidNetwork(w);
    Network net(SimdSynetNetworkLoadMemory(bytes.data(), bytes.size(), nullptr));
    ASSERT_NE(net, nullptr) << LastError();
    ASSERT_EQ(SimdSynetNetworkStepCount(net.get()), 7u);
    const char* names[] = {"conv", "relu", "maxpool", "avgpool", "concat", "add", "fc"};
    for (size_t i = 0; i < 7; ++i) {
        const char *name = nullptr, *kind = nullptr, *info = nullptr;
        ASSERT_EQ(SimdSynetNetworkStepDescribe(net.get(), i, &name, &kind, &info), SimdTrue);
        EXPECT_STREQ(name, names[i]);
        ASSERT_NE(kind, nullptr);
        EXPECT_GT(std::strlen(kind), 0u);
        ASSERT_NE(info, nullptr);
        // Only library contexts choose an algorithm.
        if (i == 0) {
            EXPECT_GT(std::strlen(info), 0u) << kind;
        } else {
            EXPECT_STREQ(info, "") << kind;
        }
        const char* again = nullptr;
        ASSERT_EQ(SimdSynetNetworkStepDescribe(net.get(), i, nullptr, &again, nullptr), SimdTrue);
        EXPECT_EQ(again, kind);  // the same string, living as long as the network
    }
    const char* kind = nullptr;
    SimdSynetNetworkStepDescribe(net.get(), 0, nullptr, &kind, nullptr);
    EXPECT_STREQ(kind, "convolution");
    SimdSynetNetworkStepDescribe(net.get(), 4, nullptr, &kind, nullptr);
    EXPECT_STREQ(kind, "copy");

    std::vector<double> seconds(8, -1.0);
    const std::vector<float> x = Random(108, 40);
    std::vector<float> y, feat, wantY, wantFeat;
    ASSERT_TRUE(RunNet(net.get(), x, y, feat, seconds.data())) << LastError();
    for (size_t i = 0; i < 7; ++i) {
        EXPECT_GE(seconds[i], 0.0) << i;
        EXPECT_LT(seconds[i], 60.0) << i;
    }
    EXPECT_EQ(seconds[7], -1.0);  // one time per step, nothing beyond
    Reference(w, x, wantY, wantFeat);
    ExpectNear(y, wantY, "y");
}

TEST(Runtime, ThreadsRunOneNetworkAtOnce) {
    const Bytes bytes = ValidNetwork();
    for (size_t budget : {1, 2}) {
        SimdSynetNetworkOptions options{budget};
        Network net(SimdSynetNetworkLoadMemory(bytes.data(), bytes.size(), &options));
        ASSERT_NE(net, nullptr) << LastError();
        EXPECT_EQ(SimdSynetNetworkGetThreads(net.get()), budget);
        constexpr size_t kInputs = 6, kThreads = 4, kRuns = 200;
        std::vector<std::vector<float>> x(kInputs), y(kInputs), feat(kInputs);
        for (size_t i = 0; i < kInputs; ++i) {
            x[i] = Random(108, uint32_t(100 + i));
            ASSERT_TRUE(RunNet(net.get(), x[i], y[i], feat[i])) << LastError();
        }
        std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
        std::vector<std::thread> threads;
        std::atomic<size_t> ready{0};
        for (size_t t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                std::vector<float> ty, tfeat;
                // All start together: runs of this small network are shorter than starting a
                // thread, so staggered threads would hardly overlap.
                ready++;
                while (ready < kThreads) std::this_thread::yield();
                for (size_t r = 0; r < kRuns; ++r) {
                    const size_t i = (t + r) % kInputs;
                    if (!RunNet(net.get(), x[i], ty, tfeat)) {
                        ++failures[t];
                        continue;
                    }
                    if (std::memcmp(ty.data(), y[i].data(), 5 * sizeof(float)) != 0 ||
                        std::memcmp(tfeat.data(), feat[i].data(), 72 * sizeof(float)) != 0)
                        ++mismatches[t];
                }
            });
        for (auto& t : threads) t.join();
        for (size_t t = 0; t < kThreads; ++t) {
            EXPECT_EQ(failures[t], 0) << "budget " << budget << ", thread " << t;
            EXPECT_EQ(mismatches[t], 0) << "budget " << budget << ", thread " << t;
        }
        // And every budget gives the bytes of budget 1.
        ASSERT_EQ(SimdSynetNetworkSetThreads(net.get(), 3 - budget), SimdTrue);
        std::vector<float> other, otherFeat;
        ASSERT_TRUE(RunNet(net.get(), x[0], other, otherFeat)) << LastError();
        EXPECT_EQ(std::memcmp(other.data(), y[0].data(), 5 * sizeof(float)), 0);
        EXPECT_EQ(std::memcmp(otherFeat.data(), feat[0].data(), 72 * sizeof(float)), 0);
    }
}

// ---------------------------------------------------------------------------------------------
// Corrupted and hostile files.

// Loads through the loader itself, with an arena limit that keeps flipped arena sizes small;
// a file that loads runs once on zero inputs. Returns the message, or "" for a loaded file.
std::string LoadError(const Bytes& bytes, size_t maxArenaFloats = 1 << 16) {
    LoadLimits limits;
    limits.maxArenaFloats = maxArenaFloats;
    try {
        auto executor = LoadNetwork(bytes.data(), bytes.size(), limits);
        try {
            netfile::RunOnZeroInputs(*executor);
        } catch (const ExecutorError&) {
            // A library refusal at run time is a message too, not an access outside memory.
        }
        return "";
    } catch (const ExecutorError& e) {
        const std::string what = e.what();
        return what.empty() ? "(an empty message)" : what;
    }
}

// The file must be refused by the loader and by the C API, with a message holding `needle`.
void ExpectRejected(const Bytes& bytes, const std::string& needle) {
    const std::string direct = LoadError(bytes, size_t(1) << 34);
    EXPECT_NE(direct, "") << "accepted; expected: " << needle;
    EXPECT_NE(direct.find(needle), std::string::npos) << direct;
    EXPECT_EQ(SimdSynetNetworkLoadMemory(bytes.data(), bytes.size(), nullptr), nullptr);
    EXPECT_NE(LastError().find(needle), std::string::npos) << LastError();
    EXPECT_EQ(LastError().rfind("simd-synet runtime: ", 0), 0u) << LastError();
}

TEST(Loader, ValidNetworkLoadsWithEitherEntry) {
    EXPECT_EQ(LoadError(ValidNetwork()), "");
}

TEST(Loader, EveryTruncationIsRefused) {
    const Bytes valid = ValidNetwork();
    ASSERT_GT(valid.size(), 2000u);
    // The builder writes back to front, so the file ends with the first constant's data, after
    // the padding that aligns it: cutting only that padding leaves the same network.
    size_t padding = 0;
    while (padding < valid.size() && valid[valid.size() - 1 - padding] == 0) ++padding;
    ASSERT_LT(padding, 64u);
    // Every length: so every 8-byte boundary and every table, vtable and vector boundary.
    for (size_t n = 0; n < valid.size(); ++n) {
        const Bytes cut(valid.begin(), valid.begin() + n);
        const std::string e = LoadError(cut);
        if (n >= valid.size() - padding) {
            EXPECT_EQ(e, "") << "cut to " << n << " of " << valid.size() << " bytes (padding)";
            continue;
        }
        ASSERT_NE(e, "") << "a file cut to " << n << " of " << valid.size() << " bytes loaded";
        if (n % 8 == 0 && n > 0) {
            EXPECT_EQ(SimdSynetNetworkLoadMemory(cut.data(), cut.size(), nullptr), nullptr);
            EXPECT_NE(LastError().find("network file"), std::string::npos) << n << LastError();
        }
    }
}

TEST(Loader, FlippedBytesAreRefusedOrHarmless) {
    const Bytes valid = ValidNetwork();
    size_t refused = 0, loaded = 0;
    const std::vector<std::function<uint8_t(uint8_t)>> patterns{
        [](uint8_t b) { return uint8_t(b ^ 0x01); }, [](uint8_t b) { return uint8_t(b ^ 0x80); },
        [](uint8_t b) { return uint8_t(b ^ 0xFF); }, [](uint8_t) { return uint8_t(0x00); },
        [](uint8_t) { return uint8_t(0x7F); }};
    for (const auto& pattern : patterns)
        for (size_t at = 0; at < valid.size(); ++at) {
            Bytes bytes = valid;
            bytes[at] = pattern(bytes[at]);
            if (bytes[at] == valid[at]) continue;
            // A flip may leave a valid file (a weight, a name, padding): it must run then.
            (LoadError(bytes).empty() ? loaded : refused)++;
        }
    EXPECT_GT(refused, valid.size() / 2);
    EXPECT_GT(loaded, 0u);
}

TEST(Loader, WrongIdentifierAndVersion) {
    Bytes bytes = ValidNetwork();
    std::memcpy(bytes.data() + 4, "SSNG", 4);
    ExpectRejected(bytes, "no 'SSNF' identifier");

    Writer n;
    n.AddInput("x", {4}, {0}, 0);
    n.AddOutput("y", {4}, {0}, 0);
    ExpectRejected(n.Finish(4, SIMD_SYNET_NETWORK_FORMAT_VERSION + 1),
                   "format version " + std::to_string(SIMD_SYNET_NETWORK_FORMAT_VERSION + 1));
    Writer z;
    z.AddInput("x", {4}, {0}, 0);
    z.AddOutput("y", {4}, {0}, 0);
    ExpectRejected(z.Finish(4, 0), "format version 0; this runtime reads versions 1 to");
    // Files of version 1 (before the convolution's residual) still load.
    Writer v;
    v.AddInput("x", {4}, {0}, 0);
    v.AddOutput("y", {4}, {0}, 0);
    EXPECT_EQ(LoadError(v.Finish(4, 1)), "");
}

TEST(Loader, ArenaLimit) {
    const auto arena = [](uint64_t floats) {
        Writer n;
        n.AddInput("x", {4}, {0}, 0);
        n.AddOutput("y", {4}, {0}, 0);
        return n.Finish(floats);
    };
    EXPECT_EQ(LoadError(arena(1024), 1024), "");
    EXPECT_NE(LoadError(arena(1025), 1024).find("an arena of 1025 floats is more than the limit"),
              std::string::npos);
    ExpectRejected(arena(uint64_t(1) << 40), "is more than the limit");
    ExpectRejected(arena(~uint64_t(0)), "is more than the limit");
}

// A network of one step built by `make` between input x (16 floats at 0) and output y (16 at
// 32) in an arena of 64 floats; constant 0 holds 16 floats.
Bytes OneStep(const std::function<void(Writer&)>& make) {
    Writer n;
    n.AddConstant(std::vector<float>(16, 0.5f));
    make(n);
    n.AddInput("x", {16}, {0}, 0);
    n.AddOutput("y", {16}, {0}, 32);
    return n.Finish(64);
}

Bytes Activation(file::ActivationKind kind, file::Ref src, uint64_t size, file::Ref dst,
                 const std::vector<float>& params = {0.0f}) {
    return OneStep([&](Writer& n) {
        n.AddStep("act", file::Layer::Activation,
                  file::CreateActivationDirect(n.fbb, kind, &params, &src, size, &dst));
    });
}

// A convolution with a residual (the compiler's fused Conv + Add + ReLU): y = relu(1x1 conv of
// x + bias + r), r a constant here, against a naive reference; and the loader refusing a
// residual that overlaps the output.
Bytes ConvolutionWithResidual(const std::vector<float>& w, const std::vector<float>& bias,
                              const std::vector<float>& r, uint64_t addAt) {
    Writer n;
    const uint64_t cw = n.AddConstant(w), cb = n.AddConstant(bias), cr = n.AddConstant(r);
    // x: 1x2x4x4 NHWC at 0 (32 floats); y: 1x3x4x4 NHWC at 32 (48 floats).
    const file::ConvolutionDesc desc(2, 4, 4, 3, 4, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1,
                                     SimdConvolutionActivationRelu, file::TensorFormat::Nhwc,
                                     file::TensorType::Float32, file::TensorType::Float32);
    const file::Ref rw = InConstant(cw), rb = InConstant(cb), src = InArena(0), dst = InArena(32),
                    add = addAt == ~uint64_t(0) ? InConstant(cr) : InArena(addAt);
    n.AddStep("conv+add", file::Layer::Convolution,
              file::CreateConvolution(n.fbb, 1, &desc, &rw, &rb, nullptr, &src, &dst, &add));
    n.AddInput("x", {1, 2, 4, 4}, {0, 2, 3, 1}, 0);
    n.AddOutput("y", {1, 3, 4, 4}, {0, 2, 3, 1}, 32);
    return n.Finish(128);
}

TEST(Runtime, ConvolutionAddsItsResidual) {
    const std::vector<float> w = Random(3 * 2, 21), bias = Random(3, 22), r = Random(48, 23);
    const Bytes bytes = ConvolutionWithResidual(w, bias, r, ~uint64_t(0));
    Network net(SimdSynetNetworkLoadMemory(bytes.data(), bytes.size(), nullptr));
    ASSERT_NE(net, nullptr) << LastError();
    const char *name = nullptr, *kind = nullptr, *info = nullptr;
    ASSERT_EQ(SimdSynetNetworkStepDescribe(net.get(), 0, &name, &kind, &info), SimdTrue);
    EXPECT_STREQ(kind, "convolution+add");
    const std::vector<float> x = Random(32, 24);  // NCHW, as the binding says
    std::vector<float> y(48, -7.0f), want(48);
    for (int o = 0; o < 3; ++o)
        for (int p = 0; p < 16; ++p) {
            // Weights ONNX order O x I; the residual is in the arena's NHWC order.
            const double s = double(bias[o]) + double(w[o * 2]) * x[p] +
                             double(w[o * 2 + 1]) * x[16 + p] + double(r[p * 3 + o]);
            want[o * 16 + p] = float(s > 0 ? s : 0);
        }
    const float* in[] = {x.data()};
    float* out[] = {y.data()};
    ASSERT_EQ(SimdSynetNetworkRun(net.get(), in, out), SimdTrue) << LastError();
    ExpectNear(y, want, "y");
    // In the arena: beside the output it loads; over it (or into it), it is refused.
    EXPECT_EQ(LoadError(ConvolutionWithResidual(w, bias, r, 80)), "");
    ExpectRejected(ConvolutionWithResidual(w, bias, r, 32),
                   "step 0 (conv+add): src and dst overlap in the arena");
    ExpectRejected(ConvolutionWithResidual(w, bias, r, 60), "src and dst overlap in the arena");
    ExpectRejected(ConvolutionWithResidual(w, bias, r, 100), "add (48 floats at arena offset 100)");
}

TEST(Loader, OneStepNetworkRuns) {
    // The base of the hostile files below loads, so each refusal is the field it changes.
    EXPECT_EQ(LoadError(Activation(file::ActivationKind::Relu, InArena(0), 16, InArena(32))), "");
}

TEST(Loader, ReferencesOutsideTheArena) {
    const auto relu = file::ActivationKind::Relu;
    ExpectRejected(Activation(relu, InArena(60), 16, InArena(32)),
                   "step 0 (act): src (16 floats at arena offset 60) lies outside the arena of "
                   "64 floats");
    ExpectRejected(Activation(relu, InArena(0), 16, InArena(~uint64_t(0))), "dst (16 floats");
    ExpectRejected(Activation(relu, InArena(0), 65, InArena(0)), "outside the arena");
    ExpectRejected(Activation(relu, InArena(0), ~uint64_t(0) - 3, InArena(0)), "outside the arena");
    // Copy regions: the span of strided rows, and its overflow.
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<file::CopyRegion> r{
                           file::CopyRegion(InArena(40), InArena(32), 4, 4, 8, 4)};
                       n.AddStep("copy", file::Layer::Copy, file::CreateCopyDirect(n.fbb, &r));
                   }),
                   "src (28 floats at arena offset 40)");
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<file::CopyRegion> r{file::CopyRegion(
                           InArena(0), InArena(32), uint64_t(1) << 40, 1, uint64_t(1) << 40, 1)};
                       n.AddStep("copy", file::Layer::Copy, file::CreateCopyDirect(n.fbb, &r));
                   }),
                   "a size overflows");
    // Glue copying with memcpy from an array into one that overlaps it.
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<file::CopyRegion> r{
                           file::CopyRegion(InArena(0), InArena(4), 1, 16, 16, 16)};
                       n.AddStep("copy", file::Layer::Copy, file::CreateCopyDirect(n.fbb, &r));
                   }),
                   "step 0 (copy): src and dst overlap in the arena");
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<uint64_t> from{1, 8}, to{2, 8};
                       const file::Ref s = InArena(8), o = InArena(0);
                       n.AddStep("tile", file::Layer::Tile,
                                 file::CreateTileDirect(n.fbb, &s, &from, &to, &o));
                   }),
                   "src and dst overlap in the arena");
    // Library functions documented not to take overlapping arrays.
    ExpectRejected(OneStep([](Writer& n) {
                       // The fuzzer's: dst one float after src.
                       const file::Ref s = InArena(0), o = InArena(1);
                       n.AddStep("convert", file::Layer::ConvertImage,
                                 file::CreateConvertImage(n.fbb, &s, 1, 4, 1, true, &o));
                   }),
                   "step 0 (convert): src and dst overlap in the arena");
    const auto eltwise = [](uint64_t dst) {
        return OneStep([&](Writer& n) {
            const std::vector<file::Ref> sources{InArena(0), InArena(16), InArena(32)};
            const file::Ref o = InArena(dst);
            n.AddStep("max", file::Layer::Eltwise,
                      file::CreateEltwiseDirect(n.fbb, SimdSynetEltwiseOperationMax, &sources,
                                                nullptr, 16, &o));
        });
    };
    EXPECT_EQ(LoadError(eltwise(16)), "");  // in place on src[1]
    ExpectRejected(eltwise(32), "src and dst overlap in the arena");
    ExpectRejected(eltwise(8), "src and dst overlap in the arena");
    // Bindings.
    Writer n;
    n.AddInput("x", {4, 4}, {0, 1}, 60);
    n.AddOutput("y", {4}, {0}, 0);
    ExpectRejected(n.Finish(64), "the tensor (16 floats at arena offset 60) lies outside");
    Writer m;
    m.AddInput("x", {4}, {0}, 0);
    m.AddOutput("y", {uint64_t(1) << 32, uint64_t(1) << 32, 2}, {0, 1, 2}, 0);
    ExpectRejected(m.Finish(64), "a size overflows");
}

// Empty tensors are not bounded by the arena, but steps loop over their other extents.
TEST(Loader, EmptyTensorsWithHugeExtents) {
    const uint64_t images = (uint64_t(1) << 56) + 1;
    ExpectRejected(
        OneStep([&](Writer& n) {
            const file::PoolingShape p(images, 0, 2, 2, 3, 3, 1, 1, 1, 1, 2, 2);
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("pool", file::Layer::Pooling,
                      file::CreatePooling(n.fbb, file::PoolingKind::AverageExcludePad, &p, &s, &o));
        }),
        "step 0 (pool): an empty array has an extent of 72057594037927937, more than "
        "the arena");
    ExpectRejected(OneStep([&](Writer& n) {
                       const file::Ref s = InArena(0), w = InConstant(0), o = InArena(32);
                       n.AddStep(
                           "fc", file::Layer::InnerProduct,
                           file::CreateInnerProduct(n.fbb, &s, &w, nullptr, images, 4, 0, &o));
                   }),
                   "an empty array has an extent of");
    ExpectRejected(OneStep([&](Writer& n) {
                       const std::vector<file::CopyRegion> r{
                           file::CopyRegion(InArena(0), InArena(32), images, 0, 1, 1)};
                       n.AddStep("copy", file::Layer::Copy, file::CreateCopyDirect(n.fbb, &r));
                   }),
                   "an empty array has an extent of");
    ExpectRejected(OneStep([&](Writer& n) {
                       const std::vector<uint64_t> shape{0, images}, before{0, 0}, after{0, 0};
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("pad", file::Layer::Pad,
                                 file::CreatePadDirect(n.fbb, &s, &shape, &before, &after,
                                                       file::PadMode::Constant, 0.0f, &o));
                   }),
                   "an empty array has an extent of");
    // Small empty tensors stay valid.
    EXPECT_EQ(LoadError(OneStep([&](Writer& n) {
                  const file::PoolingShape p(2, 0, 2, 2, 3, 3, 1, 1, 1, 1, 2, 2);
                  const file::Ref s = InArena(0), o = InArena(32);
                  n.AddStep("pool", file::Layer::Pooling,
                            file::CreatePooling(n.fbb, file::PoolingKind::Max, &p, &s, &o));
              })),
              "");
}

TEST(Loader, SizeOverflows) {
    // Channel counts whose products overflow size_t.
    const uint64_t huge = uint64_t(1) << 62;
    ExpectRejected(
        OneStep([&](Writer& n) {
            const file::ConvolutionDesc d(huge, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0,
                                          file::TensorFormat::Nhwc, file::TensorType::Float32,
                                          file::TensorType::Float32);
            const file::Ref w = InConstant(0), s = InArena(0), o = InArena(32);
            n.AddStep("conv", file::Layer::Convolution,
                      file::CreateConvolution(n.fbb, 1, &d, &w, nullptr, nullptr, &s, &o));
        }),
        "step 0 (conv): a size overflows");
    ExpectRejected(
        OneStep([&](Writer& n) {
            const file::Ref s = InArena(0), w = InConstant(0), o = InArena(32);
            n.AddStep("fc", file::Layer::InnerProduct,
                      file::CreateInnerProduct(n.fbb, &s, &w, nullptr, 1 << 20, huge, huge, &o));
        }),
        "a size overflows");
    ExpectRejected(OneStep([&](Writer& n) {
                       const file::PoolingShape p(huge, huge, 2, 2, 1, 1, 1, 1, 0, 0, 2, 2);
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("pool", file::Layer::Pooling,
                                 file::CreatePooling(n.fbb, file::PoolingKind::Max, &p, &s, &o));
                   }),
                   "a size overflows");
    ExpectRejected(OneStep([&](Writer& n) {
                       const file::Ref s = InArena(0), o = InArena(32);
                       const std::vector<uint64_t> shape{huge, 8}, perm{1, 0};
                       n.AddStep("t", file::Layer::Transpose,
                                 file::CreateTransposeDirect(n.fbb, &s, &shape, &perm, &o));
                   }),
                   "a size overflows");
}

// A 4->4 channel 1x1 NHWC convolution of 2x2 pixels, weight and dst as given.
Bytes Convolution(file::Ref weight, file::Ref dst, int activation = 0,
                  file::TensorFormat format = file::TensorFormat::Nhwc,
                  file::TensorType type = file::TensorType::Float32) {
    return OneStep([&](Writer& n) {
        const file::ConvolutionDesc d(4, 2, 2, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, activation,
                                      format, type, type);
        const file::Ref s = InArena(0);
        n.AddStep("conv", file::Layer::Convolution,
                  file::CreateConvolution(n.fbb, 1, &d, &weight, nullptr, nullptr, &s, &dst));
    });
}

TEST(Loader, Constants) {
    EXPECT_EQ(LoadError(Convolution(InConstant(0), InArena(32))), "");
    ExpectRejected(Convolution(InConstant(99), InArena(32)),
                   "step 0 (conv): weight refers to constant 99 of 1");
    ExpectRejected(Convolution(InConstant(~uint64_t(0)), InArena(32)), "weight refers to constant");
    ExpectRejected(Convolution(InArena(40), InArena(32)), "weight must be a constant");
    ExpectRejected(Convolution(InConstant(0), InConstant(0)),
                   "dst is written and cannot be a constant");
    // Shorter than the weights need: 4x8 weights of a 8->4 convolution from 16 floats.
    ExpectRejected(
        OneStep([](Writer& n) {
            const file::ConvolutionDesc d(8, 1, 2, 4, 1, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0,
                                          file::TensorFormat::Nhwc, file::TensorType::Float32,
                                          file::TensorType::Float32);
            const file::Ref w = InConstant(0), s = InArena(0), o = InArena(32);
            n.AddStep("conv", file::Layer::Convolution,
                      file::CreateConvolution(n.fbb, 1, &d, &w, nullptr, nullptr, &s, &o));
        }),
        "weight needs 32 floats; constant 0 has 16");
    ExpectRejected(Activation(file::ActivationKind::Relu, InArena(0), 16, InConstant(0)),
                   "dst is written and cannot be a constant");
    ExpectRejected(OneStep([](Writer& n) {
                       const file::Ref s = InArena(0), w = InConstant(0), o = InArena(32);
                       n.AddStep("fc", file::Layer::InnerProduct,
                                 file::CreateInnerProduct(n.fbb, &s, &w, &w, 1, 4, 8, &o));
                   }),
                   "weight needs 32 floats; constant 0 has 16");
    // An input binding is written by the run; it lives in the arena by construction.
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<file::Ref> sources{InArena(0), InConstant(3)};
                       const file::Ref o = InArena(32);
                       n.AddStep("add", file::Layer::Eltwise,
                                 file::CreateEltwiseDirect(n.fbb, SimdSynetEltwiseOperationMax,
                                                           &sources, nullptr, 16, &o));
                   }),
                   "source refers to constant 3 of 1");
}

TEST(Loader, UnknownEnumerators) {
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<float> p{0};
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("x", file::Layer(200),
                                 file::CreateActivationDirect(n.fbb, file::ActivationKind::Relu, &p,
                                                              &s, 16, &o));
                   }),
                   "step 0 (x): unknown layer type 200");
    ExpectRejected(Convolution(InConstant(0), InArena(32), 99), "unknown activation 99");
    ExpectRejected(Convolution(InConstant(0), InArena(32), -1), "unknown activation -1");
    ExpectRejected(Convolution(InConstant(0), InArena(32), 0, file::TensorFormat(7)),
                   "unknown tensor format");
    ExpectRejected(
        Convolution(InConstant(0), InArena(32), 0, file::TensorFormat::Nhwc, file::TensorType(9)),
        "unknown tensor type");
    ExpectRejected(Activation(file::ActivationKind(99), InArena(0), 16, InArena(32)),
                   "unknown activation");
    ExpectRejected(
        Activation(file::ActivationKind::Relu, file::Ref(file::RefKind(9), 0), 16, InArena(32)),
        "src has an unknown reference kind");
    ExpectRejected(OneStep([](Writer& n) {
                       const file::PoolingShape p(1, 4, 2, 2, 1, 1, 1, 1, 0, 0, 2, 2);
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("pool", file::Layer::Pooling,
                                 file::CreatePooling(n.fbb, file::PoolingKind(9), &p, &s, &o));
                   }),
                   "unknown pooling kind");
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<uint64_t> shape{4, 4};
                       const std::vector<uint8_t> reduced{1, 0};
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("r", file::Layer::Reduce,
                                 file::CreateReduceDirect(n.fbb, file::ReductionKind(42), &s,
                                                          &shape, &reduced, &o));
                   }),
                   "unknown reduction");
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<uint64_t> shape{16}, before{1}, after{1};
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("pad", file::Layer::Pad,
                                 file::CreatePadDirect(n.fbb, &s, &shape, &before, &after,
                                                       file::PadMode(5), 0.0f, &o));
                   }),
                   "unknown padding mode");
    ExpectRejected(OneStep([](Writer& n) {
                       const std::vector<file::Ref> sources{InArena(0), InArena(16)};
                       const file::Ref o = InArena(32);
                       n.AddStep("add", file::Layer::Eltwise,
                                 file::CreateEltwiseDirect(n.fbb, 17, &sources, nullptr, 16, &o));
                   }),
                   "unknown eltwise operation");
    ExpectRejected(OneStep([](Writer& n) {
                       const file::Ref s = InArena(0), o = InArena(32), c = InConstant(0);
                       n.AddStep("norm", file::Layer::Normalize,
                                 file::CreateNormalize(n.fbb, 7, &s, 1, 4, 4, &c, &c, 1e-5f,
                                                       file::TensorFormat::Nhwc, &o));
                   }),
                   "normalization version 2 or 3");
}

TEST(Loader, Permutations) {
    const auto binding = [](const Shape& perm) {
        Writer n;
        n.AddInput("x", {2, 2, 4}, perm, 0);
        n.AddOutput("y", {16}, {0}, 0);
        return n.Finish(16);
    };
    EXPECT_EQ(LoadError(binding({2, 0, 1})), "");
    ExpectRejected(binding({0, 0, 1}), "'x': perm is not a permutation");
    ExpectRejected(binding({0, 1}), "'x': perm is not a permutation");
    ExpectRejected(binding({0, 1, 3}), "'x': perm is not a permutation");
    ExpectRejected(binding({0, 1, ~uint64_t(0)}), "'x': perm is not a permutation");
    const auto transpose = [](const std::vector<uint64_t>& perm) {
        return OneStep([&](Writer& n) {
            const std::vector<uint64_t> shape{2, 2, 4};
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("t", file::Layer::Transpose,
                      file::CreateTransposeDirect(n.fbb, &s, &shape, &perm, &o));
        });
    };
    EXPECT_EQ(LoadError(transpose({2, 0, 1})), "");
    ExpectRejected(transpose({0, 2, 2}), "perm is not a permutation of the axes");
    ExpectRejected(transpose({0, 1}), "perm is not a permutation of the axes");
    ExpectRejected(transpose({}), "perm is not a permutation of the axes");
}

TEST(Loader, IndicesOutsideTheImage) {
    const auto nearest = [](const std::vector<uint64_t>& rows, const std::vector<uint64_t>& cols) {
        return OneStep([&](Writer& n) {
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("resize", file::Layer::ResizeNearest,
                      file::CreateResizeNearestDirect(n.fbb, &s, 1, 2, 2, 4, &rows, &cols, &o));
        });
    };
    EXPECT_EQ(LoadError(nearest({0, 1}, {1, 0})), "");
    ExpectRejected(nearest({0, 2}, {0, 1}), "a source row is outside the image");
    ExpectRejected(nearest({0, 1}, {~uint64_t(0), 1}), "a source column is outside the image");
    const auto linear = [](const std::vector<uint64_t>& second, size_t weights) {
        return OneStep([&](Writer& n) {
            const std::vector<uint64_t> first{0, 1};
            const std::vector<float> w(weights, 0.5f), ok(2, 0.5f);
            const auto rows = file::CreateLinearTapsDirect(n.fbb, &first, &first, &ok, &ok);
            const auto cols = file::CreateLinearTapsDirect(n.fbb, &first, &second, &w, &w);
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("resize", file::Layer::ResizeLinear,
                      file::CreateResizeLinear(n.fbb, &s, 1, 2, 2, 4, rows, cols, &o));
        });
    };
    EXPECT_EQ(LoadError(linear({1, 1}, 2)), "");
    ExpectRejected(linear({1, 2}, 2), "column taps is outside the image");
    ExpectRejected(linear({1}, 2), "linear taps of different lengths");
    ExpectRejected(linear({1, 1}, 3), "column taps needs 2 values, not 3");
    const auto pad = [](file::PadMode mode, uint64_t before) {
        return OneStep([&](Writer& n) {
            const std::vector<uint64_t> shape{4, 2}, b{before, 0}, a{0, 0};
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("pad", file::Layer::Pad,
                      file::CreatePadDirect(n.fbb, &s, &shape, &b, &a, mode, 0.0f, &o));
        });
    };
    EXPECT_EQ(LoadError(pad(file::PadMode::Reflect, 3)), "");
    ExpectRejected(pad(file::PadMode::Reflect, 4), "reflect padding reaches past the edge");
    ExpectRejected(pad(file::PadMode::Reflect, ~uint64_t(0)), "a size overflows");
    ExpectRejected(pad(file::PadMode::Edge, ~uint64_t(0)), "a size overflows");
    const auto tile = [](const std::vector<uint64_t>& from, const std::vector<uint64_t>& to) {
        return OneStep([&](Writer& n) {
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("tile", file::Layer::Tile, file::CreateTileDirect(n.fbb, &s, &from, &to, &o));
        });
    };
    EXPECT_EQ(LoadError(tile({2, 4}, {4, 4})), "");
    ExpectRejected(tile({2, 4}, {3, 4}), "an extent is not a multiple of the source's");
    ExpectRejected(tile({0, 4}, {0, 4}), "an extent is not a multiple of the source's");
    // The fuzzer's: an empty destination of a source of 36 floats.
    ExpectRejected(tile({9, 2, 2}, {0, 2, 4}), "a tiled extent is smaller than the source's");
    ExpectRejected(tile({2, 4}, {4}), "tiling needs shapes of one rank");
    const auto dilated = [](uint64_t pad, uint64_t dilation) {
        return OneStep([&](Writer& n) {
            const file::PoolingShape p(1, 1, 4, 4, 2, 2, 1, 1, pad, pad, 4, 4);
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("dpool", file::Layer::DilatedMaxPooling,
                      file::CreateDilatedMaxPooling(n.fbb, &p, dilation, dilation, &s, &o));
        });
    };
    EXPECT_EQ(LoadError(dilated(1, 2)), "");
    ExpectRejected(dilated(5, 1), "a pooling window holds no pixel of the image");
    ExpectRejected(dilated(1, 0), "a zero dilation");
    // Windows of 2^60 taps, all in the padding: refused without walking them.
    const auto wide = [](uint64_t channels, uint64_t dstH) {
        return OneStep([&](Writer& n) {
            const uint64_t huge = uint64_t(1) << 60;
            const file::PoolingShape p(1, channels, 4, 4, huge, 1, 1, 1, huge, 0, dstH, 4);
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("dpool", file::Layer::DilatedMaxPooling,
                      file::CreateDilatedMaxPooling(n.fbb, &p, 1, 1, &s, &o));
        });
    };
    ExpectRejected(wide(1, 1), "a dilated pooling walks more window taps than 64 per arena");
    ExpectRejected(OneStep([](Writer& n) {
                       // The fuzzer's: 822083586 taps a row, each window holding pixels.
                       const file::PoolingShape p(1, 4, 2, 2, 2, 822083586, 1, 1, 1, 1, 2, 2);
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("dpool", file::Layer::DilatedMaxPooling,
                                 file::CreateDilatedMaxPooling(n.fbb, &p, 2, 2, &s, &o));
                   }),
                   "a dilated pooling walks more window taps than 64 per arena float");
    ExpectRejected(wide(0, uint64_t(1) << 50), "a dilated pooling of no images or channels");
}

// Fields no size depends on, at their extremes: the file is refused, or it loads and runs
// (LoadError runs it) without an access outside its tensors, which the sanitizer build reports.
TEST(Loader, ExtremeValuesOfOtherFields) {
    const uint64_t huge = ~uint64_t(0);
    const auto lrn = [](uint64_t half) {
        return OneStep([&](Writer& n) {
            const std::vector<float> k{1, 1e-4f, -0.75f};
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("lrn", file::Layer::Lrn,
                      file::CreateLrnDirect(n.fbb, &s, half, 4, 4, &k, &o));
        });
    };
    const auto pooling = [](file::PoolingKind kind, uint64_t kernel, uint64_t stride,
                            uint64_t pad) {
        return OneStep([&](Writer& n) {
            const file::PoolingShape p(1, 4, 2, 2, kernel, kernel, stride, stride, pad, pad, 2, 2);
            const file::Ref s = InArena(0), o = InArena(32);
            n.AddStep("pool", file::Layer::Pooling, file::CreatePooling(n.fbb, kind, &p, &s, &o));
        });
    };
    size_t loaded = 0;
    for (const Bytes& bytes :
         {lrn(huge), lrn(huge / 2), lrn(4), pooling(file::PoolingKind::Max, huge, 1, 0),
          pooling(file::PoolingKind::Average, huge, 1, 0),
          pooling(file::PoolingKind::AverageExcludePad, 2, huge, huge),
          pooling(file::PoolingKind::Max, 3, 1, huge), pooling(file::PoolingKind::Max, 3, 1, 5)}) {
        const std::string e = LoadError(bytes);
        loaded += e.empty();
        SimdSynetNetwork* net = SimdSynetNetworkLoadMemory(bytes.data(), bytes.size(), nullptr);
        EXPECT_EQ(net == nullptr, !e.empty()) << e;
        EXPECT_EQ(LastError(), e.empty() ? "" : "simd-synet runtime: " + e);
        SimdSynetNetworkRelease(net);
    }
    EXPECT_GT(loaded, 0u);
}

// INT8 weights and statistics are converted to int by the library: NaN, infinity or values
// whose products pass FLT_MAX are refused (the fuzzer found NaN reaching the conversion).
TEST(Loader, Int8ConvolutionValues) {
    const auto int8 = [](float weight, float statistic) {
        return OneStep([&](Writer& n) {
            const uint64_t w = n.AddConstant(std::vector<float>(16, weight));
            const uint64_t lo = n.AddConstant(std::vector<float>(4, -1.0f));
            const uint64_t hi = n.AddConstant(std::vector<float>(4, statistic));
            const file::ConvolutionDesc d(4, 2, 2, 4, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0,
                                          file::TensorFormat::Nhwc, file::TensorType::Float32,
                                          file::TensorType::Float32);
            const std::vector<file::Ref> stats{InConstant(lo), InConstant(hi), InConstant(lo),
                                               InConstant(hi)};
            const file::Ref rw = InConstant(w), s = InArena(0), o = InArena(32);
            n.AddStep("conv8i", file::Layer::Convolution8i,
                      file::CreateConvolution8iDirect(n.fbb, 1, &d, &rw, nullptr, nullptr, &stats,
                                                      0, &s, &o));
        });
    };
    EXPECT_EQ(LoadError(int8(0.5f, 1.0f)), "");
    ExpectRejected(int8(0.5f, std::nanf("")), "step 0 (conv8i): stats holds nan");
    ExpectRejected(int8(0.5f, 1e30f), "stats holds");
    ExpectRejected(int8(HUGE_VALF, 1.0f), "weight holds inf");
    ExpectRejected(int8(-3e38f, 1.0f), "beyond what INT8 quantization takes");
}

TEST(Loader, NamesAndLibraryRefusals) {
    const std::string nul("co\0nv", 5);
    ExpectRejected(OneStep([&](Writer& n) {
                       const std::vector<float> p{0};
                       const file::Ref s = InArena(0), o = InArena(32);
                       const auto layer = file::CreateActivationDirect(
                           n.fbb, file::ActivationKind::Relu, &p, &s, 16, &o);
                       n.AddNamedStep(n.fbb.CreateString(nul), file::Layer::Activation, layer);
                   }),
                   "step 0: the step name holds a NUL byte");
    {
        Writer n;
        n.AddBinding(
            false, file::CreateBinding(n.fbb, n.fbb.CreateString(nul), n.fbb.CreateVector(Shape{4}),
                                       n.fbb.CreateVector(Shape{0}), 0));
        n.AddOutput("y", {4}, {0}, 0);
        ExpectRejected(n.Finish(4), "a binding name holds a NUL byte");
    }
    // A convolution whose output size does not follow from its input: the library refuses the
    // context, and the message names the step by its number too.
    ExpectRejected(
        OneStep([](Writer& n) {
            const file::ConvolutionDesc d(4, 2, 2, 4, 3, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0,
                                          file::TensorFormat::Nhwc, file::TensorType::Float32,
                                          file::TensorType::Float32);
            const file::Ref w = InConstant(0), s = InArena(0), o = InArena(32);
            n.AddStep("conv", file::Layer::Convolution,
                      file::CreateConvolution(n.fbb, 1, &d, &w, nullptr, nullptr, &s, &o));
        }),
        "step 0 (conv): conv: ");
}

TEST(Loader, MissingFields) {
    {
        Writer n;
        n.withSteps = false;
        n.AddInput("x", {4}, {0}, 0);
        n.AddOutput("y", {4}, {0}, 0);
        ExpectRejected(n.Finish(4), "network file: the step list is missing");
    }
    {
        Writer n;
        n.withInputs = false;
        n.AddOutput("y", {4}, {0}, 0);
        ExpectRejected(n.Finish(4), "the input list is missing");
    }
    {
        Writer n;
        n.withOutputs = false;
        n.AddInput("x", {4}, {0}, 0);
        ExpectRejected(n.Finish(4), "the output list is missing");
    }
    {
        Writer n;
        n.AddInput("x", {4}, {0}, 0);
        ExpectRejected(n.Finish(4), "a network needs inputs and outputs");
    }
    {
        Writer n;
        n.AddBinding(false, file::CreateBindingDirect(n.fbb, nullptr, nullptr, nullptr, 0));
        n.AddOutput("y", {4}, {0}, 0);
        ExpectRejected(n.Finish(4), "a binding has no name");
    }
    {
        Writer n;
        const Shape perm{0};
        n.AddBinding(false, file::CreateBindingDirect(n.fbb, "x", nullptr, &perm, 0));
        n.AddOutput("y", {4}, {0}, 0);
        ExpectRejected(n.Finish(4), "shape is missing");
    }
    // A step whose union type names a table that is absent: the verifier lets it through.
    ExpectRejected(OneStep([](Writer& n) {
                       n.AddStep("conv", file::Layer::Convolution,
                                 flatbuffers::Offset<file::Convolution>(0));
                   }),
                   "step 0 (conv): the layer table is missing");
    ExpectRejected(OneStep([](Writer& n) {
                       n.AddStep("none", file::Layer::NONE, flatbuffers::Offset<file::Copy>(0));
                   }),
                   "step 0 (none): unknown layer type 0");
    ExpectRejected(
        OneStep([](Writer& n) {
            const file::Ref w = InConstant(0), s = InArena(0), o = InArena(32);
            n.AddStep("conv", file::Layer::Convolution,
                      file::CreateConvolution(n.fbb, 1, nullptr, &w, nullptr, nullptr, &s, &o));
        }),
        "the layer description is missing");
    ExpectRejected(Activation(file::ActivationKind::Relu, file::Ref(), 16, InArena(32)),
                   "src is missing");
    ExpectRejected(OneStep([](Writer& n) {
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep(
                           "pool", file::Layer::Pooling,
                           file::CreatePooling(n.fbb, file::PoolingKind::Max, nullptr, &s, &o));
                   }),
                   "the pooling shape is missing");
    ExpectRejected(
        OneStep([](Writer& n) { n.AddStep("copy", file::Layer::Copy, file::CreateCopy(n.fbb)); }),
        "regions is missing");
    ExpectRejected(OneStep([](Writer& n) {
                       const file::Ref s = InArena(0), o = InArena(32);
                       const std::vector<uint64_t> perm{0};
                       n.AddStep("t", file::Layer::Transpose,
                                 file::CreateTransposeDirect(n.fbb, &s, nullptr, &perm, &o));
                   }),
                   "shape is missing");
    ExpectRejected(OneStep([](Writer& n) {
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("lrn", file::Layer::Lrn,
                                 file::CreateLrnDirect(n.fbb, &s, 1, 4, 4, nullptr, &o));
                   }),
                   "k is missing");
    ExpectRejected(Activation(file::ActivationKind::RestrictRange, InArena(0), 16, InArena(32)),
                   "params needs 2 values, not 1");
    ExpectRejected(OneStep([](Writer& n) {
                       const file::Ref s = InArena(0), o = InArena(32);
                       n.AddStep("resize", file::Layer::ResizeLinear,
                                 file::CreateResizeLinear(n.fbb, &s, 1, 2, 2, 4, 0, 0, &o));
                   }),
                   "row taps are missing");
}

}  // namespace
