/*
 * opcert backend ABI: the stable C boundary between the opcert harness (the host) and a compute
 * backend (in-tree or a vendor's plugin library). C99, no C++.
 *
 * Shape of the interface (after PJRT):
 *   - A plugin exports one symbol, OPCERT_BACKEND_ENTRY_SYMBOL, returning a pointer to a static
 *     opcert_api function table.
 *   - The table and every argument struct start with `size_t struct_size` and are append-only.
 *     A caller sets struct_size to sizeof the struct it was compiled with; a callee never reads
 *     or writes past the struct_size it is given. The host never calls a table entry that lies
 *     past the table's struct_size (see OPCERT_API_HAS).
 *   - Every function takes one argument struct and returns NULL on success or an opaque
 *     opcert_error the caller must release with api->error_destroy.
 *   - A different major version is refused by the host; a minor version only appends.
 *
 * docs/ABI.md documents every function, ownership and lifetime rules and the changelog.
 */
#ifndef OPCERT_BACKEND_ABI_H
#define OPCERT_BACKEND_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPCERT_ABI_VERSION_MAJOR 1
#define OPCERT_ABI_VERSION_MINOR 4

/* The one symbol a plugin library exports. */
#define OPCERT_BACKEND_ENTRY_SYMBOL "opcert_backend_get_api"

#if defined(_WIN32)
#define OPCERT_EXPORT __declspec(dllexport)
#else
#define OPCERT_EXPORT __attribute__((visibility("default")))
#endif

/* struct_size for a struct whose last member known to the writer is `last_field`. */
#define OPCERT_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

/* True when a table (or struct) of reported size `ptr->struct_size` contains `field`. */
#define OPCERT_API_HAS(ptr, type, field) \
  ((ptr)->struct_size >= OPCERT_STRUCT_SIZE(type, field) && (ptr)->field != NULL)

/* Element i of an array of structs in a call (opcert_op_call's inputs, outputs, attrs), stepped
   by the elements' struct_size, never by sizeof (1.2). Every element of one array carries the same
   struct_size, which is the array's stride. A host lays each array out in the element size of
   the smaller of its own minor and the backend's (opcert_api.abi_minor), so a backend that indexes
   by sizeof, as 1.0 and 1.1 allowed, reads it right under a newer host, and a backend that steps
   with OPCERT_ARRAY_AT reads any host's. docs/ABI.md, "Arrays". */
#define OPCERT_ARRAY_AT(type, array, i) \
  ((const type*)((const char*)(array) + (size_t)(i) * (array)[0].struct_size))

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */
/* ------------------------------------------------------------------------------------------ */

/* Opaque, created by the backend, released by the host with api->error_destroy. */
typedef struct opcert_error opcert_error;

typedef enum opcert_error_code {
  OPCERT_ERROR_OK = 0, /* never carried by an error object; listed for completeness */
  OPCERT_ERROR_UNKNOWN = 1,
  OPCERT_ERROR_INVALID_ARGUMENT = 2,
  OPCERT_ERROR_UNSUPPORTED = 3,     /* the case is outside what this implementation does */
  OPCERT_ERROR_OUT_OF_MEMORY = 4,
  OPCERT_ERROR_DEVICE = 5,          /* a driver or runtime failure (CUDA error, ...) */
  OPCERT_ERROR_NOT_FOUND = 6,       /* unknown implementation key, device index, ... */
  OPCERT_ERROR_INTERNAL = 7,
  OPCERT_ERROR_VERSION_MISMATCH = 8,
  OPCERT_ERROR_TIMEOUT = 9,
  OPCERT_ERROR_ABORTED = 10         /* a communicator was aborted */
} opcert_error_code;

typedef struct opcert_error_destroy_args {
  size_t struct_size;
  opcert_error* error; /* in; may be NULL (no-op) */
} opcert_error_destroy_args;

typedef struct opcert_error_message_args {
  size_t struct_size;
  const opcert_error* error; /* in */
  const char* message;       /* out: NUL-terminated, owned by the error, valid until destroyed */
} opcert_error_message_args;

