# Unity builds (CMake's UNITY_BUILD) for the targets whose files share most of their template
# instantiations: the engine library graphopt_core, the test programs (GoogleTest, GoogleMock,
# nlohmann/json), the GUI library (Qt Widgets and Charts) and the command libraries. A target's
# files are compiled together in batches, so what every file instantiates is compiled once per
# batch instead of once per file. graphopt_nn (LibTorch) stays file by file: its LibTorch files
# share a precompiled header that its plain files skip.
# What this forbids: two files of one target defining the same name at file scope (an anonymous
# namespace or static, a type, a `using` alias of another type); shared helpers go in a header
# (run/Elapsed.h, graph/JsonFieldReader.h, tuning/Task.h's ceilDiv). A name defined twice with the
# same signature fails to compile; with another signature it becomes an overload, so give such
# helpers names of their own (DotLoader's trimSpace, PipeDreamProfileLoader's trimBlanks).
# -DGRAPHOPT_UNITY=OFF compiles file by file (a developer editing one file of a large target may
# prefer it).
option(GRAPHOPT_UNITY "Compile graphopt_core, the test programs, the GUI library and the command libraries in unity batches" ON)
set(GRAPHOPT_UNITY_BATCH 8 CACHE STRING "Files per unity batch (GRAPHOPT_UNITY)")

function(graphopt_unity target)
  if(GRAPHOPT_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${GRAPHOPT_UNITY_BATCH})
    # gcc warns about a class with a member of an anonymous-namespace type when the class is
    # defined in an included file, meant for headers; in a batch every .cpp is an included file
    # (ui/ScheduleView.cpp's canvas holds its file-local bars and lanes).
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
  endif()
endfunction()
