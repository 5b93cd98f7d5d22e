// What every binding file of the Python package shares: library errors raised as
// simdsynet.Error, library calls run without the GIL, numpy arrays checked against what a C
// function will read or write (dtype, C order, alignment, shape, overlap), enumerations taken
// from ints, IntEnum members or names, and the array layouts of image tensors.
//
// The C API trusts the sizes it is given. Every binding derives those sizes from the shapes of
// arrays it has checked here, so no call from Python can make the library read or write outside
// the arrays' memory.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "SimdSynet.h"

namespace simdsynet_python {

namespace py = pybind11;
using namespace pybind11::literals;
using Shape = std::vector<py::ssize_t>;

// ---------------------------------------------------------------------------------------------
// Errors and library calls.

// Raised as simdsynet.Error (a RuntimeError): the library rejected a call; the message is the
// text SimdSynetGetLastError returned.
class LibraryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// printf-style message for the binding's own ValueError/TypeError.
std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Runs `call` (one or more library calls) without the GIL, then raises LibraryError when the
// last call recorded an error. The message is copied before the GIL is taken back: it lives in
// a per-thread buffer that the next call on this thread overwrites.
template <class Call>
auto Run(Call&& call) -> decltype(call()) {
    std::string error;
    if constexpr (std::is_void_v<decltype(call())>) {
        {
            py::gil_scoped_release release;
            call();
            if (const char* message = SimdSynetGetLastError()) error = message;
        }
        if (!error.empty()) throw LibraryError(error);
    } else {
        decltype(call()) result;
        {
            py::gil_scoped_release release;
            result = call();
            if (const char* message = SimdSynetGetLastError()) error = message;
        }
        if (!error.empty()) throw LibraryError(error);
        return result;
    }
}

// As Run for a call made once per part of a batch: stops at the first rejected part.
template <class Part>
void RunParts(size_t parts, Part&& part) {
    std::string error;
    {
        py::gil_scoped_release release;
        for (size_t i = 0; i < parts && error.empty(); ++i) {
            part(i);
            if (const char* message = SimdSynetGetLastError()) error = message;
        }
    }
    if (!error.empty()) throw LibraryError(error);
}

// ---------------------------------------------------------------------------------------------
// Enumerations. Each C enumeration is a table here and an enum.IntEnum (IntFlag for the
// compatibility bits) in the module, built from the table at import, so the values come from
// the C header and nowhere else.

struct EnumMember {
    const char* name;
    int value;
};

struct EnumType {
    const char* name;  // Python class name
    const char* doc;
    bool flag;  // IntFlag: any combination of bits is accepted
    std::vector<EnumMember> members;
    PyObject* cls = nullptr;  // the Python class, set by RegisterEnums (never released)
};

extern EnumType g_tensorFormat, g_tensorData, g_activation, g_eltwiseOperation, g_unaryOperation,
    g_compatibility, g_pixelFormat;

// Sets up what this file needs in an extension module of the package. In simdsynet._simdsynet
// (`owner`) it creates simdsynet.Error and the enum classes; any other extension module of the
// package (e.g. an executor built on these helpers) takes them from simdsynet._simdsynet, so
// LibraryError raised there is the same simdsynet.Error and enum arguments are the same classes.
void InitCommon(py::module_& m, bool owner);

// The value of an enumeration argument: a member of the enum's Python class, a plain int that is
// one of its values (any non-negative int for a flag type), or a member name (case-insensitive,
// e.g. "nhwc"). Anything else raises TypeError/ValueError naming `argument`.
int ToEnum(py::handle value, const EnumType& type, const char* argument);

// The Python member for a value the library returned.
py::object FromEnum(const EnumType& type, int value);

// ---------------------------------------------------------------------------------------------
// Scalars and small tuples.

// A non-negative Python int (not a bool).
size_t ToSize(py::handle value, const char* argument);

// An int or a sequence of `n` ints, each non-negative; an int is repeated n times.
std::vector<size_t> ToSizes(py::handle value, size_t n, const char* argument);

// A bool (or 0/1) as SimdBool.
SimdBool ToBool(py::handle value, const char* argument);

// ---------------------------------------------------------------------------------------------
// Arrays.

template <class T>
struct DtypeName;
template <>
struct DtypeName<float> {
    static constexpr const char* value = "float32";
};
template <>
struct DtypeName<uint8_t> {
    static constexpr const char* value = "uint8";
};
template <>
struct DtypeName<uint16_t> {
    static constexpr const char* value = "uint16";
};

// A null array handle, false in a boolean test. (A default-constructed py::array is not null:
// it is an empty float64 array whose data pointer a C function would take for a real one.)
template <class Array = py::array>
Array NoArray() {
    return py::reinterpret_steal<Array>(py::handle());
}

std::string ShapeText(const Shape& shape);
Shape ShapeOf(const py::array& a);
size_t Product(const Shape& shape, size_t begin = 0, size_t end = SIZE_MAX);

// Raises TypeError unless `value` is a numpy array with exactly the dtype of T (native order).
template <class T>
py::array TypedArray(py::handle value, const char* argument) {
    if (!py::isinstance<py::array>(value))
        throw py::type_error(Format("%s must be a numpy.ndarray of %s, not %s", argument,
                                    DtypeName<T>::value, Py_TYPE(value.ptr())->tp_name));
    auto a = py::reinterpret_borrow<py::array>(value);
    if (!py::array_t<T>::check_(a))
        throw py::type_error(Format("%s must have dtype %s, not %s", argument, DtypeName<T>::value,
                                    std::string(py::str(a.dtype())).c_str()));
    return a;
}

// The checks every array the library reads or writes as one block passes: C-contiguous and
// aligned (ValueError otherwise).
void CheckContiguous(const py::array& a, const char* argument);

// An input tensor of T: dtype, C order and alignment checked.
template <class T>
py::array Input(py::handle value, const char* argument) {
    py::array a = TypedArray<T>(value, argument);
    CheckContiguous(a, argument);
    return a;
}

// An input tensor of T with the given shape.
template <class T>
py::array Input(py::handle value, const char* argument, const Shape& shape) {
    py::array a = Input<T>(value, argument);
    if (ShapeOf(a) != shape)
        throw py::value_error(Format("%s must have shape %s, not %s", argument,
                                     ShapeText(shape).c_str(), ShapeText(ShapeOf(a)).c_str()));
    return a;
}

// A one-dimensional float32 array of exactly `length` values (per-channel parameters).
py::array Vector(py::handle value, const char* argument, size_t length);

// Small float parameters (activation parameters, eps triples): any sequence or array of numbers,
// converted to float32; exactly `length` values.
py::array_t<float> Floats(py::handle value, const char* argument, size_t length);

void CheckWritable(const py::array& a, const char* argument);

// The output tensor: a new array of `shape` when `out` is None, otherwise `out` after checking
// dtype, C order, alignment, writability and that its shape is exactly `shape`.
template <class T>
py::array Output(py::handle out, const char* argument, const Shape& shape) {
    if (out.is_none()) return py::array_t<T>(shape);
    py::array a = Input<T>(out, argument, shape);
    CheckWritable(a, argument);
    return a;
}

// Raises ValueError when the memory of `out` overlaps that of `in` (functions whose outputs
// must not overlap their inputs).
void CheckDisjoint(const py::array& out, const char* outName, const py::array& in,
                   const char* inName);

// As CheckDisjoint, but `out` may also be exactly `in` (same first element; the shapes were
// checked equal), for the functions that may run in place.
void CheckDisjointOrSame(const py::array& out, const char* outName, const py::array& in,
                         const char* inName);

template <class T>
const T* Data(const py::array& a) {
    return static_cast<const T*>(a.data());
}
template <class T>
T* MutableData(const py::array& a) {
    // The writability was checked by Output/CheckWritable; a.mutable_data() would check it again.
    return static_cast<T*>(const_cast<void*>(a.data()));
}

// ---------------------------------------------------------------------------------------------
// Image tensors. An image tensor of `format` is an array of shape (N, C, *spatial) for Nchw,
// (N, *spatial, C) for Nhwc and (N, C/b, *spatial, b) for Nchw<b>c (b = 4, 8, 16): the batch
// axis always comes first, spatial axes may be any number (none, H, (H, W), ...).

struct Image {
    SimdTensorFormatType format;
    size_t batch;
    size_t channels;  // padded lanes included for blocked formats (C/b blocks times b)
    size_t spatial;   // product of the spatial axes
    size_t block;     // 1 for Nchw/Nhwc
    Shape spatialShape;

