// Test plugin that is a valid shared library but does not export the entry symbol
// (opcert_backend_get_api); it exports a near miss instead.
#include <opcert/backend_abi.h>

extern "C" OPCERT_EXPORT const opcert_api* opcert_backend_get_api_v0(void) { return nullptr; }
