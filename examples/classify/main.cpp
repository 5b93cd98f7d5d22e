// Classifies an image with a compiled network (.ssn) through the runtime's C++ helpers:
//   classify MODEL.ssn IMAGE.ppm [--threads N]
// The image (binary PPM, P6) is resized to the network input's height and width (bilinear),
// normalised with ImageNet's mean and standard deviation and laid out as NCHW floats; the
// first output's five highest scores are printed. No Python involved.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "SimdSynetRuntime.hpp"

namespace {

struct Image {
    size_t width = 0, height = 0;
    std::vector<float> rgb;  // interleaved, scaled to [0, 1]
};

// Skips whitespace and '#' comments between the fields of a PPM header.
void SkipSpace(const std::string& bytes, size_t& pos) {
    while (pos < bytes.size()) {
        if (bytes[pos] == '#')
            while (pos < bytes.size() && bytes[pos] != '\n') ++pos;
        else if (std::isspace(static_cast<unsigned char>(bytes[pos])))
            ++pos;
        else
            break;
    }
}

bool ReadNumber(const std::string& bytes, size_t& pos, size_t& value) {
    SkipSpace(bytes, pos);
    const size_t start = pos;
    value = 0;
    while (pos < bytes.size() && pos - start < 9 &&
           std::isdigit(static_cast<unsigned char>(bytes[pos])))
        value = value * 10 + size_t(bytes[pos++] - '0');
    return pos > start;
}

bool ReadPpm(const std::string& path, Image& image, std::string& error) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        error = path + ": cannot open";
        return false;
    }
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    if (bytes.compare(0, 2, "P6") != 0) {
        error = path + ": not a binary PPM image (P6)";
        return false;
    }
    size_t pos = 2, maxval = 0;
    if (!ReadNumber(bytes, pos, image.width) || !ReadNumber(bytes, pos, image.height) ||
        !ReadNumber(bytes, pos, maxval) || pos == bytes.size() || image.width == 0 ||
        image.height == 0 || maxval == 0 || maxval > 65535) {
        error = path + ": bad PPM header";
        return false;
    }
    ++pos;  // the single whitespace character before the pixels
    // Samples above 255 take two bytes, most significant first (netpbm).
    const size_t sample = maxval > 255 ? 2 : 1;
    const size_t count = image.width * image.height * 3;
    if (bytes.size() - pos < count * sample) {
        error = path + ": the pixels are cut short";
        return false;
    }
    image.rgb.resize(count);
    const unsigned char* p = reinterpret_cast<const unsigned char*>(bytes.data()) + pos;
    for (size_t i = 0; i < count; ++i, p += sample) {
        const size_t v = sample == 2 ? size_t(p[0]) << 8 | p[1] : p[0];
        image.rgb[i] = float(std::min(v, maxval)) / float(maxval);
    }
    return true;
}

// Bilinear resize with half-pixel centres (PIL's and torchvision's convention without
// antialiasing) straight into normalised NCHW planes.
std::vector<float> Preprocess(const Image& image, size_t height, size_t width) {
    const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
    std::vector<float> tensor(3 * height * width);
    const float sy = float(image.height) / float(height), sx = float(image.width) / float(width);
    for (size_t y = 0; y < height; ++y) {
        const float fy = std::max(0.0f, (float(y) + 0.5f) * sy - 0.5f);
        const size_t y0 = std::min(size_t(fy), image.height - 1);
        const size_t y1 = std::min(y0 + 1, image.height - 1);
        const float wy = fy - float(y0);
        for (size_t x = 0; x < width; ++x) {
            const float fx = std::max(0.0f, (float(x) + 0.5f) * sx - 0.5f);
            const size_t x0 = std::min(size_t(fx), image.width - 1);
            const size_t x1 = std::min(x0 + 1, image.width - 1);
            const float wx = fx - float(x0);
            for (size_t c = 0; c < 3; ++c) {
                auto at = [&](size_t yy, size_t xx) {
                    return image.rgb[(yy * image.width + xx) * 3 + c];
                };
                const float top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * wx;
                const float bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * wx;
                const float v = top + (bottom - top) * wy;
                tensor[(c * height + y) * width + x] = (v - mean[c]) / std[c];
            }
        }
    }
    return tensor;
}

int Fail(const std::string& message) {
    std::fprintf(stderr, "classify: %s\n", message.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    size_t threads = 1;
    if (argc == 5 && std::string(argv[3]) == "--threads") threads = std::strtoul(argv[4], 0, 10);
    if ((argc != 3 && argc != 5) || threads == 0)
        return Fail("usage: classify MODEL.ssn IMAGE.ppm [--threads N]");
    Simd::Network net;
    if (!net.Load(argv[1], threads)) return Fail(Simd::Network::LastError());
    const std::vector<size_t> shape = net.InputShape(0);
    if (net.InputCount() != 1 || shape.size() != 4 || shape[0] != 1 || shape[1] != 3)
        return Fail(std::string(argv[1]) + ": the network does not take one 1x3xHxW image");
    Image image;
    std::string error;
    if (!ReadPpm(argv[2], image, error)) return Fail(error);

    std::vector<std::vector<float> > inputs(1, Preprocess(image, shape[2], shape[3])), outputs;
    if (!net.Run(inputs, outputs)) return Fail(Simd::Network::LastError());

    const std::vector<float>& scores = outputs[0];
    std::vector<size_t> order(scores.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const size_t top = std::min<size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + top, order.end(), [&](size_t a, size_t b) {
        // NaN last, ties by class: a strict order whatever the scores.
        if (std::isnan(scores[a]) || std::isnan(scores[b]))
            return !std::isnan(scores[a]) || (std::isnan(scores[b]) && a < b);
        return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
    });
    std::printf("%s: %zux%zu resized to %zux%zu, output '%s'\n", argv[2], image.width, image.height,
                shape[3], shape[2], net.OutputName(0).c_str());
    for (size_t i = 0; i < top; ++i)
        std::printf("top-%zu: class %zu score %.5g\n", i + 1, order[i], scores[order[i]]);
    return 0;
}
