// simdsynet-run: loads a network file, runs it once on inputs from .npy files (or random ones)
// and prints the outputs; with --output-dir also writes them as .npy files.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "Common.h"
#include "Npy.h"
#include "SimdSynetRuntime.hpp"

using namespace simdsynet_tools;

namespace {

const char kUsage[] =
    "usage: simdsynet-run FILE.ssn [--input x.npy | --input NAME=x.npy ...] [--output-dir DIR] "
    "[--threads N]\n"
    "Runs a compiled network once and prints each output's name and shape, and the top-5\n"
    "classes of classifier outputs (N x K). Inputs: float32 .npy files in C order, one per input\n"
    "(NAME=FILE where the network has several); random standard-normal values (fixed seed)\n"
    "without --input. --output-dir DIR writes each output as DIR/<name>.npy.\n";

struct Failure {
    std::string message;
};

[[noreturn]] void Fail(const std::string& message) {
    throw Failure{message};
}

// Output names come from the ONNX model ("logits/Softmax:0"); only characters safe in every file
// system stay, and names that would become equal get the output's index.
std::vector<std::string> FileNames(const Simd::Network& net) {
    std::vector<std::string> names;
    std::set<std::string> used;
    for (size_t i = 0; i < net.OutputCount(); ++i) {
        std::string name = net.OutputName(i);
        for (char& c : name)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
                c = '_';
        // No hidden files, no "." or "..".
        if (name.empty() || name[0] == '.') name = "_" + name;
        if (used.count(name)) name += "_" + std::to_string(i);
        used.insert(name);
        names.push_back(name + ".npy");
    }
    return names;
}

std::vector<std::vector<float>> ReadInputs(const Simd::Network& net,
                                           const std::vector<std::string>& specs) {
    const size_t count = net.InputCount();
    std::vector<std::vector<float>> inputs(count);
    for (size_t i = 0; i < count; ++i) inputs[i].resize(Simd::Network::Volume(net.InputShape(i)));
    if (specs.empty()) {
        RandomFill(inputs);
        for (size_t i = 0; i < count; ++i)
            std::printf("input '%s': shape %s, random (standard normal, seed 0)\n",
                        net.InputName(i).c_str(), ShapeString(net.InputShape(i)).c_str());
        return inputs;
    }
    std::vector<bool> given(count, false);
    for (const std::string& spec : specs) {
        // NAME=FILE where NAME is an input; otherwise the whole text is the file of the only
        // input (a file name may hold '=').
        size_t index = count;
        std::string path = spec;
        const size_t equals = spec.find('=');
        if (equals != std::string::npos) {
            index = net.InputIndex(spec.substr(0, equals));
            if (index < count) path = spec.substr(equals + 1);
        }
        if (index == count) {
            if (count != 1) {
                std::string names;
                for (size_t i = 0; i < count; ++i) names += (i ? ", " : "") + net.InputName(i);
                Fail("--input " + spec + ": give NAME=FILE, NAME one of the network's " +
                     std::to_string(count) + " inputs: " + names);
            }
            index = 0;
        }
        const std::string name = net.InputName(index);
        if (given[index]) Fail("--input " + spec + ": input '" + name + "' is given twice");
        given[index] = true;
        NpyArray array = ReadNpy(path);
        const std::vector<size_t> shape = net.InputShape(index);
        if (array.shape != shape)
            Fail("input '" + name + "': " + path + " has shape " + ShapeString(array.shape) +
                 ", the network takes " + ShapeString(shape));
        inputs[index] = std::move(array.data);
        std::printf("input '%s': shape %s, from %s\n", name.c_str(), ShapeString(shape).c_str(),
                    path.c_str());
    }
    for (size_t i = 0; i < count; ++i)
        if (!given[i]) Fail("input '" + net.InputName(i) + "' not given (--input NAME=FILE)");
    return inputs;
}

void PrintOutput(const std::string& name, const std::vector<size_t>& shape,
                 const std::vector<float>& values) {
    float lo = INFINITY, hi = -INFINITY;
    for (float v : values) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    std::printf("output '%s': shape %s", name.c_str(), ShapeString(shape).c_str());
    if (!values.empty()) std::printf(", min %.6g, max %.6g", lo, hi);
    std::printf("\n");
    if (shape.size() != 2 || shape[1] < 5) return;
    const size_t k = shape[1];
    for (size_t item = 0; item < shape[0]; ++item) {
        const float* row = values.data() + item * k;
        std::vector<size_t> order(k);
        for (size_t i = 0; i < k; ++i) order[i] = i;
        // Ties keep the lower class first and NaN goes last, as numpy.argsort(-row, 'stable').
        std::stable_sort(order.begin(), order.end(), [row](size_t a, size_t b) {
            if (std::isnan(row[a])) return false;
            return std::isnan(row[b]) || row[a] > row[b];
        });
        std::printf("  item %zu top-5:", item);
        for (size_t j = 0; j < 5; ++j)
            std::printf("%s %zu (%.5g)", j ? "," : "", order[j], row[order[j]]);
        std::printf("\n");
    }
}

int Main(int argc, char** argv) {
    std::string file, output_dir;
    std::vector<std::string> specs;
    size_t threads = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 == argc) Fail(arg + " needs a value\n" + kUsage);
            return argv[++i];
        };
        if (arg == "--help" || arg == "-h") {
            std::printf("%s", kUsage);
            return 0;
        } else if (arg == "--input") {
            specs.push_back(value());
        } else if (arg == "--output-dir") {
            output_dir = value();
        } else if (arg == "--threads") {
            const std::string text = value();
            if (!ParseCount(text, 1, threads)) Fail("--threads " + text + ": not a count >= 1");
        } else if (arg.size() > 1 && arg[0] == '-') {
            Fail("unknown option " + arg + "\n" + kUsage);
        } else if (file.empty()) {
            file = arg;
        } else {
            Fail("more than one network file: " + file + ", " + arg + "\n" + kUsage);
        }
    }
    if (file.empty()) Fail(std::string("no network file given\n") + kUsage);

    Simd::Network net;
    if (!net.Load(file, threads)) Fail(Simd::Network::LastError());
    std::printf("%s: %zu steps, %zu input(s), %zu output(s), simd-synet %s on %s, %zu thread(s)\n",
                file.c_str(), net.StepCount(), net.InputCount(), net.OutputCount(), SimdVersion(),
                SimdSynetIsa(), net.Threads());
    const std::vector<std::vector<float>> inputs = ReadInputs(net, specs);
    std::vector<std::vector<float>> outputs;
    if (!net.Run(inputs, outputs)) Fail(Simd::Network::LastError());
    for (size_t i = 0; i < outputs.size(); ++i)
        PrintOutput(net.OutputName(i), net.OutputShape(i), outputs[i]);
    if (!output_dir.empty()) {
        std::error_code error;
        std::filesystem::create_directories(output_dir, error);
        if (error) Fail("--output-dir " + output_dir + ": " + error.message());
        const std::vector<std::string> names = FileNames(net);
        for (size_t i = 0; i < outputs.size(); ++i) {
            const std::string path = (std::filesystem::path(output_dir) / names[i]).string();
            WriteNpy(path, net.OutputShape(i), outputs[i].data());
            std::printf("wrote output '%s' to %s\n", net.OutputName(i).c_str(), path.c_str());
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return Main(argc, argv);
    } catch (const Failure& failure) {
        std::fprintf(stderr, "simdsynet-run: %s\n", failure.message.c_str());
    } catch (const std::exception& error) {
        std::fprintf(stderr, "simdsynet-run: %s\n", error.what());
    }
    return 1;
}
