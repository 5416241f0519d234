// Hosts the precompiled header every test binary reuses (tests/CMakeLists.txt).
int main() { return 0; }