typedef struct opcert_error_code_args {
  size_t struct_size;
  const opcert_error* error; /* in */
  int32_t code;              /* out: an opcert_error_code */
} opcert_error_code_args;

/* ------------------------------------------------------------------------------------------ */
/* Vocabulary: dtypes, devices, tensors, attributes                                           */
/* ------------------------------------------------------------------------------------------ */

/* Values are part of the ABI: never renumber, only append. */
typedef enum opcert_dtype {
  OPCERT_DTYPE_INVALID = 0,
  OPCERT_DTYPE_F64 = 1,
  OPCERT_DTYPE_F32 = 2,
  OPCERT_DTYPE_F16 = 3,
  OPCERT_DTYPE_BF16 = 4,
  OPCERT_DTYPE_F8_E4M3FN = 5, /* 1-4-3, bias 7, no infinities, 0x7F/0xFF are NaN */
  OPCERT_DTYPE_F8_E5M2 = 6,   /* 1-5-2, bias 15, IEEE-like with infinities */
  OPCERT_DTYPE_I8 = 7,
  OPCERT_DTYPE_I32 = 8
} opcert_dtype;

typedef enum opcert_device_type {
  OPCERT_DEVICE_CPU = 1,   /* host memory, directly addressable by the harness */
  OPCERT_DEVICE_CUDA = 2,
  OPCERT_DEVICE_OTHER = 3  /* a vendor accelerator: only reachable through memory_copy */
} opcert_device_type;

/* A device as DLPack's DLDevice: kind and index within the backend. */
typedef struct opcert_device {
  int32_t type;  /* opcert_device_type */
  int32_t index; /* 0 .. device_count-1 */
} opcert_device;

/* A tensor view, DLPack-style. Never owns its memory. */
typedef struct opcert_tensor {
  size_t struct_size;
  const char* name;       /* the operand's name in the op contract ("a", "b", "bias", "out") */
  void* data;             /* base pointer in the device's address space; may be NULL in queries */
  opcert_device device;
  int32_t dtype;          /* opcert_dtype */
  int32_t ndim;
  const int64_t* shape;   /* ndim entries */
  const int64_t* strides; /* ndim entries, in elements; NULL means contiguous row-major */
  uint64_t byte_offset;   /* added to data before the first element */
} opcert_tensor;

typedef enum opcert_attr_kind {
  OPCERT_ATTR_INT = 1,
  OPCERT_ATTR_FLOAT = 2,
  OPCERT_ATTR_STRING = 3,
  OPCERT_ATTR_INT_ARRAY = 4
} opcert_attr_kind;

/* A named op attribute ("eps", "causal", "layout", ...). Borrowed for the call's duration. */
typedef struct opcert_attr {
  size_t struct_size;
  const char* name;
  int32_t kind; /* opcert_attr_kind: selects which field below holds the value */
  int64_t i;
  double f;
  const char* s;
  const int64_t* ints;
  int64_t ints_count;
} opcert_attr;

/* ------------------------------------------------------------------------------------------ */
/* Plugin lifetime and identity                                                               */
/* ------------------------------------------------------------------------------------------ */

/* Opaque per-initialisation state of a backend. */
typedef struct opcert_backend opcert_backend;

typedef struct opcert_initialize_args {
  size_t struct_size;
  int32_t host_abi_major; /* in: the host's OPCERT_ABI_VERSION_MAJOR */
  int32_t host_abi_minor; /* in */
  opcert_backend* backend; /* out: released with api->finalize */
  /* 1.3 */
  const char* backend_name;  /* in: which backend to initialise, for a library that serves several
                                (backend_list); NULL for a library that is one backend */
  const char* backend_entry; /* in: where the library finds it: a listed backend's entry, or a
                                manifest's backend.python; NULL when the name is enough */
} opcert_initialize_args;

typedef struct opcert_finalize_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
} opcert_finalize_args;

