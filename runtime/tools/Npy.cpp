#include "Npy.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
// The values are copied as they lie in the file; a big-endian host would need byte swaps.
#error "the .npy reader and writer assume a little-endian host"
#endif

namespace simdsynet_tools {

namespace {

const char kMagic[] = "\x93NUMPY";
const size_t kMagicSize = 6;

// The header is a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 4, 4), }
// NumPy writes only strings, booleans and tuples of integers in it, so this reads just those.
class HeaderParser {
public:
    HeaderParser(const std::string& text, const std::string& path) : text_(text), path_(path) {}

    void Parse(std::string& descr, bool& fortran, std::vector<size_t>& shape) {
        bool seen[3] = {false, false, false};
        Expect('{');
        while (Skip() != '}') {
            const std::string key = String();
            Expect(':');
            if (key == "descr") {
                descr = String();
                seen[0] = true;
            } else if (key == "fortran_order") {
                fortran = Bool();
                seen[1] = true;
            } else if (key == "shape") {
                shape = Tuple();
                seen[2] = true;
            } else {
                Fail("unknown key '" + key + "'");
            }
            if (Skip() == ',') ++pos_;
        }
        if (!seen[0] || !seen[1] || !seen[2])
            Fail("the header lacks one of 'descr', 'fortran_order', 'shape'");
    }

private:
    const std::string& text_;
    const std::string& path_;
    size_t pos_ = 0;

    [[noreturn]] void Fail(const std::string& what) const {
        throw NpyError(path_ + ": not a valid .npy header (" + what + "): " + text_);
    }

    char Skip() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
        if (pos_ == text_.size()) Fail("it ends early");
        return text_[pos_];
    }

    void Expect(char c) {
        if (Skip() != c) Fail(std::string("expected '") + c + "'");
        ++pos_;
    }

    std::string String() {
        const char quote = Skip();
        if (quote != '\'' && quote != '"') Fail("expected a string");
        const size_t end = text_.find(quote, ++pos_);
        if (end == std::string::npos) Fail("a string does not end");
        std::string value = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return value;
    }

    bool Bool() {
        Skip();
        if (text_.compare(pos_, 4, "True") == 0) {
            pos_ += 4;
            return true;
        }
        if (text_.compare(pos_, 5, "False") == 0) {
            pos_ += 5;
            return false;
        }
        Fail("expected True or False");
    }

    std::vector<size_t> Tuple() {
        std::vector<size_t> values;
        Expect('(');
        while (Skip() != ')') {
            if (!std::isdigit(static_cast<unsigned char>(text_[pos_])))
                Fail("a dimension is not a non-negative integer");
            size_t value = 0;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                const size_t digit = size_t(text_[pos_++] - '0');
                if (value > (SIZE_MAX - digit) / 10) Fail("a dimension is too large");
                value = value * 10 + digit;
            }
            values.push_back(value);
            if (Skip() == ',') ++pos_;
        }
        ++pos_;
        return values;
    }
};

}  // namespace

std::string ShapeString(const std::vector<size_t>& shape) {
    std::string text = "(";
    for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

NpyArray ReadNpy(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw NpyError(path + ": cannot open: " + std::strerror(errno));
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    if (file.bad()) throw NpyError(path + ": cannot read: " + std::strerror(errno));
    if (bytes.size() < kMagicSize + 4 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0)
        throw NpyError(path + ": not a .npy file (no \\x93NUMPY magic)");
    const unsigned major = static_cast<unsigned char>(bytes[6]);
    // Version 1 has a 2-byte header length, versions 2 and 3 (3: UTF-8 header) a 4-byte one.
    size_t header_size = 0, offset = 0;
    if (major == 1) {
        header_size = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
        offset = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) throw NpyError(path + ": the .npy header is cut short");
        for (int i = 3; i >= 0; --i) header_size = header_size << 8 | uint8_t(bytes[8 + i]);
        offset = 12;
    } else {
        throw NpyError(path + ": .npy format version " + std::to_string(major) +
                       " is not one of 1, 2, 3");
    }
    if (header_size > bytes.size() - offset)
        throw NpyError(path + ": the .npy header is cut short");
    const std::string header = bytes.substr(offset, header_size);
    std::string descr;
    bool fortran = false;
    NpyArray array;
    HeaderParser(header, path).Parse(descr, fortran, array.shape);
    // '=f4' is native order, little-endian on every host this builds for.
    if (descr != "<f4" && descr != "=f4")
        throw NpyError(path + ": dtype '" + descr +
                       "' is not float32 little-endian ('<f4'); save the array as "
                       "x.astype(numpy.float32)");
    if (fortran)
        throw NpyError(path +
                       ": the array is in Fortran order; save a C-order array "
                       "(numpy.ascontiguousarray(x))");
    size_t volume = 1;
    for (size_t d : array.shape) {
        if (d != 0 && volume > SIZE_MAX / sizeof(float) / d)
            throw NpyError(path + ": the shape " + ShapeString(array.shape) + " is too large");
        volume *= d;
    }
    const size_t data_offset = offset + header_size;
    const size_t expected = volume * sizeof(float);
    if (bytes.size() - data_offset != expected)
        throw NpyError(path + ": " + std::to_string(bytes.size() - data_offset) +
                       " bytes of data, the shape " + ShapeString(array.shape) + " takes " +
                       std::to_string(expected));
    array.data.resize(volume);
    if (volume) std::memcpy(array.data.data(), bytes.data() + data_offset, expected);
    return array;
}

void WriteNpy(const std::string& path, const std::vector<size_t>& shape, const float* data) {
    std::string header =
        "{'descr': '<f4', 'fortran_order': False, 'shape': " + ShapeString(shape) + ", }";
    // NumPy pads with spaces and ends with a newline so that the data start 64-byte aligned.
    const size_t total = (kMagicSize + 4 + header.size() + 1 + 63) / 64 * 64;
    header.append(total - kMagicSize - 4 - header.size() - 1, ' ');
    header += '\n';
    if (header.size() > 0xffff)
        throw NpyError(path + ": the shape " + ShapeString(shape) + " is too long for a header");
    size_t volume = 1;
    for (size_t d : shape) volume *= d;
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) throw NpyError(path + ": cannot create: " + std::strerror(errno));
    file.write(kMagic, kMagicSize);
    const char version_and_size[4] = {1, 0, char(header.size() & 0xff), char(header.size() >> 8)};
    file.write(version_and_size, 4);
    file.write(header.data(), std::streamsize(header.size()));
    file.write(reinterpret_cast<const char*>(data), std::streamsize(volume * sizeof(float)));
    file.close();
    if (!file) throw NpyError(path + ": cannot write: " + std::strerror(errno));
}

}  // namespace simdsynet_tools
