#include "Common.h"

#include <cctype>
#include <climits>
#include <cstdarg>
#include <cstdio>

namespace simdsynet_python {

std::string Format(const char* format, ...) {
    char buffer[512];
    va_list args;
    va_start(args, format);
    vsnprintf(buffer, sizeof(buffer), format, args);
    va_end(args);
    return buffer;
}

// ---------------------------------------------------------------------------------------------
// Enumerations (values from SimdSynet.h; names in Python's UPPER_CASE).

EnumType g_tensorFormat{"TensorFormat",
                        "Memory layouts of image tensors and convolution filters "
                        "(SimdTensorFormatType).",
                        false,
                        {{"UNKNOWN", SimdTensorFormatUnknown},
                         {"NCHW", SimdTensorFormatNchw},
                         {"NHWC", SimdTensorFormatNhwc},
                         {"NCHW4C", SimdTensorFormatNchw4c},
                         {"NCHW8C", SimdTensorFormatNchw8c},
                         {"NCHW16C", SimdTensorFormatNchw16c},
                         {"NCHWXC", SimdTensorFormatNchwXc},
                         {"OIYX", SimdTensorFormatOiyx},
                         {"YXIO", SimdTensorFormatYxio},
                         {"OYXI4O", SimdTensorFormatOyxi4o},
                         {"OYXI8O", SimdTensorFormatOyxi8o},
                         {"OYXI16O", SimdTensorFormatOyxi16o},
                         {"OYXIXO", SimdTensorFormatOyxiXo}}};

EnumType g_tensorData{"TensorData",
                      "Element types of tensors (SimdTensorDataType); BF16 values are uint16.",
                      false,
                      {{"UNKNOWN", SimdTensorDataUnknown},
                       {"FLOAT32", SimdTensorData32f},
                       {"INT32", SimdTensorData32i},
                       {"INT8", SimdTensorData8i},
                       {"UINT8", SimdTensorData8u},
                       {"INT64", SimdTensorData64i},
                       {"UINT64", SimdTensorData64u},
                       {"BOOL", SimdTensorDataBool},
                       {"BF16", SimdTensorData16b},
                       {"FLOAT16", SimdTensorData16f}}};

EnumType g_activation{"Activation",
                      "Activation of the convolution-like contexts "
                      "(SimdConvolutionActivationType).",
                      false,
                      {{"IDENTITY", SimdConvolutionActivationIdentity},
                       {"RELU", SimdConvolutionActivationRelu},
                       {"LEAKY_RELU", SimdConvolutionActivationLeakyRelu},
                       {"RESTRICT_RANGE", SimdConvolutionActivationRestrictRange},
                       {"PRELU", SimdConvolutionActivationPrelu},
                       {"ELU", SimdConvolutionActivationElu},
                       {"HSWISH", SimdConvolutionActivationHswish},
                       {"MISH", SimdConvolutionActivationMish},
                       {"HARD_SIGMOID", SimdConvolutionActivationHardSigmoid},
                       {"SWISH", SimdConvolutionActivationSwish},
                       {"GELU", SimdConvolutionActivationGelu}}};

EnumType g_eltwiseOperation{"EltwiseOperation",
                            "Operation of eltwise_layer_forward "
                            "(SimdSynetEltwiseOperationType).",
                            false,
                            {{"PRODUCT", SimdSynetEltwiseOperationProduct},
                             {"SUM", SimdSynetEltwiseOperationSum},
                             {"MAX", SimdSynetEltwiseOperationMax},
                             {"MIN", SimdSynetEltwiseOperationMin}}};

EnumType g_unaryOperation{"UnaryOperation",
                          "Operation of unary_operation32f_layer_forward "
                          "(SimdSynetUnaryOperation32fType).",
                          false,
                          {{"ABS", SimdSynetUnaryOperation32fAbs},
                           {"EXP", SimdSynetUnaryOperation32fExp},
                           {"LOG", SimdSynetUnaryOperation32fLog},
                           {"NEG", SimdSynetUnaryOperation32fNeg},
                           {"RSQRT", SimdSynetUnaryOperation32fRsqrt},
                           {"SQRT", SimdSynetUnaryOperation32fSqrt},
                           {"TANH", SimdSynetUnaryOperation32fTanh},
                           {"ZERO", SimdSynetUnaryOperation32fZero}}};

EnumType g_compatibility{"Compatibility",
                         "Bit fields of SimdSynetCompatibilityType (FMA, INT8 and BF16 fields).",
                         true,
                         {{"DEFAULT", SimdSynetCompatibilityDefault},
                          {"FMA_NO_TAIL", SimdSynetCompatibilityFmaNoTail},
                          {"FMA_AVOID", SimdSynetCompatibilityFmaAvoid},
                          {"FMA_MASK", SimdSynetCompatibilityFmaMask},
                          {"INT8_OVERFLOW", SimdSynetCompatibility8iOverflow},
                          {"INT8_NARROWED", SimdSynetCompatibility8iNarrowed},
                          {"INT8_MASK", SimdSynetCompatibility8iMask},
                          {"BF16_HARD", SimdSynetCompatibility16bfHard},
                          {"BF16_SOFT", SimdSynetCompatibility16bfSoft},
                          {"BF16_MASK", SimdSynetCompatibility16bfMask}}};

EnumType g_pixelFormat{"PixelFormat",
                       "Pixel formats of 8-bit images (SimdPixelFormatType); set_input takes "
                       "GRAY8, BGR24, BGRA32, RGB24 and RGBA32.",
                       false,
                       {{"NONE", SimdPixelFormatNone},
                        {"GRAY8", SimdPixelFormatGray8},
                        {"UV16", SimdPixelFormatUv16},
                        {"BGR24", SimdPixelFormatBgr24},
                        {"BGRA32", SimdPixelFormatBgra32},
                        {"INT16", SimdPixelFormatInt16},
                        {"INT32", SimdPixelFormatInt32},
                        {"INT64", SimdPixelFormatInt64},
                        {"FLOAT", SimdPixelFormatFloat},
                        {"DOUBLE", SimdPixelFormatDouble},
                        {"BAYER_GRBG", SimdPixelFormatBayerGrbg},
                        {"BAYER_GBRG", SimdPixelFormatBayerGbrg},
                        {"BAYER_RGGB", SimdPixelFormatBayerRggb},
                        {"BAYER_BGGR", SimdPixelFormatBayerBggr},
                        {"HSV24", SimdPixelFormatHsv24},
                        {"HSL24", SimdPixelFormatHsl24},
                        {"RGB24", SimdPixelFormatRgb24},
                        {"RGBA32", SimdPixelFormatRgba32}}};

namespace {

EnumType* const g_enums[] = {&g_tensorFormat,     &g_tensorData,     &g_activation,
                             &g_eltwiseOperation, &g_unaryOperation, &g_compatibility,
                             &g_pixelFormat};

PyObject* g_enumBase = nullptr;  // enum.Enum, to tell members of the wrong class

bool SameName(const char* a, const std::string& b) {
    size_t i = 0;
    for (; a[i] && i < b.size(); ++i)
        if (std::toupper(static_cast<unsigned char>(a[i])) !=
            std::toupper(static_cast<unsigned char>(b[i])))
            return false;
    return a[i] == 0 && i == b.size();
}

std::string Names(const EnumType& type) {
    std::string names;
    for (const EnumMember& member : type.members) {
        if (!names.empty()) names += ", ";
        names += member.name;
    }
    return names;
}

}  // namespace

void InitCommon(py::module_& m, bool owner) {
    py::module_ enumModule = py::module_::import("enum");
    g_enumBase = py::object(enumModule.attr("Enum")).release().ptr();
    if (!owner) {
        py::module_ core = py::module_::import("simdsynet._simdsynet");
        static PyObject* error = py::object(core.attr("Error")).release().ptr();
        py::register_local_exception_translator([](std::exception_ptr p) {
            try {
                if (p) std::rethrow_exception(p);
            } catch (const LibraryError& e) {
                PyErr_SetString(error, e.what());
            }
        });
        for (EnumType* type : g_enums)
            type->cls = py::object(core.attr(type->name)).release().ptr();
        return;
    }
    py::register_local_exception<LibraryError>(m, "Error", PyExc_RuntimeError);
    m.attr("Error").attr("__doc__") =
        "The library rejected a call: the message is its SimdSynetGetLastError text.";
    m.attr("Error").attr("__module__") = "simdsynet";
    for (EnumType* type : g_enums) {
        py::list members;
        for (const EnumMember& member : type->members)
            members.append(py::make_tuple(member.name, member.value));
        py::object cls = enumModule.attr(type->flag ? "IntFlag" : "IntEnum")(
            type->name, members, "module"_a = "simdsynet");
        cls.attr("__doc__") = type->doc;
        cls.attr("__qualname__") = type->name;
        type->cls = cls.inc_ref().ptr();
        m.attr(type->name) = cls;
    }
}

int ToEnum(py::handle value, const EnumType& type, const char* argument) {
    if (py::isinstance<py::str>(value)) {
        std::string name = value.cast<std::string>();
        for (const EnumMember& member : type.members)
            if (SameName(member.name, name)) return member.value;
        throw py::value_error(Format("%s: '%s' is not a %s (one of %s)", argument, name.c_str(),
                                     type.name, Names(type).c_str()));
    }
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        throw py::type_error(Format("%s must be a simdsynet.%s, an int or a name, not %s", argument,
                                    type.name, Py_TYPE(value.ptr())->tp_name));
    if (PyObject_IsInstance(value.ptr(), g_enumBase) == 1 &&
        PyObject_IsInstance(value.ptr(), type.cls) != 1)
        throw py::type_error(Format("%s must be a simdsynet.%s, not %s", argument, type.name,
                                    Py_TYPE(value.ptr())->tp_name));
    long long v =
        PyLong_AsLongLong(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())).ptr());
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        v = LLONG_MAX;  // out of range either way
    }
    if (type.flag) {
        if (v < 0 || v > INT_MAX)
            throw py::value_error(Format("%s: %lld is not a valid %s", argument, v, type.name));
        return static_cast<int>(v);
    }
    for (const EnumMember& member : type.members)
        if (member.value == v) return member.value;
    throw py::value_error(Format("%s: %lld is not a valid %s (one of %s)", argument, v, type.name,
                                 Names(type).c_str()));
}

