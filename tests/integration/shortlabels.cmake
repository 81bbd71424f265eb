# Read by ctest after llamafit_integration_system's discovered tests (tests/integration/CMakeLists.txt):
# they are the short integration tests the sanitizer run takes too (label "short").
if(llamafit_integration_system_TESTS)
    set_tests_properties(${llamafit_integration_system_TESTS} PROPERTIES LABELS "integration;short")
endif()
if(llamafit_integration_hub_TESTS)
    set_tests_properties(${llamafit_integration_hub_TESTS} PROPERTIES LABELS "integration;short")
endif()
