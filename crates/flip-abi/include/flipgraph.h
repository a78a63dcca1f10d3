/* flipgraph's plugin contract (solver and node suites), generated from crates/flip-abi by cbindgen: do not edit.
 * The pre- and post-conditions of every entry are in the rustdoc of flip-abi. */

#ifndef FLIPGRAPH_H
#define FLIPGRAPH_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * Version of this ABI. The host refuses plugins built for another version.
 */
#define ABI_VERSION 2

/**
 * Most algorithms one plugin may offer.
 */
#define MAX_ALGORITHMS 256

/**
 * Most parameters one algorithm may have.
 */
#define MAX_PARAMS 64

/**
 * Most choices one choice parameter may have.
 */
#define MAX_CHOICES 64

/**
 * Longest id, name, label, version or choice label, in bytes.
 */
#define MAX_TEXT_LEN 256

/**
 * Longest help text, in bytes.
 */
#define MAX_HELP_LEN 4096

/**
 * Longest id (plugin, algorithm, parameter), in bytes.
 */
#define MAX_ID_LEN 32

/**
 * Success.
 */
#define STATUS_OK 0

/**
 * The call failed; the error buffer says why.
 */
#define STATUS_FAILED 1

/**
 * The plugin panicked; the instance must not be used again.
 */
#define STATUS_PANIC 2

/**
 * The solve stopped early because [`HostServices::cancelled`] said so; `pressure` holds an
 * unfinished iterate that the host discards.
 */
#define STATUS_CANCELLED 3

/**
 * The algorithm cannot handle this problem (e.g. an LCP handed to a linear-only solver, or a
 * problem kind it does not accept).
 */
#define STATUS_UNSUPPORTED 5

/**
 * A parameter value, problem field or saved state is invalid.
 */
#define STATUS_BAD_VALUE 11

/**
 * Capability bit: solves the linear system `A p = rhs`.
 */
#define CAP_LINEAR 1

/**
 * Capability bit: solves the LCP `0 <= p ⊥ A p - rhs >= 0` on flagged cells.
 */
#define CAP_LCP 2

/**
 * Capability bit: accepts [`PROBLEM_STRUCTURED`] problems.
 */
#define CAP_STRUCTURED 4

/**
 * Capability bit: accepts [`PROBLEM_CSR`] problems.
 */
#define CAP_CSR 8

/**
 * Capability bit: accepts [`PROBLEM_TALLCELL`] problems (appended in ABI 2: bits and kinds
 * are only ever appended, and a host never hands an algorithm a kind it does not list).
 */
#define CAP_TALLCELL 16

/**
 * Capability bit: accepts [`PROBLEM_VISCOSITY`] problems (appended like [`CAP_TALLCELL`];
 * the next free bit after [`CAP_SAVES_STATE`]).
 */
#define CAP_VISCOSITY 128

/**
 * Capability bit: accepts [`PROBLEM_COUPLED`] problems (appended like [`CAP_VISCOSITY`]; the
 * next free bit).
 */
#define CAP_COUPLED 256

/**
 * Every problem-kind capability bit.
 */
#define CAP_KINDS ((((CAP_STRUCTURED | CAP_CSR) | CAP_TALLCELL) | CAP_VISCOSITY) | CAP_COUPLED)

/**
 * Capability bit: solves structured problems on one rank's slab through the
 * [`SUITE_DISTRIBUTED`] suite (see [`DistributedSuite`]); requires [`CAP_STRUCTURED`]. The host
 * refuses an algorithm without it in a distributed run (appended in ABI 2, like
 * [`CAP_TALLCELL`]).
 */
#define CAP_DISTRIBUTED 32

/**
 * Capability bit: instances keep learned state that changes later results (a policy, a
 * penalty set) and save it through `save_state`, so a resumed run continues bit for bit.
 * Requires the state entries of [`PluginTable`]. An algorithm without it keeps nothing that
 * `reset` would not rebuild identically; the host reports it as keeping no state (appended in
 * ABI 2, like [`CAP_TALLCELL`]).
 */
#define CAP_SAVES_STATE 64

/**
 * Every capability bit of this version; the others are reserved and must be zero.
 */
#define CAP_ALL ((((CAP_LINEAR | CAP_LCP) | CAP_KINDS) | CAP_DISTRIBUTED) | CAP_SAVES_STATE)

/**
 * Kind tag of a [`CoupledProblem`]. Appended after [`super::PROBLEM_VISCOSITY`]: an algorithm
 * receives it only when its capabilities list [`super::CAP_COUPLED`].
 */
#define PROBLEM_COUPLED 5

/**
 * Version of [`DistributedSuite`] this crate was built with.
 */
#define DISTRIBUTED_SUITE_VERSION 1

/**
 * Version of the node suite. Independent of [`crate::ABI_VERSION`]: bumped on any layout change
 * of a type in this module.
 */
#define NODE_ABI_VERSION 1

/**
 * Most node kinds one library may offer.
 */
#define MAX_NODE_KINDS 64

/**
 * Most ports (inputs and outputs together) of one node kind.
 */
#define MAX_PORTS 16

/**
 * Number of data kinds of this version; tags at or above it are refused.
 */
#define DATA_KIND_COUNT 6

/**
 * A cell of liquid.
 */
#define CELL_FLUID 0

/**
 * A cell of air.
 */
#define CELL_AIR 1

/**
 * A solid cell.
 */
#define CELL_SOLID 2

/**
 * Port direction: read by the node.
 */
#define PORT_INPUT 0

/**
 * Port direction: written by the node.
 */
#define PORT_OUTPUT 1

/**
 * Port flag (inputs): the graph may leave it unconnected; its [`PortData::present`] is 0 then.
 */
#define PORT_OPTIONAL 1

/**
 * Port flag (outputs): starts as the value of the required input of the same name and kind,
 * which `eval` then sees absent (the output holds it). Required for particle outputs (the
 * host sizes them by that input).
 */
#define PORT_FROM_INPUT 2

/**
 * Every port flag of this version; the others are reserved and must be zero.
 */
#define PORT_FLAGS_ALL (PORT_OPTIONAL | PORT_FROM_INPUT)

/**
 * Kind tag of a [`PressureProblem`] (the structured 5/7-point stencil).
 */
#define PROBLEM_STRUCTURED 1

/**
 * Kind tag of a [`CsrProblem`] (a general sparse matrix in compressed rows).
 */
#define PROBLEM_CSR 2

/**
 * Kind tag of a [`TallCellProblem`] (a CSR problem with its tall-cell geometry). Kinds are
 * appended: an algorithm sees a kind only when its capabilities list it, so older plugins
 * never receive this one.
 */
#define PROBLEM_TALLCELL 3

/**
 * Row flag of [`CsrProblem::row_flags`]: the row is in the complementarity set S (used when
 * `lcp != 0`).
 */
#define ROW_COMPLEMENTARITY 1

/**
 * Every row flag of this version; the other bits are reserved and must be zero.
 */
#define ROW_FLAGS_ALL ROW_COMPLEMENTARITY

/**
 * Version of [`HostServices`] this crate was built with.
 */
#define HOST_SERVICES_VERSION 1

/**
 * Log level: an error the user must see.
 */
#define LOG_ERROR 0

