# Every GoogleTest executable is built at -O0, with <gtest/gtest.h> precompiled once per
# executable: together they halve a test file's compile (GCC 12, weightplacement_test.cpp:
# 10.8 s of CPU at -O2, 7.1 s at -O0, 5.4 s at -O0 with the header precompiled), and test files
# are over half of every cold build on CI's two cores. Test code is thin; what it exercises --
# the core, the system layer, the CLI, the widgets, the test support library that writes GGUF
# files -- keeps the build's own optimisation. Included by tests/CMakeLists.txt, in the Linux and
# Windows builds alike. With the header precompiled, GCC 12 no longer treats
# libstdc++'s inlined code as a system header and reports its -Warray-bounds and
# -Wstringop-overflow false positives (inside std::string's char_traits copies) in a dozen test
# files, native and MinGW alike, so GCC test executables with a precompiled header do without
# those two warnings (the product's own code keeps them). Turn the header off for
# builds through ccache, which does not cache precompiled-header compiles without sloppiness
# settings.
option(LLAMAFIT_PRECOMPILE_TEST_HEADERS "Precompile <gtest/gtest.h> for each test executable" ON)

# Every GoogleTest executable defined in `directory` and below it.
function(llamafit_configure_test_executables directory)
    get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        get_target_property(libraries ${target} LINK_LIBRARIES)
        if(type STREQUAL "EXECUTABLE" AND "${libraries}" MATCHES "GTest::gtest|llamafit_guitestmain")
            # After the build type's flags on the command line, so this -O wins.
            target_compile_options(${target} PRIVATE -O0)
            if(LLAMAFIT_PRECOMPILE_TEST_HEADERS)
                target_precompile_headers(${target} PRIVATE <gtest/gtest.h>)
                if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
                    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow)
                endif()
            endif()
        endif()
    endforeach()
    get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    foreach(subdirectory IN LISTS subdirectories)
        llamafit_configure_test_executables("${subdirectory}")
    endforeach()
endfunction()
