// GEMM (SUPPLEMENT.md §13): C = alpha*A*B + beta*C on row-major float32 matrices. Rows may be
// apart (a view of a wider matrix, e.g. big[:, :k]): the row stride is the leading dimension.
#include "Common.h"

namespace simdsynet_python {

namespace {

struct Matrix {
    py::array array;
    size_t rows, cols, ld;
};

// A 2-D float32 array whose rows are contiguous and lie at a positive stride that is a
// multiple of 4 bytes.
Matrix ToMatrix(py::handle value, const char* argument) {
    py::array a = TypedArray<float>(value, argument);
    if (a.ndim() != 2)
        throw py::value_error(Format("%s must be a matrix (2 axes), not %s", argument,
                                     ShapeText(ShapeOf(a)).c_str()));
    if (!(a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_))
        throw py::value_error(Format("%s is not aligned to its element size", argument));
    Matrix m{a, size_t(a.shape(0)), size_t(a.shape(1)), size_t(a.shape(1))};
    if (m.rows <= 1 || m.cols == 0) {
        // One row, or none, or rows of nothing: no row stride to follow (numpy may report any).
        if (a.size() > 1 && a.strides(1) != py::ssize_t(sizeof(float)))
            throw py::value_error(Format("%s must have contiguous rows", argument));
        return m;
    }
    py::ssize_t stride = a.strides(0);
    bool rowContiguous = m.cols == 1 || a.strides(1) == py::ssize_t(sizeof(float));
    if (!rowContiguous || stride <= 0 || stride % py::ssize_t(sizeof(float)) != 0 ||
        size_t(stride) / sizeof(float) < m.cols)
        throw py::value_error(
            Format("%s must have contiguous rows at a positive row stride (a "
                   "C-contiguous array or a slice of columns of one)",
                   argument));
    m.ld = size_t(stride) / sizeof(float);
    return m;
}

// nt: B is stored (N, K) (SimdGemm32fNT).
template <void (*Function)(size_t, size_t, size_t, const float*, const float*, size_t, const float*,
                           size_t, const float*, float*, size_t),
          bool nt>
py::array Gemm(py::handle a, py::handle b, py::handle c, float alpha, float beta) {
    Matrix A = ToMatrix(a, "a"), B = ToMatrix(b, "b");
    size_t M = A.rows, K = A.cols, N = nt ? B.rows : B.cols;
    if ((nt ? B.cols : B.rows) != K)
        throw py::value_error(Format(
            "b %s does not match a %s (%s)", ShapeText(ShapeOf(B.array)).c_str(),
            ShapeText(ShapeOf(A.array)).c_str(), nt ? "b must be (N, K)" : "b must be (K, N)"));
    Matrix C;
    if (c.is_none()) {
        // beta == 0 never reads C; otherwise beta*C must be beta*0.
        py::module_ np = py::module_::import("numpy");
        py::object made =
            np.attr(beta == 0.0f ? "empty" : "zeros")(py::make_tuple(M, N), "dtype"_a = "float32");
        C = ToMatrix(made, "c");
    } else {
        C = ToMatrix(c, "c");
        CheckWritable(C.array, "c");
        if (C.rows != M || C.cols != N)
            throw py::value_error(Format("c must have shape (%zu, %zu), not %s", M, N,
                                         ShapeText(ShapeOf(C.array)).c_str()));
    }
    CheckDisjoint(C.array, "c", A.array, "a");
    CheckDisjoint(C.array, "c", B.array, "b");
    Run([&] {
        Function(M, N, K, &alpha, Data<float>(A.array), A.ld, Data<float>(B.array), B.ld, &beta,
                 MutableData<float>(C.array), C.ld);
    });
    return C.array;
}

}  // namespace

void RegisterGemm(py::module_& m) {
    m.def("gemm32f_nn", &Gemm<SimdGemm32fNN, false>, "a"_a, "b"_a, "c"_a = py::none(),
          "alpha"_a = 1.0f, "beta"_a = 0.0f,
          "C = alpha*A*B + beta*C for float32 matrices A (M, K), B (K, N), C (M, N), written "
          "into c (allocated when None) and returned (SimdGemm32fNN). Rows may lie apart (a "
          "slice of columns): the row strides are the leading dimensions. beta == 0 never reads "
          "c. Threads: set_thread_number.");
    m.def("gemm32f_nt", &Gemm<SimdGemm32fNT, true>, "a"_a, "b"_a, "c"_a = py::none(),
          "alpha"_a = 1.0f, "beta"_a = 0.0f,
          "C = alpha*A*B^T + beta*C with B stored (N, K) (SimdGemm32fNT); otherwise as "
          "gemm32f_nn.");
}

}  // namespace simdsynet_python
