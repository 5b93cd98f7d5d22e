# Installs the built library into a scratch prefix, then builds and runs examples/consumer
# against it through find_package, and a C program through pkg-config.
# Variables: BUILD_DIR, SOURCE_DIR.
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
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${work} -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${work})
run(${work}/consumer)
run(${work}/consumer_static)
run(${work}/consumer_c)

# pkg-config: compile and link a C program with the flags the .pc file gives.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pcdir ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "${pcdir}")
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs simdsynet OUTPUT_VARIABLE flags
    RESULT_VARIABLE result OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT result EQUAL 0)
    message(FATAL_ERROR "pkg-config does not know simdsynet")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run(cc ${SOURCE_DIR}/examples/consumer/main.c ${flags} -o ${work}/pkgconfig_consumer)
file(GLOB libdir ${prefix}/lib*)
set(ENV{LD_LIBRARY_PATH} "${libdir}")
run(${work}/pkgconfig_consumer)