py::object FromEnum(const EnumType& type, int value) {
    return py::reinterpret_borrow<py::object>(type.cls)(value);
}

// ---------------------------------------------------------------------------------------------
// Scalars.

size_t ToSize(py::handle value, const char* argument) {
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        throw py::type_error(
            Format("%s must be an int, not %s", argument, Py_TYPE(value.ptr())->tp_name));
    py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
    if (!index) throw py::error_already_set();
    long long v = PyLong_AsLongLong(index.ptr());
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(Format("%s is too large", argument));
    }
    if (v < 0) throw py::value_error(Format("%s must not be negative, got %lld", argument, v));
    return static_cast<size_t>(v);
}

std::vector<size_t> ToSizes(py::handle value, size_t n, const char* argument) {
    if (PyIndex_Check(value.ptr()) && !PyBool_Check(value.ptr()))
        return std::vector<size_t>(n, ToSize(value, argument));
    if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value))
        throw py::type_error(Format("%s must be an int or a sequence of %zu ints", argument, n));
    auto sequence = py::reinterpret_borrow<py::sequence>(value);
    if (sequence.size() != n)
        throw py::value_error(
            Format("%s must have %zu values, not %zu", argument, n, size_t(sequence.size())));
    std::vector<size_t> sizes;
    for (py::handle item : sequence) sizes.push_back(ToSize(item, argument));
    return sizes;
}

