// expect: static object with a destructor inside a function
#include <string>
const char* name() {
  static const std::string n = "lab";
  return n.c_str();
}
