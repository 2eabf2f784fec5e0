// Catch2 2.x (Debian 12's package) and 3.x behind one include, for every test in the tree.
// The file that holds a test executable's main defines SYNCLAB_CATCH_MAIN before including this.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#if defined(SYNCLAB_CATCH_MAIN)
int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
#endif
// The 2.x names the tests use: Approx at global scope, Catch::Contains for a substring.
using Catch::Approx;
namespace Catch {
inline Matchers::StringContainsMatcher Contains(const std::string& text, CaseSensitive cs = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(text, cs);
}
}  // namespace Catch
#else
#if defined(SYNCLAB_CATCH_MAIN)
#define CATCH_CONFIG_MAIN
#endif
#include <catch2/catch.hpp>
#endif
