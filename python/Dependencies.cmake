# What the Python package needs, found before the SIMD_SYNET_PYTHON option is declared (included
# by the top-level CMakeLists.txt): Debian's interpreter /usr/bin/python3 first (another python3
# earlier in PATH may not see Debian's modules), its headers (python3-dev), pybind11
# (pybind11-dev) and numpy for that interpreter (python3-numpy). Sets SIMD_SYNET_PYTHON_FOUND and
# SIMD_SYNET_PYTHON_MISSING (the Debian packages missing).
set(SIMD_SYNET_PYTHON_MISSING "")
if(CMAKE_CROSSCOMPILING)
    # The interpreter, its headers (pyconfig.h) and numpy found here would be the build
    # machine's, not the target's; Debian's python3 of another architecture replaces the
    # native one rather than installing beside it, so a cross build has no target Python.
    set(SIMD_SYNET_PYTHON_FOUND OFF)
    set(SIMD_SYNET_PYTHON_MISSING "python3 for ${CMAKE_SYSTEM_PROCESSOR} (cross-compiling)")
    return()
endif()
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
endif()
# Development.Module (headers, no libpython to link) exists from CMake 3.18.
if(CMAKE_VERSION VERSION_LESS 3.18)
    set(python_development Development)
else()
    set(python_development Development.Module)
endif()
find_package(Python3 COMPONENTS Interpreter ${python_development} QUIET)
if(NOT Python3_Interpreter_FOUND)
    list(APPEND SIMD_SYNET_PYTHON_MISSING python3)
elseif(NOT Python3_${python_development}_FOUND)
    list(APPEND SIMD_SYNET_PYTHON_MISSING python3-dev)
else()
    find_package(pybind11 CONFIG QUIET)
    if(NOT pybind11_FOUND)
        list(APPEND SIMD_SYNET_PYTHON_MISSING pybind11-dev)
    endif()
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy"
        RESULT_VARIABLE numpy_result OUTPUT_QUIET ERROR_QUIET)
    if(NOT numpy_result EQUAL 0)
        list(APPEND SIMD_SYNET_PYTHON_MISSING python3-numpy)
    endif()
endif()
if(SIMD_SYNET_PYTHON_MISSING)
    set(SIMD_SYNET_PYTHON_FOUND OFF)
else()
    set(SIMD_SYNET_PYTHON_FOUND ON)
endif()
