# Precompiled headers for the libraries and the test programs: the heavy third-party headers
# every file of a target includes (LibTorch's torch/torch.h is 9 s of parsing per file here,
# nlohmann/json 1 s, Qt Widgets 2-4 s, GoogleTest 0.5 s) are parsed once per target instead of
# once per file. Only third-party and standard headers go in, so a file still has to include what
# it uses from this project. -DGRAPHOPT_PCH=OFF builds without them (an include-hygiene check:
# a file that compiles only because a header is forced in fails there).
option(GRAPHOPT_PCH "Precompile the heavy third-party headers of each target" ON)

set(GRAPHOPT_PCH_STD <algorithm> <cstdint> <functional> <map> <memory> <optional> <string> <vector>)

# graphopt_pch(TARGET HEADER...): TARGET's files get the standard set, nlohmann/json and HEADERs.
function(graphopt_pch target)
  if(GRAPHOPT_PCH)
    target_precompile_headers(${target} PRIVATE ${GRAPHOPT_PCH_STD} <nlohmann/json.hpp> ${ARGN})
  endif()
endfunction()

# graphopt_pch_reuse(TARGET FROM): TARGET compiles with FROM's precompiled header (the same
# compile options; gcc falls back to reading the headers when it cannot use it).
function(graphopt_pch_reuse target from)
  if(GRAPHOPT_PCH)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
