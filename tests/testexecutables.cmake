# Every GoogleTest executable is built at -O0, its headers precompiled (the top-level
# llamafit_precompile_headers): together they halve a test file's compile (GCC 12,
# weightplacement_test.cpp: 10.8 s of CPU at -O2, 7.1 s at -O0, 5.4 s at -O0 with
# <gtest/gtest.h> precompiled), and test files are over half of every cold build on CI's two
# cores. Test code is thin; what it exercises -- the core, the system layer, the CLI, the widgets,
# the test support library that writes GGUF files -- keeps the build's own optimisation. Included
# by tests/CMakeLists.txt, in the Linux and Windows builds alike.

# Every GoogleTest executable defined in `directory` and below it.
function(llamafit_configure_test_executables directory)
    get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        get_target_property(libraries ${target} LINK_LIBRARIES)
        if(type STREQUAL "EXECUTABLE" AND "${libraries}" MATCHES "GTest::gtest|llamafit_guitestmain")
            # After the build type's flags on the command line, so this -O wins.
            target_compile_options(${target} PRIVATE -O0)
        endif()
    endforeach()
    get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    foreach(subdirectory IN LISTS subdirectories)
        llamafit_configure_test_executables("${subdirectory}")
    endforeach()
endfunction()
