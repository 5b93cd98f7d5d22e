"""GEMM (§13): leading dimensions from row strides, beta, threads."""

import numpy as np
import pytest

import simdsynet as ss
from reference import assert_tol

RNG = np.random.default_rng(7)


def matrix(rows, cols, padding=0):
    big = RNG.uniform(-1, 1, (rows, cols + padding)).astype(np.float32)
    return big[:, :cols]


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (7, 33, 17), (64, 48, 300)])
def test_nn_nt(m, n, k):
    a, b = matrix(m, k, 3), matrix(k, n, 5)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert_tol(ss.gemm32f_nn(a, b), expected, 2e-3, 1)
    bt = matrix(n, k, 2)
    assert_tol(ss.gemm32f_nt(a, bt), a.astype(np.float64) @ bt.T.astype(np.float64), 2e-3, 1)
    c_big = RNG.uniform(-1, 1, (m, n + 4)).astype(np.float32)
    c = c_big[:, :n]
    before = c_big.copy()
    assert ss.gemm32f_nn(a, b, c, alpha=2.0, beta=-0.5) is c
    assert_tol(c, 2 * expected - 0.5 * before[:, :n], 2e-3, 1)
    np.testing.assert_array_equal(c_big[:, n:], before[:, n:])  # columns past N untouched


def test_threads_give_identical_results():
    a, b = matrix(96, 200), matrix(200, 130)
    one = ss.gemm32f_nn(a, b)
    before = ss.get_thread_number()
    try:
        ss.set_thread_number(2)
        np.testing.assert_array_equal(ss.gemm32f_nn(a, b), one)
    finally:
        ss.set_thread_number(before)


def test_beta_without_c_and_empty():
    a, b = matrix(3, 4), matrix(4, 5)
    assert_tol(ss.gemm32f_nn(a, b, beta=3.0), a.astype(np.float64) @ b, 2e-3, 1)
    assert ss.gemm32f_nn(matrix(3, 0), matrix(0, 5), beta=0.0).shape == (3, 5)


def test_contract():
    a, b = matrix(3, 4), matrix(4, 5)
    with pytest.raises(ValueError, match="does not match"):
        ss.gemm32f_nn(a, matrix(5, 4))
    with pytest.raises(ValueError, match="contiguous rows"):
        ss.gemm32f_nn(np.asfortranarray(a), b)
    with pytest.raises(ValueError, match="contiguous rows"):
        ss.gemm32f_nn(a[::-1], b)
    with pytest.raises(ValueError, match="c must have shape \\(3, 5\\)"):
        ss.gemm32f_nn(a, b, np.zeros((3, 4), np.float32))
    shared = np.zeros((8, 5), np.float32)
    with pytest.raises(ValueError, match="c must not overlap b"):
        ss.gemm32f_nn(a, shared[:4], shared[2:5])
    with pytest.raises(ValueError, match="matrix"):
        ss.gemm32f_nn(a.reshape(-1), b)
