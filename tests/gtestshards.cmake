# llamafit_add_gtest_shards(): registers a GoogleTest executable's tests as a few CTest tests, each
# running one shard of them in one process (GoogleTest's GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX),
# instead of one process per case as gtest_discover_tests does.
#
# For the executables whose cases are many and cheap (the recorded matrices: hundreds of cases of
# a few tens of milliseconds) the process was most of the cost: each start registers every case,
# which reads every shape of the matrix, and under the sanitizers a start alone took 0.6-1.0 s
# against about 0.2 s for a case. A failing case is still named: GoogleTest prints it, and
# ctest --output-on-failure shows that output. A shard that ran no test fails (runshard.cmake), so
# a filter that stops matching cannot pass silently. The Windows cross build keeps its own
# registration (one test per executable under Wine, packaging/windows/winetests.cmake).
#
#   llamafit_add_gtest_shards(TARGET NAME SHARDS [FILTER filter] [PROPERTIES ...])
#     NAME        the CTest name's stem: NAME.shard-1-of-4 ...
#     FILTER      a --gtest_filter (default: every test)
#     PROPERTIES  set on every shard (LABELS, DISABLED, ...)
function(llamafit_add_gtest_shards target)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAME;SHARDS;FILTER" "PROPERTIES")
    if(NOT arg_FILTER)
        set(arg_FILTER "*")
    endif()
    if(WIN32 AND CMAKE_CROSSCOMPILING)
        gtest_discover_tests(${target} TEST_FILTER "${arg_FILTER}" PROPERTIES ${arg_PROPERTIES})
        return()
    endif()
    math(EXPR last "${arg_SHARDS} - 1")
    foreach(index RANGE ${last})
        math(EXPR number "${index} + 1")
        set(name "${arg_NAME}.shard-${number}-of-${arg_SHARDS}")
        add_test(NAME ${name}
            COMMAND ${CMAKE_COMMAND} -DEXECUTABLE=$<TARGET_FILE:${target}> -DFILTER=${arg_FILTER}
                    -P ${PROJECT_SOURCE_DIR}/tests/runshard.cmake)
        set_tests_properties(${name} PROPERTIES
            ENVIRONMENT "GTEST_TOTAL_SHARDS=${arg_SHARDS};GTEST_SHARD_INDEX=${index}"
            ${arg_PROPERTIES})
    endforeach()
endfunction()