/**
 * Log level: something suspicious (e.g. a fallback taken).
 */
#define LOG_WARNING 1

/**
 * Log level: progress of interest to the user.
 */
#define LOG_INFO 2

/**
 * Log level: detail for solver developers.
 */
#define LOG_DEBUG 3

/**
 * Kind tag of a [`ViscosityProblem`]. Appended after [`super::PROBLEM_TALLCELL`]: an
 * algorithm receives it only when its capabilities list [`super::CAP_VISCOSITY`].
 */
#define PROBLEM_VISCOSITY 4

/**
 * Row value of a face that is no unknown in [`ViscosityProblem::face_row`] (a face inside a
 * solid, fixed to the solid's velocity, or a face with no liquid in its control volume).
 */
#define NO_ROW UINT32_MAX
















/**
 * Kind of an algorithm parameter.
 */
typedef uint32_t ParamKind;

/**
 * Data kind of a port. Append-only: a number keeps its meaning forever.
 */
typedef uint32_t DataKindTag;

/**
 * Schema of one algorithm parameter (cf. OpenFX `kOfxParamProp*`).
 *
 * Validated at load: `min <= max`, `default` finite and in `[min, max]`, integral bounds and
 * default for int/bool/choice, `min = 0` and `max = choice_count - 1` for choices, a name that
 * is not one of [`RESERVED_PARAM_NAMES`].
 */
struct ParamDesc;
struct AlgorithmDesc;
struct ParamValue;
struct HostServices;
struct ErrorBuf;
struct SolveStats;
struct PortDesc;
struct NodeKindDesc;
struct NodeContext;
struct ParticlesView;
struct FaceVelocityView;
struct CellFieldView;
struct CellKindsView;
union PortViewUnion;
struct PortData;
struct PluginHeader;
struct PluginTable;
struct NodeTable;
struct SlabLayout;
struct DistributedSuite;
struct PressureProblem;
struct CsrProblem;
struct TallCellProblem;
struct ViscosityProblem;
struct CoupledProblem;

typedef int32_t (*DescribeFn)(uint32_t index, struct AlgorithmDesc *out);

typedef int32_t (*CreateFn)(uint32_t index,
                            const struct ParamValue *params,
                            uint32_t param_count,
                            const struct HostServices *services,
                            void **instance,
                            struct ErrorBuf *error);

typedef int32_t (*SolveFn)(void *instance,
                           uint32_t kind,
                           const void *problem,
                           const struct HostServices *services,
                           struct SolveStats *stats,
                           struct ErrorBuf *error);

typedef void (*DestroyFn)(void *instance);

typedef int32_t (*ResetFn)(void *instance, struct ErrorBuf *error);

typedef int32_t (*StateSizeFn)(void *instance, uint64_t *size, struct ErrorBuf *error);

typedef int32_t (*SaveStateFn)(void *instance,
                               uint8_t *data,
                               uint64_t capacity,
                               uint64_t *written,
                               struct ErrorBuf *error);

typedef int32_t (*LoadStateFn)(void *instance,
                               const uint8_t *data,
                               uint64_t len,
                               struct ErrorBuf *error);

typedef void (*LogFn)(void *context, uint32_t level, const char *message);

typedef uint32_t (*CancelledFn)(void *context);

typedef void (*ProgressFn)(void *context, double fraction, const char *message);

typedef const void *(*FetchSuiteFn)(void *context, const char *name, uint32_t version);

typedef int32_t (*NodeDescribeFn)(uint32_t index, struct NodeKindDesc *out);

typedef int32_t (*NodeCreateFn)(uint32_t index,
                                const struct ParamValue *params,
                                uint32_t param_count,
                                const struct HostServices *services,
                                void **instance,
                                struct ErrorBuf *error);

typedef int32_t (*NodeEvalFn)(void *instance,
                              const struct NodeContext *context,
                              const struct PortData *ports,
                              uint32_t port_count,
                              const struct HostServices *services,
                              struct ErrorBuf *error);

typedef const struct PluginTable *(*EntryFn)(void);

typedef const struct NodeTable *(*NodeEntryFn)(void);

typedef uint32_t (*RankFn)(void *context);

typedef int32_t (*LayoutFn)(void *context, struct SlabLayout *out);

typedef int32_t (*AllReduceFn)(void *context, double *values, uintptr_t n);

typedef int32_t (*HaloExchangeFn)(void *context, double *field, uint32_t layers);

typedef int32_t (*AllGatherFn)(void *context, const double *local, double *global);

typedef int32_t (*AllGatherBlocksFn)(void *context,
                                     const double *local,
                                     uintptr_t local_len,
                                     double *global,
                                     uintptr_t capacity,
                                     uintptr_t *total);

typedef int32_t (*GatherBlocksFn)(void *context,
                                  uint32_t root,
                                  const double *local,
                                  uintptr_t local_len,
                                  double *global,
                                  uintptr_t capacity,
                                  uintptr_t *total);

typedef int32_t (*ScatterBlocksFn)(void *context,
                                   uint32_t root,
                                   const double *global,
                                   const uintptr_t *lens,
                                   double *local,
                                   uintptr_t capacity,
                                   uintptr_t *received);

typedef struct ParamDesc {
  /**
   * Identifier used in graphs, `[a-z0-9_]{1,32}`.
   */
  const char *name;
  /**
   * Label for the editor.
   */
  const char *label;
  /**
   * One-sentence help text.
   */
  const char *help;
  /**
   * One of the `PARAM_*` kinds.
   */
  ParamKind kind;
  /**
   * Default value.
   */
  double default_;
  /**
   * Smallest allowed value (inclusive).
   */
  double min;
  /**
   * Largest allowed value (inclusive).
   */
  double max;
  /**
   * Choice labels for [`PARAM_CHOICE`], else null.
   */
  const char *const *choices;
  /**
   * Number of entries in `choices` (at most [`MAX_CHOICES`]).
   */
  uint32_t choice_count;
} ParamDesc;

/**
 * Description of one algorithm a plugin offers.
 */
typedef struct AlgorithmDesc {
  /**
   * Identifier `[a-z0-9_-]{1,32}`, as in the Lai et al. tables: `"mic0-pcg"`, `"fas-mg"`.
   */
  const char *name;
  /**
   * Label for the editor.
   */
  const char *label;
  /**
   * One-paragraph help text, citing the method.
   */
  const char *help;
  /**
   * `CAP_*` bits: at least one of linear/LCP and at least one problem kind.
   */
  uint32_t capabilities;
  /**
   * Parameter schemas (null only when `param_count` is 0).
   */
  const struct ParamDesc *params;
  /**
   * Number of parameters (at most [`MAX_PARAMS`]).
   */
  uint32_t param_count;
} AlgorithmDesc;

/**
 * `describe`: fills `out` with algorithm `index`'s description.
 *
 * Pre: `index < algorithm_count`; `out` is valid for one write of an [`AlgorithmDesc`] and
 * zeroed by the host. Any thread, possibly concurrently.
 * Post: on [`STATUS_OK`], `*out` is filled: its strings and arrays stay valid and unchanged
 * while the library is loaded, and it satisfies the limits of [`AlgorithmDesc`] and
 * [`ParamDesc`] (the host refuses the library otherwise, and a description whose name is still
 * null). Returns [`STATUS_OK`], or [`STATUS_BAD_VALUE`] for an index out of range.
 */

