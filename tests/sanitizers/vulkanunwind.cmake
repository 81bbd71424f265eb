# Read by ctest after the unit tests of core/system and the CLI and the short integration tests
# are listed (tests/CMakeLists.txt adds it under the sanitizers only). The tests that create a
# Vulkan instance -- the device probes, `llamafit-cli devices`, `plan` without --machine and
# `launch` without --gpu on the GPU rig's server (its Vulkan0's limits) -- unwind each allocation's stack
# the slow way: the Vulkan loader unloads Mesa's driver at vkDestroyInstance, so the fast
# unwinder's stack of a driver allocation kept until exit ends in "<unknown module>" and
# lsan.supp's libvulkan.so line cannot match it (Mesa 22.3.6-1+deb12u2: 128 bytes, 10 tests
# aborted). Slow unwinding makes a test about 3 times slower (llamafit_unit_system: 17 s -> 56 s),
# so only these tests; a new test that probes Vulkan and aborts on that leak belongs here.
set(llamafit_vulkan_tests_pattern
    "^(VulkanProbe|DeviceProbe|DeviceMemoryReaders|DevicesCli)\\.|^PlanCommand\\.WithoutMachine|^LaunchMemoryTest\\.WithoutGpuFlags")
foreach(test IN LISTS llamafit_unit_system_TESTS llamafit_unit_cli_TESTS llamafit_integration_system_TESTS)
    if(test MATCHES "${llamafit_vulkan_tests_pattern}")
        set_tests_properties("${test}" PROPERTIES
            ENVIRONMENT_MODIFICATION "LSAN_OPTIONS=string_append::fast_unwind_on_malloc=0")
    endif()
endforeach()
# ctest reads this file once per directory and keeps variables between them: forget the lists, so
# the next directory's reading does not set the same tests' property a second time.
unset(llamafit_unit_system_TESTS)
unset(llamafit_unit_cli_TESTS)
unset(llamafit_integration_system_TESTS)
