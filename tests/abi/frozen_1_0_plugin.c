/* A plugin as an outside author built it against ABI 1.0 (tests/abi/frozen_1_0), in plain C,
   stepping through the call's arrays by its own sizeof as 1.0 allowed. One implementation,
   "frozen.axpby": z = alpha * x + beta * y over fp32 tensors, inputs x and y by position, attributes
   alpha and beta by position. It checks every element's struct_size against its own sizeof, so a
   host that hands it arrays of another stride gets an error, not a silent misread. */
#include <opcert/backend_abi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct opcert_error {
  int32_t code;
  char message[256];
};

struct opcert_backend {
  int32_t unused;
};

static opcert_error* fail(int32_t code, const char* message) {
  opcert_error* e = (opcert_error*)calloc(1, sizeof(opcert_error));
  e->code = code;
  snprintf(e->message, sizeof e->message, "%s", message);
  return e;
}

static void error_destroy(opcert_error_destroy_args* a) { free(a->error); }
static void error_message(opcert_error_message_args* a) { a->message = a->error->message; }
static void error_code(opcert_error_code_args* a) { a->code = a->error->code; }

static opcert_backend the_backend;
static opcert_error* initialize(opcert_initialize_args* a) {
  a->backend = &the_backend;
  return NULL;
}
static opcert_error* finalize(opcert_finalize_args* a) {
  (void)a;
  return NULL;
}

/* What is wrong with the call, or NULL. */
static const char* check_call(const opcert_op_call* c, char* why, size_t size) {
  if (c->impl_key == NULL || strcmp(c->impl_key, "frozen.axpby") != 0) return "unknown implementation";
  if (c->input_count != 2 || c->output_count != 1 || c->attr_count != 2) return "takes x, y, alpha, beta and z";
  for (int i = 0; i < 2; ++i) {
    if (c->inputs[i].struct_size != sizeof(opcert_tensor)) {
      snprintf(why, size, "inputs[%d].struct_size is %zu, not this plugin's sizeof(opcert_tensor) %zu", i,
               c->inputs[i].struct_size, sizeof(opcert_tensor));
      return why;
    }
    if (c->attrs[i].struct_size != sizeof(opcert_attr)) {
      snprintf(why, size, "attrs[%d].struct_size is %zu, not this plugin's sizeof(opcert_attr) %zu", i,
               c->attrs[i].struct_size, sizeof(opcert_attr));
      return why;
    }
  }
  if (strcmp(c->inputs[0].name, "x") != 0 || strcmp(c->inputs[1].name, "y") != 0) return "inputs are not x, y";
  if (strcmp(c->attrs[0].name, "alpha") != 0 || strcmp(c->attrs[1].name, "beta") != 0) return "attrs are not alpha, beta";
  return NULL;
}

static char reason[256];
static opcert_error* query_op(opcert_query_op_args* a) {
  const char* why = check_call(a->call, reason, sizeof reason);
  a->supported = why == NULL;
  a->reason = why;
  return NULL;
}

static opcert_error* run_op(opcert_run_op_args* a) {
  char why[256];
  const opcert_op_call* c = a->call;
  const char* problem = check_call(c, why, sizeof why);
  if (problem != NULL) return fail(OPCERT_ERROR_INVALID_ARGUMENT, problem);
  const float* x = (const float*)c->inputs[0].data;
  const float* y = (const float*)c->inputs[1].data;
  float* z = (float*)c->outputs[0].data;
  const double alpha = c->attrs[0].f, beta = c->attrs[1].f;
  for (int64_t i = 0; i < c->inputs[0].shape[0]; ++i) z[i] = (float)(alpha * x[i] + beta * y[i]);
  return NULL;
}

/* Only what the test host calls; a real plugin fills every required entry. */
static const opcert_api api = {
    .struct_size = sizeof(opcert_api),
    .abi_major = OPCERT_ABI_VERSION_MAJOR,
    .abi_minor = OPCERT_ABI_VERSION_MINOR,
    .error_destroy = error_destroy,
    .error_message = error_message,
    .error_code = error_code,
    .initialize = initialize,
    .finalize = finalize,
    .query_op = query_op,
    .run_op = run_op,
};

OPCERT_EXPORT const opcert_api* opcert_backend_get_api(void) { return &api; }
