# `cmake --install <build> --prefix P`: the kit as a CMake package a game finds with
# find_package(tandem CONFIG): its libraries as tandem::core, tandem::sim, tandem::net,
# tandem::predict, tandem::client, tandem::cli (and tandem::server where the build has it),
# each module's public headers under a root of its own (P/include/tandem-<module>/, so a target
# sees only the headers of what it links, as in this tree), tandemConfig.cmake, its version
# file, and tandem_add_game. Included by the top-level CMakeLists.txt when TANDEM_INSTALL is on.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TANDEM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tandem)
get_property(tandem_kit_libraries GLOBAL PROPERTY TANDEM_KIT_LIBRARIES)
get_property(tandem_kit_modules GLOBAL PROPERTY TANDEM_KIT_MODULES)

# `cmake --build <build> --target tandem_kit` builds what the install copies, and nothing else
# (not the tests, the benchmarks or the games), before `cmake --install`.
add_custom_target(tandem_kit DEPENDS ${tandem_kit_libraries})

install(TARGETS ${tandem_kit_libraries} EXPORT tandemTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(module ${tandem_kit_modules})
  get_property(headers GLOBAL PROPERTY TANDEM_KIT_HEADERS_${module})
  install(DIRECTORY ${headers}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tandem-${module}/tandem/${module})
endforeach()
install(EXPORT tandemTargets NAMESPACE tandem:: DESTINATION ${TANDEM_CMAKE_INSTALL_DIR})

# The ES module's generic half (an Emscripten build): tandem_add_game_module and what it copies
# or compiles beside itself (src/core.cpp, the JS layer, the typings, typegen.mjs), laid out as
# in the source tree, so TandemGameModule.cmake finds them beside it in an install alike.
set(TANDEM_BINDINGS_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/tandem/bindings)
set(TANDEM_CONFIG_BINDINGS OFF)
if(TARGET tandem_bindings)
  set(TANDEM_CONFIG_BINDINGS ON)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/bindings/ DESTINATION ${TANDEM_BINDINGS_INSTALL_DIR}
    PATTERN CMakeLists.txt EXCLUDE PATTERN include EXCLUDE)
endif()

# What the config must find again for the targets it imports: the server's libraries, the
# checkpoint store's.
set(TANDEM_CONFIG_SERVER OFF)
if(TARGET tandem_server)
  set(TANDEM_CONFIG_SERVER ON)
endif()
set(TANDEM_CONFIG_STORE OFF)
if(TARGET tandem_store)
  set(TANDEM_CONFIG_STORE ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/build-scripts/cmake/tandemConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package-config/tandemConfig.cmake
  INSTALL_DESTINATION ${TANDEM_CMAKE_INSTALL_DIR}
  PATH_VARS TANDEM_BINDINGS_INSTALL_DIR)
# 0.x: a minor version may change the seam, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package-config/tandemConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/package-config/tandemConfig.cmake
  ${PROJECT_BINARY_DIR}/package-config/tandemConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/build-scripts/cmake/TandemGame.cmake
  ${PROJECT_SOURCE_DIR}/build-scripts/cmake/TandemGameMain.cpp.in
  ${PROJECT_SOURCE_DIR}/build-scripts/cmake/TandemGameSite.cmake
  ${PROJECT_SOURCE_DIR}/build-scripts/cmake/TandemPageBundles.cmake
  DESTINATION ${TANDEM_CMAKE_INSTALL_DIR})
# The page's shell, which a game's server serves with its plugin (tandem_add_game's <name>_web),
# from a build that has the server. Its own games' plugins and the demo's dependencies stay here.
if(TARGET tandem_server)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/web/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tandem/web
    PATTERN games EXCLUDE PATTERN node_modules EXCLUDE PATTERN "package*.json" EXCLUDE)
endif()
