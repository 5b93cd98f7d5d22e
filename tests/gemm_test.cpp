// Tests of SimdGemm32fNN / SimdGemm32fNT on every compiled and supported Highway target.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "TestUtil.h"
#include "reference/Gemm.h"

namespace {

using test::Guarded;

const float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Shape {
    size_t M, N, K;
};

// Every dimension meets the tails of every micro-tile (rows 4/6/8/12, columns up to 32) and
// the K chunking (257 crosses a chunk boundary on every target); kept small for runtime.
std::vector<Shape> Shapes() {
    std::vector<Shape> shapes;
    const size_t small[] = {1, 2, 3, 7, 8, 15, 16, 17, 33};
    for (size_t m : small)
        for (size_t n : small) shapes.push_back({m, n, (m * 7 + n * 3) % 40 + 1});
    const Shape large[] = {{64, 64, 64},
                           {100, 33, 257},
                           {13, 100, 17},
                           {257, 7, 100},
                           {33, 257, 8},
                           {17, 64, 300},
                           {100, 100, 100},
                           {3, 257, 513},
                           {257, 17, 2},
                           {64, 1, 257},
                           {1, 64, 257},
                           {29, 35, 1000},
                           // Several row blocks (mc) and column blocks (nc) on every target.
                           {1100, 20, 600},
                           {5, 4500, 30}};
    for (const Shape& s : large) shapes.push_back(s);
    return shapes;
}

using GemmFunction = void (*)(size_t, size_t, size_t, const float*, const float*, size_t,
                              const float*, size_t, const float*, float*, size_t);

// Runs one product with padded leading dimensions and checks every output against the double
// reference, the padding columns of C and the guard zones around C.
::testing::AssertionResult CheckGemm(bool transB, const Shape& s, float alpha, float beta,
                                     size_t pad, uint32_t seed) {
    const GemmFunction gemm = transB ? SimdGemm32fNT : SimdGemm32fNN;
    const size_t lda = s.K + pad, ldc = s.N + pad + 1;
    const size_t ldb = (transB ? s.K : s.N) + 2 * pad;
    const size_t bRows = transB ? s.N : s.K;
    const std::vector<float> A = test::RandomFloats(s.M * lda, -1.0f, 1.0f, seed);
    const std::vector<float> B = test::RandomFloats(bRows * ldb + 1, -1.0f, 1.0f, seed + 1);
    const float padValue = 12345.0f;
    Guarded<float> C(s.M * ldc, padValue);
    const std::vector<float> old = test::RandomFloats(s.M * ldc, -1.0f, 1.0f, seed + 2);
    for (size_t i = 0; i < s.M; ++i)
        for (size_t j = 0; j < s.N; ++j) C[i * ldc + j] = beta == 0.0f ? kNaN : old[i * ldc + j];
    const std::vector<float> before = C.Vector();
    gemm(s.M, s.N, s.K, &alpha, A.data(), lda, B.data(), ldb, &beta, C.data(), ldc);
    if (SimdSynetGetLastError() != nullptr)
        return ::testing::AssertionFailure() << "error: " << SimdSynetGetLastError();
    if (!C.GuardsIntact()) return ::testing::AssertionFailure() << "guard zone written";
    for (size_t i = 0; i < s.M; ++i) {
        for (size_t j = s.N; j < ldc; ++j)
            if (C[i * ldc + j] != padValue)
                return ::testing::AssertionFailure()
                       << "padding column " << j << " of row " << i << " written";
        for (size_t j = 0; j < s.N; ++j) {
            double mag;
            const double r = ref::Gemm(transB, s.K, alpha, A.data(), lda, B.data(), ldb, beta,
                                       before.data(), ldc, i, j, &mag);
            ::testing::AssertionResult ok = test::Near(C[i * ldc + j], r, mag, 1e-5, 1e-6);
            if (!ok)
                return ::testing::AssertionFailure()
                       << "C(" << i << ", " << j << "): " << ok.message();
        }
    }
    return ::testing::AssertionSuccess();
}

SIMD_SYNET_TARGET_SUITE(Gemm);

TEST_P(Gemm, NN) {
    uint32_t seed = 1;
    for (const Shape& s : Shapes())
        for (float beta : {0.0f, 1.0f, 0.5f}) {
            const float alpha = beta == 1.0f ? 1.0f : -1.5f;
            ++seed;
            EXPECT_TRUE(CheckGemm(false, s, alpha, beta, seed % 3 == 0 ? 0 : 5, seed))
                << "M=" << s.M << " N=" << s.N << " K=" << s.K << " beta=" << beta;
        }
}

TEST_P(Gemm, NT) {
    uint32_t seed = 1000;
    for (const Shape& s : Shapes())
        for (float beta : {0.0f, 1.0f, 0.5f}) {
            const float alpha = beta == 1.0f ? 1.0f : 0.75f;
            ++seed;
            EXPECT_TRUE(CheckGemm(true, s, alpha, beta, seed % 3 == 0 ? 0 : 3, seed))
                << "M=" << s.M << " N=" << s.N << " K=" << s.K << " beta=" << beta;
        }
}

// K == 0: C = beta*C (beta == 0 clears C even when it held NaN); A and B are not read.
TEST_P(Gemm, EmptySum) {
    for (bool transB : {false, true})
        for (float beta : {0.0f, 0.5f, 1.0f}) {
            const size_t M = 5, N = 19, ldc = 23;
            Guarded<float> C(M * ldc, 3.0f);
            for (size_t i = 0; i < M; ++i)
                for (size_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? kNaN : float(i + j);
            const float alpha = 2.0f;
            (transB ? SimdGemm32fNT : SimdGemm32fNN)(M, N, 0, &alpha, nullptr, 0, nullptr, 0, &beta,
                                                     C.data(), ldc);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(C.GuardsIntact());
            for (size_t i = 0; i < M; ++i)
                for (size_t j = 0; j < ldc; ++j) {
                    const float expected = j >= N         ? 3.0f
                                           : beta == 0.0f ? 0.0f
                                                          : beta * float(i + j);
                    EXPECT_EQ(C[i * ldc + j], expected) << i << "," << j << " beta=" << beta;
                }
        }
}

// A product that meets several K chunks and row/column blocks on every target, against the
// reference at a sample of outputs (the full check of a 300^3 product is slow in debug builds).
TEST_P(Gemm, LargeSampled) {
    const size_t M = 301, N = 290, K = 1100;
    for (bool transB : {false, true}) {
        const std::vector<float> A = test::RandomFloats(M * K, -1.0f, 1.0f, 7);
        const std::vector<float> B = test::RandomFloats(K * N, -1.0f, 1.0f, 8);
        Guarded<float> C(M * N, kNaN);
        const float alpha = 0.5f, beta = 0.0f;
        const size_t ldb = transB ? K : N;
        (transB ? SimdGemm32fNT : SimdGemm32fNN)(M, N, K, &alpha, A.data(), K, B.data(), ldb, &beta,
                                                 C.data(), N);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr);
        EXPECT_TRUE(C.GuardsIntact());
        for (size_t i = 0; i < M; i += 7)
            for (size_t j = 0; j < N; j += 3) {
                double mag;
                const double r = ref::Gemm(transB, K, alpha, A.data(), K, B.data(), ldb, beta,
                                           C.data(), N, i, j, &mag);
                EXPECT_TRUE(test::Near(C[i * N + j], r, mag, 1e-5, 1e-6))
                    << (transB ? "NT " : "NN ") << i << "," << j;
            }
    }
}

// The thread budget splits the columns of C; every element must come out bit-identical to the
// single-thread result (and C's padding columns stay untouched).
TEST_P(Gemm, ThreadCountDoesNotChangeResults) {
    const size_t M = 97, N = 300, K = 700, ldc = N + 5;
    for (bool transB : {false, true}) {
        const std::vector<float> A = test::RandomFloats(M * K, -1.0f, 1.0f, 11);
        const std::vector<float> B = test::RandomFloats(K * N, -1.0f, 1.0f, 12);
        const size_t ldb = transB ? K : N;
        const float alpha = 1.5f, beta = 0.5f;
        std::vector<float> single;
        for (size_t threads : {1u, 2u, 3u, 8u}) {
            SimdSetThreadNumber(threads);
            Guarded<float> C(M * ldc, 0.25f);
            (transB ? SimdGemm32fNT : SimdGemm32fNN)(M, N, K, &alpha, A.data(), K, B.data(), ldb,
                                                     &beta, C.data(), ldc);
            EXPECT_EQ(SimdSynetGetLastError(), nullptr);
            EXPECT_TRUE(C.GuardsIntact());
            std::vector<float> result(C.data(), C.data() + M * ldc);
            if (threads == 1) {
                single = result;
                continue;
            }
            size_t mismatches = 0;
            for (size_t i = 0; i < M * ldc; ++i)
                mismatches += std::memcmp(&result[i], &single[i], sizeof(float)) != 0;
            EXPECT_EQ(mismatches, 0u) << (transB ? "NT " : "NN ") << threads << " threads";
        }
        SimdSetThreadNumber(1);
    }
}

bool LastErrorNames(const char* function) {
    const char* e = SimdSynetGetLastError();
    return e != nullptr && std::string(e).find(function) != std::string::npos;
}

TEST(GemmErrors, RejectsBadArguments) {
    for (bool transB : {false, true}) {
        const GemmFunction gemm = transB ? SimdGemm32fNT : SimdGemm32fNN;
        const char* name = transB ? "SimdGemm32fNT" : "SimdGemm32fNN";
        float A[16] = {1}, B[16] = {1}, C[16], alpha = 1.0f, beta = 0.0f;
        for (float& c : C) c = 7.0f;
        auto untouched = [&] {
            for (float c : C)
                if (c != 7.0f) return false;
            return true;
        };
        // NULL pointers.
        gemm(2, 2, 2, nullptr, A, 2, B, 2, &beta, C, 2);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 2, 2, &alpha, nullptr, 2, B, 2, &beta, C, 2);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 2, 2, &alpha, A, 2, nullptr, 2, &beta, C, 2);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 2, 2, &alpha, A, 2, B, 2, nullptr, C, 2);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 2, 2, &alpha, A, 2, B, 2, &beta, nullptr, 2);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 2, 0, &alpha, A, 2, B, 2, &beta, nullptr, 2);
        EXPECT_TRUE(LastErrorNames(name));
        // Leading dimensions below the minimum: lda < K, ldb < N (NN) or < K (NT), ldc < N.
        gemm(2, 3, 4, &alpha, A, 3, B, 4, &beta, C, 3);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 3, 4, &alpha, A, 4, B, transB ? 3 : 2, &beta, C, 3);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 3, 4, &alpha, A, 4, B, 4, &beta, C, 2);
        EXPECT_TRUE(LastErrorNames(name));
        // Byte sizes overflowing size_t.
        gemm(SIZE_MAX / 2, 2, 2, &alpha, A, 2, B, 2, &beta, C, 2);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, 2, SIZE_MAX / 4, &alpha, A, SIZE_MAX / 4, B, SIZE_MAX / 4, &beta, C, 2);
        EXPECT_TRUE(LastErrorNames(name));
        gemm(2, SIZE_MAX / 4, 2, &alpha, A, 2, B, SIZE_MAX / 4, &beta, C, SIZE_MAX / 4);
        EXPECT_TRUE(LastErrorNames(name));
        EXPECT_TRUE(untouched());
        // M == 0 or N == 0: valid no-ops even with NULL pointers.
        gemm(0, 2, 2, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr, 0);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr);
        gemm(2, 0, 2, nullptr, nullptr, 0, nullptr, 0, nullptr, nullptr, 0);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr);
        EXPECT_TRUE(untouched());
        // A valid call after a rejected one clears the error.
        gemm(2, 2, 2, nullptr, A, 2, B, 2, &beta, C, 2);
        EXPECT_NE(SimdSynetGetLastError(), nullptr);
        gemm(2, 2, 2, &alpha, A, 2, B, 2, &beta, C, 2);
        EXPECT_EQ(SimdSynetGetLastError(), nullptr);
    }
}

// SimdGemm32fNN itself satisfies the callback type the convolution contexts accept.
TEST(GemmErrors, MatchesCallbackType) {
    const SimdGemm32fNNPtr gemm = SimdGemm32fNN;
    float A[2] = {1, 2}, B[2] = {3, 4}, C[1] = {kNaN}, alpha = 1.0f, beta = 0.0f;
    gemm(1, 1, 2, &alpha, A, 2, B, 1, &beta, C, 1);
    EXPECT_EQ(C[0], 11.0f);
}

}  // namespace