    size_t Size() const { return channels * spatial; }  // elements of one image
    // The shape of a tensor of this layout and batch with `c` channels and `sp` spatial axes.
    Shape ShapeFor(size_t c, const Shape& sp) const;
    Shape ShapeFor(size_t c) const { return ShapeFor(c, spatialShape); }
};

enum class Layouts { Plain, Blocked };  // Plain: Nchw, Nhwc; Blocked: also Nchw4c/8c/16c

// The layout of `a` read as an image tensor of `format`; ValueError for formats outside
// `accepted` or arrays with too few axes or a last axis that is not the block.
Image ParseImage(const py::array& a, SimdTensorFormatType format, const char* argument,
                 Layouts accepted);

// A format argument restricted to `accepted`.
SimdTensorFormatType ToImageFormat(py::handle value, const char* argument, Layouts accepted);

// The batch loop of functions that take one image (channels x spatial) per call: Nhwc images
// follow each other pixel by pixel, so the whole batch is one call of batch*spatial pixels;
// other layouts make one call per image. part(b, spatial) gets the image index (0 for the
// merged Nhwc call) and the spatial count of that call.
template <class Part>
void RunImages(const Image& image, Part&& part) {
    if (image.format == SimdTensorFormatNhwc)
        Run([&] { part(size_t(0), image.batch * image.spatial); });
    else
        RunParts(image.batch, [&](size_t b) { part(b, image.spatial); });
}

// ---------------------------------------------------------------------------------------------
// Registration of the families (one file each).

void RegisterHelpers(py::module_& m);
void RegisterActivations(py::module_& m);
void RegisterPerChannel(py::module_& m);
void RegisterEltwise(py::module_& m);
void RegisterConversions(py::module_& m);
void RegisterPooling(py::module_& m);
void RegisterLayers(py::module_& m);  // normalization, softmax, LRN, inner product
void RegisterGemm(py::module_& m);
void RegisterWinograd(py::module_& m);
void RegisterContexts(py::module_& m);

}  // namespace simdsynet_python