typedef struct opcert_backend_info_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  /* out: NUL-terminated strings owned by the backend, valid until finalize. */
  const char* name;        /* short lowercase identifier, unique among loaded backends */
  const char* version;     /* the backend's own version, free-form */
  const char* vendor;
  const char* description;
  /* 1.3, optional: the package the backend's code comes from when the library file does not hold
     it all (a Python distribution behind the Python bridge); NULL otherwise. */
  const char* package;         /* the package's name */
  const char* package_version;
  const char* package_sha256;  /* hex SHA-256 over the package's files (docs/ABI.md, "Packages") */
} opcert_backend_info_args;

/* 1.3: one backend of a library that serves several (a bridge to another language's packages). */
typedef struct opcert_listed_backend {
  size_t struct_size;
  const char* name;   /* the backend's name: initialize's backend_name */
  const char* entry;  /* initialize's backend_entry; may be NULL */
  const char* origin; /* one line for people: where it was found ("entry point ... in <package>") */
  const char* error;  /* NULL, or one line saying why it cannot be served (listed as unavailable) */
} opcert_listed_backend;

typedef struct opcert_backend_list_args {
  size_t struct_size;
  const opcert_listed_backend* backends; /* out: stepped with OPCERT_ARRAY_AT; owned by the library,
                                            valid until its next backend_list or its unloading */
  int32_t count;                         /* out */
} opcert_backend_list_args;

/* ------------------------------------------------------------------------------------------ */
/* Devices                                                                                    */
/* ------------------------------------------------------------------------------------------ */

typedef struct opcert_device_count_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  int32_t count;           /* out */
} opcert_device_count_args;

typedef struct opcert_device_info_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  int32_t index;           /* in */
  opcert_device device;    /* out */
  const char* name;        /* out: owned by the backend, valid until finalize */
  uint64_t memory_bytes;   /* out: total device memory, 0 if unknown */
  int32_t compute_units;   /* out: SMs, cores, ...; 0 if unknown */
  /* 1.4, optional: which physical device this is, for reports, certificates and reruns on the
     same device. NULL or "" when unknown; owned by the backend, valid until finalize. A backend
     writes them only when struct_size covers them (a 1.3 host's does not). */
  const char* uuid;        /* out: stable across reboots and renumbering ("GPU-9cf20265-..." as
                              nvidia-smi prints it for an NVIDIA GPU) */
  const char* pci_bus_id;  /* out: "0000:1b:00.0" (domain:bus:device.function); NULL for a device
                              that is not a PCI device of its own: never invent one */
} opcert_device_info_args;

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                     */
/* ------------------------------------------------------------------------------------------ */

typedef struct opcert_memory_allocate_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_device device;    /* in */
  uint64_t bytes;          /* in; 0 is allowed and returns a unique non-NULL pointer or NULL */
  uint64_t alignment;      /* in: at least this, a power of two; 0 means the backend's default */
  void* data;              /* out: released with memory_free */
} opcert_memory_allocate_args;

typedef struct opcert_memory_free_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_device device;    /* in */
  void* data;              /* in; NULL is a no-op */
} opcert_memory_free_args;

typedef enum opcert_copy_kind {
  OPCERT_COPY_HOST_TO_DEVICE = 1,
  OPCERT_COPY_DEVICE_TO_HOST = 2,
  OPCERT_COPY_DEVICE_TO_DEVICE = 3
} opcert_copy_kind;

/* Copies are complete (visible to the host or later ops) when the call returns. */
typedef struct opcert_memory_copy_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_device device;    /* in */
  int32_t kind;            /* in: opcert_copy_kind */
  void* dst;               /* in */
  const void* src;         /* in */
  uint64_t bytes;          /* in */
} opcert_memory_copy_args;

typedef struct opcert_synchronize_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_device device;    /* in: waits for all work queued on this device */
} opcert_synchronize_args;

/* ------------------------------------------------------------------------------------------ */
/* Implementations, capability and running ops                                                */
/* ------------------------------------------------------------------------------------------ */

typedef struct opcert_impl_count_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  int32_t count;           /* out */
} opcert_impl_count_args;

typedef struct opcert_impl_info_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  int32_t index;           /* in: 0 .. count-1 */
  /* out: owned by the backend, valid until finalize. */
  const char* key;         /* "<backend>.<op>.<variant>", e.g. "cpu.gemm.blocked" */
  const char* op;          /* the catalogue op it implements, e.g. "gemm" */
  const char* description;
} opcert_impl_info_args;

