# tandem_add_game_module(): a game's ES module package from its one registration file, for a
# game in this tree or outside it (the Emscripten build only). Included by tandem's top-level
# CMakeLists.txt in the wasm preset; a game outside the tree gets it from tandem's installed
# CMake package (see bindings/README.md, "Your game as an ES module").
#
#   tandem_add_game_module(<game>
#     REGISTRATION <file.cpp>          the game's registration: TANDEM_GAME_MODULE(G, Web)
#     LIBRARIES <target>...            the game's libraries (its simulation)
#     [OUTPUT_DIRECTORY <dir>])        default ${PROJECT_BINARY_DIR}/packages/<game>
#
# <game> is the game's name as G::name spells it (1 to 32 of [a-z0-9_-]). Makes:
#   tandem_<game>_wasm       the module (tandem-wasm.mjs + tandem-wasm.wasm in the package)
#   tandem_<game>_package    (ALL) the package: the module, the generic JS layer (tandem.mjs,
#                            tandem.node.mjs, checks.mjs, net.mjs), the generic typings
#                            (tandem.d.ts), the game's typings generated from its visitors
#                            (game.d.ts), game.mjs (the game's name, for a page that loads the
#                            game's plugin before the module), README.md and package.json
#                            (name tandem-<game>)
#   tandem_<game>_wasm_scan  (not ALL) the same module with a name section, written to
#                            ${PROJECT_BINARY_DIR}/scan/<game>/, for the determinism check's
#                            float scan
# and sets TANDEM_<GAME>_PACKAGE_DIR (upper case) in the caller's scope.
#
# It links tandem::bindings, the imported target an installed tandem defines (tandem's bindings
# headers, its net, client and core libraries), or in tandem's own build tandem_bindings
# (bindings/CMakeLists.txt). Node (the same one Emscripten runs on) writes
# game.d.ts after each link.

# Where this file is: the bindings' sources (src/core.cpp, the JS layer) are beside it, in the
# source tree and in an install alike.
set(TANDEM_BINDINGS_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "tandem's bindings directory")

# Why these link flags:
# - ENVIRONMENT=web,worker: the generated Node branch uses __dirname and file-URL fetch, which
#   do not exist in an ES module under Node 20. The package's Node entry (tandem.node.mjs)
#   instead reads the .wasm and hands the module its bytes, so one module serves both.
# - No C++ exceptions (Emscripten's default): -fexceptions makes every call that may throw go
#   through a JS trampoline, which costs size and step time. Nothing reachable from JS throws:
#   the JS layer validates arguments and every failure comes back as a value.
# - FILESYSTEM=0: the core does no I/O; this drops the emulated file system from the glue.
# - DYNAMIC_EXECUTION=0: Embind otherwise writes each bound function's JS invoker as source and
#   compiles it with `new Function` when the module starts, which in a cold Chromium page cost
#   about 10 ms of the module's start-up and makes the module unusable under a
#   Content-Security-Policy without 'unsafe-eval'. The generic invokers cost about 0.1 us more
#   per call, and a page makes a few dozen calls a frame.
set(TANDEM_WASM_LINK_OPTIONS
  --bind
  -O3
  -sMODULARIZE=1
  -sEXPORT_ES6=1
  -sEXPORT_NAME=createTandemWasm
  -sENVIRONMENT=web,worker
  -sALLOW_MEMORY_GROWTH=1
  -sFILESYSTEM=0
  -sDYNAMIC_EXECUTION=0
  -sINCOMING_MODULE_JS_API=[wasmBinary,locateFile,instantiateWasm,print,printErr]
  CACHE INTERNAL "tandem's wasm module link options")

# The hand-written, game-agnostic half of every package, copied beside the generated module.
set(TANDEM_PACKAGE_SOURCES tandem.mjs tandem.node.mjs checks.mjs net.mjs tandem.d.ts README.md
  CACHE INTERNAL "tandem's package sources")

