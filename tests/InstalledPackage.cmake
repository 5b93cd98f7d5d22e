# Installs the built library into a scratch prefix, then builds and runs examples/consumer
# against it through find_package, and a C program through pkg-config.
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
file(GLOB libdir ${prefix}/lib*)
set(ENV{LD_LIBRARY_PATH} "${libdir}")
run(${emulator} ${work}/pkgconfig_consumer)