/**
 * A resolved parameter value handed to `create`.
 */
typedef struct ParamValue {
  /**
   * Parameter name (as in its [`ParamDesc`]).
   */
  const char *name;
  /**
   * Value, encoded as described for each [`ParamKind`].
   */
  double value;
} ParamValue;

/**
 * Services the host passes to `create` and `solve`, valid for the duration of that call.
 *
 * Pre (host): `size` and `version` are set; every non-null entry may be called with `context`
 * until the call into the plugin returns. The plugin reads an entry only when it lies within
 * `size`, and keeps no pointer to the table afterwards.
 */
typedef struct HostServices {
  /**
   * `size_of::<HostServices>()` in the host: entries beyond it are absent.
   */
  uint32_t size;
  /**
   * [`HOST_SERVICES_VERSION`] of the host.
   */
  uint32_t version;
  /**
   * Opaque value passed back to every callback (a handle the host looks up, not an address
   * it follows: any other value, or one from an earlier call, is refused and fails the call).
   */
  void *context;
  /**
   * Logging (nullable).
   */
  LogFn log;
  /**
   * Cancellation flag (nullable: never cancelled).
   */
  CancelledFn cancelled;
  /**
   * Progress reporting (nullable).
   */
  ProgressFn progress;
  /**
   * Suite lookup by name and version (nullable: no suites).
   */
  FetchSuiteFn fetch_suite;
} HostServices;

/**
 * Caller-owned buffer the plugin writes a NUL-terminated error message into.
 */
typedef struct ErrorBuf {
  /**
   * Start of the buffer.
   */
  char *data;
  /**
   * Capacity in bytes, including the NUL.
   */
  uintptr_t capacity;
} ErrorBuf;

/**
 * `create`: a solver instance for algorithm `index` with resolved parameters.
 *
 * Pre: `index < algorithm_count`; `params` points to `param_count` values (null when 0) whose
 * names are NUL-terminated and valid during the call; missing parameters mean their defaults.
 * The values come from the user's graph: the plugin checks names and ranges itself (the SDK
 * does).
 * `services` is valid during the call (may be used for logging); `instance` and `error` are
 * valid for writes. Any thread, possibly concurrently.
 * Post: on [`STATUS_OK`], `*instance` is a non-null handle for the instance calls, owned by
 * the host until it passes it to `destroy`; the plugin keeps no pointer into `params` or
 * `services`. Otherwise `*instance` is untouched and `error` holds the reason (a name not in
 * the schema is [`STATUS_BAD_VALUE`]).
 * Returns [`STATUS_OK`], [`STATUS_BAD_VALUE`], [`STATUS_FAILED`] or [`STATUS_PANIC`].
 */

/**
 * What a solve reports. Non-convergence is not an error: `converged = 0` with [`STATUS_OK`].
 *
 * The host checks the claim: it recomputes the residual of the returned pressure (projected on
 * pure-Neumann regions, the LCP residual for LCPs) and refuses a result whose true residual
 * exceeds the reported one beyond rounding, or that is not finite.
 */
typedef struct SolveStats {
  /**
   * Iterations as the method counts them (CG iterations, V-cycles, PGS sweeps; for
   * policy iteration / penalty: inner iterations summed over outer iterations, as Lai et al.).
   */
  uint32_t iterations;
  /**
   * Outer iterations (policy / penalty updates); 0 for linear methods.
   */
  uint32_t outer_iterations;
  /**
   * Final residual, max-norm over unknowns (for LCPs, of `min(p, A p - rhs)` on S).
   */
  double residual;
  /**
   * Residual of the initial guess, same norm.
   */
  double initial_residual;
  /**
   * 1 when the tolerance was met.
   */
  uint32_t converged;
} SolveStats;

/**
 * `solve`: solves `problem` (of kind `kind`, a `PROBLEM_*` tag) in place, filling `stats`.
 *
 * Pre: `instance` came from `create`, was not destroyed and is not in use on another thread;
 * `kind` is one the algorithm's capabilities list and `problem` points to that kind's struct;
 * every array of the problem is non-null (except those documented as nullable), has the
 * length its kind documents and satisfies its layout rules; input arrays are read-only and
 * only `pressure` is written. `problem`, its arrays and `services` are valid during the call
 * only; `stats` and `error` are valid for writes.
 * Post: on [`STATUS_OK`], `pressure` holds the solution (finite, zero-mean on pure-Neumann
 * regions) and `stats` reports it truthfully: the host recomputes the residual and refuses a
 * result that claims more than it achieved. Non-convergence is [`STATUS_OK`] with
 * `converged = 0`. On [`STATUS_CANCELLED`] (returned after `services.cancelled` said so,
 * polled about once per iteration) `pressure` holds an unfinished iterate the host discards.
 * The plugin keeps no pointer into the problem or `services`. The instance may keep learned
 * state for the next call (hierarchies, policies).
 * Returns [`STATUS_OK`], [`STATUS_CANCELLED`], [`STATUS_UNSUPPORTED`], [`STATUS_BAD_VALUE`],
 * [`STATUS_FAILED`] or [`STATUS_PANIC`].
 */

/**
 * `destroy`: destroys an instance.
 *
 * Pre: `instance` came from `create`, was not destroyed and is not in use; the host calls
 * nothing on it afterwards.
 * Post: every resource of the instance (memory, threads) is released. Cannot fail.
 */

/**
 * `reset`: forgets everything learned from earlier solves (warm policies, hierarchies,
 * factorisations).
 *
 * Pre: as for `solve` (a live instance, one thread at a time); `error` is valid for writes.
 * Post: on [`STATUS_OK`], the next solve equals that of a freshly created instance with the
 * same parameters, bit for bit (a stateless plugin just returns [`STATUS_OK`]).
 * Returns [`STATUS_OK`], [`STATUS_FAILED`] or [`STATUS_PANIC`].
 */

/**
 * `state_size` (optional): bytes `save_state` needs now.
 *
 * Pre: as for `reset`; `size` is valid for one write. Called right before `save_state`.
 * Post: on [`STATUS_OK`], `*size` is the length the following `save_state` writes (at most
 * 4 GiB; the host refuses more).
 */

/**
 * `save_state` (optional): writes the opaque state (what a resumed run needs to continue bit
 * for bit).
 *
 * Pre: as for `reset`; `data` is valid for writes of `capacity` bytes (the size the
 * preceding `state_size` reported), `written` for one write.
 * Post: on [`STATUS_OK`], `data[..*written]` holds the state, `*written <= capacity`, and the
 * instance is unchanged. [`STATUS_BAD_VALUE`] when `capacity` is too small. The bytes are
 * opaque to the host, which stores them in checkpoints and hands them back to `load_state` of
 * the same plugin and algorithm, possibly in another process.
 */

/**
 * `load_state` (optional): replaces everything learned by a state saved by the same plugin
 * and algorithm.
 *
 * Pre: as for `reset`; `data` is readable for `len` bytes during the call (may be null when
 * `len` is 0).
 * Post: on [`STATUS_OK`], the following solves equal those of the instance that saved the
 * state, bit for bit. [`STATUS_BAD_VALUE`] for a state it does not recognise.
 */

