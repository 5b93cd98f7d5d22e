# Installs the build into a scratch prefix and imports simdsynet from there with the configured
# interpreter (Debian's /usr/bin/python3): the package must work from the prefix alone, its
# extension finding the installed shared library through its RPATH (no LD_LIBRARY_PATH). Also
# checks that the install directory under /usr/local is one the interpreter searches, so that
# `cmake --install build --prefix /usr/local` makes `import simdsynet` work as is.
# Variables: BUILD_DIR, PYTHON, INSTALL_DIR (relative to the prefix, or absolute).
set(prefix ${BUILD_DIR}/python-installed-package)
file(REMOVE_RECURSE ${prefix})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
    RESULT_VARIABLE result OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "cmake --install failed: ${err}")
endif()

if(IS_ABSOLUTE ${INSTALL_DIR})
    message(STATUS "absolute install directory ${INSTALL_DIR}: not relocatable, import not tested")
    return()
endif()
set(site ${prefix}/${INSTALL_DIR})
set(check [=[
import os, sys
import numpy as np
import simdsynet as ss
site = os.path.realpath(sys.argv[1])
assert os.path.realpath(ss.__file__).startswith(site), ss.__file__
assert os.path.realpath(ss._simdsynet.__file__).startswith(site), ss._simdsynet.__file__
assert "LD_LIBRARY_PATH" not in os.environ
x = np.array([-1.0, 2.0], dtype=np.float32)
assert ss.relu32f(x).tolist() == [0.0, 2.0]
with ss.Convolution32f(src_c=1, src_h=2, src_w=2, dst_c=1, kernel=1) as c:
    c.set_params(np.full((1, 1, 1, 1), 2.0, np.float32))
    assert c.forward(np.ones((1, 1, 2, 2), np.float32)).tolist() == [[[[2.0, 2.0], [2.0, 2.0]]]]
print("simdsynet", ss.version(), ss.isa(), "from", os.path.dirname(ss.__file__))
]=])
# A clean environment: the prefix's package directory only, run from outside the trees.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH PYTHONPATH=${site}
    PYTHONDONTWRITEBYTECODE=1 ${PYTHON} -c "${check}" ${site}
    WORKING_DIRECTORY ${prefix} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "import from ${site} failed:\n${out}\n${err}")
endif()
message(STATUS "${out}")

# /usr/local's install directory is on the interpreter's default path.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PYTHONPATH ${PYTHON} -c
    "import os, sys; print(os.path.normpath(sys.argv[1]) in map(os.path.normpath, sys.path))"
    /usr/local/${INSTALL_DIR} OUTPUT_VARIABLE on_path OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT on_path STREQUAL "True")
    message(FATAL_ERROR "/usr/local/${INSTALL_DIR} is not on ${PYTHON}'s sys.path")
endif()
