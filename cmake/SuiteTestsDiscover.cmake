# Run by graphopt_add_suite_tests (SuiteTests.cmake) after a test program is linked: lists its
# tests and writes one ctest entry per suite (and one per solo test) into CTEST_FILE.
# Arguments: TEST_EXECUTABLE, CTEST_FILE, WORKING_DIR, SOLO_LIST (may be empty).
cmake_minimum_required(VERSION 3.25)  # (script mode: the policies of this CMake, IN_LIST among them)
execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
                WORKING_DIRECTORY "${WORKING_DIR}" OUTPUT_VARIABLE listing ERROR_VARIABLE errors
                RESULT_VARIABLE rc TIMEOUT 60)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${rc}): ${errors}")
endif()

set(solo "")
if(SOLO_LIST)
  file(STRINGS "${SOLO_LIST}" solo_lines)
  foreach(line IN LISTS solo_lines)
    string(REGEX REPLACE "#.*" "" line "${line}")
    string(STRIP "${line}" line)
    if(line)
      list(APPEND solo "${line}")
    endif()
  endforeach()
endif()

# The listing: "Suite." lines (a typed or parameterized suite may add "  # TypeParam = ..."),
# each followed by its tests, indented ("  Test" or "  Test/0  # GetParam() = ...").
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.( *#.*)?$")
    set(suite "${CMAKE_MATCH_1}")
    list(APPEND suites "${suite}")
    set(solo_of_${suite} "")
  elseif(suite AND line MATCHES "^  ([^ #]+)")
    set(name "${suite}.${CMAKE_MATCH_1}")
    if(name IN_LIST solo)
      list(APPEND solo_of_${suite} "${name}")
    endif()
  endif()
endforeach()
if(NOT suites)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no tests")
endif()

set(out "# Written by cmake/SuiteTestsDiscover.cmake from ${TEST_EXECUTABLE} --gtest_list_tests\n")
macro(entry name filter)
  string(APPEND out "add_test([==[${name}]==] [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${filter}]==])\n"
                    "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKING_DIR}]==] "
                    "ENVIRONMENT QT_QPA_PLATFORM=offscreen)\n")
endmacro()
foreach(suite IN LISTS suites)
  set(filter "${suite}.*")
  if(solo_of_${suite})
    list(JOIN solo_of_${suite} ":" excluded)
    string(APPEND filter ":-${excluded}")
  endif()
  entry("${suite}" "${filter}")
  foreach(name IN LISTS solo_of_${suite})
    entry("${name}" "${name}")
  endforeach()
endforeach()
file(WRITE "${CTEST_FILE}" "${out}")