/* Shared by query and run: what to do, on which operands. */
typedef struct opcert_op_call {
  size_t struct_size;
  const char* impl_key;          /* which implementation */
  /* The arrays below are stepped with OPCERT_ARRAY_AT (their elements' struct_size is the stride). */
  const opcert_tensor* inputs;   /* borrowed for the call */
  int32_t input_count;
  const opcert_tensor* outputs;  /* borrowed; data written in place */
  int32_t output_count;
  const opcert_attr* attrs;      /* borrowed */
  int32_t attr_count;
} opcert_op_call;

/* Would run_op accept this call? Tensor data pointers may be NULL. */
typedef struct opcert_query_op_args {
  size_t struct_size;
  opcert_backend* backend;    /* in */
  const opcert_op_call* call; /* in */
  int32_t supported;          /* out: 1 supported, 0 not */
  const char* reason;         /* out when unsupported: why; owned by the backend, valid until the
                                 next query_op on this backend or finalize */
  /* 1.1 */
  const char* library_call;   /* out when supported, optional: the library call this implementation
                                 makes for this call, one line ("at::rms_norm(x, [N], w, eps)");
                                 NULL when the backend does not say; owned as reason */
} opcert_query_op_args;

/* Runs the op. The output is complete when synchronize on the device returns. */
typedef struct opcert_run_op_args {
  size_t struct_size;
  opcert_backend* backend;    /* in */
  const opcert_op_call* call; /* in */
  struct opcert_comm* comm;   /* in: the communicator for collective ops, NULL otherwise */
} opcert_run_op_args;

/* 1.1, optional: a backend that computes an op into memory of its own (a library that returns
   a fresh tensor) leaves the move into the call's outputs to publish_outputs, so that the
   harness times the library call alone. Called by a host of minor >= 1, never inside a timed
   region, after run_op and before the host reads the outputs, and after the last run_op of a call
   before its outputs are freed. It may only move results run_op computed in full: no arithmetic.
   A backend that never gets a host of minor >= 1 (initialize says) publishes inside run_op. */
typedef struct opcert_publish_outputs_args {
  size_t struct_size;
  opcert_backend* backend;    /* in */
  const opcert_op_call* call; /* in: the call of the latest run_op whose results are pending */
  uint64_t bytes;             /* out: bytes moved into the outputs; 0 when nothing was pending */
} opcert_publish_outputs_args;

/* ------------------------------------------------------------------------------------------ */
/* Optional: events for device timing. All four present, or all NULL.                         */
/* ------------------------------------------------------------------------------------------ */

typedef struct opcert_event opcert_event;

typedef struct opcert_event_create_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_device device;    /* in */
  opcert_event* event;     /* out: released with event_destroy */
} opcert_event_create_args;

typedef struct opcert_event_destroy_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_event* event;     /* in; NULL is a no-op */
} opcert_event_destroy_args;

typedef struct opcert_event_record_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_event* event;     /* in: records the point after all work queued so far */
} opcert_event_record_args;

typedef struct opcert_event_elapsed_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_event* start;     /* in */
  opcert_event* stop;      /* in: waits for stop to complete */
  double milliseconds;     /* out */
} opcert_event_elapsed_args;

/* ------------------------------------------------------------------------------------------ */
/* Optional: communicators for collectives. All present, or all NULL.                         */
/* ------------------------------------------------------------------------------------------ */

typedef struct opcert_comm opcert_comm;

#define OPCERT_COMM_UNIQUE_ID_BYTES 256

/* Rank 0 creates the id; the host carries it to the other ranks (MPI broadcast). */
typedef struct opcert_comm_unique_id_args {
  size_t struct_size;
  opcert_backend* backend;                    /* in */
  uint8_t id[OPCERT_COMM_UNIQUE_ID_BYTES];    /* out */
  uint32_t id_bytes;                          /* out: bytes of id in use */
} opcert_comm_unique_id_args;

