// The `tandem` executable: hands argv to tandem_cli_lib and returns its exit status. All
// behaviour lives in cli.cpp where tests reach it; nothing may be decided here.
#include <iostream>
#include <string_view>
#include <vector>

#include "cli/cli.hpp"

int main(int argc, char** argv) {
    std::vector<std::string_view> args;
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    return tandem::cli::run(args, std::cout, std::cerr);
}