SimdBool ToBool(py::handle value, const char* argument) {
    if (PyBool_Check(value.ptr())) return value.ptr() == Py_True ? SimdTrue : SimdFalse;
    if (std::string(Py_TYPE(value.ptr())->tp_name) == "numpy.bool_")
        return PyObject_IsTrue(value.ptr()) ? SimdTrue : SimdFalse;
    if (PyIndex_Check(value.ptr())) {
        long long v =
            PyLong_AsLongLong(py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr())).ptr());
        if (v == 0 || v == 1) return v ? SimdTrue : SimdFalse;
        PyErr_Clear();
    }
    throw py::type_error(Format("%s must be a bool", argument));
}

// ---------------------------------------------------------------------------------------------
// Arrays.

std::string ShapeText(const Shape& shape) {
    std::string text = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ", ";
        text += std::to_string(shape[i]);
    }
    if (shape.size() == 1) text += ",";
    return text + ")";
}

Shape ShapeOf(const py::array& a) {
    return Shape(a.shape(), a.shape() + a.ndim());
}

size_t Product(const Shape& shape, size_t begin, size_t end) {
    size_t product = 1;
    for (size_t i = begin; i < shape.size() && i < end; ++i) product *= size_t(shape[i]);
    return product;
}

void CheckContiguous(const py::array& a, const char* argument) {
    if (!(a.flags() & py::array::c_style))
        throw py::value_error(Format(
            "%s must be C-contiguous (numpy.ascontiguousarray makes a contiguous copy)", argument));
    if (!(a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_))
        throw py::value_error(Format("%s is not aligned to its element size", argument));
}

py::array Vector(py::handle value, const char* argument, size_t length) {
    return Input<float>(value, argument, Shape{py::ssize_t(length)});
}

py::array_t<float> Floats(py::handle value, const char* argument, size_t length) {
    auto a = NoArray<py::array_t<float>>();
    try {
        a = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(value);
    } catch (const py::error_already_set&) {
    }
    if (!a) {
        PyErr_Clear();
        throw py::type_error(Format("%s must be a sequence of numbers", argument));
    }
    if (a.ndim() > 1 || size_t(a.size()) != length)
        throw py::value_error(Format("%s must hold %zu value%s, not %s", argument, length,
                                     length == 1 ? "" : "s", ShapeText(ShapeOf(a)).c_str()));
    return a;
}

