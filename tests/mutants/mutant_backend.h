// The "mutants" backend: for each op a correct naive implementation ("mutants.<op>.correct")
// and deliberately broken ones ("mutants.<op>.<defect>").
#pragma once

#include <opcert/backend_abi.h>

extern "C" const opcert_api* opcert_mutants_backend_get_api(void);