/**
 * `log(context, level, message)`: a NUL-terminated UTF-8 message at a `LOG_*` level.
 *
 * Pre (plugin): `context` is the table's; `message` is readable up to its NUL during the call.
 * Called during `create`/`solve`, from the calling thread or a thread the plugin spawned for
 * that call. Post (host): the message is copied; the host escapes control characters, caps the
 * length (1 KiB) and the number of messages per call.
 */

/**
 * `cancelled(context)`: non-zero when the solve should stop as soon as possible (user stop,
 * SIGINT, or the node's time limit passed).
 *
 * Pre (plugin): as for `log`. Post (host): returns at once (an atomic load), so the plugin
 * may poll it once per iteration.
 */

/**
 * `progress(context, fraction, message)`: estimated fraction done in `[0, 1]` and an optional
 * (nullable) short message.
 *
 * Pre (plugin): as for `log`; `message` is null or readable up to its NUL. Post (host): the
 * fraction is clamped to `[0, 1]` (a non-finite one reads as 0); the message may be ignored.
 */

/**
 * `fetch_suite(context, name, version)`: a suite table of that name and version, or null.
 *
 * Pre (plugin): as for `log`; `name` is readable up to its NUL. Post (host): null when the
 * suite is not offered in this call, else a table valid until the call into the plugin
 * returns (never keep it); its `size` says which of its entries are present.
 */

/**
 * Description of one port.
 */
typedef struct PortDesc {
  /**
   * Name, `[a-z0-9_]{1,32}`, unique among the kind's ports of the same direction.
   */
  const char *name;
  /**
   * One-sentence help.
   */
  const char *help;
  /**
   * [`PORT_INPUT`] or [`PORT_OUTPUT`].
   */
  uint32_t direction;
  /**
   * One of the `DATA_*` tags.
   */
  DataKindTag data_kind;
  /**
   * `PORT_*` flags.
   */
  uint32_t flags;
} PortDesc;

/**
 * Description of one node kind.
 */
typedef struct NodeKindDesc {
  /**
   * Kind name, `[a-z0-9_]{1,32}`; not a built-in node's kind.
   */
  const char *name;
  /**
   * Editor label.
   */
  const char *label;
  /**
   * Palette category (`"Forces"`).
   */
  const char *category;
  /**
   * One-paragraph help text, citing the method.
   */
  const char *help;
  /**
   * Ports (null only when `port_count` is 0): at least one output.
   */
  const struct PortDesc *ports;
  /**
   * Number of ports (at most [`MAX_PORTS`]).
   */
  uint32_t port_count;
  /**
   * Parameter schemas, as for solver algorithms (null only when `param_count` is 0).
   */
  const struct ParamDesc *params;
  /**
   * Number of parameters (at most [`crate::MAX_PARAMS`]).
   */
  uint32_t param_count;
  /**
   * The largest acceleration the node adds (m/s²), for the time-step bound; 0 when unknown.
   */
  double acceleration_hint;
} NodeKindDesc;

/**
 * `describe`: fills `out` with node kind `index`'s description.
 *
 * Pre: `index < kind_count`; `out` is valid for one write and zeroed by the host. Any thread,
 * possibly concurrently.
 * Post: on [`crate::STATUS_OK`], `*out` is filled; its strings and arrays stay valid and
 * unchanged while the library is loaded and satisfy the limits of [`NodeKindDesc`],
 * [`PortDesc`] and [`ParamDesc`] (the host refuses the library otherwise).
 */

/**
 * `create`: an instance of node kind `index` with resolved parameters.
 *
 * Pre and post: as the solver suite's [`crate::CreateFn`] (parameters by name, missing ones
 * mean their defaults, unknown names are [`crate::STATUS_BAD_VALUE`]; `*instance` written only
 * on success).
 */

/**
 * What the host tells a node about the step being evaluated.
 */
typedef struct NodeContext {
  /**
   * Cells per axis (`nk = 1` in 2D).
   */
  uint32_t dims[3];
  /**
   * 2 or 3.
   */
  uint32_t dimension;
  /**
   * Cell size in metres.
   */
  float dx;
  /**
   * This substep's time step in seconds.
   */
  float dt;
  /**
   * Simulation time at the start of the substep, seconds.
   */
  double time;
  /**
   * Substep counter since the start (seed randomness with it, never with a clock).
   */
  uint64_t step;
  /**
   * Frame being simulated (0-based).
   */
  uint32_t frame;
  /**
   * Reserved, zero.
   */
  uint32_t reserved;
} NodeContext;

/**
 * Particles: `count` particles, positions and velocities as `3·count` floats (x, y, z per
 * particle; z = 0 in 2D), ids as `count` integers (null when the particles carry no ids).
 */
typedef struct ParticlesView {
  /**
   * Number of particles.
   */
  uint64_t count;
  /**
   * Positions in metres (`3·count`); writable in outputs.
   */
  float *position;
  /**
   * Velocities in m/s (`3·count`); writable in outputs.
   */
  float *velocity;
  /**
   * Ids (`count`, or null): read-only even in outputs (the host checks them).
   */
  const uint64_t *ids;
} ParticlesView;

/**
 * MAC face velocity on a grid of `dims` cells, and which faces hold valid values (1) (from
 * particles, the projection or extrapolation).
 */
typedef struct FaceVelocityView {
  /**
   * Cells per axis (`nk = 1` in 2D).
   */
  uint32_t dims[3];
  /**
   * x components on x faces (`(ni+1)·nj·nk`).
   */
  float *u;
  /**
   * y components on y faces (`ni·(nj+1)·nk`).
   */
  float *v;
  /**
   * z components on z faces (`ni·nj·(nk+1)`).
   */
  float *w;
  /**
   * Valid-face masks, same lengths as the components; read-only even in outputs (an output
   * keeps its input's masks).
   */
  const uint8_t *valid_u;
  /**
   * As `valid_u`, for `v`.
   */
  const uint8_t *valid_v;
  /**
   * As `valid_u`, for `w`.
   */
  const uint8_t *valid_w;
} FaceVelocityView;

/**
 * A scalar per cell (`ni·nj·nk` floats): a scalar field, a level set, a solid's distance.
 */
typedef struct CellFieldView {
  /**
   * Cells per axis.
   */
  uint32_t dims[3];
  /**
   * Values (`ni·nj·nk`); writable in outputs.
   */
  float *data;
} CellFieldView;

/**
 * A cell kind per cell (`ni·nj·nk` bytes, each one of `CELL_*`).
 */
typedef struct CellKindsView {
  /**
   * Cells per axis.
   */
  uint32_t dims[3];
  /**
   * Kinds (`ni·nj·nk`); writable in outputs.
   */
  uint8_t *data;
} CellKindsView;

/**
 * The value of one port in an `eval` call. Exactly the member its kind names is meaningful.
 */
