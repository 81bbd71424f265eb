# Under Wine each test process costs a Wine process start (about 0.4 s, and a wineserver round
# trip per DLL), so the Windows build registers one CTest test per GoogleTest executable, which
# runs all of its tests in one process, instead of one per test case: the suite's 1,100 cases
# took 8 minutes one process each on two cores. The per-folder CMakeLists.txt files call
# gtest_discover_tests() as on Linux; this definition, included after CMake's GoogleTest module,
# replaces it for the cross build. A failing case is still named: GoogleTest prints it, and
# ctest --output-on-failure shows that output.
function(gtest_discover_tests target)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "DISCOVERY_TIMEOUT;TEST_LIST;DISCOVERY_MODE;TEST_PREFIX;TEST_SUFFIX;WORKING_DIRECTORY"
        "PROPERTIES;EXTRA_ARGS;TEST_FILTER")
    set(filter)
    if(arg_TEST_FILTER)
        set(filter "--gtest_filter=${arg_TEST_FILTER}")
    endif()
    add_test(NAME ${target} COMMAND ${target} ${arg_EXTRA_ARGS} ${filter})
    if(arg_PROPERTIES)
        set_tests_properties(${target} PROPERTIES ${arg_PROPERTIES})
    endif()
    # The whole executable in one run: the cases' own timeouts add up.
    set_tests_properties(${target} PROPERTIES TIMEOUT 1200)
    if(arg_TEST_LIST)
        set(${arg_TEST_LIST} ${target} PARENT_SCOPE)
    endif()
endfunction()
