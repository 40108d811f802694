# tandem_add_game(): what a game needs from tandem, in one call, the same in this tree
# (src/games/*) and in a project of its own after find_package(tandem CONFIG) or
# add_subdirectory(tandem). It must never give a game more of the kit than its seam: the game's
# library links tandem::sim and tandem::core alone, so the layering is the build's.
#
#   tandem_add_game(<name>
#     SOURCES <file>...             the game: its state, step, scenarios (a static library <name>)
#     [INCLUDE_DIRS <dir>...]       its public headers (default: include/ beside the call)
#     [SIM <type>]                  its traits type (default <name>::Sim)
#     [HEADER <header>]             the header declaring it (default <name>/sim.hpp)
#     [DESCRIPTION <text>]          one line, for `<name> games`
#     [TESTS <file>...]             Catch2 v2 test files: <name>_tests, discovered into CTest
#                                   (the project calls enable_testing() for ctest to run them)
#     [WEB <dir>]                   its page plugin (the renderer and the input mapping)
#     [MODULE <file.cpp>]           its ES module registration (default <WEB>/module.cpp)
#     [QUICK_SCENARIOS <name>...])  what `check-determinism --quick` runs (default: the first two)
#
# It makes, by the toolchain of the build:
#   native and cross builds: the command <name> (target <name>_command): `<name> serve` and
#     `<name> ticket` (where the kit's server is built: native g++), `<name> run`, dump, snapshot, scenarios, replay,
#     version, the same command line as `tandem` over this one game; and its page, the kit's
#     shell with the WEB plugin in games/<name>/, in ${CMAKE_BINARY_DIR}/web;
#   Emscripten: the game's ES module package, <build>/packages/<name>;
#   every build: the registration the determinism check reads,
#     ${CMAKE_BINARY_DIR}/tandem-games/<name>.json (which build, which command or package, the
#     game's sources, whose compile flags the check inspects).
include_guard(GLOBAL)

# The folder of this file (templates beside it), for the function wherever it is called from,
# and the page's shell a game's plugin joins: web/ in tandem's source tree, share/tandem/web in
# an install (lib/cmake/tandem/../../../share).
set_property(GLOBAL PROPERTY TANDEM_GAME_MODULE_DIR ${CMAKE_CURRENT_LIST_DIR})
foreach(shell ${CMAKE_CURRENT_LIST_DIR}/../../web ${CMAKE_CURRENT_LIST_DIR}/../../../share/tandem/web)
  if(EXISTS ${shell}/index.html)
    get_filename_component(shell ${shell} ABSOLUTE)
    set_property(GLOBAL PROPERTY TANDEM_PAGE_SHELL_DIR ${shell})
    break()
  endif()
endforeach()

# Test-only fault injection for the cross-build determinism check, for any game: configure with
# -DTANDEM_PERTURB_TICK=<tick> -DTANDEM_PERTURB_FIELD=<path> (a field as `tandem dump` names it,
# without a Vec2's .x/.y, e.g. pellets[0].pos) and every run and dump flips the lowest bit of
# that field right after that tick (tandem/cli/game_commands.hpp), so the check can prove it
# notices a divergence. Empty (the default) compiles the hook out.
set(TANDEM_PERTURB_TICK "" CACHE STRING "Test only: tick after which the command perturbs one field (empty: off)")
set(TANDEM_PERTURB_FIELD "" CACHE STRING "Test only: the path of the field TANDEM_PERTURB_TICK perturbs")
# tandem_perturb_definitions(<target>): the hook, for the target that instantiates the commands.
function(tandem_perturb_definitions target)
  if(TANDEM_PERTURB_TICK STREQUAL "")
    return()
  endif()
  # CMake's regex has no escapes inside a bracket expression: a ']' is a member only when first.
  if(NOT TANDEM_PERTURB_FIELD MATCHES "^[][a-z0-9_.]+$")
    message(FATAL_ERROR "TANDEM_PERTURB_FIELD must be a field path such as pellets[0].pos (got '${TANDEM_PERTURB_FIELD}')")
  endif()
  message(WARNING "${target} built with TANDEM_PERTURB_TICK=${TANDEM_PERTURB_TICK}: digests are deliberately wrong")
  target_compile_definitions(${target} PRIVATE TANDEM_PERTURB_TICK=${TANDEM_PERTURB_TICK}
                                               TANDEM_PERTURB_FIELD="${TANDEM_PERTURB_FIELD}")
