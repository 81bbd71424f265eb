# cmake -DEXECUTABLE=... -DFILTER=... -P runshard.cmake: runs one shard of a GoogleTest executable
# (GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX come from the test's environment; gtestshards.cmake)
# and fails when it fails, or when it ran no test at all: GoogleTest exits 0 on an empty run, and
# a shard of a filter that matches nothing must not pass.
execute_process(
    COMMAND "${EXECUTABLE}" "--gtest_filter=${FILTER}"
    RESULT_VARIABLE status
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
message("${output}")
if(NOT status EQUAL 0)
    message(FATAL_ERROR "${EXECUTABLE} --gtest_filter=${FILTER}: exit status ${status}")
endif()
if(NOT output MATCHES "\\[==========\\] [1-9][0-9]* tests? from [0-9]+ test suites? ran")
    message(FATAL_ERROR "${EXECUTABLE} --gtest_filter=${FILTER} ran no test in this shard")
endif()
