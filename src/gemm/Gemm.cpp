// Matrix products SimdGemm32fNN and SimdGemm32fNT (SUPPLEMENT.md §13): the entry points over
// the packed-panel compute core of gemm/Gemm-inl.h.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "gemm/Gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "gemm/Gemm-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simd {
namespace HWY_NAMESPACE {

bool Gemm32fNNKernel(size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
                     const float* B, size_t ldb, float beta, float* C, size_t ldc) {
    return Gemm32f(hn::ScalableTag<float>(), false, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

bool Gemm32fNTKernel(size_t M, size_t N, size_t K, float alpha, const float* A, size_t lda,
                     const float* B, size_t ldb, float beta, float* C, size_t ldc) {
    return Gemm32f(hn::ScalableTag<float>(), true, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/Dispatch.h"
#include "SimdSynet.h"
#include "core/Error.h"
#include "core/Format.h"
#include "core/ThreadPool.h"

#include <atomic>

namespace simd {
HWY_EXPORT(Gemm32fNNKernel);
HWY_EXPORT(Gemm32fNTKernel);

namespace {

// Elements spanned by a row-major matrix of `rows` rows, `cols` used columns and row stride
// `stride` ((rows - 1)*stride + cols), as bytes that must fit size_t; rows >= 1.
bool SpanFits(size_t rows, size_t cols, size_t stride) {
    size_t elements;
    return CheckedMul(rows - 1, stride, &elements) && CheckedAdd(elements, cols, &elements) &&
           FitsInMemory(elements, 1, sizeof(float));
}

// Shared checks of both products; bRows x bCols is B as stored. Returns false after recording
// the error.
bool ValidateGemm(const char* function, size_t M, size_t N, size_t K, const float* alpha,
                  const float* A, size_t lda, const float* B, size_t ldb, size_t bRows,
                  size_t bCols, const float* beta, const float* C, size_t ldc) {
    if (!alpha || !beta || !C || (K > 0 && (!A || !B)))
        return SetLastErrorF("%s: alpha, beta, C (and A, B when K > 0) must not be NULL", function);
    if (lda < K || (K > 0 && ldb < bCols) || ldc < N)
        return SetLastErrorF(
            "%s: leading dimension too small (lda %zu < K, ldb %zu < %zu or "
            "ldc %zu < N)",
            function, lda, ldb, bCols, ldc);
    if (!SpanFits(M, N, ldc) || (K > 0 && (!SpanFits(M, K, lda) || !SpanFits(bRows, bCols, ldb))))
        return SetLastErrorF("%s: matrix size in bytes overflows size_t", function);
    return true;
}

using GemmKernel = bool (*)(size_t, size_t, size_t, float, const float*, size_t, const float*,
                            size_t, float, float*, size_t);

// Splits the columns of C over the thread budget in ranges of whole 64-column panels: each
// thread packs its own columns of B and writes its own columns of C. Every element's sum over
// K is computed in the same order whatever the split (K blocking depends on K alone), so the
// result does not depend on the thread count. Small products stay on the calling thread.
bool RunGemm(GemmKernel kernel, bool transB, size_t M, size_t N, size_t K, float alpha,
             const float* A, size_t lda, const float* B, size_t ldb, float beta, float* C,
             size_t ldc) {
    constexpr size_t kPanel = 64;
    const size_t panels = (N + kPanel - 1) / kPanel;
    size_t parts = ThreadBudget();
    if (parts > panels) parts = panels;
    if (parts <= 1 || double(M) * double(N) * double(K) < double(1 << 20))
        return kernel(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    std::atomic<bool> ok{true};
    ParallelParts(parts, [&](size_t part, size_t count) {
        const auto range = PartRange(panels, part, count);
        const size_t n0 = range.first * kPanel;
        const size_t n1 = range.second * kPanel < N ? range.second * kPanel : N;
        if (n0 >= n1) return;
        const float* b = transB ? B + n0 * ldb : B + n0;
        if (!kernel(M, n1 - n0, K, alpha, A, lda, b, ldb, beta, C + n0, ldc)) ok = false;
    });
    return ok.load();
}

}  // namespace
}  // namespace simd

SIMD_API void SimdGemm32fNN(size_t M, size_t N, size_t K, const float* alpha, const float* A,
                            size_t lda, const float* B, size_t ldb, const float* beta, float* C,
                            size_t ldc) {
    simd::ClearLastError();
    if (M == 0 || N == 0) return;
    if (!simd::ValidateGemm("SimdGemm32fNN", M, N, K, alpha, A, lda, B, ldb, K, N, beta, C, ldc))
        return;
    SIMD_FAIL_IF(!simd::RunGemm(&SIMD_DISPATCH(simd::Gemm32fNNKernel), false, M, N, K, *alpha, A,
                                lda, B, ldb, *beta, C, ldc),
                 "SimdGemm32fNN: out of memory for the packed panels");
}

SIMD_API void SimdGemm32fNT(size_t M, size_t N, size_t K, const float* alpha, const float* A,
                            size_t lda, const float* B, size_t ldb, const float* beta, float* C,
                            size_t ldc) {
    simd::ClearLastError();
    if (M == 0 || N == 0) return;
    if (!simd::ValidateGemm("SimdGemm32fNT", M, N, K, alpha, A, lda, B, ldb, N, K, beta, C, ldc))
        return;
    SIMD_FAIL_IF(!simd::RunGemm(&SIMD_DISPATCH(simd::Gemm32fNTKernel), true, M, N, K, *alpha, A,
                                lda, B, ldb, *beta, C, ldc),
                 "SimdGemm32fNT: out of memory for the packed panels");
}
#endif  // HWY_ONCE