endfunction()

# The page's code beside a game's package, for tandem_add_game_module (TandemGameModule.cmake):
# <package>/session-worker.mjs (the shell's worker graph with the package) and <package>/page.mjs
# (the shell's main.mjs graph), which the shell's index.html loads, each bundled into one file by
# esbuild (build-scripts/web-tools, which install-deps installs; else the game's own
# node_modules or the PATH), or, without esbuild, a one-line module that loads the shell's as
# written. Remade when the shell's modules or the package's files change (ARGN: the package's
# outputs and targets it is made from).
function(tandem_page_bundles name package)
  get_property(module_dir GLOBAL PROPERTY TANDEM_GAME_MODULE_DIR)
  get_property(shell GLOBAL PROPERTY TANDEM_PAGE_SHELL_DIR)
  find_program(TANDEM_ESBUILD esbuild HINTS ${module_dir}/../web-tools/node_modules/.bin ${CMAKE_SOURCE_DIR}/node_modules/.bin
    DOC "esbuild, which bundles the page's code and its session worker with each game's package")
  set(esbuild "")
  set(shell_modules "")
  if(TANDEM_ESBUILD AND shell)
    set(esbuild ${TANDEM_ESBUILD})
    file(GLOB_RECURSE shell_modules CONFIGURE_DEPENDS ${shell}/*.mjs)
    list(FILTER shell_modules EXCLUDE REGEX "/(node_modules|games)/")
  else()
    message(STATUS "${name}: no esbuild (npm install esbuild in ${CMAKE_SOURCE_DIR}, or one on the PATH): the page and its session worker load unbundled, one module at a time")
    set(shell "")
  endif()
  add_custom_command(OUTPUT ${package}/session-worker.mjs ${package}/page.mjs
    COMMAND ${CMAKE_COMMAND} -DSHELL=${shell} -DPACKAGE=${package} -DESBUILD=${esbuild}
      -DSTAGING=${CMAKE_CURRENT_BINARY_DIR}/${name}-page-bundles -P ${module_dir}/TandemPageBundles.cmake
    DEPENDS ${shell_modules} ${module_dir}/TandemPageBundles.cmake ${package}/game.mjs ${ARGN}
    COMMENT "${name}: the page's code and session worker (${package}/page.mjs, session-worker.mjs)" VERBATIM)
  add_custom_target(${name}_page_bundles ALL DEPENDS ${package}/session-worker.mjs ${package}/page.mjs)
endfunction()

# The determinism check's name for the build this is: which row of its table it fills.
function(_tandem_build_kind out)
  if(EMSCRIPTEN)
    set(kind wasm)
  elseif(CMAKE_CROSSCOMPILING)
    string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR}" kind)
    if(kind MATCHES "^i.86$")
      set(kind i686)
    elseif(kind STREQUAL "arm64")
      set(kind aarch64)
    endif()
  elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(kind clang)
  else()
    set(kind native)
  endif()
  set(${out} ${kind} PARENT_SCOPE)
endfunction()

function(tandem_add_game name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SIM;HEADER;DESCRIPTION;WEB;MODULE" "SOURCES;INCLUDE_DIRS;TESTS;QUICK_SCENARIOS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tandem_add_game(${name}): unknown arguments '${arg_UNPARSED_ARGUMENTS}' (accepted: SOURCES, INCLUDE_DIRS, SIM, HEADER, DESCRIPTION, TESTS, WEB, MODULE, QUICK_SCENARIOS)")
  endif()
  # The name is on the wire and in the fingerprint (tandem/sim/simulation.hpp, valid_game_name),
  # and names the command: 1 to 32 of [a-z0-9_-].
  string(LENGTH "${name}" name_length)
  if(NOT name MATCHES "^[a-z0-9_-]+$" OR name_length GREATER 32)
    message(FATAL_ERROR "tandem_add_game: the name '${name}' must be 1 to 32 characters of a-z, 0-9, '_' and '-' (it is the game's name on the wire)")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "tandem_add_game(${name}): SOURCES is required (the game's .cpp files)")
  endif()
  if(NOT arg_SIM)
    if(NOT name MATCHES "^[a-z_][a-z0-9_]*$")
      message(FATAL_ERROR "tandem_add_game(${name}): '${name}' is no C++ namespace; name the traits type with SIM")
    endif()
    set(arg_SIM "${name}::Sim")
  endif()
  if(NOT arg_HEADER)
    set(arg_HEADER "${name}/sim.hpp")
  endif()
  if(NOT arg_INCLUDE_DIRS)
    set(arg_INCLUDE_DIRS ${CMAKE_CURRENT_SOURCE_DIR}/include)
  endif()
  get_property(module_dir GLOBAL PROPERTY TANDEM_GAME_MODULE_DIR)
  _tandem_build_kind(kind)

  # 1. The game: core and the seam, nothing else of the kit.
  add_library(${name} STATIC ${arg_SOURCES})
  target_link_libraries(${name} PUBLIC tandem::sim tandem::core)
  target_include_directories(${name} PUBLIC ${arg_INCLUDE_DIRS} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_features(${name} PUBLIC cxx_std_20)
  # The determinism check reads the flags each simulation file was compiled with.
  set_target_properties(${name} PROPERTIES EXPORT_COMPILE_COMMANDS ON)

  # 2. Its command: the kit's command line over this game alone (and its server where built).
  set(command "")
  set(main "")
  if(NOT EMSCRIPTEN)
    string(REPLACE "\\" "\\\\" description "${arg_DESCRIPTION}")
    string(REPLACE "\"" "\\\"" description "${description}")
    set(serve_include "")
    set(serve_argument "")
    if(TARGET tandem::server)
      set(serve_include "#include \"tandem/cli/serve_game.hpp\"")
      set(serve_argument ", &tandem::cli::serve_game<${arg_SIM}>, &tandem::cli::ticket_game<${arg_SIM}>")
    endif()
    set(main ${CMAKE_CURRENT_BINARY_DIR}/${name}_main.cpp)
    configure_file(${module_dir}/TandemGameMain.cpp.in ${main} @ONLY)
    add_executable(${name}_command ${main})
    set_target_properties(${name}_command PROPERTIES OUTPUT_NAME ${name} EXPORT_COMPILE_COMMANDS ON)
    target_link_libraries(${name}_command PRIVATE ${name} tandem::cli)
    if(TARGET tandem::server)
      target_link_libraries(${name}_command PRIVATE tandem::server)
    endif()
    tandem_perturb_definitions(${name}_command)
    set(command "$<TARGET_FILE:${name}_command>")
    # The page its server serves (`<name> serve --web <build>/web`): the kit's shell with the
    # game's plugin (WEB) in games/<name>/, laid out at every build.
    get_property(shell GLOBAL PROPERTY TANDEM_PAGE_SHELL_DIR)
    if(arg_WEB AND shell)
      get_filename_component(plugin ${arg_WEB} ABSOLUTE)
      add_custom_target(${name}_web ALL
        COMMAND ${CMAKE_COMMAND} -DSHELL=${shell} -DPLUGIN=${plugin} -DGAME=${name} -DSITE=${CMAKE_BINARY_DIR}/web
          -P ${module_dir}/TandemGameSite.cmake
        COMMENT "${name}: the page (${CMAKE_BINARY_DIR}/web)" VERBATIM)
    endif()
  endif()

  # 3. Its tests, where Catch2 v2 is found (Debian's catch2; not in the cross or wasm builds).
  # In tandem's own tree they follow TANDEM_BUILD_TESTS; elsewhere CTest's BUILD_TESTING.
  set(want_tests ON)
  set(inside_tandem -1)
  if(DEFINED tandem_SOURCE_DIR)
    string(FIND "${CMAKE_CURRENT_SOURCE_DIR}/" "${tandem_SOURCE_DIR}/" inside_tandem)
  endif()
  if(DEFINED BUILD_TESTING)
    set(want_tests ${BUILD_TESTING})
  elseif(inside_tandem EQUAL 0)
    set(want_tests ${TANDEM_BUILD_TESTS})
  endif()
  if(arg_TESTS AND want_tests AND NOT EMSCRIPTEN AND NOT CMAKE_CROSSCOMPILING)
    find_package(Catch2 2 QUIET)
    if(TARGET Catch2::Catch2)
      foreach(source ${arg_TESTS})
        # CTest would run nothing for a name with ';', '[' or ']' (list syntax) or one that
        # starts with '-' (read as an option), and pass: refused here.
        file(STRINGS ${source} split_names REGEX "TEST_CASE\\(\"([^\"]*[][;]|-)")
        if(split_names)
          message(FATAL_ERROR "${source}: a TEST_CASE name contains ';', '[' or ']', or starts with '-', so CTest would run nothing for it: ${split_names}")
        endif()
      endforeach()
      set(catch_main ${CMAKE_CURRENT_BINARY_DIR}/${name}_catch_main.cpp)
      file(WRITE ${catch_main}.in "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n")
      configure_file(${catch_main}.in ${catch_main} COPYONLY)   # rewritten only when it changes
      add_executable(${name}_tests ${arg_TESTS} ${catch_main})
      # Catch2's main holds none of the game's code: no sanitizers, no debug information and
      # no warnings there, which makes it five times faster to build under ASan.
      if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        set_source_files_properties(${catch_main} PROPERTIES COMPILE_OPTIONS "-w;-g0;-fno-sanitize=all")
      endif()
      # White-box: a game's tests may include its private headers.
      target_include_directories(${name}_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
      target_link_libraries(${name}_tests PRIVATE ${name} Catch2::Catch2)
      include(Catch)
      # -w NoTests: an entry whose name matches no test case fails instead of passing.
      catch_discover_tests(${name}_tests TEST_PREFIX "${name}: " EXTRA_ARGS -w NoTests
        PROPERTIES LABELS "unit;games;${name}" WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
    else()
      message(STATUS "tandem_add_game(${name}): its tests are not built (Catch2 2 not found; Debian: apt install catch2)")
    endif()
  endif()

  # 4. Its ES module package (Emscripten builds): the kit's one binding template over the game,
  # from its registration file (MODULE, default <WEB>/module.cpp; tandem_add_game_module, the
  # bindings' CMake module), in <build>/packages/<name>, where `<name> serve` looks by default
  # when it runs from the game's folder with its wasm build in build/wasm.
  set(package "")
  set(package_target "")
  set(scan_module "")
  set(scan_target "")
  if(EMSCRIPTEN)
    if(NOT arg_MODULE AND arg_WEB AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${arg_WEB}/module.cpp)
      set(arg_MODULE ${arg_WEB}/module.cpp)
    endif()
    if(arg_MODULE)
      if(NOT COMMAND tandem_add_game_module)
        message(FATAL_ERROR "tandem_add_game(${name}): this tandem has no ES module support (tandem_add_game_module): build and install it with Emscripten")
      endif()
      set(package ${CMAKE_BINARY_DIR}/packages/${name})
      tandem_add_game_module(${name} REGISTRATION ${arg_MODULE} LIBRARIES ${name} OUTPUT_DIRECTORY ${package})
      set(package_target tandem_${name}_package)
      set(scan_target tandem_${name}_wasm_scan)
      set(scan_module "$<TARGET_FILE_DIR:${scan_target}>/$<TARGET_FILE_BASE_NAME:${scan_target}>.wasm")
    endif()
  endif()

  # 5. Its registration with the determinism check (build-scripts/check-determinism --game-build).
  set(sources "")
  set(sources_separator "")
  foreach(source ${arg_SOURCES})
    get_filename_component(source ${source} ABSOLUTE)
    string(APPEND sources "${sources_separator}\"${source}\"")
    set(sources_separator ", ")
  endforeach()
  string(REPLACE ";" "\", \"" quick "${arg_QUICK_SCENARIOS}")
  if(quick)
    set(quick "\"${quick}\"")
  endif()
  string(REGEX REPLACE "::.*" "" namespace "${arg_SIM}")
  set(web "")
  if(arg_WEB)
    get_filename_component(web ${arg_WEB} ABSOLUTE)
  endif()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/tandem-games/${name}.json CONTENT "{
  \"registration\": 1,
  \"game\": \"${name}\",
  \"build\": \"${kind}\",
  \"buildDir\": \"${CMAKE_BINARY_DIR}\",
  \"command\": \"${command}\",
  \"commandTarget\": \"$<$<BOOL:${command}>:${name}_command>\",
  \"commandSource\": \"${main}\",
  \"package\": \"${package}\",
  \"packageTarget\": \"${package_target}\",
  \"scanTarget\": \"${scan_target}\",
  \"scanModule\": \"${scan_module}\",
  \"library\": \"$<TARGET_FILE:${name}>\",
  \"kitLibraries\": [\"$<TARGET_FILE:tandem::core>\", \"$<TARGET_FILE:tandem::sim>\"],
  \"namespace\": \"${namespace}\",
  \"sources\": [${sources}],
  \"quick\": [${quick}],
  \"web\": \"${web}\"
}
")
endfunction()
