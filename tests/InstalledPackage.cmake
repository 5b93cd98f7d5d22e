# Installs the built library into a scratch prefix, then builds and runs examples/consumer and
# examples/classify against it through find_package, C programs through pkg-config (the
# kernels' simdsynet.pc and the runtime's simdsynet-runtime.pc), and the installed tools.
# Variables: BUILD_DIR, SOURCE_DIR; cross-compiled also TOOLCHAIN_FILE (the consumer is built
# with it), C_COMPILER (the C compiler of the pkg-config check), EMULATOR (the command line the
# programs built run through) and PKG_CONFIG_LIBDIR (where the target's .pc files are).
set(prefix ${BUILD_DIR}/installed-package/prefix)
set(work ${BUILD_DIR}/installed-package/consumer)
file(REMOVE_RECURSE ${BUILD_DIR}/installed-package)

function(run)
    execute_process(COMMAND ${ARGV} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "failed (${result}): ${ARGV}\n${out}\n${err}")
    endif()
    message(STATUS "${out}")
endfunction()

# run_failing(<text> <command>...): the command must fail and say <text> on stderr. Running a
# program against a missing network file still loads the installed libraries through its RPATH
# and reads the runtime's message; running a real network needs the Python compiler
# (python/tests/test_runtime_tools.py does that).
function(run_failing text)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(FIND "${err}" "${text}" found)
    if(result EQUAL 0 OR found EQUAL -1)
        message(FATAL_ERROR "expected a failure saying '${text}' (${result}): ${ARGN}\n${out}\n${err}")
    endif()
    message(STATUS "${err}")
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(toolchain "")
if(TOOLCHAIN_FILE)
    set(toolchain -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE})
endif()
if(NOT C_COMPILER)
    set(C_COMPILER cc)
endif()
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${work} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release ${toolchain})
run(${CMAKE_COMMAND} --build ${work})
run(${emulator} ${work}/consumer)
run(${emulator} ${work}/consumer_static)
run(${emulator} ${work}/consumer_c)

# The runtime: examples/classify (SimdSynet::simdsynet_runtime, SimdSynetRuntime.hpp in C++11)
# and the installed tools.
set(classify ${BUILD_DIR}/installed-package/classify)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/classify -B ${classify}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release ${toolchain})
run(${CMAKE_COMMAND} --build ${classify})
run_failing("missing.ssn: cannot open" ${emulator} ${classify}/classify missing.ssn image.ppm)
run(${emulator} ${prefix}/bin/simdsynet-run --help)
run_failing("missing.ssn: cannot open" ${emulator} ${prefix}/bin/simdsynet-run missing.ssn)
run(${emulator} ${prefix}/bin/simdsynet-bench --help)
run_failing("missing.ssn: cannot open" ${emulator} ${prefix}/bin/simdsynet-bench missing.ssn)

# pkg-config: compile and link a C program with the flags the .pc file gives.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pcdir ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
if(PKG_CONFIG_LIBDIR)
    set(ENV{PKG_CONFIG_LIBDIR} "${pcdir}:${PKG_CONFIG_LIBDIR}")
else()
    set(ENV{PKG_CONFIG_PATH} "${pcdir}")
endif()
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs simdsynet OUTPUT_VARIABLE flags
    RESULT_VARIABLE result OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config does not know simdsynet")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${C_COMPILER} ${SOURCE_DIR}/examples/consumer/main.c ${flags} -o ${work}/pkgconfig_consumer)
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs simdsynet-runtime OUTPUT_VARIABLE flags
    RESULT_VARIABLE result OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config does not know simdsynet-runtime")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${C_COMPILER} ${SOURCE_DIR}/examples/consumer/runtime.c ${flags}
    -o ${work}/pkgconfig_runtime_consumer)
file(GLOB libdir ${prefix}/lib*)
set(ENV{LD_LIBRARY_PATH} "${libdir}")
run(${emulator} ${work}/pkgconfig_consumer)
run(${emulator} ${work}/pkgconfig_runtime_consumer)
