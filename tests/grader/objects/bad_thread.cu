// expect: uses std::thread
#include <thread>
void background() { std::thread([] {}).detach(); }
