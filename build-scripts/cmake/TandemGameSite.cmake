# cmake -DSHELL=<dir> -DPLUGIN=<dir> -DGAME=<name> -DSITE=<dir> -P TandemGameSite.cmake: lays out
# a game's page for its server (`<name> serve --web <site>`): the kit's page shell, with the
# game's plugin in games/<name>/, as the shell loads it. Run by tandem_add_game's <name>_web
# target at every build; it copies files that changed and never decides anything.
foreach(var SHELL PLUGIN GAME SITE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TandemGameSite.cmake needs -D${var}=...")
  endif()
endforeach()
file(COPY ${SHELL}/ DESTINATION ${SITE}
  PATTERN games EXCLUDE PATTERN node_modules EXCLUDE PATTERN "package*.json" EXCLUDE PATTERN README.md EXCLUDE)
file(COPY ${PLUGIN}/ DESTINATION ${SITE}/games/${GAME} PATTERN "*.cpp" EXCLUDE PATTERN "*.hpp" EXCLUDE)