typedef union PortViewUnion {
  /**
   * [`DATA_PARTICLES`].
   */
  struct ParticlesView particles;
  /**
   * [`DATA_FACE_VELOCITY`].
   */
  struct FaceVelocityView velocity;
  /**
   * [`DATA_CELL_SCALAR`], [`DATA_LEVEL_SET`], [`DATA_SOLIDS_SDF`].
   */
  struct CellFieldView field;
  /**
   * [`DATA_CELL_KINDS`].
   */
  struct CellKindsView cells;
} PortViewUnion;

/**
 * One port's data in an `eval` call.
 */
typedef struct PortData {
  /**
   * The port's `DATA_*` tag (as declared).
   */
  DataKindTag data_kind;
  /**
   * 1 when the port has a value; 0 for an unconnected optional input and for an input whose
   * value an output [`PORT_FROM_INPUT`] holds (then `view` is zeroed).
   */
  uint32_t present;
  /**
   * The view of the kind `data_kind` names.
   */
  union PortViewUnion view;
} PortData;

/**
 * `eval`: evaluates one substep.
 *
 * Pre: `instance` came from `create` of this table, is alive and not in use on another thread;
 * `context` is valid for reads; `ports` points to `port_count` entries, one per declared port,
 * inputs and outputs in declaration order, each of its declared kind; every present view's
 * arrays have the lengths their kind documents for `context.dims` (particles: their `count`);
 * input arrays are read-only, output arrays writable. Everything is valid during the call only.
 * Post: on [`crate::STATUS_OK`], every output holds the node's result: finite, ids and counts
 * untouched, cell kinds valid, and nothing written outside the output arrays' documented
 * lengths (the host checks each, a guard of canary bytes after every output array included,
 * and fails the run otherwise). The plugin keeps
 * no pointer into `ports`, `context` or `services`. On an error status the outputs are
 * discarded and `error` says why.
 * Returns [`crate::STATUS_OK`], [`crate::STATUS_FAILED`], [`crate::STATUS_BAD_VALUE`],
 * [`crate::STATUS_CANCELLED`] or [`crate::STATUS_PANIC`] (never called again afterwards).
 */

/**
 * First field of every plugin table, in every ABI version. Never reorder or remove fields.
 */
typedef struct PluginHeader {
  /**
   * [`ABI_VERSION`] the plugin was built against. Checked first.
   */
  uint32_t abi_version;
  /**
   * `size_of::<PluginTable>()` in the plugin, for a second layout check.
   */
  uint32_t table_size;
  /**
   * API implemented: [`PRESSURE_SOLVER_API`].
   */
  const char *api;
  /**
   * Stable plugin id, `[a-z0-9_-]{1,32}`: `"pcg"`, `"multigrid"`.
   */
  const char *id;
  /**
   * Human-readable name.
   */
  const char *name;
  /**
   * Plugin version string (semver).
   */
  const char *version;
} PluginHeader;

/**
 * The function table a plugin exports. Reached only through [`ENTRY_SYMBOL`].
 */
typedef struct PluginTable {
  /**
   * Identity and version; checked before anything else.
   */
  struct PluginHeader header;
  /**
   * Number of algorithms (at most [`MAX_ALGORITHMS`]); valid indices are
   * `0..algorithm_count`.
   */
  uint32_t algorithm_count;
  /**
   * Required.
   */
  DescribeFn describe;
  /**
   * Required.
   */
  CreateFn create;
  /**
   * Required.
   */
  SolveFn solve;
  /**
   * Required.
   */
  DestroyFn destroy;
  /**
   * Required (a stateless plugin returns [`STATUS_OK`]).
   */
  ResetFn reset;
  /**
   * Optional, with `save_state` and `load_state`: all three or none. Without them a resumed
   * run re-creates the instance (the host says so).
   */
  StateSizeFn state_size;
  /**
   * Optional (see `state_size`).
   */
  SaveStateFn save_state;
  /**
   * Optional (see `state_size`).
   */
  LoadStateFn load_state;
} PluginTable;

/**
 * Signature of [`ENTRY_SYMBOL`].
 *
 * Pre: called once per load, on the host's loading thread (or in a probe child process),
 * before anything else of the library.
 * Post: returns a non-null pointer to a [`PluginTable`] that stays valid and unchanged while
 * the library is loaded; no other side effects (no threads started, no files written).
 */

/**
 * The node suite's function table. Reached only through [`NODE_ENTRY_SYMBOL`]. Required:
 * `describe`, `create`, `eval`, `destroy`, `reset`; `state_size`, `save_state`, `load_state`
 * are all three or none. `destroy`, `reset` and the state entries have the solver suite's
 * contracts ([`crate::DestroyFn`], [`crate::ResetFn`], [`crate::StateSizeFn`],
 * [`crate::SaveStateFn`], [`crate::LoadStateFn`]) on node instances.
 */
typedef struct NodeTable {
  /**
   * Identity and version; `abi_version` is [`NODE_ABI_VERSION`], `api` is [`NODE_API`].
   */
  struct PluginHeader header;
  /**
   * Number of node kinds (1 to [`MAX_NODE_KINDS`]).
   */
  uint32_t kind_count;
  /**
   * Required.
   */
  NodeDescribeFn describe;
  /**
   * Required.
   */
  NodeCreateFn create;
  /**
   * Required.
   */
  NodeEvalFn eval;
  /**
   * Required.
   */
  DestroyFn destroy;
  /**
   * Required (a stateless node returns [`crate::STATUS_OK`]).
   */
  ResetFn reset;
  /**
   * Optional, with `save_state` and `load_state`.
   */
  StateSizeFn state_size;
  /**
   * Optional (see `state_size`).
   */
  SaveStateFn save_state;
  /**
   * Optional (see `state_size`).
   */
  LoadStateFn load_state;
} NodeTable;

/**
 * Signature of [`NODE_ENTRY_SYMBOL`].
 *
 * Pre: called once per load on the host's loading thread (or in a probe child), possibly after
 * the solver entry of the same library.
 * Post: returns a non-null pointer to a [`NodeTable`] that stays valid and unchanged while the
 * library is loaded; no other side effects.
 */

/**
 * `rank(context)` / `ranks(context)`: this rank's index and the number of ranks.
 */

/**
 * Which cells of the global grid the local arrays hold (all counts in cells / layers).
 */
typedef struct SlabLayout {
  /**
   * Axis the slabs are cut along: 2 in 3D, 1 in 2D (the outermost axis).
   */
  uint32_t axis;
  /**
   * Layers owned by this rank.
   */
  uint32_t owned;
  /**
   * Ghost layers below the owned ones (0 on the first rank).
   */
  uint32_t ghost_lo;
  /**
   * Ghost layers above the owned ones (0 on the last rank).
   */
  uint32_t ghost_hi;
  /**
   * Global index (along `axis`) of the first owned layer.
   */
  uint32_t first;
  /**
   * Reserved, zero.
   */
  uint32_t reserved;
  /**
   * Cells per axis of the whole (global) grid.
   */
  uint32_t global_dims[3];
} SlabLayout;

/**
 * `layout(context, out)`: writes this rank's [`SlabLayout`]; returns a `STATUS_*`.
 */

/**
 * `all_reduce_*_f64(context, values, n)`: replaces each of the `n` values by its sum (or
 * maximum; NaN counts as +∞) over all ranks; returns a `STATUS_*`.
 */