typedef struct opcert_comm_init_args {
  size_t struct_size;
  opcert_backend* backend;                    /* in */
  opcert_device device;                       /* in: this rank's device */
  int32_t rank;                               /* in */
  int32_t nranks;                             /* in */
  uint8_t id[OPCERT_COMM_UNIQUE_ID_BYTES];    /* in: rank 0's unique id */
  uint32_t id_bytes;                          /* in */
  double timeout_seconds;                     /* in: give up (OPCERT_ERROR_TIMEOUT) after this; 0 = backend default */
  opcert_comm* comm;                          /* out: released with comm_destroy */
} opcert_comm_init_args;

typedef struct opcert_comm_destroy_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_comm* comm;       /* in; NULL is a no-op */
} opcert_comm_destroy_args;

/* Abandons outstanding collectives so that no rank waits forever; the comm must still be destroyed. */
typedef struct opcert_comm_abort_args {
  size_t struct_size;
  opcert_backend* backend; /* in */
  opcert_comm* comm;       /* in */
} opcert_comm_abort_args;

/* ------------------------------------------------------------------------------------------ */
/* The function table                                                                         */
/* ------------------------------------------------------------------------------------------ */

typedef struct opcert_api {
  size_t struct_size; /* sizeof(opcert_api) as the backend was compiled */
  int32_t abi_major;  /* OPCERT_ABI_VERSION_MAJOR the backend was compiled with */
  int32_t abi_minor;  /* OPCERT_ABI_VERSION_MINOR the backend was compiled with */

  /* 1.0: required */
  void (*error_destroy)(opcert_error_destroy_args* args);
  void (*error_message)(opcert_error_message_args* args);
  void (*error_code)(opcert_error_code_args* args);

  opcert_error* (*initialize)(opcert_initialize_args* args);
  opcert_error* (*finalize)(opcert_finalize_args* args);
  opcert_error* (*backend_info)(opcert_backend_info_args* args);

  opcert_error* (*device_count)(opcert_device_count_args* args);
  opcert_error* (*device_info)(opcert_device_info_args* args);

  opcert_error* (*memory_allocate)(opcert_memory_allocate_args* args);
  opcert_error* (*memory_free)(opcert_memory_free_args* args);
  opcert_error* (*memory_copy)(opcert_memory_copy_args* args);
  opcert_error* (*synchronize)(opcert_synchronize_args* args);

  opcert_error* (*impl_count)(opcert_impl_count_args* args);
  opcert_error* (*impl_info)(opcert_impl_info_args* args);
  opcert_error* (*query_op)(opcert_query_op_args* args);
  opcert_error* (*run_op)(opcert_run_op_args* args);

  /* 1.0: optional (NULL when the backend has no device timing) */
  opcert_error* (*event_create)(opcert_event_create_args* args);
  opcert_error* (*event_destroy)(opcert_event_destroy_args* args);
  opcert_error* (*event_record)(opcert_event_record_args* args);
  opcert_error* (*event_elapsed)(opcert_event_elapsed_args* args);

  /* 1.0: optional (NULL when the backend has no collectives) */
  opcert_error* (*comm_unique_id)(opcert_comm_unique_id_args* args);
  opcert_error* (*comm_init)(opcert_comm_init_args* args);
  opcert_error* (*comm_destroy)(opcert_comm_destroy_args* args);
  opcert_error* (*comm_abort)(opcert_comm_abort_args* args);

  /* 1.1: optional (NULL when run_op always writes the outputs itself) */
  opcert_error* (*publish_outputs)(opcert_publish_outputs_args* args);

  /* 1.3: optional (NULL for a library that is one backend). Called before any initialize: the
     backends this library serves, each then initialised by name (docs/ABI.md, "Libraries of
     several backends"). */
  opcert_error* (*backend_list)(opcert_backend_list_args* args);

  /* Append new entries for minor versions here, with a changelog line in docs/ABI.md. */
} opcert_api;

/* The signature of the exported entry point. Returns a table with static lifetime. */
typedef const opcert_api* (*opcert_get_api_fn)(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* OPCERT_BACKEND_ABI_H */
