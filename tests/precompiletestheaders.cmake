# <gtest/gtest.h> precompiled once per test executable: it is most of what a test file's
# compile reads (3 s of GCC -O2 per file, 183 test files; under the sanitizers 3.4 s -> 1.9 s a
# file), so CI's cold builds go faster. Included by tests/CMakeLists.txt and
# packaging/windows-core/CMakeLists.txt. With the header precompiled, GCC 12 no longer treats
# libstdc++'s inlined code as a system header and reports its -Warray-bounds and
# -Wstringop-overflow false positives (inside std::string's char_traits copies) in a dozen test
# files, native and MinGW alike, so GCC test executables with a precompiled header do without
# those two warnings (the product's own code keeps them). Turn it off for
# builds through ccache, which does not cache precompiled-header compiles without sloppiness
# settings.
option(LLAMAFIT_PRECOMPILE_TEST_HEADERS "Precompile <gtest/gtest.h> for each test executable" ON)

# Every GoogleTest executable defined in `directory` and below it.
function(llamafit_precompile_gtest directory)
    get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        get_target_property(libraries ${target} LINK_LIBRARIES)
        if(type STREQUAL "EXECUTABLE" AND "${libraries}" MATCHES "GTest::gtest|llamafit_guitestmain")
            target_precompile_headers(${target} PRIVATE <gtest/gtest.h>)
            if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
                target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow)
            endif()
        endif()
    endforeach()
    get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    foreach(subdirectory IN LISTS subdirectories)
        llamafit_precompile_gtest("${subdirectory}")
    endforeach()
endfunction()
