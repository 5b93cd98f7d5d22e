"""numpy bindings of simd-synet, SIMD CPU kernels for neural-network inference.

Every function of the C API (include/SimdSynet.h) is here under its C name without the
Simd/SimdSynet prefix, in snake case: SimdSynetRelu32f -> relu32f, SimdSynetPoolingMax8u ->
pooling_max8u, SimdGemm32fNN -> gemm32f_nn, SimdWinogradKernel3x3Block4x4SetInput ->
winograd_kernel3x3_block4x4_set_input. The contexts are classes: Convolution32f,
Deconvolution32f, Deconvolution16b, MergedConvolution32f, Convolution8i.

Conventions:

* Tensors are numpy arrays: float32, uint8, or uint16 holding BF16 values. The dtype must be
  exact and the array C-contiguous and aligned (TypeError / ValueError otherwise); no function
  converts or copies a tensor behind the caller's back.
* Sizes come from the shapes. Image tensors are (N, C, *spatial) for NCHW, (N, *spatial, C) for
  NHWC and (N, C/b, *spatial, b) for NCHW4C/8C/16C, chosen by `format=`; per-channel arrays
  hold one float32 per channel of the array.
* Outputs are allocated when `out` is None; a given `out` must have exactly the dtype and shape
  the function would allocate, be writable and not overlap the inputs, except where the C
  function may run in place (out=src).
* Enumeration arguments take the IntEnum members below, their int values or their names
  ("nhwc", "relu").
* A call the library rejects raises simdsynet.Error (a RuntimeError) whose message is the
  library's SimdSynetGetLastError text.
* Library calls run without the GIL. Contexts free their library memory on close(), at the end
  of a `with` block or when collected; a closed context raises ValueError.
"""

from . import _simdsynet
from ._simdsynet import *  # noqa: F401,F403 (the API is the extension's)

__all__ = [name for name in dir(_simdsynet) if not name.startswith("_")]
__version__ = _simdsynet.version()
