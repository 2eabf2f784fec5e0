// expect: calls fopen
// expect: uses file streams
#include <cstdio>
#include <fstream>
void save() {
  if (FILE* f = std::fopen("results.json", "w")) std::fclose(f);
  std::ofstream("report.xml") << "<Catch/>";
}