/**
 * `halo_exchange_f64(context, field, layers)`: `field` is a local cell field (the local
 * arrays' length); fills the `layers` ghost layers nearest the owned ones on each side from
 * the neighbours' owned layers (`layers` ≤ the ghost layers held); returns a `STATUS_*`.
 */

/**
 * `all_gather_owned_f64(context, local, global)`: every rank receives the whole global field:
 * `global` (the global cell count) gets each rank's owned cells of `local` (the local arrays'
 * length) at their global indices. For coarse problems gathered to every rank; returns a
 * `STATUS_*`.
 */

/**
 * `all_gather_blocks_f64(context, local, local_len, global, capacity, total)`: every rank's
 * `local_len` values concatenated in rank order into `global` (room for `capacity` values);
 * `*total` receives the concatenation's length. The blocks may differ in length (a coarse
 * grid's layers owned by each rank); `STATUS_BAD_VALUE` on every rank when the total exceeds
 * `capacity` on any. Returns a `STATUS_*`.
 */

/**
 * `gather_blocks_f64(context, root, local, local_len, global, capacity, total)`: rank `root`
 * receives every rank's `local_len` values concatenated in rank order into `global` (room for
 * `capacity` values) and their length in `*total`; the other ranks pass their block only
 * (`global` may be null with `capacity` 0) and get `*total = 0`. `STATUS_BAD_VALUE` on the
 * root alone when the concatenation exceeds `capacity` (nothing written). Returns a `STATUS_*`.
 */

/**
 * `scatter_blocks_f64(context, root, global, lens, local, capacity, received)`: the inverse
 * of `gather_blocks_f64`. On rank `root`, `lens` holds one length per rank and `global`
 * their concatenation in rank order (other ranks pass null for both); every rank receives its
 * block into `local` (room for `capacity` values) and its length in `*received`.
 * `STATUS_BAD_VALUE` on a rank whose block exceeds its `capacity` (nothing written there,
 * `*received` still set), so a root that could not fill a block sends an empty one and every
 * rank expecting values learns of it. Returns a `STATUS_*`.
 */

/**
 * The distributed suite, version 1 (see the module docs for the layout contract).
 */
typedef struct DistributedSuite {
  /**
   * `size_of::<DistributedSuite>()` in the host.
   */
  uint32_t size;
  /**
   * [`DISTRIBUTED_SUITE_VERSION`].
   */
  uint32_t version;
  /**
   * Opaque host pointer passed back to every entry.
   */
  void *context;
  /**
   * This rank's index, `0..ranks`.
   */
  RankFn rank;
  /**
   * Number of ranks.
   */
  RankFn ranks;
  /**
   * This rank's slab of the problem being solved.
   */
  LayoutFn layout;
  /**
   * Global sums.
   */
  AllReduceFn all_reduce_sum_f64;
  /**
   * Global maxima.
   */
  AllReduceFn all_reduce_max_f64;
  /**
   * Ghost-layer refresh of a local cell field.
   */
  HaloExchangeFn halo_exchange_f64;
  /**
   * The whole field on every rank.
   */
  AllGatherFn all_gather_owned_f64;
  /**
   * Variable-length blocks, concatenated on every rank (appended; present when `size`
   * covers it).
   */
  AllGatherBlocksFn all_gather_blocks_f64;
  /**
   * Variable-length blocks, concatenated on one rank (appended).
   */
  GatherBlocksFn gather_blocks_f64;
  /**
   * Variable-length blocks from one rank, one to each rank (appended with the gather).
   */
  ScatterBlocksFn scatter_blocks_f64;
} DistributedSuite;

/**
 * The pressure problem on a structured grid ([`PROBLEM_STRUCTURED`]).
 *
 * Every array is non-null with one entry per cell, `ni·nj·nk`, x fastest: cell `(i, j, k)` is
 * index `i + ni·(j + nj·k)`. Unknowns are the [`CELL_FLUID`] cells; on [`CELL_AIR`] and
 * [`CELL_SOLID`] cells `diag`, `rhs` and the couplings are 0 and `pressure` must be left 0.
 * The matrix `A` is symmetric positive (semi-)definite
 * with a 7-point (3D) or 5-point (2D) stencil: `diag[c]` is `A[c][c]`, and `off_x[c]` is
 * `A[c][c+x̂]` (the coupling to the +x neighbour, ≤ 0, zero unless both cells are fluid);
 * likewise `off_y`, `off_z`. The host scales the system so that `A` has O(1) entries
 * (`diag` ≈ number of open faces) and `rhs[c] = -Σ face fluxes` (velocity units). The
 * host turns `p` back into physical pressure and applies the gradient.
 *
 * Linear problems ask for `A p = rhs` on fluid cells. Where `complementarity[c] != 0` and the
 * call asks for an LCP (`lcp != 0`), the row becomes `0 <= p[c] ⊥ (A p - rhs)[c] >= 0`
 * (Lai et al. eq. 3.7-3.11 with `b = -rhs`).
 *
 * A region of fluid with no air cell and no Dirichlet term is pure Neumann (singular): its
 * `rhs` may be incompatible; solvers project it onto the range and return the solution
 * with zero mean over that region.
 */
typedef struct PressureProblem {
  /**
   * Cells per axis `[ni, nj, nk]`; `nk == 1` in 2D.
   */
  uint32_t dims[3];
  /**
   * 2 or 3.
   */
  uint32_t dimension;
  /**
   * Cell size in metres (for solvers that rediscretise coarse levels).
   */
  double dx;
  /**
   * Non-zero: solve the LCP on cells flagged in `complementarity`.
   */
  uint32_t lcp;
  /**
   * Index of the time step this solve belongs to (for solvers that keep state).
   */
  uint64_t step;
  /**
   * Cell kinds (`CELL_*`), `ni*nj*nk` entries.
   */
  const uint8_t *cell_kind;
  /**
   * Matrix diagonal, per cell (0 outside fluid).
   */
  const float *diag;
  /**
   * `A[c][c+x̂]`, per cell.
   */
  const float *off_x;
  /**
   * `A[c][c+ŷ]`, per cell.
   */
  const float *off_y;
  /**
   * `A[c][c+ẑ]`, per cell (all zero in 2D).
   */
  const float *off_z;
  /**
   * Right-hand side, per cell (0 outside fluid).
   */
  const double *rhs;
  /**
   * Liquid signed distance at cell centres (negative inside), in metres.
   */
  const float *liquid_phi;
  /**
   * Solid signed distance at cell centres (negative inside a solid), in metres.
   */
  const float *solid_phi;
  /**
   * Per-cell flag: this fluid cell touches a solid and may separate from it (set S of Lai).
   */
  const uint8_t *complementarity;
  /**
   * Open fraction in `[0, 1]` of the face between cell `c` and `c + x̂` (1 = no solid in the
   * face, 0 = closed by a solid; Batty, Bertails & Bridson 2007), per cell.
   */
  const float *face_open_x;
  /**
   * Open fraction of the face between `c` and `c + ŷ`, per cell.
   */
  const float *face_open_y;
  /**
   * Open fraction of the face between `c` and `c + ẑ`, per cell (all zero in 2D).
   */
  const float *face_open_z;
  /**
   * In: initial guess (previous step's pressure). Out: the solution. Per cell.
   */
  double *pressure;
} PressureProblem;

