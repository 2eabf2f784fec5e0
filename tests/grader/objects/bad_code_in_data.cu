// expect: places data
__attribute__((section(".text"))) const unsigned char code[] = {0x31, 0xc0, 0xc3};
int run() { return ((int (*)())(const void*)code)(); }
