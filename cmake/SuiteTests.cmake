# graphopt_add_suite_tests(TARGET [SOLO_LIST FILE]): registers a GoogleTest program with ctest as
# one test per suite (ctest name: the suite, running --gtest_filter=SUITE.*), not one per test as
# gtest_discover_tests does.
#
# Why: ctest starts the program once per test, and a program that links LibTorch takes about
# 2.5 s to start under the sanitizers (its operator registry is built and, at exit, scanned for
# leaks): 39 of the starts of the six such programs that use this were start-up and nothing else.
# One process per suite keeps ctest's parallelism and the grouping a reader expects; a failure
# still names its test in the output (ctest --output-on-failure). Not for the GUI's tests: in one
# process, several of them leave Qt Charts objects behind that LeakSanitizer reports (see
# tools/lsan-leaky-tests.txt).
#
# SOLO_LIST names a file of tests (SUITE.TEST, one per line; '#' starts a comment) that keep a
# process and a ctest entry of their own, named SUITE.TEST, and are left out of their suite's
# entry: tools/asan-tests.sh runs the tests listed in tools/lsan-leaky-tests.txt with leak
# detection off, by name.
#
# Like gtest_discover_tests, the list is read from the built program (--gtest_list_tests) after
# each link, into a file ctest includes.
set(GRAPHOPT_SUITE_TESTS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/SuiteTestsDiscover.cmake)

function(graphopt_add_suite_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOLO_LIST" "")
  set(ctest_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake)
  set(include_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake)
  add_custom_command(TARGET ${target} POST_BUILD
    BYPRODUCTS ${ctest_file}
    COMMAND ${CMAKE_COMMAND} -D TEST_EXECUTABLE=$<TARGET_FILE:${target}> -D CTEST_FILE=${ctest_file}
            -D WORKING_DIR=${CMAKE_CURRENT_BINARY_DIR} -D SOLO_LIST=${arg_SOLO_LIST} -P ${GRAPHOPT_SUITE_TESTS_SCRIPT}
    VERBATIM)
  file(WRITE ${include_file}
    "if(EXISTS \"${ctest_file}\")\n"
    "  include(\"${ctest_file}\")\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${include_file})
  if(arg_SOLO_LIST)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${arg_SOLO_LIST})
    # A change of the list changes the entries: link again (the list is read after linking).
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${arg_SOLO_LIST})
  endif()
endfunction()