function(tandem_add_game_module game)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "REGISTRATION;OUTPUT_DIRECTORY" "LIBRARIES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tandem_add_game_module(${game}): unexpected arguments: ${arg_UNPARSED_ARGUMENTS} "
      "(expected REGISTRATION <file.cpp> LIBRARIES <target>... [OUTPUT_DIRECTORY <dir>])")
  endif()
  if(NOT game MATCHES "^[a-z0-9_-]+$" OR game MATCHES "^.................................")
    message(FATAL_ERROR "tandem_add_game_module: '${game}' is not a game name (1 to 32 of [a-z0-9_-], as G::name)")
  endif()
  if(NOT arg_REGISTRATION)
    message(FATAL_ERROR "tandem_add_game_module(${game}): REGISTRATION <file.cpp> is required "
      "(the file with TANDEM_GAME_MODULE(G, Web))")
  endif()
  if(NOT EMSCRIPTEN)
    message(FATAL_ERROR "tandem_add_game_module(${game}): an ES module is built by Emscripten only (the wasm preset)")
  endif()
  get_filename_component(registration ${arg_REGISTRATION} ABSOLUTE)
  set(dir ${PROJECT_BINARY_DIR}/packages/${game})
  if(arg_OUTPUT_DIRECTORY)
    set(dir ${arg_OUTPUT_DIRECTORY})
  endif()
  # An installed tandem has imported tandem::bindings already; tandem's own build defines
  # tandem_bindings after its games (bindings/CMakeLists.txt), which CMake resolves at generation.
  if(TARGET tandem::bindings)
    set(bindings tandem::bindings)
  else()
    set(bindings tandem_bindings)
  endif()
  if(DEFINED tandem_VERSION)
    set(version ${tandem_VERSION})
  else()
    message(FATAL_ERROR "tandem_add_game_module(${game}): tandem_VERSION is not set (find_package(tandem) first)")
  endif()

  # The registration and the bindings' game-agnostic half, compiled once for two links: the
  # package's module and the float scan's copy of it.
  set(objects tandem_${game}_wasm_objects)
  add_library(${objects} OBJECT ${registration} ${TANDEM_BINDINGS_DIR}/src/core.cpp)
  target_link_libraries(${objects} PUBLIC ${arg_LIBRARIES} ${bindings})
  target_compile_definitions(${objects} PRIVATE TANDEM_VERSION="${version}")
  target_compile_options(${objects} PRIVATE -O3)

  add_executable(tandem_${game}_wasm)
  target_link_libraries(tandem_${game}_wasm PRIVATE ${objects})
  target_link_options(tandem_${game}_wasm PRIVATE ${TANDEM_WASM_LINK_OPTIONS})
  set_target_properties(tandem_${game}_wasm PROPERTIES OUTPUT_NAME tandem-wasm SUFFIX .mjs RUNTIME_OUTPUT_DIRECTORY ${dir})

  add_executable(tandem_${game}_wasm_scan EXCLUDE_FROM_ALL)
  target_link_libraries(tandem_${game}_wasm_scan PRIVATE ${objects})
  target_link_options(tandem_${game}_wasm_scan PRIVATE ${TANDEM_WASM_LINK_OPTIONS} --profiling-funcs)
  set_target_properties(tandem_${game}_wasm_scan PROPERTIES
    OUTPUT_NAME tandem-wasm SUFFIX .mjs RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/scan/${game})

  set(outputs)
  foreach(file ${TANDEM_PACKAGE_SOURCES})
    add_custom_command(OUTPUT ${dir}/${file}
      COMMAND ${CMAKE_COMMAND} -E copy ${TANDEM_BINDINGS_DIR}/${file} ${dir}/${file}
      DEPENDS ${TANDEM_BINDINGS_DIR}/${file}
      COMMENT "package ${game}: ${file}")
    list(APPEND outputs ${dir}/${file})
  endforeach()
  set(TANDEM_GAME ${game})
  set(TANDEM_PACKAGE_VERSION ${version})
  configure_file(${TANDEM_BINDINGS_DIR}/package.json.in ${dir}/package.json @ONLY)
  # The game's name without the module: a page's shell imports it to fetch the game's plugin
  # while the .wasm is still on its way (the module says the same, tandem.game.name).
  file(CONFIGURE OUTPUT ${dir}/game.mjs CONTENT "// Which game this package is (written by tandem_add_game_module; tandem.game.name says the same).\nexport const gameName = '@TANDEM_GAME@';\n" @ONLY)

  # The game's own typings, from its visitors: its config knobs, command fields, state and events.
  find_program(TANDEM_NODE node REQUIRED)
  add_custom_command(OUTPUT ${dir}/game.d.ts
    COMMAND ${TANDEM_NODE} ${TANDEM_BINDINGS_DIR}/typegen.mjs ${dir}
    DEPENDS tandem_${game}_wasm ${dir}/tandem.mjs ${dir}/tandem.node.mjs ${dir}/checks.mjs ${dir}/net.mjs
      ${TANDEM_BINDINGS_DIR}/typegen.mjs
    COMMENT "package ${game}: game.d.ts")
  add_custom_target(tandem_${game}_package ALL DEPENDS ${outputs} ${dir}/game.d.ts tandem_${game}_wasm)
  # The page's code and its session worker beside it, where TandemGame.cmake (the page's shell)
  # is included: made again whenever the module (tandem-wasm.mjs, the target's file) or the
  # package's files change. Part of the package target, so that a build of the package alone
  # (build-scripts/demo's, fleet's) serves a page that can start.
  if(COMMAND tandem_page_bundles)
    tandem_page_bundles(${game} ${dir} ${outputs} tandem_${game}_wasm)
    add_dependencies(tandem_${game}_package ${game}_page_bundles)
  endif()

  string(TOUPPER ${game} upper)
  string(MAKE_C_IDENTIFIER ${upper} upper)
  set(TANDEM_${upper}_PACKAGE_DIR ${dir} PARENT_SCOPE)
endfunction()
