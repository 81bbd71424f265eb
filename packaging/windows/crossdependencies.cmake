enable_language(RC) # the programs' manifest and llamafit.exe's icon and version
# What the Windows build (scripts/build-windows.sh) takes from this Linux host instead of from
# find_package: the MinGW-w64 toolchain's search root holds only the cross-built Qt
# (../shared/toolchains), so the header-only and source-only dependencies are made targets here,
# under the names the per-folder CMakeLists.txt files link.

# Header-only libraries: the host's headers serve any target. Only their own folders are put on
# the include path (a link farm), never /usr/include itself, whose glibc headers would shadow
# MinGW's.
set(llamafit_host_headers "${CMAKE_BINARY_DIR}/host-headers")
foreach(folder IN ITEMS nlohmann vulkan vk_video)
    file(MAKE_DIRECTORY "${llamafit_host_headers}")
    file(CREATE_LINK "/usr/include/${folder}" "${llamafit_host_headers}/${folder}" SYMBOLIC)
endforeach()
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE "${llamafit_host_headers}")
# Only the Vulkan headers: vulkanprobe.cpp opens vulkan-1.dll at run time.
add_library(Vulkan::Headers INTERFACE IMPORTED)
target_include_directories(Vulkan::Headers INTERFACE "${llamafit_host_headers}")

# QCustomPlot from Debian's own source package (qcustomplot 2.1.0+dfsg1, its patches applied by
# scripts/build-windows.sh), built static: one file, and the same version as the Linux build's
# libqcustomplot2.1-qt6.
set(LLAMAFIT_QCUSTOMPLOT_SOURCE_DIR "" CACHE PATH "Debian's qcustomplot source, unpacked and patched")
if(NOT EXISTS "${LLAMAFIT_QCUSTOMPLOT_SOURCE_DIR}/qcustomplot.cpp")
    message(FATAL_ERROR "LLAMAFIT_QCUSTOMPLOT_SOURCE_DIR must name Debian's unpacked qcustomplot source "
                        "(scripts/build-windows.sh fetches it), not '${LLAMAFIT_QCUSTOMPLOT_SOURCE_DIR}'")
endif()
find_package(Qt6 REQUIRED COMPONENTS Widgets PrintSupport)
add_library(llamafit_qcustomplot STATIC "${LLAMAFIT_QCUSTOMPLOT_SOURCE_DIR}/qcustomplot.cpp"
                                        "${LLAMAFIT_QCUSTOMPLOT_SOURCE_DIR}/qcustomplot.h")
set_target_properties(llamafit_qcustomplot PROPERTIES AUTOMOC ON)
target_include_directories(llamafit_qcustomplot SYSTEM PUBLIC "${LLAMAFIT_QCUSTOMPLOT_SOURCE_DIR}")
target_link_libraries(llamafit_qcustomplot PUBLIC Qt6::Widgets Qt6::PrintSupport)
add_library(QCustomPlotQt6::QCustomPlotQt6 ALIAS llamafit_qcustomplot)

# GoogleTest from Debian's googletest source package, built with the cross compiler (its
# CMakeLists.txt defines GTest::gtest, GTest::gtest_main and GTest::gmock).
if(LLAMAFIT_BUILD_TESTS)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK ON CACHE BOOL "" FORCE)
    add_subdirectory(/usr/src/googletest "${CMAKE_BINARY_DIR}/googletest" EXCLUDE_FROM_ALL)
endif()

# llamafit_use_utf8_code_page(DIRECTORY): every executable defined in DIRECTORY and below it
# gets the UTF-8 code page manifest (utf8codepage.manifest). Called once the whole tree is
# defined (CMakeLists.txt), so that tests and tools run as the shipped programs do.
set(LLAMAFIT_UTF8_MANIFEST "${CMAKE_CURRENT_LIST_DIR}/utf8codepage.manifest")
configure_file("${CMAKE_CURRENT_LIST_DIR}/utf8codepage.rc.in" "${CMAKE_BINARY_DIR}/utf8codepage.rc" @ONLY)
function(llamafit_use_utf8_code_page directory)
    get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        if(type STREQUAL "EXECUTABLE")
            target_sources(${target} PRIVATE "${CMAKE_BINARY_DIR}/utf8codepage.rc")
        endif()
    endforeach()
    get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
    foreach(subdirectory IN LISTS subdirectories)
        llamafit_use_utf8_code_page("${subdirectory}")
    endforeach()
endfunction()
