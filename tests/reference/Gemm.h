// Naive references of the GEMM family (SUPPLEMENT.md §13), in double precision.
#pragma once

#include <cmath>
#include <cstddef>

namespace ref {

// One output of C = alpha*A*op(B) + beta*C: op(B)(k, j) is B[k*ldb + j] (NN) or B[j*ldb + k]
// (NT). `magnitude` receives sum_k |alpha*A(i,k)*op(B)(k,j)| + |beta*C(i,j)|, the scale the
// rounding error of any summation order is bounded by. beta == 0 ignores C (BLAS convention).
inline double Gemm(bool transB, size_t K, float alpha, const float* A, size_t lda, const float* B,
                   size_t ldb, float beta, const float* C, size_t ldc, size_t i, size_t j,
                   double* magnitude) {
    double sum = 0.0, mag = 0.0;
    for (size_t k = 0; k < K; ++k) {
        const double b = transB ? B[j * ldb + k] : B[k * ldb + j];
        const double term = double(A[i * lda + k]) * b;
        sum += term;
        mag += std::fabs(term);
    }
    double result = double(alpha) * sum;
    mag *= std::fabs(double(alpha));
    if (beta != 0.0f) {
        const double old = double(beta) * double(C[i * ldc + j]);
        result += old;
        mag += std::fabs(old);
    }
    *magnitude = mag;
    return result;
}

}  // namespace ref
