// A reader and writer of NumPy's .npy files for float32 arrays in C order, the only kind the
// network runtime takes and gives; the tools need no NumPy of their own.
#ifndef SIMD_SYNET_TOOLS_NPY_H
#define SIMD_SYNET_TOOLS_NPY_H

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace simdsynet_tools {

struct NpyArray {
    std::vector<size_t> shape;
    std::vector<float> data;
};

// A file that cannot be read, is not a .npy file or holds another kind of array; the message
// names the file and what is wrong with it.
class NpyError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reads a .npy file of any format version holding a little-endian float32 array in C order.
NpyArray ReadNpy(const std::string& path);

// Writes `shape` and its values as a version 1.0 .npy file ('<f4', C order), the header padded
// to 64 bytes as NumPy writes it.
void WriteNpy(const std::string& path, const std::vector<size_t>& shape, const float* data);

// "(1, 3, 224, 224)", "(5,)" and "()", as Python prints a shape tuple.
std::string ShapeString(const std::vector<size_t>& shape);

}  // namespace simdsynet_tools

#endif  // SIMD_SYNET_TOOLS_NPY_H