/**
 * A general sparse problem ([`PROBLEM_CSR`]): `A p = rhs` with `A` in compressed sparse rows,
 * any sparsity pattern (tall-cell grids, unstructured meshes, reordered systems).
 *
 * - `row_ptr` has `rows + 1` entries, `row_ptr[0] = 0`, non-decreasing, `row_ptr[rows] = nnz`;
 *   `col_idx` and `values` have `nnz` entries; column indices are `< rows` and strictly
 *   increasing within a row; every row stores its diagonal.
 * - With `symmetric != 0` the host guarantees `A = Aᵀ` (both triangles are stored) and that
 *   `A` is positive definite, or positive semi-definite with zero row sums exactly on
 *   pure-Neumann components (connected components with no row whose diagonal exceeds the sum
 *   of its off-diagonal magnitudes); there `rhs` may be incompatible and solvers return the
 *   projected, zero-mean solution, as for structured problems. Symmetric-only methods (CG,
 *   Cholesky) refuse `symmetric == 0` with [`super::STATUS_UNSUPPORTED`].
 * - `row_flags` is null (no flags) or has `rows` entries of `ROW_*` bits. With `lcp != 0`
 *   the rows flagged [`ROW_COMPLEMENTARITY`] read `0 <= p ⊥ (A p - rhs) >= 0`.
 */
typedef struct CsrProblem {
  /**
   * Number of rows (= unknowns).
   */
  uint32_t rows;
  /**
   * Non-zero: `A` is symmetric (see above).
   */
  uint32_t symmetric;
  /**
   * Non-zero: solve the LCP on rows flagged [`ROW_COMPLEMENTARITY`].
   */
  uint32_t lcp;
  /**
   * Reserved, zero.
   */
  uint32_t reserved;
  /**
   * Index of the time step this solve belongs to.
   */
  uint64_t step;
  /**
   * Number of stored entries.
   */
  uint64_t nnz;
  /**
   * Row starts, `rows + 1` entries.
   */
  const uint64_t *row_ptr;
  /**
   * Column of each entry.
   */
  const uint32_t *col_idx;
  /**
   * Value of each entry.
   */
  const double *values;
  /**
   * Right-hand side, `rows` entries.
   */
  const double *rhs;
  /**
   * Null or `rows` entries of `ROW_*` bits.
   */
  const uint8_t *row_flags;
  /**
   * In: initial guess. Out: the solution. `rows` entries.
   */
  double *pressure;
} CsrProblem;

/**
 * A pressure problem on a restricted tall-cell grid ([`PROBLEM_TALLCELL`], Chentanez & Müller
 * 2011): the assembled system in `csr` (any CSR solver can take it alone) plus the geometry a
 * geometric multigrid coarsens.
 *
 * Columns stand on a height map, index `i + nx·k` (`nz = 1` in 2D). Each holds `regular + 2`
 * samples at cell centres: slot 0 the tall cell's bottom (row `terrain`), slot 1 its top (row
 * `terrain + tall − 1`), slot `s ≥ 2` the regular cell at row `terrain + tall + s − 2`; sample
 * index `column·(regular + 2) + slot`. Inside a tall cell a quantity is the linear mix of its
 * bottom and top. Solids: rows below `terrain` are solid; the face between two columns is open
 * in row `y` by `clamp(y + 1 − top, 0, 1)` with `top` from `face_top_x/z` (the solid fraction
 * of the face's cells), and the domain walls are closed; rows at or above `height` are outside
 * (the lid). `phi` is the liquid level set at every sample (negative inside, metres); row `r`
 * of `csr` is the unknown at sample `row_sample[r]`.
 */
typedef struct TallCellProblem {
  /**
   * The assembled system, rows and unknowns as documented on [`CsrProblem`].
   */
  struct CsrProblem csr;
  /**
   * 2 (columns along x) or 3 (columns on an x-z height map).
   */
  uint32_t dimension;
  /**
   * Columns along x and z (`[nx, 1]` in 2D).
   */
  uint32_t columns[2];
  /**
   * Regular cells per column (the paper's `B_y`).
   */
  uint32_t regular;
  /**
   * Domain height in cells (the lid).
   */
  uint32_t height;
  /**
   * Reserved, zero.
   */
  uint32_t reserved;
  /**
   * Cell size in metres.
   */
  double dx;
  /**
   * Terrain height per column, whole cells (`H`).
   */
  const uint32_t *terrain;
  /**
   * Tall-cell height per column in cells, at least 2 (`h`).
   */
  const uint32_t *tall;
  /**
   * Solid top of each x face in cells (fractional), `(nx + 1)·nz` entries, face
   * `f + (nx + 1)·k` between columns `f − 1` and `f`.
   */
  const float *face_top_x;
  /**
   * Solid top of each z face, `nx·(nz + 1)` entries, face `i + nx·k` between columns
   * `i + nx·(k − 1)` and `i + nx·k`; null in 2D.
   */
  const float *face_top_z;
  /**
   * Level set at every sample (metres, negative in the liquid).
   */
  const float *phi;
  /**
   * Sample of each row, `csr.rows` entries.
   */
  const uint32_t *row_sample;
} TallCellProblem;

/**
 * The implicit viscosity step on a MAC grid ([`PROBLEM_VISCOSITY`]; Batty & Bridson 2008):
 * find the new face velocities `u` minimising
 * `½ Σ_f V_f (u_f − u*_f)² + Δt Σ ν V ‖ε(u)‖²` (ε the discrete strain rate, `V` the liquid
 * fractions of the control volumes), i.e. solve the assembled SPD system `A u = rhs` in `csr`.
 *
 * # The system (`csr`)
 * - Rows are the unknown face velocities of all axes; row `r` is face `row_face[r]` of axis
 *   `row_axis[r]` (faces of one axis are numbered as a dense grid, below).
 * - `csr.symmetric = 1`: `A = Aᵀ` positive definite (every row has `A_rr ≥ V_f > 0`); the
 *   unknown vector is **`csr.pressure`, which holds velocities here** (m/s, in: the velocity
 *   before the step, a good initial guess; out: the solution). It keeps the embedded CSR
 *   layout so any CSR solver takes the system unchanged.
 * - Units: rows are scaled by `1/ρ`: `A = diag(V_f) + Δt Dᵀ (2 ν V) D` is dimensionless and
 *   `rhs = V_f u*` minus the known (solid and dry) faces' couplings, in m/s.
 * - `csr.lcp = 0` and `csr.row_flags` is null.
 * - Positive definite, not diagonally dominant (shear couples the components with both
 *   signs): no component is pure Neumann and solvers project nothing. The embedded system is
 *   therefore not handed on as a [`super::PROBLEM_CSR`] problem, whose rule would take
 *   components without a dominant row for singular ones.
 *
 * # The grid (for geometric solvers; `csr` alone defines the problem)
 * - Cells `dims = [ni, nj, nk]` (`nk = 1` in 2D), size `dx` (m); grids are dense, x fastest.
 * - Faces of axis `a` form a grid of `dims + e_a` entries (`(ni+1)·nj·nk` for x):
 *   face `(i, j, k)` of axis `a` lies between cells `(i, j, k) − e_a` and `(i, j, k)`.
 * - `face_row[a]` maps each face to its row or [`NO_ROW`]; `face_weight[a]` is the face's
 *   liquid volume fraction `V_f` in `[0, 1]`. Null for `a = 2` in 2D.
 * - `cell_weight` (per cell) is the liquid fraction of the cell's control volume, the weight
 *   of the diagonal strains `ε_aa`; `viscosity` (per cell) is the kinematic viscosity ν
 *   (m²/s) at the cell centre.
 * - `edge_weight[c]` is the liquid fraction of the control volume of the edges along axis
 *   `c`, the weight of the shear strain `ε_ab` (`a, b ≠ c`): a grid of `dims + 1 − e_c`
 *   entries (edge `(i, j, k)` along z lies at `(i·dx, j·dx, (k + ½)·dx)`). In 2D only
 *   `edge_weight[2]` is set (the grid nodes, `(ni+1)·(nj+1)` entries); the others are null.
 * - Solid walls are no-slip and enter the matrix only (a one-sided difference to the wall at
 *   the solid's signed distance); the weights above do not describe them.
 */