void CheckWritable(const py::array& a, const char* argument) {
    if (!a.writeable()) throw py::value_error(Format("%s is read-only", argument));
}

namespace {

// The bytes an array's elements span (strides of either sign); empty for an empty array.
struct Span {
    uintptr_t begin, end;
};

Span BytesOf(const py::array& a) {
    if (a.size() == 0) return {0, 0};
    auto begin = reinterpret_cast<uintptr_t>(a.data());
    uintptr_t end = begin + a.itemsize();
    for (py::ssize_t i = 0; i < a.ndim(); ++i) {
        py::ssize_t reach = (a.shape(i) - 1) * a.strides(i);
        if (reach >= 0)
            end += uintptr_t(reach);
        else
            begin -= uintptr_t(-reach);
    }
    return {begin, end};
}

bool Overlap(const py::array& a, const py::array& b) {
    Span x = BytesOf(a), y = BytesOf(b);
    return x.begin < x.end && y.begin < y.end && x.begin < y.end && y.begin < x.end;
}

}  // namespace

void CheckDisjoint(const py::array& out, const char* outName, const py::array& in,
                   const char* inName) {
    if (Overlap(out, in)) throw py::value_error(Format("%s must not overlap %s", outName, inName));
}

void CheckDisjointOrSame(const py::array& out, const char* outName, const py::array& in,
                         const char* inName) {
    if (Overlap(out, in) && out.data() != in.data())
        throw py::value_error(
            Format("%s must be %s itself (in place) or not overlap it", outName, inName));
}

// ---------------------------------------------------------------------------------------------
// Image tensors.

Shape Image::ShapeFor(size_t c, const Shape& sp) const {
    Shape shape{py::ssize_t(batch)};
    if (format == SimdTensorFormatNhwc) {
        shape.insert(shape.end(), sp.begin(), sp.end());
        shape.push_back(py::ssize_t(c));
    } else {
        shape.push_back(py::ssize_t(c / block));
        shape.insert(shape.end(), sp.begin(), sp.end());
        if (block > 1) shape.push_back(py::ssize_t(block));
    }
    return shape;
}

namespace {

bool IsAccepted(SimdTensorFormatType format, Layouts accepted) {
    bool plain = format == SimdTensorFormatNchw || format == SimdTensorFormatNhwc;
    bool blocked = format == SimdTensorFormatNchw4c || format == SimdTensorFormatNchw8c ||
                   format == SimdTensorFormatNchw16c;
    return plain || (blocked && accepted == Layouts::Blocked);
}

std::string AcceptedText(const char* argument, Layouts accepted) {
    return Format(
        "%s must be %s", argument,
        accepted == Layouts::Blocked ? "NCHW, NHWC, NCHW4C, NCHW8C or NCHW16C" : "NCHW or NHWC");
}

}  // namespace

SimdTensorFormatType ToImageFormat(py::handle value, const char* argument, Layouts accepted) {
    auto format = SimdTensorFormatType(ToEnum(value, g_tensorFormat, argument));
    if (!IsAccepted(format, accepted)) throw py::value_error(AcceptedText(argument, accepted));
    return format;
}

Image ParseImage(const py::array& a, SimdTensorFormatType format, const char* argument,
                 Layouts accepted) {
    if (!IsAccepted(format, accepted)) throw py::value_error(AcceptedText("format", accepted));
    Shape shape = ShapeOf(a);
    Image image{format, 0, 0, 0, SimdSynetTensorAlignment(format), {}};
    size_t n = shape.size();
    if (image.block == 1) {
        if (n < 2)
            throw py::value_error(
                Format("%s must have at least 2 axes (%s), not %s", argument,
                       format == SimdTensorFormatNchw ? "N, C, *spatial" : "N, *spatial, C",
                       ShapeText(shape).c_str()));
        bool nchw = format == SimdTensorFormatNchw;
        image.channels = size_t(shape[nchw ? 1 : n - 1]);
        image.spatialShape = nchw ? Shape(shape.begin() + 2, shape.end())
                                  : Shape(shape.begin() + 1, shape.end() - 1);
    } else {
        if (n < 3 || size_t(shape[n - 1]) != image.block)
            throw py::value_error(Format("%s must have shape (N, C/%zu, *spatial, %zu), not %s",
                                         argument, image.block, image.block,
                                         ShapeText(shape).c_str()));
        image.channels = size_t(shape[1]) * image.block;
        image.spatialShape = Shape(shape.begin() + 2, shape.end() - 1);
    }
    image.batch = size_t(shape[0]);
    image.spatial = Product(image.spatialShape);
    return image;
}

}  // namespace simdsynet_python