typedef struct ViscosityProblem {
  /**
   * The assembled SPD system (see above).
   */
  struct CsrProblem csr;
  /**
   * 2 or 3.
   */
  uint32_t dimension;
  /**
   * Cells per axis.
   */
  uint32_t dims[3];
  /**
   * Cell size (m).
   */
  double dx;
  /**
   * Time step (s).
   */
  double dt;
  /**
   * Axis of each row's face, `csr.rows` entries (0, 1 or 2).
   */
  const uint8_t *row_axis;
  /**
   * Index of each row's face in its axis's face grid, `csr.rows` entries.
   */
  const uint32_t *row_face;
  /**
   * Row of every face, per axis (null for z in 2D).
   */
  const uint32_t *face_row[3];
  /**
   * Liquid fraction of every face's control volume, per axis (null for z in 2D).
   */
  const float *face_weight[3];
  /**
   * Liquid fraction of every cell's control volume, `ni·nj·nk` entries.
   */
  const float *cell_weight;
  /**
   * Kinematic viscosity at every cell centre (m²/s), `ni·nj·nk` entries.
   */
  const float *viscosity;
  /**
   * Liquid fraction of the edge control volumes, per edge axis (see above).
   */
  const float *edge_weight[3];
} ViscosityProblem;

/**
 * The pressure problem with rigid bodies coupled into it ([`PROBLEM_COUPLED`]; Batty,
 * Bertails & Bridson 2007, §4): solve
 *
 * `(A + J C Jᵀ) p = rhs`
 *
 * on the fluid cells of `grid`, where `A` and `rhs` are exactly those of the structured
 * problem `grid` (read its documentation: cell kinds, stencil, signs, pressure in/out) and
 * the bodies add one symmetric positive semi-definite low-rank term each.
 *
 * # The bodies' terms
 * - Each of the `body_count` bodies has `dofs` degrees of freedom: 3 in 2D (`vx, vy, ωz`),
 *   6 in 3D (`vx, vy, vz, ωx, ωy, ωz`); `dofs` is 3 when `grid.dimension` is 2, else 6.
 * - `J` has `body_count · dofs` sparse columns; column `q = body · dofs + d` is the flux out
 *   of each fluid cell per unit of the body's velocity in degree of freedom `d` (in the
 *   scaled units of `rhs`). Its entries are `column_cells[e]` (a cell index into the grid,
 *   `i + ni·(j + nj·k)`, always a [`super::CELL_FLUID`] cell, strictly increasing within a
 *   column) and `column_values[e]` (finite) for `e` in `column_start[q] .. column_start[q+1]`
 *   (`column_start` has `body_count · dofs + 1` entries, starts at 0, never decreases, and
 *   its last entry is the entry count). A column may be empty (a body out of the liquid).
 * - `weight` holds each body's `dofs × dofs` block of `C`, row-major, one block after the
 *   other (`body_count · dofs²` entries): `C_b = ρ dxᵈ M_b⁻¹` with `M_b` the body's mass
 *   matrix (mass on the velocities, world-axes inertia tensor on the spin), so each block is
 *   symmetric positive definite and blocks of different bodies do not couple. Apply the term
 *   as `out += J (C (Jᵀ x))`, one block per body.
 * - The coupled operator is symmetric positive definite wherever `A` is, and positive
 *   semi-definite like `A` on pure-Neumann regions of `grid`, which solvers treat as for the
 *   structured kind (project the right-hand side, return zero mean over the region).
 * - After the solve the host moves each body by `C Jᵀ p`; solvers return only `p`.
 * - `grid.lcp` is 0: the coupled kind is linear.
 *
 * # Solving it
 * A preconditioned CG applies `A + J C Jᵀ` in the outer iteration and may precondition with
 * any preconditioner of `A` alone (the bodies' term is low rank). A direct solver may use the
 * Woodbury identity over its factorisation of `A`:
 * `p = x − Y S⁻¹ Jᵀ x` with `x = A⁻¹ rhs`, `Y = A⁻¹ J`, `S = C⁻¹ + Jᵀ Y`.
 */
typedef struct CoupledProblem {
  /**
   * The structured problem (`A`, `rhs`, the pressure in and out).
   */
  struct PressureProblem grid;
  /**
   * Number of bodies (0 is allowed: the structured problem alone).
   */
  uint32_t body_count;
  /**
   * Degrees of freedom per body: 3 in 2D, 6 in 3D.
   */
  uint32_t dofs;
  /**
   * Start of each column's entries, `body_count · dofs + 1` entries.
   */
  const uint64_t *column_start;
  /**
   * Cell of each entry (`column_start[body_count · dofs]` entries).
   */
  const uint32_t *column_cells;
  /**
   * Value of each entry (as many).
   */
  const double *column_values;
  /**
   * Each body's `dofs × dofs` block of `C`, row-major, `body_count · dofs²` entries.
   */
  const double *weight;
} CoupledProblem;

/**
 * A real number.
 */
#define PARAM_FLOAT 0

/**
 * An integer (passed as f64 holding an integral value).
 */
#define PARAM_INT 1

/**
 * A boolean (0.0 or 1.0).
 */
#define PARAM_BOOL 2

/**
 * One of `choices` (passed as the f64 index of the choice).
 */
#define PARAM_CHOICE 3

/**
 * Marker particles: positions, velocities and ids ([`ParticlesView`]).
 */
#define DATA_PARTICLES 0

/**
 * MAC face velocity with its valid-face masks ([`FaceVelocityView`]).
 */
#define DATA_FACE_VELOCITY 1

/**
 * A scalar field on cells ([`CellFieldView`]).
 */
#define DATA_CELL_SCALAR 2

/**
 * The liquid's signed distance on cells, negative inside ([`CellFieldView`]).
 */
#define DATA_LEVEL_SET 3

/**
 * Cell kinds, one of `CELL_*` per cell ([`CellKindsView`]).
 */
#define DATA_CELL_KINDS 4

/**
 * Solids as their signed distance at cell centres, negative inside ([`CellFieldView`]). Input
 * only.
 */
#define DATA_SOLIDS_SDF 5

#endif  /* FLIPGRAPH_H */
